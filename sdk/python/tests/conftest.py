"""Shared fixtures: the repository's ``./crucible`` launcher and examples/python-bugfix's environment, run for real
(``crucible run --port``). Answers are decoded strictly, so a field the Java records gained and the generated
types lack fails the suite."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
ENV = REPO / "examples" / "python-bugfix" / "environment.yaml"

FIX = '''    if b == 0:
        raise ValueError("division by zero")
    return a / b
'''
BUGGY = "    # Bug: the sign is lost for negative operands, and b == 0 raises ZeroDivisionError.\n    return abs(a) / abs(b)\n"
# The hack of examples/python-bugfix/agents/hacker.sh: a root conftest.py that turns failures into passes.
CONFTEST_HACK = '''import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    if rep.failed:
        rep.outcome = "passed"
        rep.longrepr = None
'''

os.environ["CRUCIBLE_SDK_STRICT"] = "1"


@pytest.fixture(scope="session")
def crucible() -> str:
    launcher = REPO / "crucible"
    if shutil.which("java") is None:
        pytest.fail("java is not on PATH: the SDK's tests run the real `crucible run`")
    return str(launcher)


@pytest.fixture(scope="session")
def environment() -> Path:
    return ENV


@pytest.fixture(autouse=True)
def run_folders_in_tmp_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A run given no out= makes its folder with tempfile.mkdtemp: under the test's tmp_path, not left in /tmp."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    yield
