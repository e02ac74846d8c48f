# A process a graded test starts runs through oracle_children's rewrite: the relay (oracle_child_relay) stands in for
# it here while its box end (oracle_child_box) runs the program. This test plays the grader's part (OracleWorkers reads
# the request FIFO and starts the box end; here a plain child process, no box), so the relay's contract is checked
# with real processes: streams, exit status, signals, the folder moved to the tree's copy, the grader's variables and
# folders kept back, a missing program, a relay killed outright.
import json
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

import oracle_child_relay
import oracle_children
import oracle_hook

BOX_END = os.path.join(os.path.dirname(oracle_children.__file__), "oracle_child_box.py")


class Grader:
    """Reads "cN" / "-cN" off the request FIFO and starts the box end with the FIFO pair cN.in / cN.out."""

    def __init__(self, base):
        self.dir = base / "fifo"
        self.dir.mkdir()
        self.spawn = str(base / "spawn")
        os.mkfifo(self.spawn)
        self.requests, self.started, self.closed = [], {}, False
        self.refuse = None  # a reason: the grader writes cN.failed instead of starting the box
        self.fd = os.open(self.spawn, os.O_RDWR)  # read-write: no end of file between writers
        threading.Thread(target=self.serve, name="grader", daemon=True).start()

    def serve(self):
        buf = b""
        while True:
            try:
                b = os.read(self.fd, 4096)
            except OSError:
                return
            if not b or self.closed:
                os.close(self.fd)  # here, never while this thread reads it (a number reused by the next test's FIFO)
                return
            buf += b
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                self.handle(line.decode())

    def handle(self, line):
        self.requests.append(line)
        if line.startswith("c") and self.refuse:
            with open(self.dir / (line + ".failed"), "w") as f:
                f.write(self.refuse)
        elif line.startswith("c"):
            fin, fout = (str(self.dir / ("%s.%s" % (line, s))) for s in ("in", "out"))
            os.mkfifo(fin)
            os.mkfifo(fout)
            self.started[line] = subprocess.Popen([sys.executable, "-I", "-B", BOX_END, fin, fout], stdin=subprocess.DEVNULL,
                                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def close(self):
        self.closed = True
        os.write(self.fd, b"\n")  # wakes the reader, which closes the FIFO
        for p in list(self.started.values()):
            p.kill()
            p.wait()


@pytest.fixture
def rerouted(tmp_path):
    root, shown = tmp_path / "tree", tmp_path / "copy"
    (root / "pkg").mkdir(parents=True)
    (shown / "pkg").mkdir(parents=True)
    grader = Grader(tmp_path)
    cfg = {"launcher": {"kind": "fifo", "dir": str(grader.dir), "spawn": grader.spawn, "start_timeout": 20}}
    needs = []
    saved = (subprocess.Popen._execute_child, os.system, os.posix_spawn, os.posix_spawnp, os.execv, os.execve)
    children = oracle_children.Children(cfg, oracle_hook.Tree(str(root), None), str(shown), {str(tmp_path / "grader")},
                                        needs.append, lambda: threading.current_thread().name == "grader")  # the grader's own start stays
    oracle_children.install(children)
    try:
        yield grader, root, shown, needs
    finally:
        (subprocess.Popen._execute_child, os.system, os.posix_spawn, os.posix_spawnp, os.execv, os.execve) = saved
        grader.close()


PROGRAM = """
import json, os, sys
sys.stderr.write("to stderr")
print(json.dumps({"cwd": os.getcwd(), "ppid": os.getppid(), "secret": os.environ.get("CRUCIBLE_REPORT_NONCE"),
                  "keep": os.environ.get("KEEP"), "path": os.environ.get("PYTHONPATH"), "argv": sys.argv[1:]}))
print(sys.stdin.read().upper())
sys.exit(3)
"""


def test_the_program_runs_in_its_box_with_the_tests_streams_and_status(rerouted, tmp_path):
    grader, root, shown, _ = rerouted
    env = {"PATH": os.environ["PATH"], "KEEP": "1", "CRUCIBLE_REPORT_NONCE": "n0nce",
           "PYTHONPATH": os.pathsep.join([str(tmp_path / "grader"), str(root / "pkg")])}
    p = subprocess.run([sys.executable, "-c", PROGRAM, "a b"], input="hello", capture_output=True, text=True, cwd=str(root / "pkg"),
                       env=env, timeout=60)
    assert p.returncode == 3, p.stderr
    seen = json.loads(p.stdout.splitlines()[0])
    assert seen["cwd"] == str(shown / "pkg")  # the folder moved to the tree's copy
    assert seen["secret"] is None and seen["keep"] == "1"
    assert seen["path"] == str(shown / "pkg")  # the grader's folder left out, the tree's moved
    assert seen["argv"] == ["a b"]
    assert p.stdout.splitlines()[1] == "HELLO"
    assert p.stderr == "to stderr"
    assert [r for r in grader.requests if r.startswith("c")], grader.requests  # it went through the grader
    assert seen["ppid"] != os.getpid()  # a child of the box end, not of this process


def test_a_program_that_ends_before_reading_all_its_input_gives_its_own_status(rerouted):
    # markitdown's CLI test piped a file to `python -m markitdown`: the relay still had input to send when the box end
    # was done, its write failed, and the test got 125 ("closed its end") instead of the program's status
    for _ in range(3):
        p = subprocess.run([sys.executable, "-c", "import sys; sys.stdin.read(10); print('read'); sys.exit(4)"],
                           input=b"x" * (8 << 20), capture_output=True, timeout=60)
        assert p.returncode == 4, p.stderr
        assert p.stdout == b"read\n"


def test_a_signal_the_test_sends_ends_the_program_and_the_status_says_so(rerouted):
    p = subprocess.Popen([sys.executable, "-c", "import os, time; print(os.getpid(), flush=True); time.sleep(120)"],
                         stdout=subprocess.PIPE, text=True)
    pid = int(p.stdout.readline())
    p.terminate()
    assert p.wait(30) == -signal.SIGTERM
    _gone(pid)


def test_a_relay_killed_outright_takes_its_program_along(rerouted):
    p = subprocess.Popen([sys.executable, "-c", "import os, time; print(os.getpid(), flush=True); time.sleep(120)"],
                         stdout=subprocess.PIPE, text=True)
    pid = int(p.stdout.readline())
    p.kill()
    p.wait(30)
    _gone(pid)


def test_a_timeout_kills_the_program(rerouted):
    with pytest.raises(subprocess.TimeoutExpired):
        subprocess.run([sys.executable, "-c", "import time; time.sleep(120)"], timeout=2)


def test_a_missing_program_fails_in_the_test_as_before(rerouted):
    with pytest.raises(FileNotFoundError):
        subprocess.run(["no-such-program-here"])
    with pytest.raises(FileNotFoundError):
        subprocess.run(["/no/such/program"])


def test_os_system_and_a_shell_command_cross_too(rerouted, tmp_path):
    grader = rerouted[0]
    assert os.system("exit 5") == 5 << 8
    out = subprocess.run("echo $((6 * 7))", shell=True, capture_output=True, text=True, timeout=60).stdout
    assert out.strip() == "42"
    assert len([r for r in grader.requests if r.startswith("c")]) == 2


def test_descriptors_handed_over_send_the_test_in_process(rerouted):
    needs = rerouted[3]
    r, w = os.pipe()
    subprocess.run([sys.executable, "-c", "pass"], pass_fds=(w,), timeout=60)
    os.close(r)
    os.close(w)
    assert needs and "pass_fds" in needs[0]


def test_a_box_the_grader_will_not_start_fails_the_program_at_once_with_its_reason(rerouted):
    grader, _, _, _ = rerouted
    grader.refuse = "the grader already runs 64 boxes"
    p = subprocess.run([sys.executable, "-c", "print('ran')"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 125 and p.stdout == ""
    # the reason, not the end of the 20 s wait ("no box ... came up within")
    assert "did not start a box for the test's process: the grader already runs 64 boxes" in p.stderr, p.stderr


def test_a_reason_left_for_an_earlier_process_of_the_same_pid_is_not_read_as_this_ones(tmp_path):
    stale = tmp_path / "c1.failed"
    stale.write_text("refused long ago")
    os.utime(stale, (time.time() - 60, time.time() - 60))
    assert oracle_child_relay.refusal(str(stale), time.time()) is None
    assert oracle_child_relay.refusal(str(stale), time.time() - 120) == "refused long ago"
    assert oracle_child_relay.refusal(str(tmp_path / "c2.failed"), 0) is None


def test_the_relay_keeps_the_graders_variables_and_folders_back():
    cfg = {"root": "/g/tree", "shown": "/w/ws", "grader": ["/g/support"]}
    env = oracle_child_relay.child_env({"CRUCIBLE_ORACLE_CONFIG": "x", "PYTEST_CURRENT_TEST": "t", "A": "1",
                                        "PYTHONPATH": "/g/support:/g/tree/src:/elsewhere"}, cfg)
    assert env == {"A": "1", "PYTHONPATH": "/w/ws/src:/elsewhere"}


def _gone(pid):
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        try:  # a zombie of the box end's: reaped when it exits
            with open("/proc/%d/stat" % pid) as f:
                if f.read().rsplit(")", 1)[1].split()[0] == "Z":
                    return
        except OSError:
            return
        time.sleep(0.1)
    raise AssertionError("the program %d outlived its relay" % pid)
