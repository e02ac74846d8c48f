# Shared by the issue-34 attacks (host code that reads, copies or keeps what the agent made). Each script
# plants its thing from inside the sandbox and prints what it did and saw on agent.log:
#   ATTACK <name> PLANTED: <what>        ATTACK <name> SAW: <evidence>
# The verdict is the test's (HostSideAttacksTest): what must hold is on the host (the CLI ends, no host
# secret in any output, the host's disk use, no capability), which the agent cannot see from its box.
# Values from the test (host paths) come from env.sh beside this file.
. "$(dirname "$0")/env.sh"
planted() { echo "ATTACK $ATTACK_NAME PLANTED: $*"; }
saw() { echo "ATTACK $ATTACK_NAME SAW: $*"; }
attack() { ATTACK_NAME=$1; }
