"""``bots.make``: built-in bots by name, with constructor parameters after a colon."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

import pytest

import bots
from arena import games
from arena.chance import derive_seed
from arena.deal_loop import action_text
from arena.errors import ConfigError
from arena.rating import SprtConfig
from arena.replay import MatchRecord, replay_entry, start_deal
from arena.sim.compare import compare, pair_jobs
from arena.sim.jobs import MatchJob, MatchReport
from arena.sim.worker import play_job, play_jobs
from bots.search import DEFAULT_CANDIDATES, SearchBot


def test_plain_names_make_the_default_bots() -> None:
    assert set(bots.names()) >= {"random", "first", "heuristic", "search"}
    search = bots.make("search", seed=5)
    assert isinstance(search, SearchBot)
    assert (search.samples, search.candidates) == (None, DEFAULT_CANDIDATES)  # per game


def test_parameters_after_a_colon_go_to_the_constructor() -> None:
    bot = bots.make("search:samples=16,candidates=4", seed=7)
    assert isinstance(bot, SearchBot)
    assert (bot.samples, bot.candidates) == (16, 4)
    tuned = bots.make("search: margin = 1.5 , max_seconds=2")
    assert isinstance(tuned, SearchBot)
    assert tuned.margin == 1.5 and tuned.max_seconds == 2.0
    assert isinstance(tuned.max_seconds, float)


def test_only_numeric_parameters_are_offered() -> None:
    offered = bots.parameters("search")
    assert offered["samples"] is int and offered["candidates"] is int
    assert offered["margin"] is float and offered["max_seconds"] is float
    assert "rollout" not in offered and "options" not in offered and "seed" not in offered
    assert bots.parameters("heuristic") == {"risk": float, "points": float}  # its style
    assert bots.parameters("first") == {}


@pytest.mark.parametrize(
    ("name", "named"),
    [
        ("search:depth=3", "'depth'"),
        ("search:rollout=1", "'rollout'"),
        ("search:seed=1", "'seed'"),
        ("heuristic:samples=2", "'samples'"),
        ("heuristic:risk=1.5", "risk must be a number from 0 to 1"),
        ("heuristic:points=-0.1", "points must be a number from 0 to 1"),
        ("search:samples", "'samples'"),
        ("search:samples=1,samples=2", "'samples'"),
        ("search:samples=1.5", "'samples'"),
        ("search:samples=many", "'samples'"),
        ("search:margin=nan", "'margin'"),
        ("search:margin=1e400", "'margin'"),
        ("search:samples=99999999999", "'samples' of bot 'search' must be an int within"),
        ("search:samples=" + "9" * 5000, "'samples'"),
        ("search:samples=0", "samples"),
        ("search:max_seconds=-1", "max_seconds"),
        ("search:", "''"),
        ("nobody:samples=2", "'nobody'"),
    ],
)
def test_bad_names_and_parameters_are_config_errors_naming_them(name: str, named: str) -> None:
    with pytest.raises(ConfigError, match=named):
        bots.make(name)


def test_a_parameterised_bot_plays_a_match_job_under_its_full_name() -> None:
    name = "search:samples=1,candidates=2"
    job = pair_jobs(name, "first", "shengji-1", {}, 1, seed=3, start=0, count=1)[0]
    report = play_job(job)
    assert report.job.players == (name, "first", name, "first")
    assert report.record["players"][0] == name
    assert report.deals == 1
    # and played as that bot, its parameters included: every recorded action is the
    # choice of the bot the name makes, seeded as the worker seeds each player
    players = [bots.make(n, derive_seed(job.seed, "bot", p)) for p, n in enumerate(job.players)]
    record = MatchRecord.from_dict(report.record)
    game = games.make(record.game, **record.options)
    searched = 0
    for deal in record.deals:
        state = start_deal(game, deal)
        for text in deal.actions:
            seat = state.to_act
            player = state.player_at(seat)
            assert text == action_text(players[player].act(state.observe(seat))), text
            searched += job.players[player] == name
            replay_entry(state, text)
    assert searched > 10


class _InProcess:
    workers = 2

    def run(self, jobs: Sequence[MatchJob], batch_size: int) -> Iterator[MatchReport]:
        for i in range(0, len(jobs), batch_size):
            yield from play_jobs(jobs[i : i + batch_size])


def test_compare_takes_parameterised_names() -> None:
    name = "search:samples=1,candidates=2"
    result = compare(_InProcess(), name, "random", "sanfu", {}, SprtConfig(), max_pairs=2)
    assert result.summary()["bot_a"] == name
    assert len(result.pair_scores) == 2


@pytest.mark.parametrize(
    ("names", "players"),
    [
        (["heuristic"], ("heuristic",) * 4),
        (["search:samples=8", "random"], ("search:samples=8", "random") * 2),
        (["first", "random", "heuristic", "random"], ("first", "random", "heuristic", "random")),
    ],
)
def test_a_lineup_names_a_bot_for_all_per_team_or_per_player(
    names: list[str], players: tuple[str, ...]
) -> None:
    assert bots.lineup(names) == players


@pytest.mark.parametrize(
    ("names", "message"),
    [
        (["random"] * 3, "name one bot for every player, two"),
        ([], "name one bot for every player, two"),
        (["heuristic", "nobot"], "unknown bot 'nobot'"),
        (["random", "search:samples=0"], "search:samples=0"),
    ],
)
def test_a_bad_lineup_is_refused_naming_what_is_wrong(names: list[str], message: str) -> None:
    with pytest.raises(ConfigError, match=re.escape(message)):
        bots.lineup(names)
