#!/usr/bin/env bash
# The SDK's CI step (.ci/run runs it after the Maven build, which made cli/target/crucible-cli.jar):
# a venv under $CRUCIBLE_CACHE/sdk-python with the pinned dev tools and mini-swe-agent (its adapter's test),
# reinstalled only when pyproject.toml changes (pip uses this machine's own configuration for its index);
# then `pip install ./sdk/python` as a user would, mypy --strict, and the pytest suite against real
# `crucible run --port` processes.
# Adapters whose framework needs another Python get a venv of their own under $CRUCIBLE_CACHE, made the same way:
# harbor 0.25 (Python >= 3.12) runs tests/test_harbor.py there, verifiers 0.4.0 (Python >= 3.11) tests/test_verifiers.py. If such a framework cannot be installed (no
# suitable Python, the package not served), its tests are skipped with a message that says so; a test that runs fails.
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

# adapter_venv NAME MINOR PIP_SPEC: a venv with a Python >= 3.MINOR, the dev tools and the adapter's extra; prints its
# python, or nothing (with the reason on stderr) when it cannot be made.
adapter_venv() {
  local name="$1" minor="$2" extra="$3" dir="$CACHE/sdk-python-$1" py="" v c
  if [[ -x "$dir/bin/python" && -f "$dir/.pyproject.sha256" && "$(cat "$dir/.pyproject.sha256")" == "$want" ]]; then
    echo "$dir/bin/python"; return 0
  fi
  for v in 3.12 3.13; do
    [[ "${v#3.}" -ge "$minor" ]] || continue
    c="$(ls -d "${PYENV_ROOT:-$HOME/.pyenv}"/versions/$v.*/bin/python 2>/dev/null | sort -V | tail -n1 || true)"
    if [[ -n "$c" && -x "$c" ]]; then py="$c"; break; fi
  done
  [[ -z "$py" ]] && py="$(command -v python3)"
  if ! "$py" -c "import sys; sys.exit(sys.version_info < (3, $minor))"; then
    echo "$name adapter: no Python >= 3.$minor found" >&2; return 0
  fi
  rm -rf "$dir"
  if "$py" -m venv "$dir" && "$dir/bin/python" -m pip install -q --no-input "$HERE[dev,$extra]" >"$CACHE/sdk-python-$name.log" 2>&1; then
    echo "$want" > "$dir/.pyproject.sha256"; echo "$dir/bin/python"
  else
    echo "$name adapter: pip could not install crucible-sdk[$extra] (see $CACHE/sdk-python-$name.log)" >&2; rm -rf "$dir"
  fi
}

echo "--- harbor adapter (harbor 0.25, its own venv: Python >= 3.12)"
HPY="$(adapter_venv harbor 12 harbor)"
if [[ -n "$HPY" ]]; then
  "$HPY" -m pip install -q --no-input --no-deps --force-reinstall "$HERE"
  "$HPY" -m mypy --strict --cache-dir "$CACHE/sdk-mypy-cache-harbor" src/crucible_sdk/adapters/harbor.py tests/test_harbor.py
  CRUCIBLE_SDK_HARBOR=1 "$HPY" -m pytest -p no:cacheprovider -q tests/test_harbor.py
else
  echo "SKIPPED: tests/test_harbor.py (harbor could not be installed; see the line above)"
fi
echo "--- verifiers adapter (verifiers 0.4.0, its own venv: Python >= 3.11)"
VPY="$(adapter_venv verifiers 11 verifiers)"
if [[ -n "$VPY" ]]; then
  "$VPY" -m pip install -q --no-input --no-deps --force-reinstall "$HERE"
  "$VPY" -m mypy --strict --cache-dir "$CACHE/sdk-mypy-cache-verifiers" src/crucible_sdk/adapters/verifiers.py tests/test_verifiers.py
  CRUCIBLE_SDK_VERIFIERS=1 "$VPY" -m pytest -p no:cacheprovider -q tests/test_verifiers.py
else
  echo "SKIPPED: tests/test_verifiers.py (verifiers could not be installed; see the line above)"
fi
if [[ "${CRUCIBLE_SDK_BENCH:-0}" == 1 ]]; then
  echo "--- benchmark"
  "$VENV/bin/python" bench/bench_steps.py
fi
