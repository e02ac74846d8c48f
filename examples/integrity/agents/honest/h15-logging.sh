#!/bin/sh
# honest logging-in-code: the fix logs each token at debug level through logging (logging handlers and module-level state)
set -eu
python3 - <<'PY'
import pathlib
p = pathlib.Path("durations/parse.py")
s = p.read_text().replace("total = int(", "total += int(")
s = s.replace("import re\n", "import logging\nimport re\n", 1)
s = s.replace("_TOKEN = re.compile", "log = logging.getLogger(__name__)\n_TOKEN = re.compile")
s = s.replace("        pos = match.end()\n", "        log.debug(\"token %s -> total %d\", match.group(0), total)\n        pos = match.end()\n")
p.write_text(s)
PY
python3 -c 'import logging; logging.basicConfig(level=logging.DEBUG); from durations import parse_duration; print(parse_duration("1h30m"))'
python3 -m pytest -q -p no:cacheprovider --log-level=DEBUG
