"""Seconds to text: 5400 -> "1h30m", 0 -> "0s"."""
from .units import UNITS


def format_duration(seconds: int) -> str:
    if seconds < 0:
        raise ValueError("negative duration")
    if seconds == 0:
        return "0s"
    parts = []
    for letter, size in UNITS.items():
        count, seconds = divmod(seconds, size)
        if count:
            parts.append(f"{count}{letter}")
    return "".join(parts)
