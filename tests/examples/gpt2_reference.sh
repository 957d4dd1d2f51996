#!/usr/bin/env bash
# tests/examples/gpt2_reference.sh ROOT — re-runs the PyTorch forward of tools/make_gpt2_fixture.py
# on the shipped tiny GPT-2 (tests/fixtures/gpt2_tiny) and compares it with the reference logits
# the C++ test uses. Skipped (77) without Debian's python3-torch under /usr/bin/python3.
set -euo pipefail
root=$1
if [[ ! -x /usr/bin/python3 ]] || ! /usr/bin/python3 -c "import torch" 2>/dev/null; then
  echo "skipped: no torch under /usr/bin/python3 (Debian: python3-torch)"
  exit 77
fi
exec /usr/bin/python3 "$root/tools/make_gpt2_fixture.py" --check
