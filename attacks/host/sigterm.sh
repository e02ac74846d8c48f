# Attack: make the CLI's SIGTERM path hard. .git/HEAD becomes a FIFO (a monitor blocked on it once held up the
# exit), and a process leaves the agent's group (setsid) and ignores TERM and HUP. The test then sends SIGTERM
# to the CLI. Must hold: the CLI exits (143) with result.json reason Interrupted, and leaves no process, state
# folder, cgroup or mount behind.
. "$(dirname "$0")/lib.sh"
attack sigterm
rm -f .git/HEAD && mkfifo .git/HEAD
setsid sh -c "trap '' TERM HUP; exec sleep $ATTACK_MARKER" </dev/null >/dev/null 2>&1 &
planted "FIFO at .git/HEAD, a setsid sleeper ignoring TERM (sleep $ATTACK_MARKER)"
exec sleep "$ATTACK_MARKER"
