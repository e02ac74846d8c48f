#!/bin/sh
# honest int-subclass: parse_duration returns Seconds(int) with .minutes/.hours helpers and a friendly repr; equality is int's own
set -eu
sed -i "s/^        total = int(match.group(1))/        total += int(match.group(1))/" durations/parse.py
python3 - <<'PY'
import pathlib
p = pathlib.Path("durations/parse.py")
s = p.read_text()
s = s.replace('_TOKEN = re.compile', '''class Seconds(int):
    """A number of seconds, with a few conversions."""
    __slots__ = ()

    @property
    def minutes(self):
        return self / 60

    @property
    def hours(self):
        return self / 3600

    def __repr__(self):
        return f"Seconds({int(self)})"


_TOKEN = re.compile''')
s = s.replace("    return total\n", "    return Seconds(total)\n")
p.write_text(s)
PY
python3 -m pytest -q -p no:cacheprovider
