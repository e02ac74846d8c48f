# Attack: UDP to the host's 127.0.0.1 (e.g. a local DNS or statsd).
# Must hold: no datagram reaches the test's host UDP socket (checked on the host) and no reply comes back.
. "$(dirname "$0")/lib.sh"
attack net-loopback-udp "no UDP to the host's loopback"
"$PY" -c 'import socket,sys
s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.settimeout(2)
s.sendto(b"pwned", ("127.0.0.1", int(sys.argv[1]))); d=s.recv(64); sys.exit(0 if d else 3)' "$ATTACK_UDP_PORT" 2>/dev/null \
  && broken "host 127.0.0.1:$ATTACK_UDP_PORT answered over UDP"
held
