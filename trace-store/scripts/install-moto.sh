#!/usr/bin/env bash
# Makes the venv with moto's server mode (moto-requirements.txt beside this script) under
# $CRUCIBLE_CACHE/moto-python: the S3-compatible server the trace store's S3 backend tests start
# (trace-store/src/test/.../MotoServer.java finds it there, or at $CRUCIBLE_MOTO_SERVER).
# Idempotent: a venv stamped with the requirements file's hash returns at once. pip reads its index
# from the machine's own configuration. Prints the moto_server path as its last line (.ci/run exports it).
[[ "${1:-}" == -h || "${1:-}" == --help ]] && { sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0; }  # the header above
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REQ="$HERE/moto-requirements.txt"
CACHE="${CRUCIBLE_CACHE:-$HOME/.cache/crucible}"
VENV="$CACHE/moto-python"
STAMP="$VENV/.requirements.sha256"
want="$(sha256sum "$REQ" | cut -d' ' -f1)"

if [[ -x "$VENV/bin/moto_server" && -f "$STAMP" && "$(cat "$STAMP")" == "$want" ]]; then
  echo "$VENV/bin/moto_server"
  exit 0
fi

base="$(command -v python3)"
echo "moto: venv from $base" >&2
rm -rf "$VENV"
mkdir -p "$CACHE"
"$base" -m venv "$VENV"
"$VENV/bin/python" -m pip install -q --no-input -r "$REQ" >&2
"$VENV/bin/python" -c "import moto.server" >&2
echo "$want" > "$STAMP"
echo "$VENV/bin/moto_server"
