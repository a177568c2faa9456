"""A game-agnostic test suite: properties every game of the registry must have.

Each ``check_*`` function takes a :class:`~arena.games.base.Game` and a seed and
raises ``AssertionError`` (or lets an unexpected exception through) when the
game breaks the shared interface of ``arena/games/base.py`` or the common rules
(rules/common.md C-1, C-2, C-4, C-5). ``tests/test_game_suite.py`` runs them
for every registered game with hypothesis-drawn seeds; a new game gets them by
registering itself, and tells the suite what it cannot guess through a
:class:`Profile` in :data:`PROFILES`.

Every check plays the first deal of a match and one follow-on deal (whose setup
comes from randomly playing the first), so setup-dependent phases such as
Guandan's tribute are covered too. Random play means a uniformly random legal
action from a ``random.Random`` seeded by the check's seed.
"""

from __future__ import annotations

import copy
import functools
import json
import pickle
import random
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from public_cards import Statement, statement_for

import bots
from arena.cards import Card, format_card, format_cards, parse_cards
from arena.chance import derive_seed
from arena.errors import ArenaError, IllegalActionError, ParseError
from arena.games.base import (
    MAX_DEAL_CARDS,
    NOBODY,
    NUM_SEATS,
    Action,
    Game,
    Observation,
    State,
    partner_of,
)
from arena.match import play_match
from arena.replay import MatchRecord, outcome_to_dict, verify

# --------------------------------------------------------------------- profiles


@dataclass(frozen=True)
class Profile:
    """What the suite needs to know about a game beyond the Game interface.

    ``max_decisions``: a bound on the decisions of one deal under random play.
    ``discard_events``: event kinds whose cards leave the hands for good (played
    face up); the four hands plus these cards are the dealt cards.
    ``transit_phases``: phases in which cards may be held aside between two
    hands (e.g. a tribute given face down before all tributes are made); there
    the hands plus discards need only be contained in the dealt cards.
    ``explicit_hands``: ``new_deal(hands=…)`` describes a whole deal (false for
    a game that also needs a kitty).
    ``team_scores``: partners score alike and the two teams' scores cancel.
    """

    max_decisions: int = 10_000
    discard_events: frozenset[str] = frozenset({"play"})
    transit_phases: frozenset[str] = frozenset()
    explicit_hands: bool = True
    team_scores: bool = True


PROFILES: dict[str, Profile] = {
    # GD-13/GD-14: at most two tributes and two returns, then each play removes at
    # least one of the 108 cards and is followed by at most three passes.
    "guandan": Profile(max_decisions=4 + 4 * 108, transit_phases=frozenset({"tribute", "return"})),
    # SJ-7 … SJ-13: at most one declaration decision per card dealt and per seat after
    # the deal, the kitty buried card by card, then one play per seat per trick.
    **{
        f"shengji-{decks}": Profile(
            max_decisions=54 * decks + 4 + 8 + 54 * decks, explicit_hands=False
        )
        for decks in (1, 2, 3, 4)
    },
    # SF-10: each play removes at least one of the 162 cards, then at most three passes;
    # scores are per player and the joker bonus (SF-16) is not shared by partners.
    "sanfu": Profile(max_decisions=4 * 162, explicit_hands=False, team_scores=False),
}


def profile_of(game: Game) -> Profile:
    return PROFILES.get(game.name, Profile())


# ---------------------------------------------------------------------- helpers

Step = Callable[[State, Action], None]


def random_action(state: State, rng: random.Random) -> Action:
    legal = state.legal_actions()
    return legal[rng.randrange(len(legal))]


def play_out(state: State, rng: random.Random, limit: int, before: Step | None = None) -> int:
    """Apply random legal actions until the deal ends; return the number of decisions.

    ``before(state, action)`` runs before each action is applied. Fails when the
    deal is not over after ``limit`` decisions.
    """
    decisions = 0
    while not state.is_terminal():
        assert decisions < limit, (
            f"{state.game_name}: deal not over after {decisions} random decisions "
            f"(phase {state.phase!r}, seat {state.to_act} to act)"
        )
        action = random_action(state, rng)
        if before is not None:
            before(state, action)
        state.apply(action)
        decisions += 1
    return decisions


