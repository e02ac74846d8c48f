# Attack: TCP to the host's 127.0.0.1 (the environment API, databases, metadata proxies listen there).
# Must hold: the connect fails (the test's host listener accepts nothing).
. "$(dirname "$0")/lib.sh"
attack net-loopback-tcp "no TCP to the host's loopback"
"$PY" -c 'import socket,sys
s=socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=2)
try: s.sendall(b"pwned\n")
except OSError: pass' "$ATTACK_TCP_PORT" 2>/dev/null && broken "connected to host 127.0.0.1:$ATTACK_TCP_PORT"
held
