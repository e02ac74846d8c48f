# Shared by every agent attack: one verdict line per attack on stdout (the attempt's agent.log),
#   ATTACK <name> HELD: <what holds>      or      ATTACK <name> BROKEN: <evidence>
# The test reads these lines and also checks the host side (canary files, listeners) itself.
# Values from the test (host paths, ports) come from env.sh beside this file.
. "$(dirname "$0")/env.sh"
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
attack() { ATTACK_NAME=$1; ATTACK_HOLD=$2; }
broken() { echo "ATTACK $ATTACK_NAME BROKEN: $*"; exit 0; }
held() { echo "ATTACK $ATTACK_NAME HELD: $ATTACK_HOLD"; exit 0; }
# Unmounts the sandbox's /proc (once: a second umount would take the host's /proc below it away again)
# so that, where this works, the host's process table shows through.
reveal_host_proc() {
  [ -n "$CLI_PID" ] && [ -e "/proc/$CLI_PID" ] && return 0
  umount /proc 2>/dev/null || umount -l /proc 2>/dev/null
  return 0
}
