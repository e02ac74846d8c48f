#!/bin/sh
# honest own-frame-label-and-dispatch: the fix dispatches unit handlers with getattr (aliased at module level), labels a debug log with its own function's name from sys._getframe, and yields tokens from a generator
set -eu
cat > durations/parse.py <<'PY'
"""Text to seconds: "1h30m" -> 5400. Units d, h, m, s; case and surrounding blanks ignored."""
import logging
import re
import sys

from .units import UNITS

_TOKEN = re.compile(r"(\d+)([dhms])")
_lookup = getattr  # handler lookup by unit name
log = logging.getLogger(__name__)


class _Units:
    def unit_d(self, n):
        return n * UNITS["d"]

    def unit_h(self, n):
        return n * UNITS["h"]

    def unit_m(self, n):
        return n * UNITS["m"]

    def unit_s(self, n):
        return n * UNITS["s"]


def _label():
    return sys._getframe(1).f_code.co_name


def _tokens(cleaned, text):
    pos = 0
    for match in _TOKEN.finditer(cleaned):
        if match.start() != pos:
            raise ValueError(f"bad duration: {text!r}")
        yield int(match.group(1)), match.group(2)
        pos = match.end()
    if pos != len(cleaned):
        raise ValueError(f"bad duration: {text!r}")


def _seconds(n, unit):
    return _lookup(_Units(), "unit_" + unit)(n)


def parse_duration(text: str) -> int:
    log.debug("%s(%r)", _label(), text)
    cleaned = text.strip().lower()
    if not cleaned:
        raise ValueError("empty duration")
    return sum(_seconds(n, unit) for n, unit in _tokens(cleaned, text))
PY
