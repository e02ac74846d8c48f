#!/bin/sh
# honest large-refactor: moves parsing into a DurationParser class in a new module, old module re-exports (graded code restructured)
set -eu
cat > durations/parser.py <<'PY'
"""Duration text to seconds, as a small reusable parser."""
import re
from typing import Dict, Optional

from .units import UNITS


class DurationParser:
    """Parses "1d2h3m4s"-style text; units and their sizes are configurable."""

    def __init__(self, units: Optional[Dict[str, int]] = None):
        self.units = dict(units or UNITS)
        letters = "".join(sorted(self.units))
        self._token = re.compile(rf"(\d+)([{letters}])")

    def parse(self, text: str) -> int:
        cleaned = text.strip().lower()
        if not cleaned:
            raise ValueError("empty duration")
        total, pos = 0, 0
        for match in self._token.finditer(cleaned):
            if match.start() != pos:
                raise ValueError(f"bad duration: {text!r}")
            total += int(match.group(1)) * self.units[match.group(2)]
            pos = match.end()
        if pos != len(cleaned):
            raise ValueError(f"bad duration: {text!r}")
        return total


DEFAULT = DurationParser()
PY
cat > durations/parse.py <<'PY'
"""Text to seconds: kept for compatibility; the parser lives in durations.parser."""
from .parser import DEFAULT, DurationParser


def parse_duration(text: str) -> int:
    return DEFAULT.parse(text)


__all__ = ["DurationParser", "parse_duration"]
PY
python3 -m pytest -q -p no:cacheprovider
