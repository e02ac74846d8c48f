# ---------------------------------------------------------------------------------------------
# Where a frame's code comes from.
#   T: a grader-owned file of the grading tree (tests, the pristine conftest.py, hidden tests)
#   C: any other file of the grading tree: the code under test
#   P: pytest, pluggy or this reporter
#   O: everything else (stdlib, site-packages, <string>, <frozen ...>)

_PYTEST_DIRS = tuple(os.path.dirname(os.path.realpath(m.__file__)) + os.sep for m in (_pytest, pluggy))
_SELF = os.path.realpath(__file__)
_kinds = {}


def _rel(path):
    if path.startswith(_ROOT + os.sep):
        return path[len(_ROOT) + 1:]
    return None


def _kind(filename):
    k = _kinds.get(filename)
    if k is not None:
        return k
    if not filename or filename.startswith("<"):
        k = "O"
    else:
        real = os.path.realpath(filename)
        rel = _rel(real)
        if rel is not None:
            k = "T" if rel in _GRADER else "C"
        elif real == _SELF or real.startswith(_PYTEST_DIRS) or os.path.dirname(real) == os.path.dirname(os.path.realpath(pytest.__file__)) and os.path.basename(real) == "pytest.py":
            k = "P"
        else:
            k = "O"
    _kinds[filename] = k
    return k


def _where(frame):
    fn = frame.f_code.co_filename
    rel = _rel(os.path.realpath(fn)) if fn and not fn.startswith("<") else None
    return "%s:%d" % (rel or fn, frame.f_lineno)


def _caller(skip_modules=()):
    """The frame that performed the audited operation: the first one outside this reporter and the
    modules implementing the operation (ctypes' own Python code, inspect, importlib)."""
    f = _getframe(1)
    while f is not None:
        fn = f.f_code.co_filename
        if fn != __file__ and not fn.startswith("<frozen importlib") and not any(s in fn for s in skip_modules):
            return f
        f = f.f_back
    return None


def _tree_actor():
    """The innermost frame of the grading tree on the stack (the code that asked for it)."""
    f = _getframe(1)
    while f is not None:
        k = _kind(f.f_code.co_filename)
        if k in ("T", "C"):
            return f, k
        f = f.f_back
    return None, None


def _direct_tree_code(skip_modules=()):
    f = _caller(skip_modules)
    if f is not None and _kind(f.f_code.co_filename) == "C":
        return f
    return None


# Stdlib code that reads frames only to name a location (the caller of a log call or a warning).
_LOCATION_ONLY = (os.sep + "logging" + os.sep, os.sep + "warnings.py")


def _tree_initiator():
    """The code under test that asked for the audited operation, directly or through library code
    (string.Formatter, operator, inspect, traceback...): walking out from the operation, the first
    frame of the grading tree reached through nothing but library frames. None when a test, pytest or
    this reporter asked, or when the way passes through logging or warnings."""
    f = _getframe(1)
    while f is not None:
        fn = f.f_code.co_filename
        if fn != __file__ and not fn.startswith("<frozen importlib"):
            k = _kind(fn)
            if k == "C":
                return f
            if k != "O" or any(s in fn for s in _LOCATION_ONLY):
                return None
        f = f.f_back
    return None


# ---------------------------------------------------------------------------------------------
# The audit hook. Audit hooks cannot be removed; exceptions in one would abort the audited call,
# so every handler is wrapped, and a thread-local flag stops the events our own frame walks raise.

_guard = threading.local()
_CTYPES_SKIP = (os.sep + "ctypes" + os.sep,)
_INSPECT_SKIP = (os.sep + "inspect.py", os.sep + "threading.py")
# The stdlib's frame-walking APIs: a frame they take is taken for their caller.
_FRAME_API_SKIP = _INSPECT_SKIP + (os.sep + "traceback.py",)
_FRAME_ATTRS = frozenset(("f_code", "tb_frame", "gi_frame", "cr_frame", "ag_frame"))
_SURGERY_ATTRS = frozenset(("__code__", "__defaults__", "__kwdefaults__", "__globals__", "__class__", "__bases__", "__dict__"))
_PROTECTED_MODULE_PREFIXES = ("_pytest", "pytest", "pluggy", "builtins", "crucible_reporter")
_PROTECTED_PACKAGES = tuple(m + "." for m in _PROTECTED_MODULE_PREFIXES)


