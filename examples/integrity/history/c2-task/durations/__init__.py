"""Short durations such as ``1h30m``: parsing and formatting."""
from .format import format_duration
from .parse import parse_duration

__all__ = ["format_duration", "parse_duration"]
