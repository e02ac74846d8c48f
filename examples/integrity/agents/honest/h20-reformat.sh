#!/bin/sh
# honest formatting: reformats every Python file in the package (quote style, trailing blanks): many files change at once
set -eu
sed -i 's/^        total = int(match.group(1))/        total += int(match.group(1))/' durations/parse.py
python3 - <<'PY'
import pathlib
import tokenize
import io

for p in pathlib.Path("durations").glob("*.py"):
    src = p.read_text()
    out = []
    for tok in tokenize.generate_tokens(io.StringIO(src).readline):
        out.append(tok)
    lines = [line.rstrip() for line in tokenize.untokenize(out).splitlines()]
    p.write_text("\n".join(lines).rstrip("\n") + "\n")
PY
python3 -m pytest -q -p no:cacheprovider
