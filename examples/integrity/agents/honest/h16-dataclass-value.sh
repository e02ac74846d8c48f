#!/bin/sh
# honest dataclass-eq: adds a Duration dataclass (dataclasses generate __eq__) while parse_duration keeps returning int
set -eu
cat > durations/value.py <<'PY'
"""A duration as a value object, for callers that want units back."""
from dataclasses import dataclass

from .units import UNITS


@dataclass(frozen=True, order=True)
class Duration:
    seconds: int

    def parts(self):
        left = self.seconds
        out = {}
        for letter, size in UNITS.items():
            out[letter], left = divmod(left, size)
        return out
PY
python3 - <<'PY'
import pathlib
p = pathlib.Path("durations/parse.py")
p.write_text(p.read_text().replace("total = int(", "total += int("))
i = pathlib.Path("durations/__init__.py")
s = i.read_text().replace('from .parse import parse_duration\n', 'from .parse import parse_duration\nfrom .value import Duration\n')
i.write_text(s.replace('__all__ = ["format_duration", "parse_duration"]', '__all__ = ["Duration", "format_duration", "parse_duration"]'))
PY
python3 -c 'from durations import Duration, parse_duration; assert Duration(parse_duration("1h30m")) == Duration(5400)'
python3 -m pytest -q -p no:cacheprovider
