# Process state a test sets in the trusted process that the code under test must see, carried to its worker (issue 33,
# found on psf/requests and encode/httpx): the variables a test changes (`monkeypatch.setenv`, an autouse fixture that
# drops SSL_CERT_FILE), its working folder (`monkeypatch.chdir`) and its umask. In-process the tree reads them from the
# process both share; split, the worker has a clean environment of its own, so without this such a test failed (the
# grader's own bootstrap) or fell back to in-process grading (wrapped entries).
#
# Forward (trusted -> worker): with the first request after a change, the request carries what differs from this
# process's state when the oracle loaded (never the whole environment: it holds the grading box's variables) and from
# what that worker was last sent. The trusted side decides what crosses: never a CRUCIBLE_* variable (the grader's own)
# nor pytest's per-test marker. A change is noticed by a counter that os.environ's writes, os.chdir and os.umask bump,
# so a call that follows no change costs one comparison.
#
# Back (worker -> trusted): a variable the tree sets in a call (requests' `set_environ`, whose test then reads
# os.environ) comes back in an "env" frame before the answer. The tree is untrusted, so it may only create, change and
# remove variables this process does not hold on its own: none present when the oracle loaded, none a test or fixture
# holds at that moment (once it undoes its own the name is free again: requests' tests monkeypatch no_proxy, and a
# later test has the tree's set_environ set it), none named below (what a child process of a test would run or load).
# They are set in os.environ's mapping only, never in the C environment, so a child process a test starts does not
# inherit them.
import os

_MISSING = object()
MAX_VARS = 200  # variables the tree may hold here at once
MAX_VALUE = 1 << 16
_NOT_FORWARD = ("PYTEST_CURRENT_TEST",)  # pytest's per-test marker (the worker's tests have none; in-process a tree rarely reads it)
_GRADER_PREFIX = "CRUCIBLE_"
# names the tree may not set here even when new: variables that make a later process run or load code, or change the
# runner, the interpreter or where the test's own tools are found
_NOT_BACK_PREFIX = ("CRUCIBLE_", "PYTEST", "PYTHON", "LD_", "GIT_", "DYLD_", "BASH_FUNC_", "COV_", "COVERAGE")
_NOT_BACK = frozenset(("PATH", "HOME", "TMPDIR", "TEMP", "TMP", "SHELL", "BASH_ENV", "ENV", "IFS", "PS4", "CDPATH",
                       "PROMPT_COMMAND", "PAGER", "EDITOR", "VISUAL", "BROWSER", "PY_COLORS", "NO_COLOR", "TERM",
                       "PERL5OPT", "RUBYOPT", "NODE_OPTIONS", "JAVA_TOOL_OPTIONS", "SSL_CERT_FILE", "SSL_CERT_DIR"))


