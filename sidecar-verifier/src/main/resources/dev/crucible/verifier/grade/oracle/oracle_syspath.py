# The import state a test and the tree share in-process, carried across the split (issue 33, found on pallets/flask):
# sys.path and the names of the test modules. One definition for both sides: the worker's source has this file between
# oracle_excattrs and oracle_worker (oracle_launch, OracleFiles), and oracle_env imports it.
#
# Forward (trusted -> worker), with the next request after a change, as oracle_env carries variables: "sp", this
# process's sys.path as the worker sees it (a folder of the grading tree at its copy's place, the grader's own folders
# left out); a fixture's `monkeypatch.syspath_prepend(tmp_path)` then reaches flask's find_spec in the worker. A folder
# the test adds that holds test files (trusted, masked in the worker's box: flask's tests/test_apps, imported by name
# through `locate_app`) sends its test to in-process grading, decided here: the worker could only import masks, and so
# does a test's None or object in sys.modules (a blocked import, a stand-in module), and a test file's path a call
# hands over (what the worker reads there is the mask). And
# "tm", the test modules this process imported ([name, file at the worker's place]): the worker holds an empty module
# of that name whose __file__ only is set, so `Flask(__name__)` finds its root folder as in-process (the module's
# text never crosses).
#
# Back (worker -> trusted), in the "env" frame: folders the tree put on its sys.path in a call (flask's prepare_import)
# and took off again. The tree is untrusted: only a folder of the grading tree (as the worker sees it: mapped back to
# the tree's place) joins this process's sys.path, where the import hook turns its modules into stand-ins; a folder
# the worker can write (the shared scratch, its /tmp) would run the tree's files in this process. It may remove only
# folders it added.
import importlib as _sp_importlib
import os as _sp_os
import sys as _sp_sys
import types as _sp_types

SP_MAX = 200  # entries either way
SP_TEXT = 4096


class WorkerPath:
    """Worker side: the entries the trusted side governs, and what the tree changed since."""

    def __init__(self):
        self.governed, self.seen = [], list(_sp_sys.path)

    def init(self, path):
        _sp_sys.path[:0] = [p for p in path if p not in _sp_sys.path]
        self.governed, self.seen = list(path), list(_sp_sys.path)

    def apply(self, m):
        new = m.get("sp")
        if type(new) is list and all(type(p) is str for p in new):
            own = [p for p in _sp_sys.path if p not in self.governed and p not in new]
            _sp_sys.path[:] = new[:SP_MAX] + own
            self.governed = list(new)
            _sp_importlib.invalidate_caches()  # as monkeypatch.syspath_prepend does here
        for nf in m.get("tm") or ():
            if type(nf) is list and len(nf) == 2 and type(nf[0]) is str and type(nf[1]) is str and nf[0] not in _sp_sys.modules:
                mod = _sp_types.ModuleType(nf[0])
                mod.__file__ = nf[1]
                _sp_sys.modules[nf[0]] = mod
        self.seen = list(_sp_sys.path)

    def moved(self):
        return _sp_sys.path != self.seen

    def changed(self):
        now, seen = list(_sp_sys.path), self.seen
        first = next((i for i, p in enumerate(now) if p in seen), len(now))
        add = [[p, i < first] for i, p in enumerate(now) if type(p) is str and p not in seen][:SP_MAX]
        gone = [p for p in seen if p not in now and type(p) is str][:SP_MAX]
        self.governed = [p for p in self.governed if p in now] + [p for p, _ in add]  # the trusted side holds them now
        self.seen = now
        return {"add": add, "del": gone}


