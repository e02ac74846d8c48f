"""Runs `python -m unittest ARGS` as unittest's own command line does (or, after `--script`, a script that
ends in unittest.main() as `python SCRIPT ARGS` does), and writes one JSON line per test outcome to the
report file named first (the grader's fresh folder). Subtest failures fail their test."""
import json
import os
import sys
import unittest

_REPORT = sys.argv.pop(1)
_SCRIPT = None
if len(sys.argv) > 2 and sys.argv[1] == "--script":  # `python test.py ARGS`: the script's own unittest.main()
    _SCRIPT = sys.argv[2]
    sys.argv = sys.argv[2:]
    sys.path[0] = os.path.dirname(os.path.abspath(_SCRIPT))  # as `python test.py`: the script's folder
else:
    sys.argv[0] = "python -m unittest"
    sys.path[0] = os.getcwd()  # as `python -m unittest`: the working folder, not this file's
_out = open(_REPORT, "w", encoding="utf-8", buffering=1)


def _emit(test, status, detail=None):
    rec = {"id": test.id(), "status": status}
    if detail:
        rec["message"] = str(detail)[-2000:]
    _out.write(json.dumps(rec) + "\n")


class _Result(unittest.TextTestResult):
    def addSuccess(self, test):
        super().addSuccess(test)
        _emit(test, "passed")

    def addFailure(self, test, err):
        super().addFailure(test, err)
        _emit(test, "failed", self.failures[-1][1])

    def addError(self, test, err):
        super().addError(test, err)
        _emit(test, "error", self.errors[-1][1] if self.errors else None)

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        _emit(test, "skipped", reason)

    def addExpectedFailure(self, test, err):
        super().addExpectedFailure(test, err)
        _emit(test, "xfailed")

    def addUnexpectedSuccess(self, test):
        super().addUnexpectedSuccess(test)
        _emit(test, "xpassed")

    def addSubTest(self, test, subtest, err):
        super().addSubTest(test, subtest, err)
        if err is not None:
            failed = issubclass(err[0], test.failureException)
            _emit(test, "failed" if failed else "error", (self.failures if failed else self.errors)[-1][1])


if _SCRIPT is None:
    unittest.main(module=None, testRunner=unittest.TextTestRunner(resultclass=_Result))
else:
    import runpy
    unittest.TextTestRunner.resultclass = _Result  # the runner unittest.main() makes uses it
    runpy.run_path(_SCRIPT, run_name="__main__")
