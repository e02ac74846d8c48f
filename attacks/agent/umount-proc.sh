# Attack: unmount the sandbox's /proc to see the host's process table underneath.
# Must hold: the CLI's host pid ($CLI_PID) is not visible under /proc.
. "$(dirname "$0")/lib.sh"
attack umount-proc "host processes stay invisible"
reveal_host_proc
[ -n "$CLI_PID" ] && grep -qa 'crucible\|java' "/proc/$CLI_PID/cmdline" 2>/dev/null && broken "host CLI visible as /proc/$CLI_PID"
held