def _on_getframe(args):
    # A frame of the tree's own (sys._getframe(0) for its function's name, inspect.currentframe() for its
    # module: common in libraries) is judged by what the tree can do with it (_judge_own_frame); the
    # test's frame is a finding, and so is a test frame's code read through it (_on_frame_attr).
    fr = args[0] if args else None
    if fr is None:
        return
    f = _direct_tree_code(_FRAME_API_SKIP)
    if f is None:
        return
    if _kind(fr.f_code.co_filename) in ("T", "P"):
        _finding("high", _where(f), "code under test took the frame of %s (frame introspection)" % _where(fr), "frame-introspection")
    else:
        _judge_own_frame(f, fr)


# A frame of its own walked with f_back reaches the calling test's frame and its locals (the expected
# value), and neither f_back nor f_locals raises an audit event. So while a test runs, a frame the code
# under test takes with a test frame above it is judged by what the tree can do with it: a frame walk
# named anywhere in the loaded tree (f_back, traceback.walk_stack, inspect.getouterframes, also as a
# string), or a computed attribute read (getattr, attrgetter, __getattribute__..., however aliased) in
# the function that took the frame or the one it belongs to. Neither: the frame named a function or a
# line, as libraries do (no finding).
_WALK_NAMES = frozenset(("f_back", "walk_stack", "getouterframes"))
# A plain read of the stack (inspect.stack() for a caller's module, traceback.extract_stack): the library reads each
# frame's f_code, and the source line of each, to name a place. Judged like a frame of its own: tampering only where
# the tree also names a frame's data or its source lines (f_locals, f_globals, code_context, linecache's getline), or
# the calling function reads attributes by computed name (derive: scrapy's create_deprecated_class, issue 35; blind
# e15 reads inspect.stack()[i].code_context and .frame.f_locals, and stays a finding).
_STACK_READ_NAMES = frozenset(("f_locals", "f_globals", "code_context", "getline", "getlines", "walk_stack"))
# An exception's traceback formatted (logging.exception, traceback.format_exc: flask's log_exception and its CLI, at HEAD)
# reads the same of each frame, the test's too when the error came out of a callable the test handed over.
_STACK_READERS = frozenset(("stack", "getouterframes", "getinnerframes", "trace", "getframeinfo", "getmodule", "getfile",
                            "getsourcefile", "getabsfile", "extract_stack", "format_stack", "print_stack",
                            "format_exc", "format_exception", "print_exc", "print_exception", "format_tb", "print_tb",
                            "extract_tb", "print_last"))
_COMPUTED_ACCESS = frozenset(("getattr", "attrgetter", "methodcaller", "__getattribute__", "getmembers", "getattr_static"))


def _accessors():
    import inspect as _inspect
    import operator as _operator
    return (getattr, _operator.attrgetter, _operator.methodcaller, object.__getattribute__, _inspect.getmembers,
            _inspect.getattr_static)


_ACCESSORS = _accessors()
_ast_mod = __import__("ast")
_ast_walk = _ast_mod.walk
_AST_ATTR, _AST_NAME, _AST_CONST = _ast_mod.Attribute, _ast_mod.Name, _ast_mod.Constant
_AST_ONLY = _ast_mod.PyCF_ONLY_AST
_compile_source = builtins.compile
_open_bytes = __import__("io").open
_builtins_dict = builtins.__dict__
_names_of = {}  # (tree file, names) -> (name, line) or None
_tree_walk = {}  # names -> (modules seen, found)


def _computed_access(frame, nested=True):
    """The name by which the function of this frame (and, nested, the functions it defines) reads attributes by
    computed name, or None."""
    codes, names = [frame.f_code], set()
    while codes:
        code = codes.pop()
        names.update(code.co_names)
        codes.extend(c for c in code.co_consts if type(c) is type(code) and nested)
    g = frame.f_globals
    for n in names:
        if n in _COMPUTED_ACCESS:
            if n == "getattr" and _getattr_names_fixed(frame.f_code):
                continue  # getattr(f, "__code__", None): a name written out is no computed read (blind round 15, h07/h08)
            return n
        obj = g.get(n, _builtins_dict.get(n)) if type(g) is dict else None
        if obj is not None and any(obj is a for a in _ACCESSORS):
            return "%s (= %s)" % (n, getattr(obj, "__name__", "?"))
    return None


_getattr_fixed = {}


