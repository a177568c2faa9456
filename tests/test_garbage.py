"""What a module leaves unclosed is an error in that module's last test (tests/garbage.py),
not a warning after the run naming no test. Checked on a small suite run by pytest in a
process of its own, with warnings as errors as the suite has them.

What would break it: no collection at a module's end (the socket below is freed only
when the collector next runs: after the run), a collection before the module's fixtures
are torn down, or before its last test lets go of their values (the socket is still held
then)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent

LEAKS = """
import socket

import pytest


class Cycle:
    def __init__(self, sock):
        self.sock = sock
        self.me = self  # freed only by the garbage collector


@pytest.fixture(scope="module")
def served():
    server = socket.create_server(("127.0.0.1", 0))
    client = socket.create_connection(server.getsockname())
    yield Cycle(client)  # never closed
    server.close()


def test_first(served):
    assert served.sock.fileno() >= 0


def test_last(served):
    assert served.sock.fileno() >= 0
"""

CLEAN = """
def test_after():
    assert True
"""


def run_suite(folder: Path, *options: str) -> subprocess.CompletedProcess[str]:
    (folder / "test_leaks.py").write_text(LEAKS)
    (folder / "test_clean.py").write_text(CLEAN)
    env = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "PYTHONTRACEMALLOC"}}
    env["PYTHONPATH"] = str(TESTS)
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-W", "error", "-rA", *options],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_an_unclosed_socket_in_a_cycle_fails_the_module_that_left_it(tmp_path: Path) -> None:
    done = run_suite(tmp_path, "-p", "garbage", "test_leaks.py", "test_clean.py")
    output = done.stdout + done.stderr
    assert done.returncode == 1, output
    assert "ERROR test_leaks.py::test_last - pytest.PytestUnraisableExceptionWarning" in output
    assert "Exception ignored in: <socket.socket" in output, output
    last = done.stdout.strip().splitlines()[-1]
    assert re.search(r"\b3 passed, 1 error\b", last), output
    assert "Traceback" not in done.stderr, output  # nothing left for the end of the run


def test_without_the_collection_the_run_names_no_test(tmp_path: Path) -> None:
    """The shape this guards against: pytest alone reports the socket after the run."""
    done = run_suite(tmp_path, "test_leaks.py", "test_clean.py")
    output = done.stdout + done.stderr
    assert done.returncode != 0, output
    assert "ERROR test_leaks.py" not in output
    assert "PytestUnraisableExceptionWarning" in done.stderr, output
