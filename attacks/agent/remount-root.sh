# Attack: remount the read-only / read-write (a root agent keeps CAP_SYS_ADMIN) and write a host file.
# Must hold: / stays read-only; $ATTACK_HOST_DIR/remount-root is never created.
. "$(dirname "$0")/lib.sh"
attack remount-root "/ cannot be remounted read-write"
mount -o remount,rw / 2>/dev/null; mount -o remount,bind,rw / 2>/dev/null
echo pwned > "$ATTACK_HOST_DIR/remount-root" 2>/dev/null && broken "remounted / and wrote $ATTACK_HOST_DIR/remount-root"
held
