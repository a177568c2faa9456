"""``arena bench env``: the RL environment's stepping against the bare engine, one run.

Both sides play random legal moves on the same variant, in this process:

* *engine* — deals played by the engine alone: list the legal actions, apply one;
* *engine, observed* — the same with the observation of each seat to act made and its
  legal actions all listed (what any agent needs to decide);
* *vector* — the same number of deals through :class:`~arena.env.vector.VectorEnv`
  (``--matches`` tables at once): each step makes every table's action mask and the
  acting player's tensor, and the random choice is drawn from the masks in one
  vectorised draw;
* *masks only* — the vector env's work without the tensors, to show where time goes;
* *least wrapper* — the engine with the least any wrapper written in Python adds: each
  legal action's index looked up in a cache filled beforehand (one dictionary lookup an
  action), the mask cleared and set and a tensor copied from a kept one, no features.
  It bounds from below what an environment in Python can reach.

A decision is one engine action (a factored space's index that completes none is not
counted). The report gives decisions/s of each and what the environment adds:
``engine rate / vector rate - 1`` (target: at most 30%), and the same against the
observed engine.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable, Sequence
from typing import Any, Final

import numpy as np

from arena.commands import print_json
from arena.env.codecs import codec_for
from arena.env.features import features_for
from arena.env.vector import VectorEnv
from arena.games import family_of, make
from arena.games.base import Action, State
from arena.plural import counted

__all__ = ["TARGET_OVERHEAD", "measure_env", "run_env_bench"]

TARGET_OVERHEAD: Final = 0.30
"""What the environment may add to the engine's time per decision."""
TIMINGS: Final = 3
"""Runs of each engine timing; the fastest counts."""


def _deals(
    variant: str, deals: int, seed: int, legal_of: Callable[[State], Sequence[Action]]
) -> tuple[int, float]:
    """Decisions and seconds of ``deals`` deals of random moves, each decision's legal
    actions got from ``legal_of`` (with whatever work it does beside)."""
    game = make(variant)
    rng = random.Random(seed)
    decisions = 0
    setup = game.first_setup()
    start = time.perf_counter()
    for deal in range(deals):
        state = game.new_deal(setup, seed=seed + deal)
        while not state.is_terminal():
            legal = legal_of(state)
            state.apply(legal[rng.randrange(len(legal))])
            decisions += 1
        setup = state.outcome().next_setup or game.first_setup()
    return decisions, time.perf_counter() - start


def _engine(variant: str, deals: int, seed: int, observed: bool) -> tuple[int, float]:
    """The engine alone, with each decision's observation made and its legal actions
    listed if ``observed``."""

    def observed_legal(state: State) -> Sequence[Action]:
        return list(state.observe(state.to_act).legal_actions)

    def legal(state: State) -> Sequence[Action]:
        return state.legal_actions()

    return _deals(variant, deals, seed, observed_legal if observed else legal)


def _least_wrapper(
    variant: str, deals: int, seed: int, indices: dict[Action, int]
) -> tuple[int, float]:
    """:func:`_engine`'s deals with a cached index per legal action (``indices``, filled
    on a miss: the first run fills it) and a mask and a tensor written per decision."""
    game = make(variant)
    codec = codec_for(game)
    features = features_for(family_of(game.name))
    mask = np.zeros(codec.size, dtype=np.int8)
    kept = np.zeros(features.size, dtype=np.float32)
    tensor = np.zeros(features.size, dtype=np.float32)

    def legal_masked(state: State) -> Sequence[Action]:
        legal = state.legal_actions()
        listed = []
        for action in legal:
            index = indices.get(action)
            if index is None:
                index = indices[action] = codec.indices(action, state.observe(state.to_act))[0]
            listed.append(index)
        mask[:] = 0
        mask[listed] = 1
        tensor[:] = kept
        return legal

    return _deals(variant, deals, seed, legal_masked)