def _getattr_names_fixed(code):
    """Whether every getattr call in the function of `code` (its nested functions included) names the attribute with a
    string written in the source; False where that cannot be told (no source, a module's top level)."""
    key = (code.co_filename, code.co_firstlineno)
    got = _getattr_fixed.get(key)
    if got is None:
        got = False
        try:
            with _open_bytes(code.co_filename, "rb") as fh:
                tree = _compile_source(fh.read(), code.co_filename, "exec", _AST_ONLY, dont_inherit=True)
            for node in _ast_walk(tree):
                if type(node).__name__ in ("FunctionDef", "AsyncFunctionDef") and (node.lineno == code.co_firstlineno or (
                        node.decorator_list and node.decorator_list[0].lineno == code.co_firstlineno)):
                    calls = [c for c in _ast_walk(node) if type(c).__name__ == "Call" and type(c.func) is _AST_NAME and c.func.id == "getattr"]
                    got = all(len(c.args) >= 2 and type(c.args[1]) is _AST_CONST and type(c.args[1].value) is str for c in calls)
                    break
        except (OSError, SyntaxError, ValueError):
            got = False
        if len(_getattr_fixed) < 4096:
            _getattr_fixed[key] = got
    return got


def _file_names(path, names=_WALK_NAMES):
    got = _names_of.get((path, names), False)
    if got is False:
        got = None
        try:
            with _open_bytes(path, "rb") as fh:
                tree = _compile_source(fh.read(), path, "exec", _AST_ONLY, dont_inherit=True)
            for node in _ast_walk(tree):
                t = type(node)
                name = node.attr if t is _AST_ATTR else node.id if t is _AST_NAME else (
                    node.value if t is _AST_CONST and type(node.value) is str else None)
                if name in names:
                    got = (name, node.lineno)
                    break
        except (OSError, SyntaxError, ValueError):
            pass
        _names_of[(path, names)] = got
    return got


def _walk_in_tree(names=_WALK_NAMES):
    """(file, name, line) of a frame walk (one of names) named in a loaded module of the tree, or None."""
    mods = list(sys.modules.values())
    if len(mods) != _tree_walk.get(names, (-1, None))[0]:
        found = None
        for m in mods:
            try:
                d = object.__getattribute__(m, "__dict__")
            except Exception:
                continue
            fn = d.get("__file__") if type(d) is dict else None
            if type(fn) is str and fn.endswith(".py") and _kind(fn) == "C":
                walk = _file_names(fn, names)
                if walk is not None:
                    found = (fn, walk[0], walk[1])
                    break
        _tree_walk[names] = (len(mods), found)
    return _tree_walk[names][1]


def _plain_stack_read(initiator):
    """Whether the frame read was inspect's or traceback's stack reader, called by the tree for names and lines,
    in a tree that names no frame data and reads no attribute by computed name (see _STACK_READ_NAMES)."""
    f, via = _getframe(2), False
    while f is not None and f is not initiator:
        via = via or (f.f_code.co_name in _STACK_READERS and f.f_code.co_filename.endswith(_FRAME_API_SKIP))
        f = f.f_back
    return via and _walk_in_tree(_STACK_READ_NAMES) is None and _computed_access(initiator, nested=False) is None


def _judge_own_frame(taker, fr, frames_function=True):
    """frames_function: the function the frame belongs to is judged too (a frame it took of itself); a traceback's frame
    is held by the taker only, whatever its own function does (flask's find_best_app reads a module by getattr)."""
    if _state["nodeid"] is None:
        return
    f, depth = fr, 0
    while f is not None and depth < 64 and _kind(f.f_code.co_filename) != "T":
        f, depth = f.f_back, depth + 1
    if f is None or depth >= 64:
        return  # no test above it: nothing of a test to reach
    test = f
    why = None
    walk = _walk_in_tree()
    if walk is not None:
        why = "the tree names %s (%s:%d)" % (walk[1], _rel(os.path.realpath(walk[0])) or walk[0], walk[2])
    else:
        for frame in (taker, fr) if frames_function else (taker,):
            if _kind(frame.f_code.co_filename) == "C":
                access = _computed_access(frame)
                if access is not None:
                    why = "%s reads attributes by computed name (%s)" % (frame.f_code.co_name, access)
                    break
    if why is not None:
        _finding("high", _where(taker), "code under test took a frame (%s) while %s ran, with the test's frame and "
                 "locals one f_back walk away, and %s" % (_where(fr), _where(test), why), "frame-walk")


