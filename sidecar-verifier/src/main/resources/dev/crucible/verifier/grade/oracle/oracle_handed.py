# An open file or a BytesIO a test hands to the code under test (`with open(path, "rb") as f: convert(f)`), copied into
# the worker instead of sending the test to in-process grading. microsoft/markitdown: 47 of its 212 tests hand an open
# file to the code and were not counted (in-process verdicts untrusted). The worker gets an object of the same type, at
# the same position, reading the same bytes: a BytesIO made there, or the file copied into the scratch folder both sides
# see (same base name, so a suffix still tells the format) and opened with the same mode. Only what the test could read
# itself crosses: a read-only, seekable regular file or a BytesIO, up to SIZE_LIMIT. The worker reads its copy: the
# test's own object keeps its position (a test that reads on after the call sees what it left, not what the code read).
import io
import os
import stat
import tempfile

SIZE_LIMIT = 32 << 20  # a frame carries a BytesIO's bytes; a file's are written to the scratch folder


def copy_in_worker(session, v):
    """The worker's copy of v (a reference to hold and tag), or None when v is not such an object."""
    t = type(v)
    if t is io.BytesIO:
        data, pos = v.getvalue(), v.tell()
        if len(data) > SIZE_LIMIT:
            return None
        made = _call(session, "io", "BytesIO", [data], {})
        _method(session, made, "seek", [pos])
        return _hold(session, made)
    if t not in (io.BufferedReader, io.FileIO, io.TextIOWrapper) or session.scratch is None:
        return None
    try:
        if v.closed or not v.readable() or v.writable() or not v.seekable():
            return None
        name = getattr(v, "name", None)
        fd = v.fileno()
        st = os.fstat(fd)
        if not isinstance(name, str) or not stat.S_ISREG(st.st_mode) or st.st_size > SIZE_LIMIT:
            return None
        pos = v.tell()
        data = os.pread(fd, st.st_size, 0)  # the descriptor's offset stays where the test's object has it
        folder = tempfile.mkdtemp(prefix="handed-", dir=session.scratch)
        os.chmod(folder, 0o755)
        copy = os.path.join(folder, os.path.basename(name) or "file")
        # the workers share this folder (and, locally, this uid): nothing already there is followed or overwritten
        out = os.open(copy, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0), 0o644)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(out, view):]
        finally:
            os.close(out)
    except (OSError, ValueError):
        return None
    if t is io.TextIOWrapper:
        made = _call(session, "builtins", "open", [copy, "r"], {"encoding": v.encoding, "errors": v.errors})
    else:
        made = _call(session, "builtins", "open", [copy, "rb", 0 if t is io.FileIO else -1], {})
    _method(session, made, "seek", [pos])
    return _hold(session, made)


def _module(session, name):
    ans = session.conn.request({"op": "imp", "name": name})
    return session.finish(ans)


def _call(session, module, name, args, kw):
    mod = _module(session, module)
    return session.request({"op": "call", "o": session.tag(mod), "name": name, "args": [session.enc(a) for a in args],
                            "kw": {k: session.enc(x) for k, x in kw.items()}})


def _method(session, obj, name, args):
    return session.request({"op": "call", "o": session.tag(obj), "name": name, "args": [session.enc(a) for a in args], "kw": {}})


def _hold(session, made):
    session.handed.append(made)
    del session.handed[:-256]  # the latest: each is the worker's until its proxy goes
    return made
