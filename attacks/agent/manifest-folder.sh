# Attack: read files in the manifest's folder that are not part of the workspace (e.g. grader notes, solutions).
# Must hold: $ATTACK_MANIFEST_DIR/grader-notes.txt is unreadable.
. "$(dirname "$0")/lib.sh"
attack manifest-folder "the manifest folder's other files are invisible"
c=$(cat "$ATTACK_MANIFEST_DIR/grader-notes.txt" 2>/dev/null) && [ -n "$c" ] && broken "read $ATTACK_MANIFEST_DIR/grader-notes.txt: $c"
for l in ../grader-notes.txt ../../grader-notes.txt; do
  c=$(cat "$l" 2>/dev/null) && [ -n "$c" ] && broken "read $l: $c"
done
held
