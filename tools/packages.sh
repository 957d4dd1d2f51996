# tools/packages.sh — sourced by tools/main.sh, tools/test.sh and tools/learn.sh.
# ensure_packages PKG...: installs, from Debian's archive, those of PKG that are missing.
# Runs apt-get as root, or through sudo when not root; `apt-get update` only when something
# is missing; never prompts (DEBIAN_FRONTEND=noninteractive, -y).

ensure_packages() {
  local missing=() package
  for package in "$@"; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
      missing+=("$package")
    fi
  done
  if [ ${#missing[@]} -eq 0 ]; then
    return 0
  fi

  local as_root=()
  if [ "$(id -u)" -ne 0 ]; then
    if ! command -v sudo >/dev/null 2>&1; then
      echo "error: missing Debian packages (${missing[*]}) and not root; no sudo to install them." >&2
      echo "Install them as root: apt-get install ${missing[*]}" >&2
      return 1
    fi
    as_root=(sudo)
  fi
  echo "Installing missing Debian packages: ${missing[*]}"
  "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
  "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
    "${missing[@]}"
}

# What building the library and the programs needs (OpenMP comes with g++; Open MPI for
# data-parallel training, nn/distributed.h; jemalloc, the programs' allocator, cmake/jemalloc.cmake;
# GNU libmicrohttpd, the HTTP server of `serve`, examples/base/serve/ and docs/17-serving.md).
ATENCION_BUILD_PACKAGES=(g++ cmake make pkg-config nlohmann-json3-dev libsentencepiece-dev libcli11-dev
  libopenmpi-dev openmpi-bin libjemalloc-dev libmicrohttpd-dev)
# What the tests and benchmarks add (chromium and python3: the attention explorer's test
# renders its page in headless Chromium and checks the DOM, tests/examples/explorer_in_chromium.sh;
# clang 16 with its OpenMP, sanitizer and libFuzzer runtimes: the sanitizer and fuzz build,
# tools/sanitize_build.sh; selenium with chromium-driver: the live page's browser test,
# tests/examples/serve_in_chromium.py).
ATENCION_TEST_PACKAGES=(catch2 libbenchmark-dev chromium python3
                        clang-16 libomp-16-dev libclang-rt-16-dev libfuzzer-16-dev
                        python3-selenium chromium-driver)

# The configure arguments every tools/*.sh passes to cmake: a compiler cache when ccache is
# installed (not installed by us: Debian's `ccache` package), so that a rebuild after a change,
# or in a second build tree, compiles only what changed. CCACHE_DISABLE=1 turns it off for one
# command (the cold build times of the README are measured so).
ATENCION_CMAKE_ARGS=()
if command -v ccache > /dev/null; then
  ATENCION_CMAKE_ARGS+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
