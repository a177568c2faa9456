"""examples/rllib_guandan.py: RLlib's PPO trains a Guandan policy, the script exports it
as a policy file and plays it in ``arena compare`` against random.

The example needs the rl extra (torch and RLlib). Without it the script exits 2 with
one line saying how to install it, and this test skips with that line; on CI a skip
fails (tests/ci_skips.py), so CI must install the extra.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from raykill import REPO, Sessions, clean_env

from arena.env.codecs import codec_for
from arena.env.features import features_for
from arena.env.policy import PolicyNetwork
from arena.games import make

EXAMPLE = REPO / "examples" / "rllib_guandan.py"
RL_EXTRA = "install the rl extra: pip install -e '.[rl]'"
TIMEOUT = 300.0
"""Seconds the smoke run may take (it takes under half a minute on 2 cores)."""


def test_a_smoke_run_trains_exports_and_compares_with_random(
    sessions: Sessions, tmp_path: Path
) -> None:
    out = tmp_path / "smoke-policy.npz"
    process = sessions.start(
        [sys.executable, str(EXAMPLE), "--smoke", "--out", str(out), "--pairs", "10"],
        clean_env(),
    )
    try:
        status = process.wait(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        pytest.fail(f"the smoke run took over {TIMEOUT:g} s:\n{sessions.tail(process, 20)}")
    output = sessions.output(process)
    if status == 2 and RL_EXTRA in output:
        pytest.skip(RL_EXTRA)
    assert status == 0, sessions.tail(process, 30)

    network = PolicyNetwork.load(out)
    game = make("guandan")
    sizes = (features_for("guandan").size, codec_for(game).size)
    assert (network.game, network.inputs, network.outputs) == ("guandan", *sizes)

    iterations = [line for line in output.splitlines() if line.startswith("iter ")]
    assert len(iterations) == 2, output
    assert all(re.search(r"return [+-]\d+\.\d\d", line) for line in iterations), iterations
    assert "exported: its logits match the trained module's" in output
    assert f"policy:path={out.name} random --max-pairs 10 --deals 1" in output
    verdict = re.search(rf"policy:path={re.escape(out.name)} vs random on guandan: .+", output)
    assert verdict, output
    assert re.search(r"\d+ pairs, A \d+ wins, \d+ losses, \d+ draws", output), output


def test_a_bad_output_name_is_refused_before_training(tmp_path: Path) -> None:
    """The file goes to ``arena compare`` by name (``policy:path=NAME``), and a bot's
    parameters take letters, digits and '._=,+-' only: refused at once, exit 2."""
    completed = subprocess.run(
        [sys.executable, str(EXAMPLE), "--smoke", "--out", str(tmp_path / "my policy.npz")],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert completed.returncode == 2
    assert "--out" in completed.stderr and "'my policy.npz'" in completed.stderr
    assert not (tmp_path / "my policy.npz").exists()


def test_without_the_rl_extra_it_says_how_to_install_it(tmp_path: Path) -> None:
    """torch made unimportable: one line naming it and the extra, exit 2, no file."""
    out = tmp_path / "policy.npz"
    hide_torch = (
        "import runpy, sys; sys.modules['torch'] = None; "
        f"sys.argv = ['rllib_guandan.py', '--smoke', '--out', {str(out)!r}]; "
        f"runpy.run_path({str(EXAMPLE)!r}, run_name='__main__')"
    )
    completed = subprocess.run(
        [sys.executable, "-c", hide_torch], capture_output=True, text=True, timeout=60, check=False
    )
    assert completed.returncode == 2, completed.stderr
    assert completed.stderr.strip().splitlines() == [f"rllib_guandan: torch is missing; {RL_EXTRA}"]
    assert not out.exists()
