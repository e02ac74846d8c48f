# Attack: a root agent whose uid 0 is uid 0 on the host too (no user namespace mapping).
# Must hold: uid 0 inside the sandbox is never uid 0 outside; the test also checks, from the host,
# that the owner of .attacks/uid-probe (created here) is not root.
. "$(dirname "$0")/lib.sh"
attack uid-outside "the agent's uid outside the sandbox is not 0"
echo probe > "$(dirname "$0")/uid-probe" 2>/dev/null
uid=$(id -u)
map=$(tr -s ' ' < /proc/self/uid_map | sed 's/^ //')
# identity map (no user namespace) while uid 0: the agent is host root
[ "$uid" = 0 ] && [ "$map" = "0 0 4294967295" ] && broken "uid 0 with identity uid_map ($map)"
held
