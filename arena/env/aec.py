"""A PettingZoo AEC environment per variant: one deal per episode, the match carried on.

Agents are the four players, ``player_0`` … ``player_3``. A player sits at the seat of
the same number except in sanfu, where seats change when partners are found (SF-4): the
environment follows the player. The agent to act observes a dict of its tensor
(``observation``, :mod:`arena.env.features`) and the mask of its action space
(``action_mask``, :mod:`arena.env.codecs`); the others observe the same with a mask of
zeros. In a factored action space (Shengji: one card at a time) the same agent acts
until its action is complete.

An episode is one deal. Rewards come at its end: each player's score of the deal, in
the game's own unit (``Outcome.scores``: levels gained in Guandan and Shengji, stakes in
sanfu). ``reset(seed=…)`` starts a new match from its first deal, and the deal seeds
are drawn from ``seed``; ``reset()`` without a seed deals the match's next deal (tribute
in Guandan, the new dealer and levels in Shengji) until the match is over, then starts
a new one.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv  # type: ignore[import-untyped]

from arena.cards import format_cards
from arena.env.codecs import ActionCodec, codec_for
from arena.env.features import Features, View, features_for
from arena.env.table import Table
from arena.games import family_of, make
from arena.games.base import NUM_SEATS, Outcome, State

__all__ = ["ArenaEnv", "env", "raw_env"]


class ArenaEnv(AECEnv):  # type: ignore[misc]
    """Deals of one variant as a PettingZoo AEC environment."""

    metadata: dict[str, Any] = {  # noqa: RUF012 (PettingZoo reads it from the class)
        "render_modes": ["ansi", "human"],
        "name": "arena_v0",
        "is_parallelizable": False,
    }

    def __init__(
        self,
        variant: str = "guandan",
        *,
        render_mode: str | None = None,
        game_options: dict[str, Any] | None = None,
        codec: ActionCodec | None = None,
    ) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode {render_mode!r} is not one of {self.metadata['render_modes']}"
            )
        self.render_mode = render_mode
        self.variant = variant
        self.game = make(variant, **(game_options or {}))
        self.codec = codec if codec is not None else codec_for(self.game)
        self.features: Features = features_for(family_of(self.game.name))
        self.metadata = {**self.metadata, "name": f"arena_{variant.replace('-', '_')}_v0"}
        self.possible_agents = [f"player_{player}" for player in range(NUM_SEATS)]
        self._observation_space = spaces.Dict(
            {
                "observation": spaces.Box(0.0, np.inf, (self.features.size,), np.float32),
                "action_mask": spaces.Box(0, 1, (self.codec.size,), np.int8),
            }
        )
        self._action_space: spaces.Discrete[np.int64] = spaces.Discrete(self.codec.size)
        rng, _ = seeding.np_random(None)
        self.table = Table(self.game, self.codec, rng)

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self._observation_space

    def action_space(self, agent: str) -> spaces.Discrete[np.int64]:
        return self._action_space

    # ------------------------------------------------------------------ the episode

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self.table.rng, _ = seeding.np_random(seed)
        self.table.deal(new_match=seed is not None)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self._next_turn()

    @property
    def state(self) -> State:
        """The engine's state of the deal."""
        return self.table.state

    @property
    def outcome(self) -> Outcome | None:
        """The deal's outcome once it is over."""
        return self.table.outcome

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} is to act: step() needs an index, not None")
        self._cumulative_rewards[agent] = 0.0
        if self.table.take(int(action)):
            self._next_turn()
        self._accumulate_rewards()
        if self.render_mode == "human":
            print(self.render())

    def _next_turn(self) -> None:
        """After a move: the next decision, or the deal's rewards and the episode's end."""
        outcome = self.table.outcome
        if outcome is not None:
            for seat, score in enumerate(outcome.scores):
                self.rewards[self._agent_at(seat)] = float(score)
            self.terminations = dict.fromkeys(self.agents, True)
            for agent in self.agents:
                self.infos[agent] = {"summary": outcome.summary}
            return
        self.agent_selection = self._agent_at(self.state.to_act)

    def _agent_at(self, seat: int) -> str:
        return self.possible_agents[self.state.player_at(seat)]

    def seat_of(self, agent: str) -> int:
        """The seat ``agent`` sits at now."""
        player = self.possible_agents.index(agent)
        for seat in range(NUM_SEATS):
            if self.state.player_at(seat) == player:
                return seat
        raise ValueError(f"{agent} sits at no seat")

    # ------------------------------------------------------------------ what agents see

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        table = self.table
        if table.decision is not None and self.agent_selection == agent:
            decision, observation = table.decision, table.observation
        else:
            decision, observation = None, self.state.observe(self.seat_of(agent))
        assert observation is not None
        selected = decision.selected_cards if decision is not None else ()
        view = View(observation, selected, table.tally)
        mask = decision.mask.copy() if decision is not None else np.zeros(self.codec.size, np.int8)
        return {"observation": self.features.vector(view), "action_mask": mask}

    def observe_fields(self, agent: str) -> dict[str, np.ndarray]:
        """The dict form of ``agent``'s tensor: each field by name, in its shape."""
        return self.features.fields(self.observe(agent)["observation"])

    def render(self) -> str | None:
        """The deal as text: the phase, whose turn, the acting player's hand, the last
        events; public facts only, besides that hand."""
        if self.render_mode is None:
            return None
        state = self.state
        lines = [f"{self.game.describe()} · phase {state.phase}"]
        if state.is_terminal():
            assert self.outcome is not None
            lines.append(f"over: {self.outcome.summary}")
        else:
            seat = state.to_act
            observation = state.observe(seat)
            lines.append(
                f"{self._agent_at(seat)} (seat {seat}) to act; hand: {_cards(observation.hand)}"
            )
            decision = self.table.decision
            if decision is not None and decision.selected:
                labels = ", ".join(self.codec.label(i) for i in decision.selected)
                lines.append(f"chosen so far: {labels}")
        for event in list(state.events)[-6:]:
            lines.append("  " + self.game.describe_event(event, state))
        return "\n".join(lines)


def _cards(cards: tuple[int, ...]) -> str:
    return format_cards(cards) or "(none)"


def raw_env(variant: str = "guandan", **kwargs: Any) -> ArenaEnv:
    """The environment of ``variant`` without PettingZoo's wrappers."""
    return ArenaEnv(variant, **kwargs)


def env(variant: str = "guandan", **kwargs: Any) -> AECEnv:
    """The environment of ``variant`` inside PettingZoo's order-enforcing wrapper (it
    catches steps out of turn and observing before ``reset``)."""
    from pettingzoo.utils import wrappers  # type: ignore[import-untyped]

    return wrappers.OrderEnforcingWrapper(raw_env(variant, **kwargs))
