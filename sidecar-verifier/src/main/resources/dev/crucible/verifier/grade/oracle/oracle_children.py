# A process a graded test starts runs where the code under test runs, never in the grading box (blind grading round
# 17: a CLI test's `python -m invoicer` ran beside the hidden tests, outside the oracle; x08 read tests/test_cli.py and
# printed the expected line, x13 left a marker for the workers). Every way a test starts a program is rewritten here,
# in the trusted process, before it happens:
#   - "fifo" (grading in a box, which cannot make another): the program becomes oracle_child_relay.py, which stands
#     in for it in the grading box while the grader starts the program in a box made as a worker's (oracle_child_box);
#   - "bwrap" (a grading process outside any box, as in the oracle's own tests): the program runs under bubblewrap,
#     in a worker's box.
# Either way it sees the tree without the trusted test files, the scratch folder and the toolchain: no test file, no
# channel, no grader state. The rewrite keeps what the test holds: pipes, pid, exit status, signals, timeouts.
# A program that is not there is reported as before (FileNotFoundError), since the check runs here. What cannot cross
# a box (descriptors handed with pass_fds) sends the test to in-process grading, named.
import json
import os
import shutil
import subprocess
import sys

from oracle_child_relay import START_TIMEOUT

HERE = os.path.dirname(os.path.abspath(__file__))


class Children:
    def __init__(self, cfg, tree, shown, grader_dirs, needs, own):
        self.cfg, self.tree, self.shown = cfg, tree, shown
        self.own = own  # true while the oracle starts a worker itself (bwrap): that spawn is the grader's, not a test's
        self.grader = sorted(grader_dirs | {os.path.realpath(HERE)})
        self.needs = needs  # records a test's reason for in-process grading
        self.python = os.path.realpath(sys.executable)
        launcher = cfg.get("launcher", {})
        self.kind = launcher.get("kind", "bwrap")
        self.relay_cfg = json.dumps({"dir": launcher.get("dir"), "spawn": launcher.get("spawn"), "root": tree.root,
                                     "shown": shown, "grader": self.grader, "start_timeout": launcher.get("start_timeout", START_TIMEOUT)})

    def rewrite(self, executable, argv, cwd, env):
        """The command that runs (executable, argv) in a box of its own; None where it stays as it is."""
        if self.own():
            return None
        exe = os.fsdecode(executable)
        path = (env if env is not None else os.environ).get("PATH", os.defpath) if "/" not in exe else None
        found = shutil.which(exe, path=path) if path is not None else (exe if os.access(exe, os.X_OK) else None)
        if found is None:
            return None  # the spawn fails here as it would have (FileNotFoundError, PermissionError)
        argv = [os.fsdecode(a) for a in argv]
        if self.kind == "fifo":
            return [self.python, "-I", "-S", "-B", os.path.join(HERE, "oracle_child_relay.py"), self.relay_cfg, "--", found] + argv
        import oracle_child_relay
        import oracle_launch
        base = dict(os.environ) if env is None else {os.fsdecode(k): os.fsdecode(v) for k, v in env.items()}
        here = os.fsdecode(cwd) if cwd is not None else os.getcwd()
        box_cfg = dict(self.cfg.get("launcher", {}), shared_tmp=self.cfg.get("shared_tmp"))
        box = oracle_launch.bwrap_box(box_cfg, self.tree, self.python, oracle_child_relay.child_env(base, json.loads(self.relay_cfg)),
                                      oracle_child_relay.translated(here, self.tree.root, self.shown))
        return box + [found] + argv[1:]  # argv[0] is the program's path here (a name the test chose is not kept)


def install(children):
    """Rewrites subprocess.Popen's start, os.posix_spawn(p), os.exec* and os.system."""
    popen_start = subprocess.Popen._execute_child

    def _execute_child(self, args, executable, preexec_fn, close_fds, pass_fds, cwd, env, startupinfo, creationflags, shell,
                       *rest, **kw):
        if isinstance(args, (str, bytes, os.PathLike)):
            args = [args]
        else:
            args = list(args)
        if shell:
            args = ["/bin/sh", "-c"] + args
            if executable:
                args[0] = executable
        exe = executable if executable is not None else (args[0] if args else None)
        new = None
        if exe is not None:
            if pass_fds:
                children.needs("the test hands descriptors to a process it starts (pass_fds), which cannot cross to a box")
            else:
                new = children.rewrite(exe, args, cwd, env)
        if new is not None:
            args, executable, shell = new, None, False
        return popen_start(self, args, executable, preexec_fn, close_fds, pass_fds, cwd, env, startupinfo, creationflags,
                           shell, *rest, **kw)
    subprocess.Popen._execute_child = _execute_child

    def system(command):
        p = subprocess.Popen(command, shell=True)
        status = p.wait()
        return status << 8 if status >= 0 else -status  # os.system's wait status
    os.system = system

    for name in ("posix_spawn", "posix_spawnp"):
        orig = getattr(os, name, None)
        if orig is None:
            continue

        def spawn(path, argv, env, *a, _orig=orig, _search=name.endswith("p"), **kw):
            exe = os.fsdecode(path)
            if _search and "/" not in exe:
                exe = shutil.which(exe, path=(env or {}).get("PATH", os.defpath)) or exe
            new = children.rewrite(exe, list(argv), None, env)
            if new is None:
                return _orig(path, argv, env, *a, **kw)
            return _orig(new[0], new, env, *a, **kw)
        setattr(os, name, spawn)

    for name in ("execv", "execve"):
        orig = getattr(os, name)

        def execute(path, argv, *env, _orig=orig):
            new = children.rewrite(path, list(argv), None, env[0] if env else None)
            if new is None:
                return _orig(path, argv, *env)
            return _orig(new[0], new, *env)
        setattr(os, name, execute)