def deal_starts(game: Game, seed: int) -> Iterator[tuple[Any, int]]:
    """``(setup, deal_seed)`` of the first deal of a match and of the deal after it.

    The follow-on setup comes from randomly playing the first deal; it is left
    out when that deal ended the match.
    """
    setup = game.first_setup()
    first_seed = derive_seed(seed, "suite deal", 0)
    yield setup, first_seed
    state = game.new_deal(setup, seed=first_seed)
    play_out(state, random.Random(seed), profile_of(game).max_decisions)
    next_setup = state.outcome().next_setup
    if next_setup is not None:
        yield next_setup, derive_seed(seed, "suite deal", 1)


def start_states(game: Game, seed: int) -> Iterator[State]:
    for setup, deal_seed in deal_starts(game, seed):
        yield game.new_deal(setup, seed=deal_seed)


def snapshot(state: State) -> dict[str, Any]:
    """Everything the interface shows of a state, in comparable form."""
    terminal = state.is_terminal()
    return {
        "to_act": state.to_act,
        "phase": state.phase,
        "terminal": terminal,
        "hands": state.seat_cards(),
        "events": tuple(state.events),
        "legal": state.legal_actions(),
        "observations": [state.observe(s).to_dict() for s in range(NUM_SEATS)],
        "outcome": outcome_key(state) if terminal else None,
    }


def outcome_key(state: State) -> dict[str, Any]:
    outcome = state.outcome()
    return {
        "result": outcome_to_dict(outcome),
        "match_winner": outcome.match_winner,
        "next_setup": repr(outcome.next_setup),
    }


def multiset(cards: Sequence[Card]) -> Counter[Card]:
    return Counter(cards)


def in_play(state: State, discard_events: frozenset[str]) -> Counter[Card]:
    """The four hands, every card that left them face up, and the cards set aside."""
    total: Counter[Card] = Counter(state.set_aside())
    for hand in state.seat_cards():
        total.update(hand)
    for event in state.events:
        if event.kind in discard_events:
            total.update(event.cards)
    return total


@functools.lru_cache(maxsize=1 << 16)
def _named(text: str) -> tuple[tuple[Card, int], ...]:
    """The cards one string names, each with how many times it names it (none when the
    string is not a list of cards). The same strings come back at every step of a deal
    (its events so far), so each is parsed once."""
    try:
        return tuple(Counter(parse_cards(text)).items())
    except ParseError:
        return ()


def cards_in(value: Any) -> Counter[Card]:
    """Every card named by a string anywhere inside a JSON-like value, each as many
    times as the one string naming it most often names it."""
    found: dict[Card, int] = {}
    waiting = [value]
    while waiting:
        item = waiting.pop()
        if isinstance(item, str):
            for card, times in _named(item):
                if times > found.get(card, 0):
                    found[card] = times
        elif isinstance(item, dict):
            waiting.extend(item.values())
        elif isinstance(item, list | tuple):
            waiting.extend(item)
    return Counter(found)


# ----------------------------------------------------------------------- checks


def check_random_play_finishes(game: Game, seed: int) -> None:
    """Random play ends every deal within the profile's bound, with a sound outcome."""
    profile = profile_of(game)
    for state in start_states(game, seed):
        _expect_error(state.outcome, ArenaError, "outcome() of a deal not over")
        play_out(state, random.Random(seed), profile.max_decisions)
        assert state.is_terminal()
        assert state.to_act == NOBODY
        assert state.legal_actions() == [], "a finished deal has no legal action"
        outcome = state.outcome()
        assert outcome == state.outcome(), "outcome() changes between calls"
        assert len(outcome.scores) == NUM_SEATS
        assert all(isinstance(x, int) for x in outcome.scores)
        assert isinstance(outcome.summary, str) and outcome.summary
        json.dumps(outcome_to_dict(outcome))
        if profile.team_scores:  # C-2: partners share a result, the teams' results cancel
            for seat in range(NUM_SEATS):
                assert outcome.scores[seat] == outcome.scores[partner_of(seat)], outcome.scores
            assert outcome.scores[0] + outcome.scores[1] == 0, outcome.scores
        if outcome.match_over:
            assert outcome.match_winner in (0, 1, None)
        else:
            data = json.loads(json.dumps(game.setup_to_dict(outcome.next_setup)))
            assert game.setup_from_dict(data) == outcome.next_setup, "setup JSON round trip"
        _expect_error(partial(state.apply, Action("pass")), IllegalActionError, "apply when over")


def _expect_error(call: Callable[[], object], error: type[Exception], what: str) -> None:
    try:
        call()
    except error:
        return
    raise AssertionError(f"{what}: no {error.__name__} raised")


