# Attack: join the CLI's namespaces (mount, network, pid) through the host /proc, i.e. leave the box.
# Must hold: every setns into a host namespace fails.
. "$(dirname "$0")/lib.sh"
attack setns "no setns into a host namespace"
reveal_host_proc
for ns in mnt net pid uts ipc; do
  [ -n "$CLI_PID" ] && [ -e "/proc/$CLI_PID/ns/$ns" ] && nsenter "--$( [ $ns = mnt ] && echo mount || echo $ns )=/proc/$CLI_PID/ns/$ns" true 2>/dev/null \
    && broken "joined the CLI's $ns namespace"
done
held
