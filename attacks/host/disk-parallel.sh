# Attack: four writers at once, 900 MiB each, against a 1 GiB ephemeralStorage limit. A limit that is polled
# every few seconds and counts only the box's own folders lets them pass it several times over.
# Must hold: the host's disk use grows by at most the limit plus 64 MiB (the test samples it).
. "$(dirname "$0")/lib.sh"
attack disk-parallel
for i in 1 2 3 4; do head -c 900M /dev/zero > "fill-$i.bin" 2>/dev/null & done
planted "4 writers of 900 MiB"
wait
saw "wrote $(du -cm fill-*.bin 2>/dev/null | tail -1 | cut -f1) MiB"
sleep 2
