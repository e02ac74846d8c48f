# Attack: write a file on the host outside the workspace (a world-writable folder under /var/tmp).
# Must hold: $ATTACK_HOST_DIR/write-host-file is never created (the test checks the host).
. "$(dirname "$0")/lib.sh"
attack write-host-file "nothing is written outside the workspace"
echo pwned > "$ATTACK_HOST_DIR/write-host-file" 2>/dev/null && broken "wrote $ATTACK_HOST_DIR/write-host-file"
held
