#!/bin/sh
# honest test-loop: runs pytest over and over (-x, -k, -v, -q, --co, by node id) while iterating on the fix
set -eu
for i in 1 2 3; do python3 -m pytest -q -p no:cacheprovider || true; done
python3 -m pytest --co -q -p no:cacheprovider
python3 -m pytest -x -q -p no:cacheprovider -k parse || true
sed -i 's/^        total = int(match.group(1))/        total += int(match.group(1))/' durations/parse.py
for args in "-q" "-v" "-x" "-k format" "tests/test_parse.py::test_single_units" "-rA"; do
    python3 -m pytest -p no:cacheprovider $args
done
