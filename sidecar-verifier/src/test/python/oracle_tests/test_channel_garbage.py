# The trusted side's connection (oracle_conn): the worker writes frames only on descriptors of its own, so bytes on its
# channel that are no answer were written there by the code under test (blind round 6, e13: frames injected into every
# pipe the worker holds). The call fails, as before, and the attempt is recorded; an honest answer records nothing.
import os
import struct
import sys

sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", "main", "resources", "dev",
                                                "crucible", "verifier", "grade", "oracle")))

import oracle_conn  # noqa: E402
from oracle_wire import write_frame  # noqa: E402


class _Proc:
    """A worker whose answers are whatever bytes the test put in its answer pipe beforehand."""

    def __init__(self, answer):
        self.rfd, w = os.pipe()
        r, self.wfd = os.pipe()
        os.write(w, answer)
        os.close(w)
        self._keep = r

    def kill(self):
        for fd in (self.rfd, self.wfd, self._keep):
            try:
                os.close(fd)
            except OSError:
                pass

    def status(self):
        return 0


def _connect(answer):
    conn = oracle_conn.Conn(lambda: _Proc(answer), {"root": "/x"}, 5.0)
    try:
        conn.request({"op": "ping"})
    except oracle_conn.OracleBroken as e:
        return conn, str(e)
    return conn, None


def test_bytes_that_are_not_a_frame_are_a_channel_attempt():
    conn, broken = _connect(struct.pack(">I", 2) + b"{]")
    assert broken and "answered garbage" in broken
    assert [a["kind"] for a in conn.attempts.items] == ["channel"], conn.attempts.items


def test_a_frame_of_the_wrong_shape_is_a_channel_attempt():
    frames = []
    write_frame(frames.append, ["value", True])
    conn, broken = _connect(frames[0])
    assert broken and [a["kind"] for a in conn.attempts.items] == ["channel"], conn.attempts.items


def test_a_second_answer_queued_behind_the_first_is_a_channel_attempt():
    # the worker writes nothing after an answer until its next request: two answers at once are one too many
    # (an honest session recording nothing, with a real worker: test_channel_frames)
    frames = []
    write_frame(frames.append, ["ok", 1, None])
    write_frame(frames.append, ["ok", 2, None])
    conn, broken = _connect(b"".join(frames))
    assert broken and "after the answer to request 1" in broken
    assert [a["kind"] for a in conn.attempts.items] == ["channel"] and conn.void
