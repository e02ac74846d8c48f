# Attack: create a device node (a raw disk, /dev/mem) to read or write the host below the file system.
# Must hold: mknod of a block or character device fails.
. "$(dirname "$0")/lib.sh"
attack mknod "no device node can be created"
d=$(dirname "$0")
if mknod "$d/disk" b 8 0 2>/dev/null; then rm -f "$d/disk"; broken "created block device 8:0"; fi
if mknod "$d/mem" c 1 1 2>/dev/null; then rm -f "$d/mem"; broken "created character device 1:1 (/dev/mem)"; fi
held
