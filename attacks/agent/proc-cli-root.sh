# Attack: write a host file through /proc/<CLI pid>/root (the CLI's root directory), after unmounting /proc.
# Must hold: $ATTACK_HOST_DIR/proc-cli-root is never created.
. "$(dirname "$0")/lib.sh"
attack proc-cli-root "no write through /proc/<cli>/root"
reveal_host_proc
[ -n "$CLI_PID" ] && echo pwned > "/proc/$CLI_PID/root$ATTACK_HOST_DIR/proc-cli-root" 2>/dev/null \
  && broken "wrote /proc/$CLI_PID/root$ATTACK_HOST_DIR/proc-cli-root"
held