def check_cards_accounted(game: Game, seed: int) -> None:
    """Every card of the deal is in a hand, was played face up or is set aside, always.

    Cards only move: the four hands, the cards of discard events and the cards the
    state sets aside (undealt, kitty, in transit) make the same multiset at every step.
    """
    profile = profile_of(game)
    for state in start_states(game, seed):
        dealt = in_play(state, profile.discard_events)
        assert sum(dealt.values()) > 0

        def check(state: State, action: Action, dealt: Counter[Card] = dealt) -> None:
            now = in_play(state, profile.discard_events)
            assert now == dealt, (
                f"phase {state.phase}: missing {dict(dealt - now)}, extra {dict(now - dealt)}"
            )
            for hand in state.seat_cards():
                assert list(hand) == sorted(hand), "a hand is a sorted multiset"

        play_out(state, random.Random(seed), profile.max_decisions, check)
        check(state, Action("pass"))


def check_legal_actions(game: Game, seed: int) -> None:
    """Legal actions: non-empty while the deal runs, no duplicates, only the
    cards of the seat to act, sorted cards and a text form that reads back;
    every applied action was among them."""
    profile = profile_of(game)
    for state in start_states(game, seed):

        def check(state: State, action: Action) -> None:
            seat = state.to_act
            assert seat in range(NUM_SEATS)
            legal = state.legal_actions()
            assert legal, f"no legal action for seat {seat} in phase {state.phase}"
            assert len(set(legal)) == len(legal), (
                f"duplicates: {[str(a) for a, n in Counter(legal).items() if n > 1]}"
            )
            assert legal == state.legal_actions(), "legal_actions() is not stable"
            assert action in legal
            hand = multiset(state.hand(seat))
            for candidate in legal:
                assert isinstance(candidate, Action)
                state.syntax.check(candidate)  # a legal action is never malformed
                assert list(candidate.cards) == sorted(candidate.cards), str(candidate)
                assert multiset(candidate.cards) <= hand, (
                    f"{candidate} uses cards seat {seat} does not hold"
                )
                assert Action.from_str(str(candidate)) == candidate, str(candidate)
            assert state.parse_action(str(action)) == action

        play_out(state, random.Random(seed), profile.max_decisions, check)


def check_every_legal_action_applies(game: Game, seed: int, per_state: int = 12) -> None:
    """Each listed legal action (a sample of ``per_state`` per decision) applies
    without error to a copy of the state."""
    profile = profile_of(game)
    rng = random.Random(seed ^ 0x5EED)

    def check(state: State, action: Action) -> None:
        legal = state.legal_actions()
        for candidate in rng.sample(legal, min(per_state, len(legal))):
            copy = state.clone()
            copy.apply(candidate)
            assert (
                copy.events != state.events
                or copy.to_act != state.to_act
                or (copy.seat_cards() != state.seat_cards())
            ), f"applying {candidate} changed nothing"

    for state in start_states(game, seed):
        play_out(state, random.Random(seed), profile.max_decisions, check)


def illegal_candidates(state: State, pool: Sequence[Action], rng: random.Random) -> list[Action]:
    """Actions that are not legal now: made-up ones, legal ones spoilt, and
    actions that were legal elsewhere (``pool``)."""
    legal = state.legal_actions()
    seat = state.to_act
    held = multiset(state.hand(seat)) if seat != NOBODY else Counter()
    absent = [c for c in range(54) if held[c] == 0]
    candidates = [Action("pass"), Action("nonsense"), Action("play"), Action("play", (53,) * 3)]
    for action in rng.sample(legal, min(3, len(legal))):
        candidates.append(action._replace(tag="bogus"))
        if absent:
            candidates.append(Action.make(action.verb, (*action.cards, rng.choice(absent))))
        candidates.append(Action.make("nonsense", action.cards))
    candidates.extend(rng.sample(list(pool), min(6, len(pool))))
    legal_set = set(legal)
    candidates = [a for a in candidates if a not in legal_set]
    if seat != NOBODY and not state.observe(seat).legal_complete:
        # only a sample is listed: an unlisted action may still be legal
        candidates = [a for a in candidates if not _applies(state, a)]
    return candidates


def _applies(state: State, action: Action) -> bool:
    try:
        state.clone().apply(action)
    except IllegalActionError:
        return False
    return True


