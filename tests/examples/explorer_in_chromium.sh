#!/usr/bin/env bash
# tests/examples/explorer_in_chromium.sh TRANSLATE WALKTHROUGH_PAGE WORK_DIR — the attention
# explorer in a real browser. Trains a tiny translator, writes its page with
# `atencion-translate show --html`, and loads it and the walk-through's page (written by the
# walk-through's own test, a CTest fixture of this one) in headless Chromium
# (Debian's chromium; tools/packages.sh installs it with the test packages) and checks the
# rendered DOM against the data in the page (check_explorer_dom.py): a grid of queries x keys
# cells per head with the weights in their hover titles, and a curve point per history point
# (and per dev evaluation, against time).
# Exits 77 (CTest: skipped) when Chromium is not installed.
set -euo pipefail
translate=$1
walkthrough_page=$2
work=$3
here=$(dirname "$0")
if ! command -v chromium > /dev/null; then
  echo "chromium is not installed (Debian: apt-get install chromium, or tools/packages.sh):" \
       "the explorer's browser test is skipped"
  exit 77
fi
source "$here/tiny_pairs.sh"
rm -rf "$work"
mkdir -p "$work"
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
# The page as the browser left it after running its script.
render() {
  chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
    --disable-component-update --disable-sync --no-first-run --user-data-dir="$profile" \
    --dump-dom "file://$(realpath "$1")$2" 2> "$work/chromium.log"
}

write_tiny_pairs "$work/pairs.tsv"
# A checkpoint every 20 steps: several dev-loss points for the loss chart.
"$translate" train "${TINY_MODEL[@]}" --data "$work/pairs.tsv" --out "$work/run" --epochs 2 \
  --checkpoint-every 20 --log-every 5 > "$work/train.log" 2>&1 ||
  { cat "$work/train.log"; exit 1; }
"$translate" show --model "$work/run" --html "El gato come pan." "¿El perro tiene agua?" \
  > "$work/show.log"
page="$work/run/show/explorer.html"
[[ -f $page ]] || { echo "show --html wrote no $page"; cat "$work/show.log"; exit 1; }
if grep -Eq '(src|href)="(https?:)?//' "$page"; then
  echo "the page loads something from the network"; exit 1
fi
# The URL's # picks the view: every head of layer 0's encoder-decoder attention (queries and
# keys differ in number, so rows and columns cannot be swapped unnoticed).
render "$page" "#kind=encoder-decoder%20attention&layer=0&head=all" > "$work/translate-dom.html"
python3 "$here/check_explorer_dom.py" "$work/translate-dom.html" "encoder-decoder attention" \
  all charts
# The dev evaluations against time (each checkpoint's: seconds, dev loss, BLEU) are two more
# charts, their points checked above as every chart's.
for title in "dev loss against time" "dev BLEU against time"; do
  grep -q "$title" "$work/translate-dom.html" || { echo "the page has no chart \"$title\""; exit 1; }
done

# A run shorter than its logging interval: its curves have fewer than two points, and the page
# says so instead of drawing a lone dot.
"$translate" train "${TINY_MODEL[@]}" --data "$work/pairs.tsv" --out "$work/short" --steps 3 \
  --log-every 50 > "$work/short-train.log" 2>&1 || { cat "$work/short-train.log"; exit 1; }
"$translate" show --model "$work/short" --html "El gato come pan." > "$work/short-show.log"
render "$work/short/show/explorer.html" "" > "$work/short-dom.html"
if ! grep -q 'class="note few-points">loss: .*a curve needs at least two' "$work/short-dom.html"
then
  echo "a run of 3 steps: the page does not say that its curves have too few points"; exit 1
fi

# The walk-through's page, as it opens: 8 heads of encoder self-attention, no training run.
[[ -f $walkthrough_page ]] || { echo "no $walkthrough_page: run the walk-through first"; exit 1; }
render "$walkthrough_page" "" > "$work/walkthrough-dom.html"
python3 "$here/check_explorer_dom.py" "$work/walkthrough-dom.html" "encoder self-attention" \
  all none
# Its decoder map as the average of the heads' scores before the softmax, with the pieces the
# rows produce.
render "$walkthrough_page" \
  "#sentence=1&kind=decoder%20masked%20self-attention&head=mean&values=scores" \
  > "$work/walkthrough-scores-dom.html"
python3 "$here/check_explorer_views.py" "$work/walkthrough-scores-dom.html" \
  "decoder masked self-attention"
