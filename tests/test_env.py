"""The RL environments: PettingZoo's own API and seed tests, the tensors, hidden
information, the vectorised stepping and a trained policy as a bot."""

from __future__ import annotations

import itertools
import re
from pathlib import Path
from typing import Any, cast

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import bots
from arena.cards import parse_cards, to_counts
from arena.env.aec import ArenaEnv, env, raw_env
from arena.env.features import FEATURES, View, features_for
from arena.env.policy import PolicyBot, PolicyNetwork
from arena.env.vector import VectorEnv
from arena.errors import ConfigError
from arena.games import make, names
from arena.games.base import Action, Observation, State
from arena.match import Policy, play_match

ROOT = Path(__file__).resolve().parent.parent
VARIANTS = names()


def random_index(mask: np.ndarray, rng: np.random.Generator) -> int:
    return int(rng.choice(np.flatnonzero(mask)))


DICT_OBSERVATIONS = (
    # api_test's advice for observations that are not one array: ours are the dict of
    # tensor and action mask that PettingZoo's own card games observe too
    "ignore:Observation space for each agent probably should be:UserWarning",
    "ignore:Observation is not a NumPy array:UserWarning",
)


@pytest.mark.filterwarnings(*DICT_OBSERVATIONS)
@pytest.mark.parametrize("variant", VARIANTS)
def test_pettingzoo_api_test_passes(variant: str) -> None:
    api_test(env(variant), num_cycles=300)


@pytest.mark.filterwarnings(*DICT_OBSERVATIONS)
@pytest.mark.parametrize("variant", ["guandan", "shengji-2", "sanfu"])
def test_pettingzoo_seed_test_passes(variant: str) -> None:
    seed_test(lambda: env(variant), num_cycles=300)


def play_episode(arena_env: ArenaEnv, rng: np.random.Generator) -> dict[str, float]:
    """One deal with random legal indices; the rewards each agent collected."""
    totals = dict.fromkeys(arena_env.possible_agents, 0.0)
    for agent in arena_env.agent_iter():
        observation, reward, terminated, truncated, _ = arena_env.last()
        totals[agent] += reward
        action = None if terminated or truncated else random_index(observation["action_mask"], rng)
        arena_env.step(action)
    return totals


class Recorded:
    """An engine state that keeps the actions applied to it (the environment's moves)."""

    def __init__(self, state: State) -> None:
        self.state = state
        self.actions: list[Action] = []

    def apply(self, action: Action) -> None:
        self.actions.append(action)
        self.state.apply(action)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.state, name)


EPISODES = 4
"""Deals of a match played as episodes: in sanfu the seats move (SF-4) within them."""


@pytest.mark.parametrize("variant", VARIANTS)
def test_an_episode_is_one_deal_and_its_rewards_are_the_deals_scores(variant: str) -> None:
    """Each episode is one deal: the deal re-played on the engine from its start with the
    moves the environment made ends there, and each player's rewards are the engine's
    score of the seat that player sits at (in sanfu the seats move, SF-4, so seat and
    player differ): fails if rewards go by seat instead of player, are another deal's, or
    are not the deal's scores."""
    arena_env = raw_env(variant)
    arena_env.reset(seed=7)
    rng = np.random.default_rng(7)
    moved = scored = 0
    for _ in range(EPISODES):
        start = arena_env.state.clone()
        recorded = Recorded(arena_env.table.state)
        arena_env.table.state = cast(State, recorded)
        rewards = play_episode(arena_env, rng)
        replayed = start
        for action in recorded.actions:
            assert not replayed.is_terminal()
            replayed.apply(action)
        assert replayed.is_terminal()
        scores = replayed.outcome().scores
        players = [replayed.player_at(seat) for seat in range(4)]
        assert sorted(players) == [0, 1, 2, 3]
        assert rewards == {f"player_{players[seat]}": float(scores[seat]) for seat in range(4)}
        scored += any(scores)
        moved += players != [0, 1, 2, 3] and scores[players.index(0)] != scores[0]
        arena_env.reset()
    assert scored, "every deal scored nothing: rewards of zero would pass"
    if variant == "sanfu":
        assert moved, "no deal where a player's seat and score differ: a mix-up goes unseen"