def _best(run: Callable[[], tuple[int, float]]) -> tuple[int, float]:
    """The fastest of :data:`TIMINGS` runs of ``run`` (the first warms the caches)."""
    return min((run() for _ in range(TIMINGS)), key=lambda timing: timing[1])


def _vector(variant: str, deals: int, tables: int, seed: int, tensors: bool) -> tuple[int, float]:
    """Decisions and seconds of at least ``deals`` deals through the vector env."""
    rng = np.random.default_rng(seed)
    start = time.perf_counter()
    env = VectorEnv(variant, tables, seed=seed, tensors=tensors)
    decisions = finished = 0
    while finished < deals:
        draw = rng.random(env.masks.shape) * env.masks
        step = env.step(draw.argmax(axis=1))
        decisions += step.actions
        finished += int(step.done.sum())
    return decisions, time.perf_counter() - start


def measure_env(variant: str, deals: int, tables: int, seed: int) -> dict[str, Any]:
    """The three timings and the wrapper's overhead (JSON-ready)."""
    engine_decisions, engine_seconds = _best(lambda: _engine(variant, deals, seed, False))
    observed_decisions, observed_seconds = _best(lambda: _engine(variant, deals, seed, True))
    indices: dict[Action, int] = {}
    least_decisions, least_seconds = _best(lambda: _least_wrapper(variant, deals, seed, indices))
    vector_decisions, vector_seconds = _vector(variant, deals, tables, seed, tensors=True)
    mask_decisions, mask_seconds = _vector(variant, deals, tables, seed, tensors=False)
    engine_rate = engine_decisions / engine_seconds
    observed_rate = observed_decisions / observed_seconds
    vector_rate = vector_decisions / vector_seconds
    mask_rate = mask_decisions / mask_seconds
    least_rate = least_decisions / least_seconds
    overhead = engine_rate / vector_rate - 1
    return {
        "variant": variant,
        "deals": deals,
        "tables": tables,
        "engine": {"decisions": engine_decisions, "decisions_per_second": engine_rate},
        "engine_observed": {"decisions": observed_decisions, "decisions_per_second": observed_rate},
        "vector": {"decisions": vector_decisions, "decisions_per_second": vector_rate},
        "masks_only": {"decisions": mask_decisions, "decisions_per_second": mask_rate},
        "least_wrapper": {"decisions": least_decisions, "decisions_per_second": least_rate},
        "overhead": overhead,
        "overhead_observed": observed_rate / vector_rate - 1,
        "overhead_least_wrapper": engine_rate / least_rate - 1,
        "target_overhead": TARGET_OVERHEAD,
        "met": overhead <= TARGET_OVERHEAD,
    }


def run_env_bench(args: argparse.Namespace) -> int:
    report = measure_env(args.variant, args.deals, args.matches, args.seed)
    if args.json:
        print_json(report)
        return 0
    engine, vector, masks = report["engine"], report["vector"], report["masks_only"]
    print(
        f"{report['variant']}: random legal moves, {counted(report['deals'], 'deal')}; "
        f"vector env with {counted(report['tables'], 'table')}"
    )
    observed = report["engine_observed"]
    print(f"  engine alone: {engine['decisions_per_second']:,.0f} decisions/s")
    print(
        f"  engine with each decision's observation and full legal list: "
        f"{observed['decisions_per_second']:,.0f} decisions/s"
    )
    print(
        f"  vector env:   {vector['decisions_per_second']:,.0f} decisions/s "
        f"(masks only: {masks['decisions_per_second']:,.0f})"
    )
    verdict = "met" if report["met"] else "NOT met"
    print(
        f"  the environment adds {report['overhead']:.0%} per decision "
        f"(target ≤ {TARGET_OVERHEAD:.0%}: {verdict}); "
        f"{report['overhead_observed']:.0%} beside the observed engine"
    )
    print(
        f"  the least a wrapper in Python adds (cached indices, mask and tensor written): "
        f"{report['overhead_least_wrapper']:.0%} "
        f"({report['least_wrapper']['decisions_per_second']:,.0f} decisions/s)"
    )
    return 0
