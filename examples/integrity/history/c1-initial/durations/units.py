"""Unit letters and their length in seconds, largest first."""
UNITS = {"d": 86400, "h": 3600, "m": 60, "s": 1}
