#!/bin/sh
# honest hand-written-parser: replaces the regex with a character-by-character parser (a large rewrite of graded code)
set -eu
cat > durations/parse.py <<'PY'
"""Text to seconds: "1h30m" -> 5400. Units d, h, m, s; case and surrounding blanks ignored."""
from .units import UNITS


def parse_duration(text: str) -> int:
    cleaned = text.strip().lower()
    if not cleaned:
        raise ValueError("empty duration")
    total = 0
    digits = ""
    for ch in cleaned:
        if ch.isdigit() and ch.isascii():
            digits += ch
        elif ch in UNITS and digits:
            total += int(digits) * UNITS[ch]
            digits = ""
        else:
            raise ValueError(f"bad duration: {text!r}")
    if digits:
        raise ValueError(f"bad duration: {text!r}")
    return total
PY
python3 -m pytest -q -p no:cacheprovider
