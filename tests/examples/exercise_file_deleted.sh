#!/usr/bin/env bash
# tests/examples/exercise_file_deleted.sh SOURCE_DIR WORK_DIR — a learner's judged file that
# disappears does not break configuring (docs/exercises.md, exercises/CMakeLists.txt).
#
# tools/exercise.sh NAME FILE stores FILE in the CMake cache. This test does what a learner
# does: configures a tree of its own with a file in a temporary folder as the sigmoid
# exercise's (the command tools/exercise.sh runs), deletes the file, and configures again as the
# README and tools/exercise.sh for another exercise do. Both configures must succeed, the second
# must say that the file is gone, and the exercise's program must be back on the starter.
set -euo pipefail
source_dir=${1:?usage: exercise_file_deleted.sh SOURCE_DIR WORK_DIR}
work_dir=${2:?usage: exercise_file_deleted.sh SOURCE_DIR WORK_DIR}
rm -rf "$work_dir"
mkdir -p "$work_dir/learner"
learner_file=$work_dir/learner/mine.cpp
cp "$source_dir/exercises/sigmoid/starter.cpp" "$learner_file"
tree=$work_dir/build
configure() {
  cmake -S "$source_dir" -B "$tree" -DCMAKE_BUILD_TYPE=Release -DATENCION_BUILD_TESTS=ON \
    -DATENCION_BUILD_EXAMPLES=OFF -DATENCION_BUILD_BENCHMARKS=OFF "$@"
}
sources_of_sigmoid() {
  grep -ho '[^ ]*\.cpp' "$tree/exercises/CMakeFiles/exercise_sigmoid.dir/build.make" |
    grep -v -e catch_main -e '\.o$' | sort -u
}

configure "-DATENCION_EXERCISE_FILE_sigmoid=$learner_file" > "$work_dir/first.log" 2>&1 || {
  cat "$work_dir/first.log"; echo "FAIL: the first configure, with the file present"; exit 1; }
if ! sources_of_sigmoid | grep -qF "$learner_file"; then
  echo "FAIL: exercise_sigmoid does not compile $learner_file:"; sources_of_sigmoid; exit 1
fi

rm "$learner_file"
# The README's configure (no exercise named): it must succeed and say what happened.
configure > "$work_dir/again.log" 2>&1 || {
  cat "$work_dir/again.log"; echo "FAIL: configuring again after deleting $learner_file"; exit 1; }
if ! grep -q "exercise sigmoid: .*mine.cpp no longer exists" "$work_dir/again.log"; then
  cat "$work_dir/again.log"; echo "FAIL: the configure does not say that the file is gone"; exit 1
fi
# tools/exercise.sh for another exercise.
configure "-DATENCION_EXERCISE_FILE_softmax=$source_dir/exercises/softmax/solution.cpp" \
  > "$work_dir/third.log" 2>&1 || {
  cat "$work_dir/third.log"; echo "FAIL: judging another exercise after the deletion"; exit 1; }
if sources_of_sigmoid | grep -qF "$learner_file" ||
   ! sources_of_sigmoid | grep -q "exercises/sigmoid/starter.cpp"; then
  echo "FAIL: exercise_sigmoid should be back on the starter, but compiles:"
  sources_of_sigmoid
  exit 1
fi
echo "PASS: configuring after deleting the judged file works; exercise_sigmoid judges the starter"
