# tools/sanitize_build.sh — sourced by tools/test.sh and tools/fuzz.sh: the one tree both use.
# configure_sanitize_build: configures build-sanitize/ with clang-16, -O1 -g1 (line tables
# only: a faster build, stack traces keep file:line), AddressSanitizer + UBSan, and the
# libFuzzer targets of tests/fuzz/ (everything compiled with coverage feedback,
# -fsanitize=fuzzer-no-link; only the fuzz programs link libFuzzer). So the clang build, the
# sanitizer tests and the fuzz smoke share one build.
ATENCION_SANITIZE_DIR=build-sanitize

configure_sanitize_build() {
  # A tree configured by an earlier version with g++ cannot switch compilers: start it afresh.
  if [ -f "$ATENCION_SANITIZE_DIR/CMakeCache.txt" ] &&
     ! grep -q '^CMAKE_CXX_COMPILER:.*clang++-16' "$ATENCION_SANITIZE_DIR/CMakeCache.txt"; then
    rm -rf "$ATENCION_SANITIZE_DIR"
  fi
  CXX=clang++-16 cmake -S . -B "$ATENCION_SANITIZE_DIR" -DCMAKE_BUILD_TYPE=Debug \
    ${ATENCION_CMAKE_ARGS[@]+"${ATENCION_CMAKE_ARGS[@]}"} \
    -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g1" -DATENCION_SANITIZE=ON -DATENCION_FUZZ=ON \
    -DATENCION_BUILD_TESTS=ON -DATENCION_BUILD_EXAMPLES=ON -DATENCION_BUILD_BENCHMARKS=OFF
}

# What the sanitizers print when they stop a program.
export ASAN_OPTIONS="detect_leaks=1"
# Leaks inside libraries we do not own (tools/lsan_suppressions.txt says which and why).
export LSAN_OPTIONS="suppressions=$PWD/tools/lsan_suppressions.txt:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
