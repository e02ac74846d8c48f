# /proc paths and gc walks (blind round 6, h15/h16): a process counting its own descriptors is daemon code, where a
# descriptor leads (the result channel) or another process's files are the attempt; a gc walk in an imported helper
# counts only where graded execution calls it, so statically it is info and says why.
import pytest

from source_rules.analyzer import analyse


def hits(source, rel="pkg/mod.py"):
    res = analyse(source.encode(), rel)
    assert res["ok"], res
    return res["hits"]


def test_listing_own_descriptors_is_quiet():
    src = "import os\n\ndef open_fds():\n    try:\n        return len(os.listdir('/proc/self/fd'))\n    except OSError:\n        return 0\n"
    assert [h for h in hits(src) if h["severity"] != "info"] == []


@pytest.mark.parametrize("path", [
    "/proc/self/fd/",             # the prefix of a descriptor's target: os.readlink('/proc/self/fd/' + n)
    "/proc/self/fd/3",            # an inherited descriptor (the channel)
    "/proc/1/fd",                 # another process's descriptors
    "/proc/self/task/7/environ",  # a thread's view of the initial environment
    "/proc/self/cwd",             # the grading folder, tests included
])
def test_where_descriptors_lead_and_other_processes_are_flagged(path):
    found = hits("import os\nX = os.readlink(%r)\n" % path)
    assert any(h["rule"] == "test-file-path" and h["severity"] == "high" for h in found), found


def test_gc_walk_is_info_with_the_reason():
    src = "import gc, re\n\ndef live_matches():\n    return sum(1 for o in gc.get_objects() if isinstance(o, re.Match))\n"
    gc_hits = [h for h in hits(src) if h["rule"] == "gc-walk"]
    assert gc_hits and all(h["severity"] == "info" for h in gc_hits), gc_hits
    assert "counted where graded execution calls it" in gc_hits[0]["evidence"]
