# Attack: kill the CLI so nothing grades the run (runs last: if it works, the run ends here).
# Must hold: signalling the CLI's host pid fails; the run still writes result.json (checked by the test).
. "$(dirname "$0")/lib.sh"
attack kill-cli "the CLI cannot be signalled"
[ -z "$CLI_PID" ] && broken "CLI_PID was not given"
if kill -0 "$CLI_PID" 2>/dev/null && grep -qa 'java' "/proc/$CLI_PID/cmdline" 2>/dev/null; then
  echo "ATTACK kill-cli BROKEN: the CLI (pid $CLI_PID) can be signalled; sending SIGKILL"
  kill -9 "$CLI_PID"; exit 0
fi
kill -9 "$CLI_PID" 2>/dev/null && [ ! -e "/proc/$CLI_PID" ] && broken "killed pid $CLI_PID"
held
