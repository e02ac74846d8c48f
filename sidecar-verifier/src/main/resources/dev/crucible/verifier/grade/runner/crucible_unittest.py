"""Runs `python -m unittest ARGS` as unittest's own command line does (or, after `--script`, a script that
ends in unittest.main() as `python SCRIPT ARGS` does), and writes one JSON line per test outcome to the
report file named first (the grader's fresh folder). Subtest failures fail their test."""
import json
import os
import sys
import unittest

_REPORT = sys.argv.pop(1)
_ORACLE = None
_CONFIG = os.environ.pop("CRUCIBLE_ORACLE_CONFIG", None)
if _CONFIG:  # the isolated oracle (issue 33): loaded before the tree joins sys.path and before any test module
    sys.path.insert(0, os.path.dirname(_CONFIG))
    try:
        import oracle_unittest
    finally:
        sys.path.pop(0)
    _ORACLE = oracle_unittest.install(_CONFIG)  # None: this process cannot take it (the record says why)
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
    def startTest(self, test):
        super().startTest(test)  # first: with -b it swaps the streams, which the oracle then takes as the test's own
        if _ORACLE is not None:
            _ORACLE.start(test)

    def stopTest(self, test):
        super().stopTest(test)
        if _ORACLE is not None:
            _ORACLE.stop(test)

    def addSuccess(self, test):
        why = _ORACLE.why_not(test) if _ORACLE is not None else None
        if why:  # it needs in-process grading or its worker broke: not a pass here, whatever the test caught
            self.addFailure(test, (AssertionError, AssertionError(why), None))
            return
        super().addSuccess(test)
        _emit(test, "passed")

    def addFailure(self, test, err):
        super().addFailure(test, err)
        _emit(test, "failed", self.failures[-1][1])

    def addError(self, test, err):
        if _ORACLE is not None:
            _ORACLE.error(test, err)
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


try:
    if _SCRIPT is None:
        unittest.main(module=None, testRunner=unittest.TextTestRunner(resultclass=_Result))
    else:
        import runpy
        unittest.TextTestRunner.resultclass = _Result  # the runner unittest.main() makes uses it
        if _ORACLE is not None:
            _ORACLE.script(_SCRIPT, lambda: runpy.run_path(_SCRIPT, run_name="__main__"))
        else:
            runpy.run_path(_SCRIPT, run_name="__main__")
finally:
    if _ORACLE is not None:
        _ORACLE.finish()  # the per-test record, written by this process (the tree's code runs only in its worker)
