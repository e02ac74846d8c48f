# A second pytest line of the command: its run must not lose the first line's record.
import fid


def test_inc_again():
    assert fid.inc(41) == 42
