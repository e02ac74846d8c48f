# The CLI's mount helper (MountNamespace): runs in the user and mount namespace that `crucible run` made for
# itself without root, keeping that namespace's capabilities (the CLI drops them before it starts), and mounts
# or unmounts a size-capped tmpfs when the CLI asks on a Unix socket in its private 0700 folder. It can do
# nothing outside that namespace, and dies with the CLI (PR_SET_PDEATHSIG); the namespace's mounts go with it.
import ctypes, os, signal, socket, sys

libc = ctypes.CDLL(None, use_errno=True)
libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG: the CLI is our parent
if os.getppid() == 1:
    sys.exit(0)
MS_NOSUID, MS_NODEV, MNT_DETACH = 2, 4, 2


def answer(line):
    parts = line.split("\t")
    if len(parts) == 3 and parts[0] == "mount" and parts[1].startswith("/") and parts[2].isdigit():
        opts = "size=%d,mode=0700,uid=%d,gid=%d" % (int(parts[2]), os.getuid(), os.getgid())
        r = libc.mount(b"tmpfs", parts[1].encode(), b"tmpfs", MS_NOSUID | MS_NODEV, opts.encode())
    elif len(parts) == 2 and parts[0] == "umount" and parts[1].startswith("/"):
        r = libc.umount2(parts[1].encode(), MNT_DETACH)
    else:
        return "error: not a request: " + line[:80]
    return "ok" if r == 0 else "error: " + os.strerror(ctypes.get_errno())


s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(sys.argv[1])
s.listen(8)
while True:
    c, _ = s.accept()
    with c:
        data = b""
        while not data.endswith(b"\n") and len(data) < 8192:
            more = c.recv(4096)
            if not more:
                break
            data += more
        c.sendall((answer(data.decode("utf-8", "replace").rstrip("\n")) + "\n").encode())
        c.shutdown(socket.SHUT_RDWR)
