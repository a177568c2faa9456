"""A bot author's class may subclass a built-in bot (``class Mine(RandomBot)``), compiled
with the engines or not: in process, and in ``arena bot run``."""

from __future__ import annotations

import inspect
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from test_server import register
from test_server_play import PlayServer

import bots
import bots.simple
from arena.compiled import engines
from arena.games import make
from arena.games.base import Action, Observation
from arena.match import play_match
from arena.store import Store

CASES: dict[str, dict[str, Any]] = {
    "random": {},
    "first": {},
    "heuristic": {},
    "search": {"samples": 1, "candidates": 1},
}
"""Every built-in bot, with the parameters its subclass is made with."""
LEFT_OUT = {"policy": "needs a trained policy's file; interpreted (arena.env) either way"}


def test_every_built_in_bot_is_tried_and_compiled_ones_run_when_built() -> None:
    """The cases below cover each built-in bot, and exercise mypyc's classes whenever
    the compiled engines run (``make test``'s first pass)."""
    assert set(CASES) | set(LEFT_OUT) == set(bots.names())
    assert str(bots.simple.__file__).endswith(".so") == engines().compiled


def _subclass(base: type) -> type:
    """``class Mine(base)``, written as a bot author would, counting its decisions."""

    class Mine(base):  # type: ignore[valid-type, misc]
        calls = 0

        def act(self, observation: Observation) -> Action:
            type(self).calls += 1
            action: Action = super().act(observation)
            return action

    return Mine


def _made(cls: type, parameters: dict[str, Any], seat: int) -> object:
    seeded = "seed" in inspect.signature(cls).parameters
    return cls(seed=seat, **parameters) if seeded else cls(**parameters)


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_subclass_of_each_built_in_bot_plays_in_process(name: str) -> None:
    """A subclass (an interpreted class) of each built-in bot's class is created, the
    match driver (compiled or not) calls its own ``act``, and its ``super().act`` plays
    exactly as the built-in bot does."""
    base = type(bots.make(name))
    mine = _subclass(base)
    game = make("guandan")
    theirs = play_match(
        game, [_made(base, CASES[name], seat) for seat in range(4)], seed=3, max_deals=1
    )
    ours = play_match(
        game, [_made(mine, CASES[name], seat) for seat in range(4)], seed=3, max_deals=1
    )
    assert ours.record.deals[0].actions == theirs.record.deals[0].actions
    assert mine.calls == ours.decisions > 0  # type: ignore[attr-defined]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    with Store.open(tmp_path_factory.mktemp("subclass") / "arena.sqlite") as store:
        running = PlayServer(store)
        yield running.running.port
        running.close()


@pytest.mark.parametrize(
    ("module", "name"),
    [("bots.simple", "RandomBot"), ("bots.simple", "FirstBot"), ("bots", "HeuristicBot")],
)
def test_arena_bot_run_plays_a_subclass_of_a_built_in_bot(
    server: int, tmp_path: Path, module: str, name: str
) -> None:
    """``arena bot run mine:Mine`` with ``class Mine(RandomBot)`` (likewise the first
    and heuristic bots) in the author's own file plays its match, its ``act`` asked."""
    (tmp_path / "mine.py").write_text(
        f"import sys\nfrom {module} import {name}\n\n"
        f"class Mine({name}):\n"
        "    def act(self, observation):\n"
        "        print('mine acts', file=sys.stderr, flush=True)\n"
        "        return super().act(observation)\n"
    )
    with grpc.insecure_channel(f"127.0.0.1:{server}") as channel:
        token = register(channel, f"mine-{name.lower()}").token
    command = [sys.executable, "-m", "arena.cli", "bot", "run", "mine:Mine", "--casual"]
    command += ["--server", f"127.0.0.1:{server}", "--token", token, "--matches", "1"]
    command += ["--fill-after", "0.05", "--fill-bot", "first", "--give-up-after", "30"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert (done.returncode, done.stdout) == (0, "1 match played\n"), done.stderr
    assert "mine acts" in done.stderr.splitlines()


def test_a_bot_that_cannot_be_created_is_one_line(tmp_path: Path) -> None:
    """A bot class whose ``__init__`` fails ends ``arena bot run`` with one line naming
    the class and the error, exit status 2 (not a traceback)."""
    (tmp_path / "broken.py").write_text(
        "class Broken:\n"
        "    def __init__(self, seed):\n"
        "        raise TypeError('no table for seed %d' % seed)\n"
        "    def act(self, observation):\n"
        "        return observation.legal_actions[0]\n"
    )
    command = [sys.executable, "-m", "arena.cli", "bot", "run", "broken:Broken"]
    command += ["--token", "t", "--seed", "5"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert (done.returncode, done.stdout) == (2, ""), done.stderr
    assert done.stderr.splitlines() == [
        "arena: cannot create broken:Broken: TypeError: no table for seed 5"
    ]
