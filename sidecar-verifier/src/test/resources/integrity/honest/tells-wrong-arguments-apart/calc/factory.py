# flask's CLI (find_best_app, _called_with_wrong_args): call an app factory the test hands over and, on a TypeError,
# tell "called with the wrong arguments" from "the factory itself raised" by walking the traceback and comparing each
# frame's code with the factory's, by identity.
import sys

MODE = "default"


def _called_with_wrong_args(f):
    tb = sys.exc_info()[2]
    try:
        while tb is not None:
            if tb.tb_frame.f_code is f.__code__:
                return False  # in the function: it was called, and raised itself
            tb = tb.tb_next
        return True
    finally:
        del tb


def make(factory):
    try:
        return factory()
    except TypeError:
        if not _called_with_wrong_args(factory):
            raise
        return "needs arguments"


_CALLS = {}


def calls_of(fn):
    # a per-callback counter keyed by the callable's code (blind round 15, h08): getattr with the name written out
    key = getattr(fn, "__code__", fn)
    _CALLS[key] = _CALLS.get(key, 0) + 1
    return _CALLS[key]
