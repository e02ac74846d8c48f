"""Short durations such as ``1h30m``: formatting (and, soon, parsing)."""
from .format import format_duration

__all__ = ["format_duration"]
