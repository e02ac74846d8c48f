# Attack: use the capabilities a root CLI hands to its agent (no user namespace, no --cap-drop).
# Must hold: CapEff of the agent is 0 (no capability at all, even when the CLI runs as root).
. "$(dirname "$0")/lib.sh"
attack cap-eff "CapEff is 0"
eff=$(awk '/^CapEff:/ {print $2}' /proc/self/status)
[ "$eff" = 0000000000000000 ] || broken "CapEff=$eff"
held
