#!/usr/bin/env bash
# tools/exercise.sh — build a "write it yourself" exercise with YOUR implementation in place of
# ours and run the tests that judge it (docs/exercises.md).
#
#   tools/exercise.sh                     list the exercises
#   tools/exercise.sh NAME                judge exercises/NAME/mine.cpp (made from the starter
#                                         the first time; git ignores it)
#   tools/exercise.sh NAME FILE           judge FILE, a .cpp of your own anywhere
#   tools/exercise.sh NAME solution|wrong judge our solution, or the deliberately wrong version
#   tools/exercise.sh NAME FILE -- ARGS   pass ARGS to the judge (Catch2: a test name, -s, ...)
#
# Uses the Release tree build/ of the README (ATENCION_BUILD_DIR to choose another); builds the
# library once, then only your file and the judge. The exit status is the judge's.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${ATENCION_BUILD_DIR:-build}

exercises=()
for dir in exercises/*/; do
  [[ -f $dir/judge.cpp ]] && exercises+=("$(basename "$dir")")
done

if [[ $# -eq 0 ]]; then
  echo "usage: tools/exercise.sh NAME [FILE | solution | wrong] [-- judge arguments]"
  echo "exercises (docs/exercises.md):"
  printf '  %s\n' "${exercises[@]}"
  exit 0
fi

name=$1
shift
if [[ ! -f exercises/$name/judge.cpp ]]; then
  echo "tools/exercise.sh: no exercise '$name'; there are: ${exercises[*]}" >&2
  exit 2
fi

file=exercises/$name/mine.cpp
if [[ $# -gt 0 && $1 != "--" ]]; then
  case $1 in
    solution | wrong | starter) file=exercises/$name/$1.cpp ;;
    *) file=$1 ;;
  esac
  shift
fi
[[ $# -gt 0 && $1 == "--" ]] && shift

if [[ $file == "exercises/$name/mine.cpp" && ! -f $file ]]; then
  cp "exercises/$name/starter.cpp" "$file"
  echo "== made $file from the starter: write your answer there, then run this again"
fi
if [[ ! -f $file ]]; then
  echo "tools/exercise.sh: no file '$file'" >&2
  exit 2
fi
file=$(realpath "$file")

echo "== exercise $name: judging $file"
# Point the exercise's program at the file (a cache variable: later builds keep it), and build
# only what it needs.
mkdir -p "$build_dir"
log=$build_dir/exercise-configure.log
cmake -S . -B "$build_dir" -DATENCION_BUILD_TESTS=ON "-DATENCION_EXERCISE_FILE_$name=$file" \
  > "$log" 2>&1 || { cat "$log" >&2; exit 2; }
# A file judged earlier and deleted since is forgotten (exercises/CMakeLists.txt): say so.
grep -h "no longer exists" "$log" | sed 's/^-- /== /' || true
cmake --build "$build_dir" -j"${ATENCION_JOBS:-2}" --target "exercise_$name"
"$build_dir/exercises/exercise_$name" "$@"
