#!/usr/bin/env bash
# Builds the example environment images as OCI archives into target/images/ (no Docker):
#
#   example-python-calc.tar   crucible/examples/python-calc:<version>  (examples/python-bugfix,
#                             examples/integrity): base-python (python3, pytest, git) + the bug-fix
#                             workspace at /workspace and the scripted agents at /agents, uid 1000
#
# The name comes from the root pom (crucible.image.example-python), as examples/*.yaml use it.
# Needs the base-python archive: images/build-base.sh base-python (run here if missing).
[[ "${1:-}" == -h || "${1:-}" == --help ]] && { sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0; }  # the header above
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
CACHE="${CRUCIBLE_CACHE:-$HOME/.cache/crucible}"
OUT="${CRUCIBLE_IMAGES_OUT:-$ROOT/target/images}"
NAME="$("$HERE/pom-property" crucible.image.example-python):$("$HERE/pom-property" crucible.image.tag)"

"$HERE/build-base.sh" base-python >/dev/null
mkdir -p "$OUT"
EXAMPLE="$ROOT/examples/python-bugfix"
nice python3 "$HERE/oci_image.py" build --out "$OUT/example-python-calc.tar" --name "$NAME" \
  --base "$CACHE/images/base-python.tar" \
  --layer "$EXAMPLE/workspace:/workspace:1000" --layer "$EXAMPLE/agents:/agents:1000" \
  --user 1000 --workdir /workspace --env HOME=/home/crucible --cmd '["/bin/sh"]'
