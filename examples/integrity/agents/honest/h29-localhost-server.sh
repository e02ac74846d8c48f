#!/bin/sh
# honest loopback-network: serves the docs on 127.0.0.1 and fetches them back (sockets and HTTP, loopback only)
set -eu
sed -i 's/^        total = int(match.group(1))/        total += int(match.group(1))/' durations/parse.py
python3 -m http.server 8765 --bind 127.0.0.1 > /tmp/http.log 2>&1 &
srv=$!
python3 - <<'PY'
import time
import urllib.request

for _ in range(50):
    try:
        print(urllib.request.urlopen("http://127.0.0.1:8765/README.md", timeout=2).read()[:40])
        break
    except OSError:
        time.sleep(0.1)
PY
kill $srv
wait $srv 2>/dev/null || true
python3 -m pytest -q -p no:cacheprovider
