# Runs the agent attacks named in $ATTACKS (default: all) one after another in the sandbox. Those that only look
# come first; those that change the sandbox when they work (remount, umount) after them; kill-cli last.
# Each attack is its own process; a crash still leaves a line so a missing verdict is visible.
here=$(dirname "$0")
for a in ${ATTACKS:-cap-eff uid-outside mountinfo-hidden env-hidden host-socket read-root-home read-snapshot-store \
    other-attempt manifest-folder net-loopback-tcp net-loopback-udp net-host-address net-off-box write-host-file \
    remount-root umount-tmp umount-proc proc-cli-root proc-1-root mknod setns ptrace-cli kill-cli}; do
  timeout 20 sh "$here/$a.sh" 2>&1 | grep '^ATTACK ' || echo "ATTACK $a NOVERDICT: the script ended without a verdict"
done
echo "ATTACKS DONE"