def check_illegal_actions_rejected(game: Game, seed: int, per_state: int = 3) -> None:
    """``apply`` of an action not in ``legal_actions()`` raises
    IllegalActionError quoting the action, and leaves the state unchanged."""
    profile = profile_of(game)
    rng = random.Random(seed ^ 0xBAD)
    pool: list[Action] = []  # actions legal somewhere else

    def collect(state: State, action: Action) -> None:
        pool.extend(state.legal_actions()[:5])

    def check(state: State, action: Action) -> None:
        pool.append(action)
        candidates = illegal_candidates(state, pool, rng)
        before = snapshot(state)
        for bad in rng.sample(candidates, min(per_state, len(candidates))):
            _check_rejected(state, bad, before)

    for other in start_states(game, seed + 1):
        play_out(other, random.Random(seed + 1), profile.max_decisions, collect)
    for state in start_states(game, seed):
        play_out(state, random.Random(seed), profile.max_decisions, check)
        before = snapshot(state)
        for bad in [Action("pass"), *rng.sample(pool, min(3, len(pool)))]:
            _check_rejected(state, bad, before)


def _check_rejected(state: State, bad: Action, before: dict[str, Any]) -> None:
    """``bad`` is refused, quoted, and leaves ``state`` as its snapshot ``before`` shows
    it (taken once for the attempts at one state: each one that passes leaves the state
    equal to it)."""
    try:
        state.apply(bad)
    except IllegalActionError as err:
        assert str(bad) in str(err), f"the error does not quote {str(bad)!r}: {err}"
    else:
        raise AssertionError(
            f"apply({str(bad)!r}) was accepted in phase {before['phase']!r} (seat "
            f"{before['to_act']} to act) though it is not in legal_actions()"
        )
    after = snapshot(state)
    assert after == before, f"the rejected {str(bad)!r} changed the state"


def malformed_actions(state: State) -> list[Action]:
    """Actions that name no real card: numbers outside ``0..53``."""
    verbs = sorted({a.verb for a in state.legal_actions()} | {"play", "pass"})
    return [Action(verb, (card,)) for verb in verbs for card in (54, 99, 10**6)]


def outside_syntax(state: State) -> list[Action]:
    """Actions that are no action of the game: an unknown verb, a wrong number of cards
    for the verb, a kind (tag) the verb cannot name."""
    syntax = state.syntax
    card = state.hand(state.to_act)[0] if state.hand(state.to_act) else 0
    bad = [Action("fold"), Action("fold", (card,)), Action.make("play", (card,), "nonsense")]
    for name, verb in syntax.verbs.items():
        if verb.min_cards > 0:
            bad.append(Action(name))
        if verb.max_cards < MAX_DEAL_CARDS:
            bad.append(Action(name, (card,) * (verb.max_cards + 1)))
        if not verb.tags:
            bad.append(Action.make(name, (card,) * max(verb.min_cards, 1), "bomb"))
    return bad


def check_action_syntax(game: Game, seed: int) -> None:
    """Every action outside the game's syntax is a ParseError of ``syntax.check`` (it is
    malformed, not illegal), naming the verb, count or kind that is wrong."""
    rng = random.Random(seed)
    for state in start_states(game, seed):
        steps = 0
        while not state.is_terminal():
            if steps % 23 == 0:
                for bad in outside_syntax(state):
                    try:
                        state.syntax.check(bad)
                    except ParseError as err:
                        assert str(bad)[:20] in str(err) or bad.tag in str(err), str(err)
                    else:
                        raise AssertionError(f"{str(bad)!r} fits the {game.name} syntax")
            state.apply(random_action(state, rng))
            steps += 1


def check_malformed_actions_rejected(game: Game, seed: int) -> None:
    """``apply`` of an action naming a card that does not exist raises
    IllegalActionError (never IndexError or the like) and changes nothing."""
    profile = profile_of(game)
    rng = random.Random(seed)
    for state in start_states(game, seed):
        steps = 0
        while not state.is_terminal():
            if steps % 17 == 0 or state.phase in profile.transit_phases:
                before = snapshot(state)  # each refusal below must leave it so
                for bad in malformed_actions(state):
                    try:
                        state.apply(bad)
                    except IllegalActionError:
                        pass
                    except Exception as err:
                        raise AssertionError(
                            f"apply({bad!r}) in phase {state.phase!r} raised "
                            f"{type(err).__name__}: {err}, not IllegalActionError"
                        ) from err
                    else:
                        raise AssertionError(f"apply({bad!r}) was accepted")
                    assert snapshot(state) == before, f"the rejected {bad!r} changed the state"
            state.apply(random_action(state, rng))
            steps += 1
            assert steps <= profile.max_decisions


