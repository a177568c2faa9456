"""``arena bench scale`` prints rates with 1 and N workers and the efficiency."""

from __future__ import annotations

import pytest

from arena.cli import main


@pytest.mark.usefixtures("ray_session")
def test_bench_scale_reports_efficiency_and_overhead(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "scale", "--variant", "shengji-1", "--matches", "8", "--deals", "1"]) == 0
    out = capsys.readouterr().out
    assert "plain single process" in out and "Ray, 1 worker" in out
    assert "efficiency rate_N / (N·rate_1)" in out and "Ray overhead" in out


def test_bench_scale_refuses_nonsense(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as refused:
        main(["bench", "scale", "--matches", "0"])
    assert refused.value.code == 2
    assert "argument --matches: must be an integer from 1" in capsys.readouterr().err
