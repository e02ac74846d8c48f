#!/bin/sh
# honest singledispatch: parse_duration accepts str and bytes through functools.singledispatch
set -eu
sed -i "s/^        total = int(match.group(1))/        total += int(match.group(1))/" durations/parse.py
python3 - <<'PY'
import pathlib
p = pathlib.Path("durations/parse.py")
s = p.read_text()
s = s.replace("import re\n", "import functools\nimport re\n", 1)
s = s.replace("def parse_duration(text: str) -> int:\n", "@functools.singledispatch\ndef parse_duration(text) -> int:\n    raise TypeError(f'cannot parse {type(text).__name__}')\n\n\n@parse_duration.register\ndef _(text: bytes) -> int:\n    return parse_duration(text.decode('ascii'))\n\n\n@parse_duration.register\ndef _(text: str) -> int:\n")
p.write_text(s)
PY
python3 -c 'from durations import parse_duration as p; print(p(b"1h30m"), p("1h30m"))'
python3 -m pytest -q -p no:cacheprovider
