"""The search bot's costs for one variant: cloning a state, drawing a determinized
state, and a whole decision.

Positions come from consecutive match deals (so Guandan's tribute and every Shengji
dealer occur) played by random bots from a fixed seed: every position where the seat
to act has a choice is a candidate, a seeded draw keeps some of them. The same seed
gives the same positions, so two checkouts timed with it time the same work.
Times are means of the process's CPU time (``process_time``: other processes on the
machine count less); the decisions made are returned too,
so that two runs can be checked to decide alike.
"""

from __future__ import annotations

import gc
import random
import time
from dataclasses import dataclass
from typing import Any

from arena.chance import derive_seed
from arena.commands.bench_deals import match_setups
from arena.errors import ConfigError
from arena.games import make
from arena.games.base import Observation, State
from bots import determinize
from bots.search import SearchBot

__all__ = [
    "Decisions",
    "Position",
    "bench_search",
    "clone_us",
    "decision_ms",
    "describe_search",
    "positions",
    "sample_us",
]

EVERY = 12
"""One in ``EVERY`` positions with a choice is kept (on average)."""


@dataclass(frozen=True)
class Position:
    """A state of a deal and what its seat to act sees there."""

    state: State
    observation: Observation


def positions(variant: str, count: int, seed: int = 0) -> list[Position]:
    """``count`` positions of ``variant`` with a choice for the seat to act."""
    game = make(variant)
    rng = random.Random(derive_seed(seed, "bench search", variant))
    kept: list[Position] = []
    deal = 0
    while len(kept) < count:
        deal_seeds = [derive_seed(seed, "bench search deal", variant, deal + k) for k in range(4)]
        for setup, deal_seed in zip(match_setups(game, deal_seeds), deal_seeds, strict=True):
            state = game.new_deal(setup, seed=deal_seed)
            while not state.is_terminal() and len(kept) < count:
                observation = state.observe(state.to_act)
                legal = observation.legal_actions
                if len(legal) > 1 and rng.randrange(EVERY) == 0:
                    kept.append(Position(state.clone(), observation))
                state.apply(legal[rng.randrange(len(legal))])
        deal += 4
    return kept


def _mean_us(seconds: float, count: int) -> float:
    return seconds / count * 1e6


def clone_us(states: list[State], repeats: int) -> float:
    """Mean microseconds of one ``State.clone()`` over the mid-deal ``states``."""
    gc.collect()  # garbage from before collected outside the timing
    start = time.process_time()
    for _ in range(repeats):
        for state in states:
            state.clone()
    return _mean_us(time.process_time() - start, repeats * len(states))


def sample_us(observations: list[Observation], draws: int, seed: int = 0) -> float:
    """Mean microseconds of one determinized state drawn for an observation, ``draws``
    of them in a row for each observation as the search bot draws them in a decision
    (with what the observation decides worked out once for them where the code can)."""
    game = determinize.game_for(observations[0])
    rng = random.Random(seed)
    prepared = getattr(determinize, "determinizer", None)
    gc.collect()  # garbage from before collected outside the timing
    start = time.process_time()
    for observation in observations:
        if prepared is None:
            for _ in range(draws):
                determinize.sample_state(observation, rng, game)
        else:
            drawer = prepared(observation, game)
            for _ in range(draws):
                drawer.sample(rng, determinize.ATTEMPTS)
    return _mean_us(time.process_time() - start, draws * len(observations))


@dataclass(frozen=True)
class Decisions:
    """The search bot's decisions at some positions: their mean time, the actions
    chosen and the rollouts played (the counted work: equal for equal decisions)."""

    ms: float
    chosen: list[str]
    rollouts: int


def decision_ms(observations: list[Observation], seed: int = 0) -> Decisions:
    """The ``search`` bot's decisions (its default samples and candidates, one bot
    seeded ``seed``, every position searched: no ``reach``, ``early`` decisions too)
    over ``observations``: mean milliseconds, the actions chosen, the rollouts played."""
    bot = SearchBot(seed, reach=0, early=1)
    chosen: list[str] = []
    gc.collect()  # garbage from before collected outside the timing
    start = time.process_time()
    for observation in observations:
        chosen.append(str(bot.act(observation)))
    seconds = time.process_time() - start
    return Decisions(seconds / len(observations) * 1e3, chosen, bot.total.rollouts)


def bench_search(
    variant: str,
    *,
    decisions: int = 8,
    samples: int = 40,
    repeats: int = 20,
    seed: int = 0,
) -> dict[str, Any]:
    """Clone, sample and decision times of ``variant``: a JSON-ready dict
    (:class:`~arena.errors.ConfigError` for an unknown variant or a count below 1).

    ``samples`` positions are cloned ``repeats`` times each and drawn for as many times
    as the search bot draws at least in a decision; the search bot decides the first
    ``decisions`` of them.
    """
    for name, value in (("decisions", decisions), ("samples", samples), ("repeats", repeats)):
        if value < 1:
            raise ConfigError(f"{name} must be at least 1, got {value}")
    found = positions(variant, max(samples, decisions), seed)
    states = [p.state for p in found[:samples]]
    observations = [p.observation for p in found]
    decided = decision_ms(observations[:decisions], seed)
    return {
        "variant": variant,
        "seed": seed,
        "positions": len(states),
        "clone_us": clone_us(states, repeats),
        "sample_us": sample_us(observations[:samples], SearchBot().budget(variant).samples, seed),
        "decisions": decisions,
        "decision_ms": decided.ms,
        "rollouts": decided.rollouts,
        "chosen": decided.chosen,
    }


def describe_search(result: dict[str, Any]) -> str:
    """One line of ``bench_search``'s result."""
    return (
        f"{result['variant']}: clone {result['clone_us']:.1f} µs, "
        f"determinized sample {result['sample_us']:.0f} µs, "
        f"search decision {result['decision_ms']:.1f} ms "
        f"(mean of {result['decisions']}, {result['rollouts']} rollouts, seed {result['seed']})"
    )
