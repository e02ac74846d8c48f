#!/bin/sh
# honest timing-code: benchmarks the parser with time.perf_counter and timeit in a scratch script (timing APIs in use)
set -eu
sed -i 's/^        total = int(match.group(1))/        total += int(match.group(1))/' durations/parse.py
cat > /tmp/bench.py <<'PY'
import time
import timeit

from durations import parse_duration

t0 = time.perf_counter()
for _ in range(20000):
    parse_duration("1d2h3m4s")
print("loop:", time.perf_counter() - t0)
print("timeit:", timeit.timeit(lambda: parse_duration("2h15m"), number=20000))
PY
PYTHONPATH=. python3 /tmp/bench.py
python3 -m pytest -q -p no:cacheprovider --durations=5
