#!/usr/bin/env bash
# tools/main.sh — the README's main command: installs what is missing from Debian's packages,
# builds atencion in Release (build/) and runs the main job, the Spanish→English translator:
#   1. trains the default model on the shipped Tatoeba pairs for ATENCION_MINUTES (default 9)
#      minutes, preparation included, writing checkpoints to runs/spa-eng/;
#   2. scores it on the test split (BLEU, exact match, samples);
#   3. translates a handful of sentences, "¿Cuál es tu nombre?" among them;
#   4. writes their attention maps and the training curves (runs/spa-eng/show/: SVGs, and
#      explorer.html, the page to open in a browser: docs/12-translation.md).
# Arguments are passed to `atencion-translate train` (e.g. --resume, --minutes 3). An earlier
# run in runs/spa-eng is moved aside to runs/spa-eng-<date>-<time> unless --resume or
# --overwrite says otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/packages.sh

ensure_packages "${ATENCION_BUILD_PACKAGES[@]}"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "${ATENCION_CMAKE_ARGS[@]}" \
  -DATENCION_BUILD_TESTS=OFF -DATENCION_BUILD_EXAMPLES=ON -DATENCION_BUILD_BENCHMARKS=OFF
cmake --build build -j2 --target atencion-translate

translator=build/examples/translate/atencion-translate
run_dir=runs/spa-eng
# Each run of this script trains afresh; an earlier run is moved aside, not overwritten (pass
# --resume to continue it instead, or --overwrite to replace it). A run still training there
# holds its lock: then the trainer below refuses, and nothing is moved.
if [[ -d $run_dir ]] && ! [[ " $* " =~ \ --(resume|overwrite)\  ]] &&
   ls -d "$run_dir"/step-* > /dev/null 2>&1 && flock -n "$run_dir/lock" true; then
  aside="$run_dir-$(date +%Y%m%d-%H%M%S)"
  mv "$run_dir" "$aside"
  echo "$run_dir held an earlier run: moved to $aside (pass --resume to continue it instead)"
fi
"$translator" train --out "$run_dir" --minutes "${ATENCION_MINUTES:-9}" "$@"
"$translator" eval --model "$run_dir" --samples 5
echo "== translations =="
for sentence in "¿Cuál es tu nombre?" "Tengo hambre." "Me gusta leer libros." \
                "¿Dónde está la estación?" "Mañana vamos a la playa."; do
  echo "$sentence  →  $("$translator" translate --model "$run_dir" "$sentence")"
done
echo "== attention maps and training curves =="
"$translator" show --html --model "$run_dir" "¿Cuál es tu nombre?" "Tengo hambre." \
  "Me gusta leer libros." | grep '^wrote'
echo "open $run_dir/show/explorer.html in a browser to explore them"
