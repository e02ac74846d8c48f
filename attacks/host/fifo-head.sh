# Attack: replace .git/HEAD by a FIFO. The monitor's git watch opens it with a blocking read while it holds
# the monitor's lock, so the live watch, grading and Ctrl-C all wait on a writer that never comes.
# Must hold: the run ends by its deadline (plus grading's bound) with a result.json; the monitor reports
# the FIFO as a finding.
. "$(dirname "$0")/lib.sh"
attack fifo-head
rm -f .git/HEAD && mkfifo .git/HEAD && planted "FIFO at .git/HEAD ($(ls -l .git/HEAD | cut -c1))"
sleep "${ATTACK_SLEEP:-5}"
