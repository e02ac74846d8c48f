# Attack: a 3 GiB sparse file (no data blocks) in the workspace. A copier that reads and writes every byte
# (the grading tree, a snapshot) turns it into 3 GiB of real data on the host's disk.
# Must hold: the host's disk use during the whole run stays far below 3 GiB (the test samples it).
. "$(dirname "$0")/lib.sh"
attack sparse-3g
truncate -s 3G sparse.bin && planted "sparse.bin: $(stat -c '%s bytes, %b blocks' sparse.bin)"
sleep 2
