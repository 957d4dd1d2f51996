#!/usr/bin/env bash
# tests/examples/serve/python.sh SCRIPT ARGS... — runs SCRIPT with Debian's python3 where it is
# (python3-selenium is installed for that one), else the python3 on the PATH.
if [[ -x /usr/bin/python3 ]]; then exec /usr/bin/python3 "$@"; fi
exec python3 "$@"
