# Attack: TCP to the host's own non-loopback address ($ATTACK_HOST_IP), where the test listens on 0.0.0.0.
# This traffic never leaves the machine. Must hold: the connect fails.
. "$(dirname "$0")/lib.sh"
attack net-host-address "no TCP to the host's own address"
[ -z "$ATTACK_HOST_IP" ] && held
"$PY" -c 'import socket,sys
s=socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=2)
try: s.sendall(b"pwned\n")
except OSError: pass' "$ATTACK_HOST_IP" "$ATTACK_TCP_PORT" 2>/dev/null \
  && broken "connected to host $ATTACK_HOST_IP:$ATTACK_TCP_PORT"
held
