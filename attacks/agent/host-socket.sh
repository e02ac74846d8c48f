# Attack: connect to host Unix sockets through the file system (/var/tmp and /tmp), e.g. a docker or agent socket.
# Must hold: neither socket accepts a connection (the test's host listeners count none).
. "$(dirname "$0")/lib.sh"
attack host-socket "no host Unix socket is reachable"
for s in "$ATTACK_HOST_DIR/host.sock" "$ATTACK_TMP_DIR/host.sock"; do
  "$PY" -c 'import socket,sys
s=socket.socket(socket.AF_UNIX); s.settimeout(2); s.connect(sys.argv[1])
try: s.sendall(b"pwned\n")
except OSError: pass' "$s" 2>/dev/null \
    && broken "connected to $s"
done
held
