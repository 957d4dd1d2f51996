#!/usr/bin/env bash
# tests/repository/includes_point_down.sh SOURCE_DIR — every #include "..." of the library and
# of examples/ points downwards (docs/architecture.md#the-layers): a folder includes only
# itself and the folders below it, in this order:
#   tensor/  <  autograd/  <  nn/  <  examples/base/io/
#     <  examples/base/{data,checkpoints,pages,cli}/ (none of these four includes another)
#     <  examples/base/{training,serve,decoding,finetune}/  <  a family: examples/<name>/ (no family includes
#        another, except that the walk-through, examples/attention_walkthrough/, reads BERT's
#        published weights with the BERT family's model: it may include bert/{bert,bert_weights,
#        bert_directory,wordpiece}.h)
# Exits 1 naming each include that points up or sideways.
set -euo pipefail
source_dir=${1:?usage: includes_point_down.sh SOURCE_DIR}
cd "$source_dir"
command -v git >/dev/null && git rev-parse --is-inside-work-tree >/dev/null 2>&1 ||
  { echo "$source_dir is not a git checkout: skipped"; exit 77; }

# The folder a path (of a file, or of an include rooted at the repository or at examples/)
# belongs to, and its rank.
folder_of() {
  case $1 in
    tensor/*) echo tensor ;;
    autograd/*) echo autograd ;;
    nn/*) echo nn ;;
    examples/base/*/*) local rest=${1#examples/base/}; echo "base/${rest%%/*}" ;;
    base/*/*) local rest=${1#base/}; echo "base/${rest%%/*}" ;;
    examples/*/*) local rest=${1#examples/}; echo "family/${rest%%/*}" ;;
    */*) echo "family/${1%%/*}" ;;  # translate/train.h, included from examples/
    *) echo "" ;;
  esac
}
rank_of() {
  case $1 in
    tensor) echo 0 ;; autograd) echo 1 ;; nn) echo 2 ;; base/io) echo 3 ;;
    base/data | base/checkpoints | base/pages | base/cli) echo 4 ;;
    base/training | base/serve | base/decoding | base/finetune) echo 5 ;; family/*) echo 6 ;;
    *) echo 99 ;;
  esac
}

failures=0
checked=0
while IFS= read -r file; do
  from=$(folder_of "$file")
  from_rank=$(rank_of "$from")
  while IFS= read -r included; do
    [[ $included == */* ]] || continue  # a file of the same folder
    to=$(folder_of "$included")
    [[ -n $to ]] || continue
    checked=$((checked + 1))
    [[ $to == "$from" ]] && continue
    [[ $from == family/attention_walkthrough &&
       $included =~ ^bert/(bert|bert_weights|bert_directory|wordpiece)\.h$ ]] && continue
    to_rank=$(rank_of "$to")
    if ((to_rank >= from_rank)); then
      echo "FAIL: $file ($from) includes \"$included\" ($to): not below it"
      failures=$((failures + 1))
    fi
  done < <(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$file" | grep -v '^nlohmann/\|^CLI/\|^benchmark/')
done < <(git ls-files 'tensor/*' 'autograd/*' 'nn/*' 'examples/*' | grep -E '\.(h|cpp|in)$')

if ((checked == 0)); then
  echo "FAIL: no include read (is $source_dir the repository?)"
  exit 1
fi
if ((failures > 0)); then
  echo "$failures include(s) point up or sideways"
  exit 1
fi
echo "all $checked includes of the library and examples/ point downwards"
