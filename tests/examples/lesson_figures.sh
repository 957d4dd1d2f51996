#!/usr/bin/env bash
# tests/examples/lesson_figures.sh WALKTHROUGH DOCS_DIR WORK_DIR — the figures a lesson prints
# are the walk-through's output as it is today.
#
# In docs/*.md, a fenced block right after the line
#     <!-- output of attention_walkthrough -->
# quotes the output of examples/attention_walkthrough. This test runs the walk-through and
# checks that every such block appears in its output as consecutive lines (leading and
# trailing spaces aside), so a change to the code that moves a printed figure fails here until
# the lesson is updated. It fails, too, if no lesson quotes the walk-through at all.
set -euo pipefail
walkthrough=${1:?usage: lesson_figures.sh WALKTHROUGH DOCS_DIR WORK_DIR}
docs_dir=${2:?usage: lesson_figures.sh WALKTHROUGH DOCS_DIR WORK_DIR}
work_dir=${3:?usage: lesson_figures.sh WALKTHROUGH DOCS_DIR WORK_DIR}
mkdir -p "$work_dir"
"$walkthrough" --out "$work_dir/svg" > "$work_dir/output.txt"

awk '
  function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); return s }
  # The walk-through output, one trimmed line per entry.
  NR == FNR { out[++n] = trim($0); next }
  FNR == 1 { marked = 0; inside = 0 }
  /<!-- output of attention_walkthrough -->/ { marked = 1; start = FNR; next }
  marked && !inside && /^```/ { inside = 1; lines = 0; next }
  marked && !inside {
    printf "%s:%d: the marker is not followed by a fenced block\n", FILENAME, start
    bad++; marked = 0; next
  }
  inside && /^```/ {
    inside = 0; marked = 0; blocks++
    found = 0
    for (i = 1; i + lines - 1 <= n && !found; i++) {
      ok = 1
      for (j = 1; j <= lines && ok; j++) if (out[i + j - 1] != block[j]) ok = 0
      if (ok) found = 1
    }
    if (!found) {
      printf "%s:%d: this block is not in the walk-through output (%d lines):\n",
             FILENAME, start, lines
      for (j = 1; j <= lines; j++) {
        seen = 0; for (i = 1; i <= n; i++) if (out[i] == block[j]) seen = 1
        printf "  %s %s\n", seen ? "   " : "-> ", block[j]
      }
      bad++
    }
    next
  }
  inside { block[++lines] = trim($0) }
  END {
    if (blocks == 0) { print "no lesson quotes the walk-through: the markers are gone"; exit 1 }
    if (bad) {
      printf "%d of %d quoted blocks differ from the output (lines marked -> are not in it)\n",
             bad, blocks
      exit 1
    }
    printf "all %d quoted blocks are in the walk-through output\n", blocks
  }
' "$work_dir/output.txt" "$docs_dir"/*.md
