#!/bin/sh
# honest unicode: non-ASCII docstrings, comments and error messages (naive byte-pattern rules trip on them), full-width digits rejected
set -eu
cat > durations/parse.py <<'PY'
"""Texte → secondes : « 1h30m » vaut 5400. Einheiten d, h, m, s; 大文字・空白は無視します。"""
import re

from .units import UNITS

_TOKEN = re.compile(r"([0-9]+)([dhms])")  # ASCII digits only: « １h » (full width) is refused


def parse_duration(text: str) -> int:
    cleaned = text.strip().lower()
    if not cleaned:
        raise ValueError("durée vide — empty duration")
    total = 0
    pos = 0
    for match in _TOKEN.finditer(cleaned):
        if match.start() != pos:
            raise ValueError(f"durée invalide / bad duration: {text!r}")
        total += int(match.group(1)) * UNITS[match.group(2)]  # Σ over every unit
        pos = match.end()
    if pos != len(cleaned):
        raise ValueError(f"durée invalide / bad duration: {text!r}")
    return total
PY
python3 -c 'from durations import parse_duration as p; assert p("1h30m") == 5400
try:
    p("１h")
except ValueError as e:
    print("refused:", e)'
python3 -m pytest -q -p no:cacheprovider
