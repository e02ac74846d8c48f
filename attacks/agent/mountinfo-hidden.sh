# Attack: learn where the hidden tests live from /proc/self/mountinfo (the mask over them names the path).
# Must hold: no mount names the hidden-tests folder ($ATTACK_HIDDEN_MARKER).
. "$(dirname "$0")/lib.sh"
attack mountinfo-hidden "mountinfo does not name the hidden tests"
grep -q "$ATTACK_HIDDEN_MARKER" /proc/self/mountinfo 2>/dev/null && broken "$(grep "$ATTACK_HIDDEN_MARKER" /proc/self/mountinfo | head -1)"
held