def test_reset_without_a_seed_deals_the_matchs_next_deal_with_its_tribute() -> None:
    """GD-13: the second deal of a Guandan match starts with tribute (unless refused)."""
    arena_env = raw_env("guandan")
    arena_env.reset(seed=3)
    phases = []
    for _ in range(4):
        phases.append(arena_env.state.phase)
        play_episode(arena_env, np.random.default_rng(3))
        arena_env.reset()
    assert phases[0] == "play"
    assert any(phase in ("tribute", "return") for phase in phases[1:]) or any(
        event.kind == "tribute_refused" for event in arena_env.state.events
    )


def test_the_same_seed_gives_the_same_deals_and_observations() -> None:
    first, second = raw_env("sanfu"), raw_env("sanfu")
    first.reset(seed=11)
    second.reset(seed=11)
    rng = np.random.default_rng(0)
    for agent in first.agent_iter(max_iter=200):
        assert agent == second.agent_selection
        mine, theirs = first.observe(agent), second.observe(agent)
        assert np.array_equal(mine["observation"], theirs["observation"])
        assert np.array_equal(mine["action_mask"], theirs["action_mask"])
        if first.terminations[agent]:
            break
        index = random_index(mine["action_mask"], rng)
        first.step(index)
        second.step(index)


@pytest.mark.parametrize("variant", VARIANTS)
def test_only_the_agent_to_act_has_a_mask_and_its_hand_is_its_own(variant: str) -> None:
    arena_env = raw_env(variant)
    arena_env.reset(seed=5)
    rng = np.random.default_rng(5)
    for agent in arena_env.agent_iter(max_iter=120):
        if arena_env.terminations[agent]:
            break
        for other in arena_env.agents:
            observed = arena_env.observe(other)
            fields = arena_env.observe_fields(other)
            seat = arena_env.seat_of(other)
            assert (observed["action_mask"].sum() > 0) == (other == agent)
            assert fields["hand"].tolist() == to_counts(arena_env.state.hand(seat))
        arena_env.step(random_index(arena_env.observe(agent)["action_mask"], rng))


OWN_FIELDS = frozenset({"hand", "selected", "buried"})
"""Fields of the observing seat's own cards; every other card in a tensor was shown."""


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_tensor_holds_no_card_but_its_own_and_those_shown(variant: str) -> None:
    """C-5: outside the seat's own hand, selection and kitty, a tensor's cards are cards
    the deal's public events have shown; and what an observation leaks beside its facts
    (a planted copy of every hand) does not reach the tensor."""
    game = make(variant)
    features = features_for(game.name.split("-")[0])
    state = game.new_deal(game.first_setup(), seed=21)
    rng = np.random.default_rng(21)
    checked = 0
    while not state.is_terminal():
        shown = np.zeros(54)
        for event in state.events:
            for card in event.cards:
                shown[card] += 1
        for seat in range(4):
            observation = state.observe(seat)
            vector = features.vector(View(observation))
            fields = features.fields(vector)
            assert fields["hand"].tolist() == to_counts(state.hand(seat))
            for name, value in fields.items():
                if name in OWN_FIELDS or value.shape[-1] < 54:
                    continue
                cards = value.reshape(-1, value.shape[-1])[:, :54].sum(axis=0)
                assert (cards <= shown).all(), f"{name} holds cards never shown"
            planted = observation._replace(
                public={**observation.public, "hands": [list(h) for h in state.seat_cards()]},
                private={**observation.private, "partner_hand": list(state.hand(seat ^ 2))},
            )
            assert np.array_equal(vector, features.vector(View(planted)))
            checked += 1
        legal = state.legal_actions()
        state.apply(legal[int(rng.integers(len(legal)))])
    assert checked > 40


def test_every_field_is_documented() -> None:
    """docs/env.md lists every field of every game's tensor with its shape."""
    text = (ROOT / "docs" / "env.md").read_text(encoding="utf-8")
    for game, fields in FEATURES.items():
        section = text.split(f"### {game}", 1)[1].split("\n### ", 1)[0]
        for field in fields:
            shape = " × ".join(str(n) for n in field.shape)
            assert re.search(rf"\| `{field.name}` \| {re.escape(shape)} \|", section), (
                f"{game}: {field.name} ({shape}) is not in docs/env.md"
            )


def test_the_dict_form_is_the_flat_tensor_by_field() -> None:
    arena_env = raw_env("shengji-2")
    arena_env.reset(seed=2)
    agent = arena_env.agent_selection
    flat = arena_env.observe(agent)["observation"]
    fields = arena_env.observe_fields(agent)
    assert np.array_equal(np.concatenate([v.ravel() for v in fields.values()]), flat)
    assert list(fields) == [field.name for field in FEATURES["shengji"]]


