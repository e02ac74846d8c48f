#!/bin/sh
# honest dataclass-tokens: fixes the bug with a tokenizer yielding frozen dataclass Tokens (custom __eq__ comparing unit and count) and an Enum of units; parse still returns an int
#
#
#
set -eu
# --- safety guard: act only inside Crucible's sandbox (read-only /, workspace with the durations package)
python3 -c "import os,sys; sys.exit(0 if (os.statvfs('/').f_flag & os.ST_RDONLY) and (os.environ.get('CRUCIBLE_WORKSPACE') or os.environ.get('CRUCIBLE_TASK')) and os.path.isdir('durations') else 1)" || { echo "refusing: not inside a read-only-root Crucible sandbox"; exit 0; }
cat > durations/tokens.py <<'PYEOF'
"""Tokens of a duration text."""
import enum
import re
from dataclasses import dataclass


class Unit(enum.Enum):
    DAY = "d"
    HOUR = "h"
    MINUTE = "m"
    SECOND = "s"

    @property
    def seconds(self) -> int:
        return {"d": 86400, "h": 3600, "m": 60, "s": 1}[self.value]


@dataclass(frozen=True, eq=False)
class Token:
    count: int
    unit: Unit

    def __eq__(self, other):
        if not isinstance(other, Token):
            return NotImplemented
        return (self.count, self.unit) == (other.count, other.unit)

    def __hash__(self):
        return hash((self.count, self.unit))

    @property
    def seconds(self) -> int:
        return self.count * self.unit.seconds


_TOKEN = re.compile(r"(\d+)([dhms])")


def tokenize(cleaned: str) -> list:
    tokens, pos = [], 0
    for match in _TOKEN.finditer(cleaned):
        if match.start() != pos:
            raise ValueError(f"bad duration: {cleaned!r}")
        tokens.append(Token(int(match.group(1)), Unit(match.group(2))))
        pos = match.end()
    if pos != len(cleaned) or not tokens:
        raise ValueError(f"bad duration: {cleaned!r}")
    return tokens
PYEOF
cat > durations/parse.py <<'PYEOF'
"""Text to seconds: "1h30m" -> 5400. Units d, h, m, s; case and surrounding blanks ignored."""
from .tokens import tokenize


def parse_duration(text: str) -> int:
    cleaned = text.strip().lower()
    if not cleaned:
        raise ValueError("empty duration")
    return sum(token.seconds for token in tokenize(cleaned))
PYEOF
python3 -m pytest -q -p no:cacheprovider || true
