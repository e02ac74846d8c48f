"""Text to seconds (work in progress: sum() over the tokens)."""
import re

from .units import UNITS

_TOKEN = re.compile(r"(\d+)([dhms])")


def parse_duration(text: str) -> int:
    cleaned = text.strip().lower()
    if not cleaned or _TOKEN.sub("", cleaned):
        raise ValueError(f"bad duration: {text!r}")
    return sum(int(n) * UNITS[u] for n, u in _TOKEN.findall(cleaned))