def test_render_shows_the_phase_and_the_hand_to_act() -> None:
    arena_env = raw_env("guandan", render_mode="ansi")
    arena_env.reset(seed=1)
    text = arena_env.render()
    assert text is not None and "phase play" in text and "to act; hand:" in text


def test_a_masked_out_index_is_refused_with_its_name() -> None:
    arena_env = raw_env("guandan")
    arena_env.reset(seed=1)
    mask = arena_env.observe(arena_env.agent_selection)["action_mask"]
    refused = int(np.flatnonzero(mask == 0)[0])
    with pytest.raises(ValueError, match=str(refused)):
        arena_env.step(refused)


@pytest.mark.parametrize("variant", ["guandan", "shengji-1", "sanfu"])
def test_vector_env_rows_are_the_tables_decisions(variant: str) -> None:
    vector = VectorEnv(variant, 8, seed=4)
    rng = np.random.default_rng(4)
    deals = 0
    while deals < 10:
        for row, table in enumerate(vector.tables):
            assert table.observation is not None and table.decision is not None
            assert np.array_equal(vector.masks[row], table.decision.mask)
            view = View(table.observation, table.decision.selected_cards)
            assert np.array_equal(vector.observations[row], vector.features.vector(view))
            assert vector.players[row] == table.state.player_at(table.state.to_act)
        picks = [random_index(mask, rng) for mask in vector.masks]
        step = vector.step(picks)
        assert not step.rewards[~step.done].any()
        deals += int(step.done.sum())


def test_vector_env_refuses_a_wrong_number_of_indices() -> None:
    vector = VectorEnv("guandan", 2)
    with pytest.raises(ValueError, match="expected 2 indices"):
        vector.step([0])


def small_policy(
    path: Path, game: str = "guandan", variant: str = "guandan", sign: float = 1.0
) -> Path:
    """A random two-layer policy (its last layer times ``sign``) saved at ``path``."""
    arena_env = raw_env(variant)
    rng = np.random.default_rng(0)
    widths = [arena_env.features.size, 16, arena_env.codec.size]
    layers = [
        (rng.normal(size=(n, m)).astype(np.float32), np.zeros(m, np.float32))
        for n, m in itertools.pairwise(widths)
    ]
    weights, bias = layers[-1]
    layers[-1] = (sign * weights, bias)
    PolicyNetwork(game, layers).save(path)
    return path


def logits_of(path: Path, tensor: np.ndarray) -> np.ndarray:
    """The saved network's logits worked out here from the file's arrays: tanh between
    its dense layers."""
    with np.load(path) as data:
        count = sum(1 for name in data.files if name.startswith("w"))
        values = tensor.astype(np.float64)
        for at in range(count):
            values = values @ data[f"w{at}"] + data[f"b{at}"]
            if at < count - 1:
                values = np.tanh(values)
    return values


class Watched:
    """A policy whose decisions are kept: each observation and the action taken."""

    def __init__(self, policy: Policy) -> None:
        self.policy = policy
        self.decisions: list[tuple[Observation, Action]] = []

    def act(self, observation: Observation) -> Action:
        action = self.policy.act(observation)
        assert isinstance(action, Action)
        self.decisions.append((observation, action))
        return action


def network_choice(path: Path, arena_env: ArenaEnv, observation: Observation) -> Action:
    """The legal action the saved network ranks highest, index after index of the
    decision (a factored action space asks for several), in ``arena_env``'s tensor and
    action space."""
    decision = arena_env.codec.decision(observation)
    while True:
        tensor = arena_env.features.vector(View(observation, decision.selected_cards))
        logits = np.where(decision.mask.astype(bool), logits_of(path, tensor), -np.inf)
        action = decision.choose(int(np.argmax(logits)))
        if action is not None:
            return action


