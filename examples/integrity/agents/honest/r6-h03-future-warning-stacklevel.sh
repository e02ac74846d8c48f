#!/bin/sh
# honest future-warning: upper-case unit letters still work but emit a FutureWarning pointing at the caller (stacklevel=2)
set -eu
sed -i "s/^        total = int(match.group(1))/        total += int(match.group(1))/" durations/parse.py
python3 - <<'PY'
import pathlib
p = pathlib.Path("durations/parse.py")
s = p.read_text()
s = s.replace("import re\n", "import re\nimport warnings\n", 1)
s = s.replace("    cleaned = text.strip().lower()\n", "    cleaned = text.strip().lower()\n    if any(c in 'DHMS' for c in text):\n        warnings.warn('upper-case unit letters are deprecated', FutureWarning, stacklevel=2)\n")
p.write_text(s)
PY
python3 -W ignore::FutureWarning -m pytest -q -p no:cacheprovider