def check_observations(game: Game, seed: int) -> None:
    """C-5: a seat sees its own hand, the public events and public facts only — each
    card only while the rules make it public (``tests/public_cards.py``); legal actions
    go to the seat to act only."""
    profile = profile_of(game)
    for state in start_states(game, seed):
        ever_held: list[Counter[Card]] = [Counter() for _ in range(NUM_SEATS)]
        public = statement_for(state)

        def check(
            state: State,
            action: Action,
            public: Statement = public,
            ever_held: list[Counter[Card]] = ever_held,
        ) -> None:
            check_observations_now(game, state, public, ever_held)
            public.take(state.to_act, action)

        play_out(state, random.Random(seed), profile.max_decisions, check)
        check_observations_now(game, state, public, ever_held)


def check_observations_now(
    game: Game, state: State, public: Statement, ever_held: list[Counter[Card]]
) -> None:
    """C-5 at one moment: the events show only cards public now, every seat's
    observation shows only its own hand, public cards and cards it once held."""
    events = tuple(state.events)
    leaks = public.leaks(events, state.phase)
    assert not leaks, f"{game.name}: events show hidden cards: {'; '.join(leaks)}"
    public_cards = public.pool(events, state.phase)
    for seat in range(NUM_SEATS):
        ever_held[seat] |= Counter(state.hand(seat))
        obs = state.observe(seat)
        assert obs.game == game.name
        assert obs.seat == seat
        assert obs.to_act == state.to_act
        assert obs.phase == state.phase
        assert obs.hand == state.hand(seat), "the observed hand is the seat's hand"
        assert obs.events == events, "every seat sees the same public events"
        if seat == state.to_act:
            assert list(obs.legal_actions) == state.legal_actions()
        else:
            assert obs.legal_actions == (), (
                f"seat {seat} got legal actions while seat {state.to_act} is to act"
            )
        data = obs.to_dict()
        assert json.loads(json.dumps(data)) == data, "to_dict() is not JSON-ready"
        shown = cards_in(
            {k: v for k, v in data.items() if k not in ("hand", "legal_actions", "private")}
        )
        leaked = shown - public_cards
        assert not leaked, (
            f"seat {seat} is shown {format_cards(sorted(leaked.elements()))} that are not "
            f"public now: {data}"
        )
        private = cards_in(data["private"]) - public_cards - ever_held[seat]
        assert not private, (
            f"seat {seat} privately sees {format_cards(sorted(private.elements()))}, "
            "which it never held"
        )


def check_observations_kept(game: Game, seed: int) -> None:
    """An observation handed out never changes, however late it is read (an engine
    may make its facts on demand): observations kept unread through the rest of the
    deal, and through a clone's moves, read as their twins read at once did. Every
    observation pickles and copies to an equal one."""
    profile = profile_of(game)
    rng = random.Random(seed)
    for state in start_states(game, seed):
        kept: list[tuple[Observation, dict[str, Any]]] = []

        def keep(state: State, action: Action, kept: list[Any] = kept) -> None:
            for seat in range(NUM_SEATS):
                read_at_once = state.observe(seat)
                kept.append((state.observe(seat), read_at_once.to_dict()))
            assert pickle.loads(pickle.dumps(read_at_once)) == read_at_once
            assert copy.deepcopy(read_at_once) == read_at_once
            if rng.random() < 4 / profile.max_decisions:  # a clone moves on its own
                play_out(state.clone(), random.Random(seed + 1), profile.max_decisions)

        play_out(state, rng, profile.max_decisions, keep)
        for step, (observation, read_at_once) in enumerate(kept):
            assert observation.to_dict() == read_at_once, (
                f"{game.name}: an observation of seat {observation.seat} (step "
                f"{step // NUM_SEATS}) changed after it was handed out"
            )


def check_observation_ignores_other_hands(game: Game, seed: int) -> None:
    """C-5: swapping one card between two other seats' hands changes nothing a
    seat observes, as long as the public events stay the same."""
    profile = profile_of(game)
    if not profile.explicit_hands:
        return
    rng = random.Random(seed)
    for setup, deal_seed in deal_starts(game, seed):
        real = game.new_deal(setup, seed=deal_seed)
        hands = [list(h) for h in real.seat_cards()]
        same = game.new_deal(setup, seed=deal_seed, hands=hands)
        assert snapshot(same) == snapshot(real), "explicit hands equal to the dealt ones differ"
        seat = rng.randrange(NUM_SEATS)
        a, b = rng.sample([s for s in range(NUM_SEATS) if s != seat], 2)
        pairs = [(x, y) for x in set(hands[a]) for y in set(hands[b]) if x != y]
        if not pairs:
            continue
        x, y = rng.choice(sorted(pairs))
        hands[a].remove(x)
        hands[a].append(y)
        hands[b].remove(y)
        hands[b].append(x)
        swapped = game.new_deal(setup, seed=deal_seed, hands=hands)
        steps = 0
        while tuple(real.events) == tuple(swapped.events):
            mine, theirs = real.observe(seat).to_dict(), swapped.observe(seat).to_dict()
            assert mine == theirs, (
                f"seat {seat} observes a difference after seats {a} and {b} swapped "
                f"{format_card(x)} and {format_card(y)} (step {steps})"
            )
            if real.is_terminal():
                break
            action = random_action(real, rng)
            real.apply(action)
            if action not in swapped.legal_actions():
                break
            swapped.apply(action)
            steps += 1
            assert steps <= profile.max_decisions


