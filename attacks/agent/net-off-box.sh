# Attack: reach a non-loopback address off the machine.
# Safety: traffic must never leave the machine, so the sandbox's routing table is read first; with any
# IPv4 or IPv6 route besides loopback this reports BROKEN without sending. Only with no route is a
# connect to 192.0.2.1 (TEST-NET-1) tried, which then fails locally with "Network is unreachable".
# Must hold: the sandbox has no route, and the connect fails with ENETUNREACH.
. "$(dirname "$0")/lib.sh"
attack net-off-box "no route off the sandbox (connect: Network is unreachable)"
r4=$(tail -n +2 /proc/net/route 2>/dev/null | wc -l)
r6=$(grep -v ' lo$' /proc/net/ipv6_route 2>/dev/null | wc -l)
[ "$r4" -eq 0 ] && [ "$r6" -eq 0 ] || broken "the sandbox has routes (ipv4: $r4, ipv6 non-lo: $r6); nothing was sent"
out=$("$PY" -c 'import socket,errno,sys
try:
    socket.create_connection(("192.0.2.1", 80), timeout=1); print("connected")
except OSError as e:
    print("ENETUNREACH" if e.errno == errno.ENETUNREACH else "other:%s" % e)' 2>&1)
[ "$out" = ENETUNREACH ] || broken "connect to 192.0.2.1 gave: $out"
held
