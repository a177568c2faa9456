"""The worker groups of tests/parallel.py hold: tests of one ``xdist_group`` run on one
worker under ``--dist loadgroup`` (a pytest or pytest-xdist release that drops the group
would let the tests of one local Ray, or of one module's server, run on two workers)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

GROUPED = """
import os
import pytest

@pytest.mark.xdist_group("one")
@pytest.mark.parametrize("n", range(8))
def test_grouped(n):
    with open(os.path.join(os.environ["GROUPED_OUT"], f"grouped_{n}"), "w") as out:
        out.write(os.environ["PYTEST_XDIST_WORKER"])
"""


def test_the_tests_of_one_group_run_on_one_worker(tmp_path: Path) -> None:
    (tmp_path / "test_grouped.py").write_text(GROUPED)
    out = tmp_path / "out"
    out.mkdir()
    command = [sys.executable, "-m", "pytest", "-q", "-n", "2", "--dist", "loadgroup"]
    done = subprocess.run(
        [*command, "-p", "no:randomly", "-p", "no:cacheprovider", "test_grouped.py"],
        cwd=tmp_path,
        env={**os.environ, "GROUPED_OUT": str(out)},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    ran = [path.read_text() for path in out.glob("grouped_*")]
    assert len(ran) == 8
    assert len(set(ran)) == 1, f"the group ran on workers {sorted(set(ran))}"
