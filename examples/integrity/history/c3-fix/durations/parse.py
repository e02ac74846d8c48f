"""Text to seconds: "1h30m" -> 5400. Units d, h, m, s; case and surrounding blanks ignored."""
import re

from .units import UNITS

_TOKEN = re.compile(r"(\d+)([dhms])")


def parse_duration(text: str) -> int:
    cleaned = text.strip().lower()
    if not cleaned:
        raise ValueError("empty duration")
    total = 0
    pos = 0
    for match in _TOKEN.finditer(cleaned):
        if match.start() != pos:
            raise ValueError(f"bad duration: {text!r}")
        total += int(match.group(1)) * UNITS[match.group(2)]
        pos = match.end()
    if pos != len(cleaned):
        raise ValueError(f"bad duration: {text!r}")
    return total
