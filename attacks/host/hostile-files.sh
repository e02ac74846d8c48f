# Attack: every kind of file the host's readers (the monitor's scan and git watch, the copier, grading's tree
# builder) must not trust, at once: links to /dev/zero (a .py file, .git/index, .git/config), a link to a 0600 host
# file that the box does not show (it dangles in here, not on the host), a 2 GiB sparse .py file, and a file that
# flips between a file, a link to the host file, a FIFO and nothing while the run reads the tree (deleted mid-read),
# and a tree nested past PATH_MAX.
# Must hold: the run ends by its deadline with a result.json, the deep tree listed there by its prefix; the host
# file's marker is in no output.
. "$(dirname "$0")/lib.sh"
attack hostile-files
ln -s /dev/zero calc/zero.py
rm -f .git/index .git/config && ln -s /dev/zero .git/index && ln -s /dev/zero .git/config
ln -s "$ATTACK_SECRET" calc/secret.py
truncate -s 2G calc/huge.py
end=$(( $(date +%s) + ${ATTACK_FLIP_S:-10} ))
( while [ "$(date +%s)" -lt "$end" ]; do
    echo 'x = 1' > calc/flip.py; rm -f calc/flip.py
    ln -s "$ATTACK_SECRET" calc/flip.py; rm -f calc/flip.py
    mkfifo calc/flip.py; rm -f calc/flip.py
  done ) &
# a tree 2,100 levels deep (past PATH_MAX), made from inside it: no path mkdir is given is that long (ATTACK_DEEP=1,
# set by HostSideAttacksTest.hostileFiles for both users)
deep=""
if [ "${ATTACK_DEEP:-0}" = 1 ]; then
  ( mkdir -p calc/deep && cd calc/deep && mkdir -p "$(printf 'dd/%.0s' $(seq 2100))" ) && deep=", calc/deep 2100 levels"
fi
planted "links to /dev/zero (calc/zero.py, .git/index, .git/config), calc/secret.py -> host file, 2 GiB sparse calc/huge.py, calc/flip.py flipping$deep"
wait
saw "flipping ended"