@pytest.mark.parametrize("variant", ["guandan", "shengji-2", "sanfu"])
def test_a_saved_policy_plays_a_match_as_a_bot(tmp_path: Path, variant: str) -> None:
    """Each decision of a saved policy is the legal action its network ranks highest
    (logits worked out here from the file), and the same network with its last layer
    negated plays the same deal otherwise: fails if the bot ignores its network, reads
    another tensor, or takes the first or any legal action."""
    family = variant.split("-")[0]
    arena_env = raw_env(variant)
    records = []
    for sign in (1.0, -1.0):
        path = small_policy(tmp_path / f"policy{sign:+}.npz", family, variant, sign)
        policy = Watched(bots.make(f"policy:path={path}"))
        players = [policy, bots.make("random", 1), policy, bots.make("random", 2)]
        result = play_match(make(variant), players, seed=3, max_deals=1)
        assert len(result.outcomes) == 1 and len(policy.decisions) > 10
        for observation, action in policy.decisions:
            assert action == network_choice(path, arena_env, observation), str(action)
        first = [a for o, a in policy.decisions if a != o.legal_actions[0]]
        assert first, "every choice was the first legal action: the test tells nothing"
        records.append(result.record.deals[0].actions)
    assert records[0] != records[1]


def test_policy_files_are_checked(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="does not exist"):
        bots.make(f"policy:path={tmp_path / 'missing.npz'}")
    garbage = tmp_path / "garbage.npz"
    garbage.write_bytes(b"not a policy")
    with pytest.raises(ConfigError, match="is not a policy"):
        bots.make(f"policy:path={garbage}")
    path = small_policy(tmp_path / "guandan.npz")
    bot = PolicyBot(path=str(path))
    game = make("sanfu")
    state = game.new_deal(game.first_setup(), seed=1)
    with pytest.raises(ConfigError, match="plays guandan, not sanfu"):
        bot.act(state.observe(state.to_act))


def test_the_server_seats_no_policy_bot() -> None:
    """A client must not make the server open files named in a bot's parameters."""
    from arena.server.builtin import builtin_problem

    problem = builtin_problem("policy:path=/etc/passwd")
    assert problem is not None and "not seated by the server" in problem


@pytest.mark.parametrize("variant", ["guandan", "shengji-2", "sanfu"])
def test_fields_of_events_count_each_events_cards_by_relative_seat(variant: str) -> None:
    """The tally read once per deal gives what reading every event again gives: played
    cards, tribute and return with their receivers (GD-13), declarations and failed
    throws, turned cards (SF-2); rows and receivers relative to the observing seat."""
    arena_env = raw_env(variant)
    arena_env.reset(seed=9)
    rng = np.random.default_rng(9)
    kinds = {"played": ("play",), "shown": ("declare", "throw_failed"), "turned": ("turn",)}
    given = {"tribute": "tribute", "returned": "return"}
    for deal in range(3):
        for agent in arena_env.agent_iter():
            if arena_env.terminations[agent]:
                arena_env.step(None)
                continue
            for other in arena_env.possible_agents:
                seat = arena_env.seat_of(other)
                fields = arena_env.observe_fields(other)
                for name, event_kinds in kinds.items():
                    if name not in fields:
                        continue
                    expected = np.zeros((4, 54))
                    for event in arena_env.state.events:
                        if event.kind in event_kinds:
                            for card in event.cards:
                                expected[(event.seat - seat) % 4, card] += 1
                    assert np.array_equal(fields[name], expected), name
                for name, kind in given.items():
                    if name not in fields:
                        continue
                    expected = np.zeros((4, 58))
                    for event in arena_env.state.events:
                        if event.kind == kind:
                            row = (event.seat - seat) % 4
                            for card in event.cards:
                                expected[row, card] += 1
                            expected[row, 54 + (event.target - seat) % 4] = 1
                    assert np.array_equal(fields[name], expected), name
            mask = arena_env.observe(agent)["action_mask"]
            arena_env.step(random_index(mask, rng))
        if deal < 2:
            arena_env.reset()


@pytest.mark.parametrize("variant", ["shengji-1", "shengji-2", "shengji-4"])
def test_the_trick_field_holds_the_public_tricks_plays(variant: str) -> None:
    """SJ tricks: the tensor's trick rows are the cards the public ``trick`` fact lists."""
    arena_env = raw_env(variant)
    arena_env.reset(seed=13)
    rng = np.random.default_rng(13)
    for agent in arena_env.agent_iter():
        if arena_env.terminations[agent]:
            arena_env.step(None)
            continue
        seat = arena_env.seat_of(agent)
        expected = np.zeros((4, 54))
        trick = arena_env.state.observe(seat).public["trick"]
        for player, cards in trick["plays"]:
            expected[(player - seat) % 4] += to_counts(parse_cards(cards))
        assert np.array_equal(arena_env.observe_fields(agent)["trick"], expected)
        arena_env.step(random_index(arena_env.observe(agent)["action_mask"], rng))
