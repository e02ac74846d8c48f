#!/bin/sh
# honest value-object: parse_duration returns a Duration (total_ordering, __eq__/__hash__ against ints and Durations, __int__/__index__)
set -eu
sed -i "s/^        total = int(match.group(1))/        total += int(match.group(1))/" durations/parse.py
python3 - <<'PY'
import pathlib
p = pathlib.Path("durations/parse.py")
s = p.read_text()
s = s.replace("import re\n", "import functools\nimport re\n", 1)
s = s.replace('_TOKEN = re.compile', '''@functools.total_ordering
class Duration:
    """Seconds as a value object that compares with plain integers."""
    __slots__ = ("seconds",)

    def __init__(self, seconds):
        self.seconds = int(seconds)

    def __eq__(self, other):
        if isinstance(other, Duration):
            return self.seconds == other.seconds
        if isinstance(other, int) and not isinstance(other, bool):
            return self.seconds == other
        return NotImplemented

    def __lt__(self, other):
        if isinstance(other, Duration):
            return self.seconds < other.seconds
        if isinstance(other, int):
            return self.seconds < other
        return NotImplemented

    def __hash__(self):
        return hash(self.seconds)

    def __int__(self):
        return self.seconds

    __index__ = __int__

    def __repr__(self):
        return f"Duration({self.seconds})"


_TOKEN = re.compile''')
s = s.replace("    return total\n", "    return Duration(total)\n")
p.write_text(s)
PY
python3 -m pytest -q -p no:cacheprovider