def _on_frame_attr(args):
    obj, name = args[0], args[1]
    if name not in _FRAME_ATTRS:
        return
    fr = obj if name == "f_code" else getattr(obj, name, None)
    if fr is None or not hasattr(fr, "f_code"):
        return
    if _kind(fr.f_code.co_filename) not in ("T", "P"):
        if name in ("gi_frame", "cr_frame", "ag_frame"):
            # a running generator's frame of the tree: its f_back is its caller's
            f = _tree_initiator()
            if f is not None:
                _judge_own_frame(f, fr)
            return
        if name == "tb_frame":
            # a traceback's frame of the tree's own is a frame object as sys._getframe()'s is: the test's is one f_back
            # away, so it is judged the same way (flask's _called_with_wrong_args compares tb.tb_frame.f_code by identity)
            f = _direct_tree_code()
            if f is not None:
                _judge_own_frame(f, fr, frames_function=False)
        return
    f = _tree_initiator()
    if f is not None and not _plain_stack_read(f) and not (name in ("tb_frame", "f_code") and _identity_only(f)):
        _finding("high", _where(f), "code under test read %s of a frame of %s" % (name, _where(fr)), "frame-introspection")


def _identity_only(taker):
    """A test's frame out of a traceback (a callable the test handed over raised inside the tree: flask's CLI walks the
    traceback comparing each frame's f_code with the factory's), or its code, can serve the tree for identity only where
    the tree names none of a frame's data (f_locals, f_globals, f_back, source lines) or a code object's contents and
    the function reading it reads no attribute by computed name."""
    return _walk_in_tree(_IDENTITY_BREAKERS) is None and _computed_access(taker, nested=False) is None


def _on_audit_hook(args):
    # An audit hook sees every compile (the tests' source text, as the rewriter parses it), open and import.
    f = _tree_initiator()
    if f is not None:
        _finding("high", _where(f), "code under test added an audit hook: it is handed the source of every module "
                 "compiled after it, the tests' included", "audit-hook")


_SIGNATURE_ONLY = frozenset(("_signature_from_function", "getfullargspec", "_signature_from_callable"))
# inspect's flag test behind iscoroutinefunction, isgeneratorfunction and isasyncgenfunction (flask's ensure_sync on a
# view the test defined, blinker's send on a test's receiver, click's echo_via_pager on a test's generator) reads
# __code__ only for co_flags and returns a bool: no constant leaves it. Its code object as loaded before any code of
# the tree runs: a tree's own inspect.py, or an _has_code_flag rebound or given other code, is not it.
_FLAG_READER = getattr(getattr(sys.modules.get("inspect"), "_has_code_flag", None), "__code__", None)


def _on_code_read(args):
    # A test function's __code__ holds the expected values (co_consts) of its asserts. Only while tests
    # run (a decorator of the project's applied to tests reads it at import), and not for a signature.
    if _state["nodeid"] is None:
        return
    fn = args[0]
    code = getattr(fn, "__code__", None) if type(fn).__name__ == "function" else None
    if code is None or _kind(code.co_filename) != "T":
        return
    reader = _caller()
    if reader is not None and _FLAG_READER is not None and reader.f_code is _FLAG_READER:
        return  # a flag test: the function is a coroutine or generator function or not (see _FLAG_READER)
    f = _getframe(1)
    while f is not None:
        if f.f_code.co_name in _SIGNATURE_ONLY and f.f_code.co_filename.endswith(os.sep + "inspect.py"):
            return
        f = f.f_back
    f = _tree_initiator()
    if f is None:
        return
    if _walk_in_tree(_CODE_DATA_NAMES) is None and _computed_access(f, nested=False) is None:
        return  # a tree that names none of a code object's contents can use it for its identity or flags only (flask's CLI)
    _finding("high", _where(f), "code under test read __code__ of the test function %s (its constants are the "
             "expected values)" % getattr(fn, "__qualname__", "?"), "test-code-read")


# What a code object holds of a test beyond its identity, name and flags: its constants, names, byte code and lines.
_CODE_DATA_NAMES = frozenset(("co_consts", "co_code", "co_names", "co_varnames", "co_cellvars", "co_freevars", "co_lines",
                              "co_positions", "co_lnotab", "co_linetable", "co_exceptiontable", "_co_code_adaptive",
                              "get_instructions", "findlinestarts", "getsource", "getsourcelines", "marshal"))
# A tree naming none of these can use a test's frame or code for identity only (_identity_only): one walk of the tree.
_IDENTITY_BREAKERS = _STACK_READ_NAMES | _WALK_NAMES | _CODE_DATA_NAMES


def _on_any_frames(event):
    def handler(args):
        f = _direct_tree_code(_INSPECT_SKIP)
        if f is not None:
            _finding("high", _where(f), "code under test called %s" % event, "frame-introspection")
    return handler


