#!/usr/bin/env bash
# tests/repository/no_machine_paths.sh SOURCE_DIR — no tracked file names an absolute path of
# the machine it was written on (a clone elsewhere has no such folder: name a notebook by its
# number and title, docs/notebooks.md, and a file by its path in the repository).
# Exits 77 (CTest: skipped) when SOURCE_DIR is not a git checkout or git is missing.
set -euo pipefail
source_dir=${1:?usage: no_machine_paths.sh SOURCE_DIR}
command -v git >/dev/null || { echo "git not installed: skipped"; exit 77; }
git -C "$source_dir" rev-parse --is-inside-work-tree >/dev/null 2>&1 ||
  { echo "$source_dir is not a git checkout: skipped"; exit 77; }

# The patterns are built from pieces so that this file does not match itself.
slash=/
patterns=("${slash}work${slash}" "${slash}root${slash}")
home=${HOME:-}
if [[ -n $home && $home != "$slash" && " ${patterns[*]} " != *" ${home%/}${slash} "* ]]; then
  patterns+=("${home%/}${slash}")
fi
grep_arguments=()
for pattern in "${patterns[@]}"; do grep_arguments+=(-e "$pattern"); done

cd "$source_dir"
# -I skips binary files; -F: the patterns are plain text.
if git ls-files -z | xargs -0 grep -H -n -I -F "${grep_arguments[@]}" --; then
  echo "FAIL: the lines above name an absolute path of this machine (${patterns[*]})"
  exit 1
fi
echo "no tracked file names ${patterns[*]} ($(git ls-files | wc -l) files read)"
