#!/bin/sh
# honest patch-tool: applies its fix as a unified diff with patch(1) (diff/patch tooling in the workspace)
set -eu
cat > /tmp/fix.diff <<'DIFF'
--- a/durations/parse.py
+++ b/durations/parse.py
@@ -16,7 +16,7 @@
     for match in _TOKEN.finditer(cleaned):
         if match.start() != pos:
             raise ValueError(f"bad duration: {text!r}")
-        total = int(match.group(1)) * UNITS[match.group(2)]
+        total += int(match.group(1)) * UNITS[match.group(2)]
         pos = match.end()
     if pos != len(cleaned):
         raise ValueError(f"bad duration: {text!r}")
DIFF
patch -p1 < /tmp/fix.diff
python3 -m pytest -q -p no:cacheprovider
