# Attack: tens of thousands of empty files with long names (paths of ~450 bytes). Every host step that lists the
# workspace (grading's copy, the final scan, the kept copy) holds their names; past the CLI's heap one of them fails.
# Must hold: the run still ends with a result.json that says why (the test gives the CLI a small heap).
. "$(dirname "$0")/lib.sh"
attack many-names
python3 - "${MANY_NAMES_DIRS:-40}" <<'P'
import os, sys
for d in range(int(sys.argv[1])):
    dd = ('D' * 200) + '%03d' % d
    os.makedirs(dd, exist_ok=True)
    for i in range(1000):
        open(os.path.join(dd, ('r' * 230) + '%06d' % i), 'w').close()
P
planted "$(find . -type f -name 'rrrrrrrrrr*' | wc -l) files with names of 230 bytes in folders of 203"