def check_clone_independent(game: Game, seed: int) -> None:
    """``clone()`` copies the state; applying to one never changes the other."""
    profile = profile_of(game)
    rng = random.Random(seed)
    for state in start_states(game, seed):
        # stop at a random decision, then let the clone and the original part ways
        stop = rng.randrange(profile.max_decisions // 4 + 1)
        steps = 0
        while not state.is_terminal() and steps < stop:
            state.apply(random_action(state, rng))
            steps += 1
        before = snapshot(state)
        copy = state.clone()
        assert snapshot(copy) == before, "a clone differs from its original"
        copy_rng, original_rng = random.Random(seed + 1), random.Random(seed + 2)
        play_out(copy, copy_rng, profile.max_decisions)
        assert snapshot(state) == before, "playing the clone changed the original"
        copy_end = snapshot(copy)
        replay = state.clone()
        play_out(state, original_rng, profile.max_decisions)
        assert snapshot(copy) == copy_end, "playing the original changed a clone"
        play_out(replay, random.Random(seed + 1), profile.max_decisions)
        assert snapshot(replay) == copy_end, "a clone does not replay like the original"


def check_new_deal_deterministic(game: Game, seed: int) -> None:
    """C-4: the same setup and seed give the same deal, and the same actions the
    same events and result."""
    profile = profile_of(game)
    for setup, deal_seed in deal_starts(game, seed):
        first = game.new_deal(setup, seed=deal_seed)
        second = game.new_deal(setup, seed=deal_seed)
        assert snapshot(first) == snapshot(second)
        data = json.loads(json.dumps(game.setup_to_dict(setup)))
        third = game.new_deal(game.setup_from_dict(data), seed=deal_seed)
        assert snapshot(third) == snapshot(first), "a setup read back from JSON deals differently"
        for state in (first, second, third):
            play_out(state, random.Random(seed), profile.max_decisions)
        assert snapshot(first) == snapshot(second) == snapshot(third)


def check_record_replays(game: Game, seed: int, max_deals: int = 2) -> None:
    """A match record, through JSON, replays to the same actions and results."""
    result = _random_match(game, seed, max_deals)
    record = result.record
    data = json.loads(record.to_json())
    assert data["game"] == game.name
    loaded = MatchRecord.from_dict(data)
    assert loaded.to_dict() == record.to_dict(), "the record changes through JSON"
    report = verify(loaded)
    assert report.deals == len(result.outcomes) == len(record.deals)
    assert report.actions == sum(len(d.actions) for d in record.deals) == result.decisions
    assert report.result["match_winner"] == result.winner


def check_same_seed_same_match(game: Game, seed: int, max_deals: int = 2) -> None:
    """C-4: two matches with the same seed and bots produce identical records."""
    first = _random_match(game, seed, max_deals)
    second = _random_match(game, seed, max_deals)
    assert first.record.to_json() == second.record.to_json()
    assert first.totals == second.totals


def _random_match(game: Game, seed: int, max_deals: int) -> Any:
    policies = [bots.make("random", derive_seed(seed, "bot", s)) for s in range(NUM_SEATS)]
    return play_match(game, policies, seed=seed, max_deals=max_deals)


CHECKS: tuple[Callable[[Game, int], None], ...] = (
    check_random_play_finishes,
    check_cards_accounted,
    check_legal_actions,
    check_every_legal_action_applies,
    check_illegal_actions_rejected,
    check_malformed_actions_rejected,
    check_observations,
    check_observation_ignores_other_hands,
    check_clone_independent,
    check_new_deal_deterministic,
    check_record_replays,
    check_same_seed_same_match,
)
"""Every check of the suite, for games that want to run them all in one place."""
