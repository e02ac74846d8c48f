# The CLI's mount helper (MountNamespace): runs in the user and mount namespace that `crucible run` made for
# itself without root, keeping that namespace's capabilities (the CLI drops them before it starts), and mounts
# or unmounts a size-capped volume when the CLI asks on a Unix socket in its private 0700 folder: a tmpfs, or an
# ext4 image served by fuse2fs (a child of this helper, in the foreground). It can do nothing outside that
# namespace, and dies with the CLI (PR_SET_PDEATHSIG), its fuse2fs children with it; the namespace's mounts go too.
import ctypes, os, shutil, signal, socket, subprocess, sys, time

libc = ctypes.CDLL(None, use_errno=True)
libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG: the CLI is our parent
if os.getppid() == 1:
    sys.exit(0)
MS_NOSUID, MS_NODEV, MNT_DETACH = 2, 4, 2
FUSE2FS = next((p for p in ("/usr/sbin/fuse2fs", "/usr/bin/fuse2fs", "/sbin/fuse2fs") if os.access(p, os.X_OK)), None)
served = {}  # mount point -> its fuse2fs process


def mounted(at):
    with open("/proc/self/mountinfo") as f:
        return any(line.split()[4] == at for line in f)


def fuse(image, at):
    # default_permissions: the kernel checks modes and owners as on any file system (fuse2fs's own checks refuse
    # O_CREAT of a read-only new file, which git does); fakeroot turns those own checks off. A chown to a uid not
    # mapped here still fails in the kernel.
    if FUSE2FS is None:
        return "error: fuse2fs is missing"
    p = subprocess.Popen([FUSE2FS, "-f", image, at, "-o", "nosuid,nodev,default_permissions,fakeroot"], stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, preexec_fn=lambda: libc.prctl(1, signal.SIGKILL, 0, 0, 0))
    until = time.monotonic() + 20
    while time.monotonic() < until:
        if mounted(at):
            served[at] = p
            # the kernel makes the root inode with uid 0 (unmapped here: every write to it would be EACCES) until
            # a GETATTR brings the image's owner in
            os.stat(at)
            return "ok"
        if p.poll() is not None:
            return "error: fuse2fs exited %d: %s" % (p.returncode, p.stderr.read(400).decode("utf-8", "replace").strip())
        time.sleep(0.05)
    p.kill()
    return "error: fuse2fs did not mount %s within 20 s" % at


def answer(line):
    parts = line.split("\t")
    if len(parts) == 3 and parts[0] == "mount" and parts[1].startswith("/") and parts[2].isdigit():
        opts = "size=%d,mode=0700,uid=%d,gid=%d" % (int(parts[2]), os.getuid(), os.getgid())
        r = libc.mount(b"tmpfs", parts[1].encode(), b"tmpfs", MS_NOSUID | MS_NODEV, opts.encode())
    elif len(parts) == 3 and parts[0] == "fuse" and parts[1].startswith("/") and parts[2].startswith("/"):
        return fuse(parts[1], parts[2])
    elif len(parts) == 2 and parts[0] == "umount" and parts[1].startswith("/"):
        r = libc.umount2(parts[1].encode(), MNT_DETACH)
        p = served.pop(parts[1], None)
        if p is not None:  # unmounted, fuse2fs ends by itself; one that does not is killed
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
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
