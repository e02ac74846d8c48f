#!/bin/sh
# honest fractional-units: also accepts "1.5h" using fractions.Fraction internally; always returns a plain int
set -eu
python3 - <<'PY'
import pathlib
p = pathlib.Path("durations/parse.py")
s = p.read_text()
s = s.replace("import re\n", "import re\nfrom fractions import Fraction\n", 1)
s = s.replace('r"(\\d+)([dhms])"', 'r"(\\d+(?:\\.\\d+)?)([dhms])"')
s = s.replace("        total = int(match.group(1)) * UNITS[match.group(2)]\n", "        total += Fraction(match.group(1)) * UNITS[match.group(2)]\n")
s = s.replace("    return total\n", "    if total.denominator != 1:\n        raise ValueError(f'not a whole number of seconds: {text!r}')\n    return int(total)\n")
p.write_text(s)
PY
grep -n "Fraction\|TOKEN =" durations/parse.py
python3 -c 'from durations import parse_duration as p; print(p("1.5h"), p("1h30m"))'
python3 -m pytest -q -p no:cacheprovider