class EnvSync:
    def __init__(self, root, shared=None, shown=None):
        self.root, self.shared = root, shared  # the folders a worker's box shows (the tree read-only, the scratch folder)
        self.shown = shown or root  # where the worker sees its own copy of the tree (the agent's workspace path)
        self.version = 0  # bumped by every write of this process's own to os.environ, os.chdir, os.umask
        self.base = dict(os.environ)  # this process's state when the oracle loaded: only differences from it cross
        self.base_cwd = os.getcwd()
        self.theirs = set()  # variables the tree created here (back frames): the only ones it may change again
        self.applying = False
        self.umask = os.umask(0o022)
        os.umask(self.umask)
        self.gen, self.sent_version, self.sent, self.sent_cwd, self.sent_umask = None, -1, {}, None, None
        self._install()

    def _install(self):
        sync = self
        environ = os.environ
        cls = type(environ)

        class Watched(cls):
            """os.environ, counting this process's own writes (the test's, its fixtures')."""
            __slots__ = ()

            def __setitem__(self, key, value):
                cls.__setitem__(self, key, value)
                sync._wrote(key)

            def __delitem__(self, key):
                cls.__delitem__(self, key)
                sync._wrote(key)
        try:
            environ.__class__ = Watched
        except TypeError:  # another interpreter's mapping: every request compares instead (version never settles)
            self._compare = True
        chdir, umask = os.chdir, os.umask

        def _chdir(path):
            chdir(path)
            sync.version += 1

        def _umask(mask):
            old = umask(mask)
            sync.umask = mask
            sync.version += 1
            return old
        os.chdir, os.umask = _chdir, _umask
        self._saved = (cls, chdir, umask)

    def uninstall(self):
        """Puts os.environ, os.chdir and os.umask back (the oracle's own tests; a grading process keeps them to its end)."""
        cls, os.chdir, os.umask = self._saved
        try:
            os.environ.__class__ = cls
        except TypeError:
            pass

    _compare = False
    paths = None  # oracle_syspath.PathSync, where the plugin made one

    def _wrote(self, key):
        if not self.applying and key not in _NOT_FORWARD:
            self.theirs.discard(key)
            self.version += 1

    # -- forward: what a request carries
    def attach(self, msg, gen, rec=None):
        """Adds to msg what the worker (generation gen) has not been sent yet; nothing when nothing changed. rec: the
        running test's record, which a working folder the worker's box does not show sends to in-process grading."""
        if self.paths is not None:  # sys.path and the test modules' names (oracle_syspath): checked on every request
            self.paths.attach(msg, gen, rec)
        if gen == self.gen and self.version == self.sent_version and not self._compare:
            return
        if gen != self.gen:  # a fresh worker has its own clean environment, the tree's root as cwd, its own umask
            self.gen, self.sent, self.sent_cwd, self.sent_umask = gen, {}, self.shown, None
        self.sent_version = self.version
        want = {}
        env = os.environ
        for k in set(self.base) | set(env):
            if k.startswith(_GRADER_PREFIX) or k in _NOT_FORWARD or k in self.theirs:
                continue  # the grader's own, the runner's marker, the tree's own (already in its worker)
            v = env.get(k, _MISSING)
            if v != self.base.get(k, _MISSING):
                want[k] = None if v is _MISSING else v
        pairs = []
        for k, v in want.items():
            if self.sent.get(k, _MISSING) != v:
                pairs.append([k, v])
                self.sent[k] = v
        for k in [k for k in self.sent if k not in want and k not in self.theirs]:  # back to what this process started with: the worker's own
            pairs.append([k, 0])
            del self.sent[k]
        if pairs:
            msg["env"] = pairs
        try:  # the folder this process started in is the tree's root for the worker, as before: only a change crosses
            cwd = os.getcwd()
            cwd = self.shown if cwd == self.base_cwd else cwd
        except OSError:  # a folder the test removed: the worker stays where it is
            cwd = self.sent_cwd
        if cwd != self.sent_cwd:
            if self._shown(cwd):
                msg["wd"] = self.sent_cwd = cwd
            elif rec is not None:  # decided here, from the box's mounts: the worker's word could steer a test
                why = "a test works in a folder its worker's box does not show (%s)" % cwd[:200]
                if why not in rec.needs:
                    rec.needs.append(why)
                self.sent_version = -1  # asked again at the next request: it may have gone back
        if self.umask != self.sent_umask:
            msg["umask"] = self.sent_umask = self.umask

    def _shown(self, path):
        real = os.path.realpath(path)
        return any(real == os.path.realpath(d) or real.startswith(os.path.realpath(d).rstrip(os.sep) + os.sep)
                   for d in (self.root, self.shared, self.shown) if d)

    # -- back: the tree's own changes, as its worker reported them
    def took(self, frame):
        """frame: {"set": [[name, value or None], ...]} as the worker reported it (untrusted: see _theirs_to_set)."""
        if type(frame) is not dict:
            return
        if self.paths is not None and "path" in frame:
            self.paths.took(frame["path"])
        pairs = frame.get("set")
        if type(pairs) is not list:
            return
        data, enc = os.environ._data, os.environ.encodekey
        for p in pairs[:MAX_VARS]:
            if type(p) is not list or len(p) != 2 or type(p[0]) is not str or not self._theirs_to_set(p[0]):
                continue
            k, v = p
            try:
                if v is None:
                    data.pop(enc(k), None)
                    self.theirs.discard(k)
                elif type(v) is str and len(v) <= MAX_VALUE and "\0" not in v and len(self.theirs) < MAX_VARS:
                    data[enc(k)] = os.environ.encodevalue(v)  # the mapping only: no child process inherits it
                    self.theirs.add(k)
                else:
                    continue
            except (TypeError, ValueError, UnicodeError):
                continue
            self.sent[k] = v  # the worker holds it: nothing to send back

    def _theirs_to_set(self, k):
        if not k or len(k) > 256 or "=" in k or "\0" in k or k in self.base or k in _NOT_BACK:
            return False
        if k not in self.theirs and os.environ.get(k) is not None:  # held here by a test or fixture (not the tree's)
            return False
        return not k.upper().startswith(_NOT_BACK_PREFIX)
