#!/bin/sh
# honest background-job: starts a long compile/test job in the background, waits for it before exiting (background processes)
set -eu
sed -i 's/^        total = int(match.group(1))/        total += int(match.group(1))/' durations/parse.py
( python3 -m compileall -q durations > /tmp/compile.log 2>&1; sleep 2; python3 -m pytest -q -p no:cacheprovider > /tmp/bg-pytest.log 2>&1; echo $? > /tmp/bg.status ) &
job=$!
echo "waiting for background job $job"
wait $job
cat /tmp/bg-pytest.log
test "$(cat /tmp/bg.status)" = 0
