"""On CI a skipped test fails, naming itself and its reason (tests/ci_skips.py); elsewhere
it stays a skip. Checked on a small suite run by pytest in a process of its own."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from ci_skips import on_ci

TESTS = Path(__file__).resolve().parent

SUITE = """
import pytest

@pytest.mark.skipif(True, reason="frobnicate is not installed")
def test_marked():
    pass

def test_called():
    pytest.skip("widget is not installed")

@pytest.fixture
def gadget():
    pytest.skip("gadget is not installed")

def test_in_a_fixture(gadget):
    pass

@pytest.mark.xfail(strict=True, reason="a known bug")
def test_expected_to_fail():
    assert False

def test_passes():
    pass
"""

MODULE_SKIP = """
import pytest

pytest.skip("doohickey is not installed", allow_module_level=True)

def test_never_collected():
    pass
"""

REASONS = {
    "test_suite.py::test_marked": "frobnicate is not installed",
    "test_suite.py::test_called": "widget is not installed",
    "test_suite.py::test_in_a_fixture": "gadget is not installed",
    "test_module_skip.py": "doohickey is not installed",
}


def run_suite(folder: Path, ci: str | None, *more: str) -> subprocess.CompletedProcess[str]:
    (folder / "test_suite.py").write_text(SUITE)
    (folder / "test_module_skip.py").write_text(MODULE_SKIP)
    env = {k: v for k, v in os.environ.items() if k not in {"CI", "PYTHONPATH"}}
    env["PYTHONPATH"] = str(TESTS)
    if ci is not None:
        env["CI"] = ci
    options = ["-p", "ci_skips", "-p", "no:cacheprovider", "-rA", "--continue-on-collection-errors"]
    return subprocess.run(
        [sys.executable, "-m", "pytest", *options, *more],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def closing_counts(output: str) -> dict[str, int]:
    """The counts of pytest's closing line: ``{"passed": 1, "skipped": 4, …}``."""
    last = output.strip().splitlines()[-1]
    return {word: int(n) for n, word in re.findall(r"(\d+) (\w+)", last)}


@pytest.mark.parametrize(
    ("ci", "workers"),
    [("true", ()), ("1", ()), ("true", ("-n", "2"))],
    ids=["ci-true", "ci-1", "ci-true-in-workers"],
)
def test_on_ci_every_skip_fails_naming_the_test_and_its_reason(
    tmp_path: Path, ci: str, workers: tuple[str, ...]
) -> None:
    """Also in pytest-xdist's workers (``make test`` runs ``-n``), where a test is run
    and its report made in a worker and the report shown by the controller."""
    done = run_suite(tmp_path, ci, *workers)
    assert done.returncode == 1, done.stdout + done.stderr
    # a skip at collection or in setup is an error, one in the test's body a failure
    assert closing_counts(done.stdout) == {"failed": 1, "errors": 3, "passed": 1, "xfailed": 1}
    for nodeid, reason in REASONS.items():
        assert f"{nodeid} was skipped on CI ({reason})" in done.stdout, done.stdout
    assert "skipped" not in done.stdout.strip().splitlines()[-1]


@pytest.mark.parametrize("ci", [None, "false"])
def test_elsewhere_a_skip_stays_a_skip(tmp_path: Path, ci: str | None) -> None:
    done = run_suite(tmp_path, ci)
    assert done.returncode == 0, done.stdout + done.stderr
    assert closing_counts(done.stdout) == {"passed": 1, "skipped": 4, "xfailed": 1}
    for reason in REASONS.values():
        assert reason in done.stdout
    assert "was skipped on CI" not in done.stdout


def test_on_ci_reads_the_ci_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", " True ")
    assert on_ci()
    for yes in ("true", "TRUE", "1", "yes"):
        monkeypatch.setenv("CI", yes)
        assert on_ci()
    for no in ("", "false", "0", "no"):
        monkeypatch.setenv("CI", no)
        assert not on_ci()
    monkeypatch.delenv("CI")
    assert not on_ci()
