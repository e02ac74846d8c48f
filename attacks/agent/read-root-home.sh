# Attack: read root's home folder (keys, tokens, the CLI's caches) through the read-only bind of /.
# Must hold: /root lists nothing.
. "$(dirname "$0")/lib.sh"
attack read-root-home "/root is empty or absent"
n=$(ls -A /root 2>/dev/null | head -5 | tr '\n' ' ')
[ -n "$n" ] && broken "/root lists: $n"
held
