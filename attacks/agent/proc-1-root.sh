# Attack: write a host file through /proc/1/root (the host's init, once the host /proc shows through).
# Must hold: $ATTACK_HOST_DIR/proc-1-root is never created.
. "$(dirname "$0")/lib.sh"
attack proc-1-root "no write through /proc/1/root"
reveal_host_proc
echo pwned > "/proc/1/root$ATTACK_HOST_DIR/proc-1-root" 2>/dev/null && broken "wrote /proc/1/root$ATTACK_HOST_DIR/proc-1-root"
held
