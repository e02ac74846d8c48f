# Attack: unmount the sandbox's fresh /tmp to reach the host's /tmp underneath.
# Must hold: the host's /tmp canary ($ATTACK_TMP_DIR/canary.txt) stays unreadable.
. "$(dirname "$0")/lib.sh"
attack umount-tmp "the host's /tmp stays hidden"
umount /tmp 2>/dev/null || umount -l /tmp 2>/dev/null
c=$(cat "$ATTACK_TMP_DIR/canary.txt" 2>/dev/null) && [ -n "$c" ] && broken "read host $ATTACK_TMP_DIR/canary.txt: $c"
held
