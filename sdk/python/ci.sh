#!/usr/bin/env bash
# The SDK's CI step (.ci/run runs it after the Maven build, which made cli/target/crucible-cli.jar):
# a venv under $CRUCIBLE_CACHE/sdk-python with the pinned dev tools and mini-swe-agent (its adapter's test),
# reinstalled only when pyproject.toml changes (pip uses this machine's own configuration for its index);
# then `pip install ./sdk/python` as a user would, mypy --strict, and the pytest suite against real
# `crucible run --port` processes.
# CRUCIBLE_SDK_BENCH=1 also runs the 64-episode benchmark (minutes; prints its figures).
[[ "${1:-}" == -h || "${1:-}" == --help ]] && { sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0; }  # the header above
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CACHE="${CRUCIBLE_CACHE:-$HOME/.cache/crucible}"
VENV="$CACHE/sdk-python"
STAMP="$VENV/.pyproject.sha256"
want="$(sha256sum "$HERE/pyproject.toml" | cut -d' ' -f1)"

if [[ ! -x "$VENV/bin/python" || ! -f "$STAMP" || "$(cat "$STAMP")" != "$want" ]]; then
  base=""
  for v in 3.11 3.12 3.10 3.13; do  # a pyenv CPython when there is one, else python3 (>= 3.10)
    c="$(ls -d "${PYENV_ROOT:-$HOME/.pyenv}"/versions/$v.*/bin/python 2>/dev/null | sort -V | tail -n1 || true)"
    if [[ -n "$c" && -x "$c" ]]; then base="$c"; break; fi
  done
  base="${base:-$(command -v python3)}"
  rm -rf "$VENV"
  mkdir -p "$CACHE"
  "$base" -m venv "$VENV"
  "$VENV/bin/python" -m pip install -q --no-input "$HERE[dev,minisweagent]"
  echo "$want" > "$STAMP"
fi
"$VENV/bin/python" -m pip install -q --no-input --no-deps --force-reinstall "$HERE"

cd "$HERE"
echo "--- mypy --strict"
"$VENV/bin/python" -m mypy --strict --cache-dir "$CACHE/sdk-mypy-cache" src tests tools bench
echo "--- pytest"
PATH="$VENV/bin:$PATH" "$VENV/bin/python" -m pytest -p no:cacheprovider -q tests
if [[ "${CRUCIBLE_SDK_BENCH:-0}" == 1 ]]; then
  echo "--- benchmark"
  "$VENV/bin/python" bench/bench_steps.py
fi