class PathSync:
    """Trusted side: what crosses, and what the tree may change here."""

    def __init__(self, tree, shown, grader=()):
        """tree: oracle_hook.Tree (which files are the trusted tests); shown: the worker's place of the tree."""
        self.tree, self.root, self.shown = tree, tree.root, shown or tree.root
        self.grader = tuple(_sp_os.path.realpath(g) for g in grader)
        self.gen, self.raw, self.sent, self.nmods, self.looked = None, None, None, -1, set()
        self.theirs, self.trusted = set(), None
        self.base, self.checked = None, None  # the first worker's path (none of a test's); the test last checked
        self.odd = set()  # names whose sys.modules entry was no module before any test (a library's own doing)

    def view(self):
        """sys.path as the worker sees it: the tree's folders at its copy's place, none of the grader's."""
        out = []
        for p in _sp_sys.path:
            if type(p) is not str or not p or not _sp_os.path.isdir(p):
                continue
            real = _sp_os.path.realpath(p)
            if any(real == g or real.startswith(g + _sp_os.sep) for g in self.grader):
                continue
            inside = self.shown != self.root and (real == self.root or real.startswith(self.root + _sp_os.sep))
            out.append(self.shown + real[len(self.root):] if inside else p)
        return out

    def attach(self, msg, gen, rec):
        if msg.get("op") == "init":  # a fresh worker: its path is the init's, no test module yet
            self.gen, self.raw, self.sent, self.nmods, self.looked = gen, list(_sp_sys.path), msg.get("path"), -1, set()
            if self.base is None:  # the grading process's own start: no test's yet
                self.base = self.sent
                self.odd = {n for n, m in list(_sp_sys.modules.items()) if not isinstance(m, _sp_types.ModuleType)}
            return
        if msg.get("op") == "call" and rec is not None:
            self._handed(msg, rec)
        moved = _sp_sys.path != self.raw
        if moved:
            self.raw = list(_sp_sys.path)
            self.theirs.intersection_update(self.raw)  # a folder the test took off is the test's when it adds it again
            v = self.view()
            if v != self.sent:
                msg["sp"] = self.sent = v
        if rec is not None and (moved or rec is not self.checked):  # each test's own folders, once per change
            self.checked = rec
            self._check(self.sent or (), rec)
        if len(_sp_sys.modules) != self.nmods:
            self.nmods = len(_sp_sys.modules)
            tm = self._test_modules(rec)
            if tm:
                msg["tm"] = tm

    def _handed(self, msg, rec):
        """A test file's path handed to the tree (flask's config.from_pyfile(__file__)): its worker reads the mask."""
        kw = msg.get("kw")
        for a in list(msg.get("args") or ()) + (list(kw.values()) if type(kw) is dict else []):
            p = a[1] if type(a) is list and len(a) == 3 and a[0] == "p" else a
            if type(p) is str and p.endswith(".py") and len(p) < SP_TEXT:
                rel = self.tree.rel(_sp_os.path.join(self.root, p))
                if rel is not None and self.tree.is_trusted(rel) and _sp_os.path.isfile(self.root + _sp_os.sep + rel):
                    why = "a test hands the code under test the path of a test file (%s), which its worker's box masks" % rel[:200]
                    if why not in rec.needs:
                        rec.needs.append(why)

    def _check(self, v, rec):
        """A folder the test added that holds test files: the tree may import them by name, and its box masks them."""
        for p in v:
            if p in (self.base or ()) or self._back(p) in self.theirs:
                continue
            rel = self.tree.rel(self._back(p))
            if rel is None:
                continue
            if self.trusted is None:
                self.trusted = self.tree.trusted_files()
            pre = "" if rel == "." else rel + _sp_os.sep
            if any(f.startswith(pre) for f in self.trusted):
                why = "a test puts a folder of test files on sys.path (%s): the code under test imports them by name, " \
                      "and its worker's box masks them" % rel[:200]
                if why not in rec.needs:
                    rec.needs.append(why)

    def _test_modules(self, rec):
        out = []
        for name, m in list(_sp_sys.modules.items()):
            if name in self.looked or name in self.odd:
                continue
            if not isinstance(m, _sp_types.ModuleType):  # flask's run_cert tests: `setitem(sys.modules, "x", None)`
                why = "a test puts %s into sys.modules[%r]: the code under test imports by name in its worker, which " \
                      "has a sys.modules of its own" % ("None" if m is None else "a %s" % type(m).__name__, name[:100])
                if rec is not None and why not in rec.needs:
                    rec.needs.append(why)
                continue
            if type(m) is not _sp_types.ModuleType:
                continue
            self.looked.add(name)  # each module once per worker: a file is looked up when the module first shows
            f = _sp_types.ModuleType.__dict__["__dict__"].__get__(m).get("__file__")
            rel = self.tree.rel(f) if type(f) is str else None
            if rel is not None and self.tree.is_trusted(rel):
                out.append([name, _sp_os.path.join(self.shown, rel)])
        return out[:SP_MAX]

    def _back(self, p):
        if self.shown != self.root and (p == self.shown or p.startswith(self.shown + _sp_os.sep)):
            return self.root + p[len(self.shown):]
        return p

    def took(self, frame):
        """frame: {"add": [[folder, front], ...], "del": [folder, ...]} as the worker reported it (untrusted)."""
        if type(frame) is not dict or not (frame.get("add") or frame.get("del")):
            return
        for a in (frame.get("add") if type(frame.get("add")) is list else [])[:SP_MAX]:
            if type(a) is not list or len(a) != 2 or type(a[0]) is not str or len(a[0]) > SP_TEXT or "\0" in a[0]:
                continue
            p = self._back(a[0])
            real = _sp_os.path.realpath(p)
            if not (real == self.root or real.startswith(self.root + _sp_os.sep)) or p in _sp_sys.path:
                continue  # only the grading tree's folders: the worker can write elsewhere
            _sp_sys.path.insert(0, p) if a[1] is True else _sp_sys.path.append(p)
            self.theirs.add(p)
        for g in (frame.get("del") if type(frame.get("del")) is list else [])[:SP_MAX]:
            p = self._back(g) if type(g) is str else None
            if p in self.theirs:
                self.theirs.discard(p)
                while p in _sp_sys.path:
                    _sp_sys.path.remove(p)
        self.raw, self.sent = list(_sp_sys.path), self.view()  # the worker holds these: nothing to send back
