# Frames the code under test writes into its worker's answer channel (blind round 8, x24/x29): a real worker
# (oracle_worker, unboxed) runs a small tree that writes well-formed frames to every writable pipe it holds (the
# worker's answer descriptor among them), and the trusted side's connection (oracle_conn) must never take one as an
# answer: each answer echoes its request's number, a frame that does not, bytes after an answer, or an answer found
# later for a request already answered are a `channel` attempt, and the session is void (no later call answered).

import pytest

import oracle_conn

TREE = '''
import fcntl, json, os, stat, struct, time


def _frames(obj, little=False):
    data = json.dumps(obj).encode()
    return struct.pack("<I" if little else ">I", len(data)) + data


def _spray(data):
    # every writable pipe past stdio, as x29 did: the worker's answer pipe is one of them
    for fd in range(3, 64):
        try:
            if stat.S_ISFIFO(os.fstat(fd).st_mode) and fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE == os.O_WRONLY:
                os.write(fd, data)
        except OSError:
            pass


def forge_unnumbered(v):  # x29: one frame ["ok", -1], then the real answer
    _spray(_frames(["ok", -1]))
    return v


def forge_numbered(q, v, wait=0.0):  # a tree that read its request's number (it can: the request is in its process)
    _spray(_frames(["ok", q, -1]))
    time.sleep(wait)  # its real answer comes later, in a read of its own
    return v


def forge_little_endian(v):  # x24: a little-endian length, read as a huge frame
    _spray(_frames(["ok", -1], little=True))
    return v


def chatty(v):  # honest output: prints and stderr are no frames
    print("computing", v)
    os.write(2, b"progress\\n")
    return v + 1
'''


@pytest.fixture
def tree(oracle_tree):
    return oracle_tree({"forge.py": TREE}, "forge")  # conftest: a real worker, unboxed


def _kinds(conn):
    # the forging tree finds the answer pipe with fcntl on the worker's own pipes: also a `worker` attempt (round 11, x25)
    return [a["kind"] for a in conn.attempts.items if a["kind"] != "worker" or "fcntl on the worker's own pipe" not in a["detail"]]


def _void(conn):
    with pytest.raises(oracle_conn.OracleBroken, match="no answer of this session is believed"):
        conn.request({"op": "imp", "name": "forge"})


def test_an_unnumbered_frame_is_never_an_answer(tree):
    with pytest.raises(oracle_conn.OracleBroken):
        tree.mod.forge_unnumbered(5)
    assert _kinds(tree.conn) == ["channel"], tree.conn.attempts.items
    _void(tree.conn)  # and nothing later is read one answer behind: the session is void


def test_a_frame_with_another_number_is_never_an_answer(tree):
    with pytest.raises(oracle_conn.OracleBroken, match="numbered"):
        tree.mod.forge_numbered(tree.conn.seq + 7, 5, 0.5)
    assert _kinds(tree.conn) == ["channel"], tree.conn.attempts.items


def test_a_frame_with_the_right_number_is_caught_when_the_real_answer_follows(tree):
    # the forged frame is read first and taken (it is what the tree could have returned), but the worker's own
    # answer to the same request is found before the next call's: that call is not answered one behind
    assert tree.mod.forge_numbered(tree.conn.seq + 1, 5, 0.5) == -1
    with pytest.raises(oracle_conn.OracleBroken, match="numbered"):
        tree.mod.chatty(1)
    assert _kinds(tree.conn) == ["channel"], tree.conn.attempts.items
    _void(tree.conn)


def test_a_forged_frame_and_the_real_answer_in_one_read(tree):
    try:
        tree.mod.forge_numbered(tree.conn.seq + 1, 5)
    except oracle_conn.OracleBroken:
        pass  # both came in one read: bytes after the answer
    else:  # or the real one came after: it is found by the next call
        with pytest.raises(oracle_conn.OracleBroken):
            tree.mod.chatty(1)
    assert _kinds(tree.conn) == ["channel"], tree.conn.attempts.items
    _void(tree.conn)


def test_the_closing_request_finds_an_answer_queued_behind_a_forged_one(tree):
    assert tree.mod.forge_numbered(tree.conn.seq + 1, 5, 0.5) == -1
    tree.conn.end()  # the last call of a session: nothing after it would read the stale answer but end's own request
    assert _kinds(tree.conn) == ["channel"], tree.conn.attempts.items


def test_a_little_endian_length_is_a_channel_attempt(tree):
    with pytest.raises(oracle_conn.OracleBroken):
        tree.mod.forge_little_endian(5)
    assert _kinds(tree.conn) == ["channel"], tree.conn.attempts.items
    _void(tree.conn)


def test_honest_calls_and_output_record_nothing(tree):
    for i in range(50):
        assert tree.mod.chatty(i) == i + 1
    tree.conn.end()
    assert tree.conn.attempts.items == [] and tree.conn.void is None and tree.conn.broken == []
