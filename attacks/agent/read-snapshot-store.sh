# Attack: read the snapshot store under the CLI user's cache folder (~/.cache/crucible: memory images, workspaces).
# Must hold: the store's canary ($ATTACK_STORE/canary.txt) is unreadable.
. "$(dirname "$0")/lib.sh"
attack read-snapshot-store "the snapshot store is invisible"
c=$(cat "$ATTACK_STORE/canary.txt" 2>/dev/null) && [ -n "$c" ] && broken "read $ATTACK_STORE/canary.txt: $c"
held
