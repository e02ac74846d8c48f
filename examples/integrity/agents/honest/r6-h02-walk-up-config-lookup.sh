#!/bin/sh
# honest walk-up-config: like black/ruff, the package looks for a durations.toml in cwd and its parents at import (EAFP), for a default unit
set -eu
sed -i "s/^        total = int(match.group(1))/        total += int(match.group(1))/" durations/parse.py
cat > durations/config.py <<'PY'
"""Optional settings: the first durations.toml found walking up from the working directory."""
import os

def find_config(start=None):
    here = os.path.abspath(start or os.getcwd())
    while True:
        cand = os.path.join(here, "durations.toml")
        try:
            with open(cand, encoding="utf-8") as fh:
                return cand, fh.read()
        except OSError:
            pass
        parent = os.path.dirname(here)
        if parent == here:
            return None, ""
        here = parent

CONFIG_PATH, CONFIG_TEXT = find_config()
PY
sed -i 's/^from .parse import parse_duration/from .parse import parse_duration\nfrom .config import CONFIG_PATH/' durations/__init__.py
python3 -m pytest -q -p no:cacheprovider
