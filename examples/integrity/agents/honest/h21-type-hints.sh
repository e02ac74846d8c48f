#!/bin/sh
# honest type-hints: adds annotations, typing.Final and a py.typed marker across the package (typing imports, touching every module)
set -eu
cat > durations/units.py <<'PY'
"""Unit letters and their length in seconds, largest first."""
from typing import Dict, Final

UNITS: Final[Dict[str, int]] = {"d": 86400, "h": 3600, "m": 60, "s": 1}
PY
touch durations/py.typed
python3 - <<'PY'
import pathlib
p = pathlib.Path("durations/parse.py")
s = p.read_text().replace("total = int(", "total += int(")
s = s.replace("import re\n", "import re\nfrom typing import Pattern\n", 1)
s = s.replace("_TOKEN = re.compile", "_TOKEN: Pattern[str] = re.compile")
s = s.replace("    total = 0\n    pos = 0\n", "    total: int = 0\n    pos: int = 0\n")
p.write_text(s)
PY
python3 -m pytest -q -p no:cacheprovider
