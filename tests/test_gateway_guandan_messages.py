"""The Guandan competition platform's messages (``arena.gateways.guandan_ws``), checked by
playing whole series of Guandan matches through them with our own platform client
(``tests/guandan_ws_client.py``), the engine beside it as the judge.

At every decision: the client's hand (built from the messages alone) is the engine's
hand, each ``actionList`` entry is the engine's legal action at that index (and the
stateless :func:`to_action` reads it back to that action), the chosen entry's type and
rank are those of the play event the engine made of it; no message to a seat names a
card hidden from it (``tests/public_cards.py``, the server tests' checker); the cards
the four clients hold and the cards played make up the two decks (GD-1).
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import leak_plants as plants
import pytest
from google.protobuf import json_format
from guandan_ws_client import (
    MATCH_KINDS,
    PlatformClient,
    entry_problems,
    is_code,
    our_text,
    random_policy,
)
from hypothesis import given, settings
from hypothesis import strategies as st
from public_cards import Statement, statement_for

from arena.cards import NUM_KINDS, RANKS, Card, format_card, parse_cards
from arena.client.wire import event_from_proto, observation_from_proto
from arena.errors import ParseError
from arena.games import make
from arena.games.base import NUM_SEATS, Action, Observation, team_of
from arena.games.guandan import GuandanGame, GuandanSetup, GuandanState
from arena.gateways.guandan_ws import (
    Message,
    PlatformSeat,
    card_of,
    code,
    decode,
    encode,
    game_over,
    game_result,
    parse_answer,
    to_action,
)
from arena.server.remote import event_to_proto, observation_to_proto, struct

ALL_KINDS = MATCH_KINDS | {("notify", "gameResult")}
TWO_DECKS = Counter({card: 2 for card in range(NUM_KINDS)})
MAX_DEALS = 60


# ------------------------------------------------------------------- the harness


@dataclass
class Table:
    """Four platform seats and four clients over one series, the engine beside them."""

    seed: int
    looks: float = 0.0
    """The chance that a seat not to act is given an observation after an action."""
    comebacks: float = 0.0
    """The chance, at a decision, that a seat not to act comes back anew (new seat and
    client, opened mid-deal)."""
    problems: list[str] = field(default_factory=list)
    kinds: Counter[tuple[str, str]] = field(default_factory=Counter)
    decisions: int = 0

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)
        self.seats = [PlatformSeat(s) for s in range(NUM_SEATS)]
        self.clients = [self._client(s) for s in range(NUM_SEATS)]
        self.replies: list[Any] = [None] * NUM_SEATS

    def _client(self, seat: int) -> PlatformClient:
        return PlatformClient(random_policy(self.seed * 4 + seat + self.rng.randrange(99)))

    def send(self, seat: int, messages: Sequence[Message], state: GuandanState | None) -> Any:
        """Deliver messages as JSON text; check each for hidden cards first."""
        reply = None
        for message in messages:
            if state is not None:
                self.problems += hidden_cards(message, seat, self.statement, state, self.held)
            self.kinds[(message["type"], message["stage"])] += 1
            answer = self.clients[seat].feed(json.dumps(message))
            if answer is not None:
                reply = self.replies[seat] = answer
        return reply

    def look(self, seat: int, state: GuandanState) -> Any:
        self.held[seat] |= Counter(state.hand(seat))
        return self.send(seat, self.seats[seat].update(state.observe(seat)), state)

    def series(self, games: int, game: GuandanGame) -> None:
        wins = [0] * NUM_SEATS
        draws = [0] * NUM_SEATS
        for number in range(1, games + 1):
            winner = self.match(game)
            for seat in range(NUM_SEATS):
                if winner is None:
                    draws[seat] += 1
                elif team_of(seat) == winner:
                    wins[seat] += 1
                self.send(seat, [game_over(number, games)], None)
        for seat in range(NUM_SEATS):
            self.send(seat, [game_result(wins, draws)], None)
            client = self.clients[seat]
            if client.result != (wins, draws):
                self.problems.append(f"seat {seat}: gameResult {client.result}")

    def match(self, game: GuandanGame) -> int | None:
        setup: GuandanSetup | None = game.first_setup()
        winner = None
        for _ in range(MAX_DEALS):
            assert setup is not None
            state = game.new_deal(setup, seed=self.rng.randrange(2**32))
            outcome = self.deal(state)
            setup, winner = outcome.next_setup, outcome.match_winner
            if setup is None:
                break
        return winner

    def deal(self, state: GuandanState) -> Any:
        self.statement: Statement = statement_for(state)
        self.held = [Counter(state.hand(s)) for s in range(NUM_SEATS)]
        level = RANKS[state.level]
        while not state.is_terminal():
            seat = state.to_act
            if self.rng.random() < self.comebacks:
                other = (seat + self.rng.randrange(1, NUM_SEATS)) % NUM_SEATS
                self.seats[other], self.clients[other] = PlatformSeat(other), self._client(other)
                self.replies[other] = None
                self.look(other, state)
            self.look(seat, state)
            self.decide(state, seat, self.replies[seat], level)
            self.replies[seat] = None
            if self.rng.random() < self.looks:
                for other in range(NUM_SEATS):
                    self.look(other, state)
                if state.phase == "play":
                    self.conserve(state)
        outcome = state.outcome()
        for seat in range(NUM_SEATS):
            self.send(seat, self.seats[seat].end_deal(state.events, outcome.details), state)
        self.conserve(state)
        return outcome

    def decide(self, state: GuandanState, seat: int, reply: Any, level: str) -> None:
        """The seat's answer applied; the message, the client and the engine compared."""
        self.decisions += 1
        platform_seat, client = self.seats[seat], self.clients[seat]
        message = platform_seat.pending_act
        assert message is not None and reply is not None, "a decision without an act"
        observation = state.observe(seat)
        self.problems += client.check_against(observation)
        legal = state.legal_actions()
        for index in range(len(legal)):  # the stateless reading gives the same action
            if to_action(message, index) != legal[index]:
                self.problems.append(f"to_action({index}) is not {str(legal[index])!r}")
        index = parse_answer(reply)
        action = platform_seat.action_for(index)
        assert isinstance(index, int)
        assert action is legal[index] or action == legal[index]
        self.statement.take(seat, action)
        before = len(state.events)
        state.apply(action)
        played = next((e for e in state.events[before:] if e.kind == "play"), None)
        self.problems += entry_problems(message["actionList"][index], action, played, level)

    def conserve(self, state: GuandanState) -> None:
        """GD-1: the clients' hands and the cards played make up the two decks."""
        held = sum(
            (
                Counter(parse_cards(" ".join(our_text(c) for c in client.hand.elements())))
                for client in self.clients
            ),
            Counter(),
        )
        played = Counter(c for e in state.events if e.kind == "play" for c in e.cards)
        if held + played != TWO_DECKS:
            self.problems.append(f"cards not conserved: {(held + played) - TWO_DECKS}")


def hidden_cards(
    message: Message,
    seat: int,
    statement: Statement,
    state: GuandanState,
    held: list[Counter[Card]],
) -> list[str]:
    """C-5: each list of card codes in a message to ``seat`` names only cards it holds or
    held this deal, or cards public now (the server tests' statement of what is public)."""
    allowed = held[seat] | statement.pool(tuple(state.events), state.phase)
    problems = []
    for codes in code_lists(message):
        shown = Counter(card_of(c) for c in codes)
        excess = shown - allowed
        if excess:
            names = " ".join(format_card(c) for c in sorted(excess.elements()))
            problems.append(f"{message['stage']} to seat {seat} shows hidden {names}")
    return problems


def code_lists(value: Any) -> list[list[str]]:
    """Every list of card codes inside a message (a lone code is a list of one)."""
    if isinstance(value, dict):
        return [found for item in value.values() for found in code_lists(item)]
    if isinstance(value, list):
        codes = [item for item in value if is_code(item)]
        nested = [found for item in value for found in code_lists(item) if not is_code(item)]
        return ([codes] if codes else []) + nested
    return [[value]] if is_code(value) else []


def play_series(seed: int, games: int, looks: float = 0.5, comebacks: float = 0.0) -> Table:
    table = Table(seed, looks=looks, comebacks=comebacks)
    game = make("guandan", a_fail_limit=3)
    assert isinstance(game, GuandanGame)
    table.series(games, game)
    table.problems += [p for client in table.clients for p in client.problems]
    return table


# --------------------------------------------------------------------- the tests


@settings(max_examples=4, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    looks=st.sampled_from([0.0, 0.3, 1.0]),
    comebacks=st.sampled_from([0.0, 0.02]),
)
def test_whole_series_through_the_platform_messages_agree_with_the_engine(
    seed: int, looks: float, comebacks: float
) -> None:
    """GD-1 … GD-17 through the messages: at every decision of a series of whole matches
    the client's hand is the engine's, ``actionList`` is the engine's legal list (index
    for index, read back by ``to_action``), the chosen entry is the play the engine made,
    no message names a hidden card (C-5), and the cards are conserved (GD-1)."""
    table = play_series(seed, games=1, looks=looks, comebacks=comebacks)
    assert table.decisions > 0
    assert table.problems == []


def test_a_series_sends_every_kind_of_message() -> None:
    """Every message the platform sends, at least once in a seeded series of three games
    (tribute GD-13, double tribute GD-14, refusal GD-15, episodes GD-2, games GD-17),
    each as the engine has it (the checks above)."""
    table = play_series(seed=7, games=3)
    assert table.problems == []
    assert set(table.kinds) == ALL_KINDS
    assert table.kinds[("notify", "gameOver")] == 3 * NUM_SEATS


# -------------------------------------------------------------- tribute refusal


@dataclass
class OneDeal:
    messages: list[list[Message]]
    kinds: Counter[tuple[str, str]]
    state: GuandanState


def refusal_deal(double: bool, both_in_one_hand: bool = False) -> OneDeal:
    """A deal after 头游 0 (with 2 second when ``double``), the losers holding both big
    jokers; every seat's messages until the first play decision."""
    hands = [list(parse_cards(h)) for h in FULL_DEAL]
    order = (0, 2, 1, 3) if double else (0, 1, 2, 3)
    if double and not both_in_one_hand:  # one big joker each to seats 1 and 3
        _swap(hands, 3, 53, 1, 0)
    setup = GuandanSetup(levels=(1, 0), level_team=0, previous_order=order)
    state = GuandanGame().new_deal(setup, hands=hands)
    seats = [PlatformSeat(s) for s in range(NUM_SEATS)]
    messages = [seats[s].update(state.observe(s)) for s in range(NUM_SEATS)]
    return OneDeal(messages, Counter((m["type"], m["stage"]) for ms in messages for m in ms), state)


FULL_DEAL = [
    "2s 2h 2d 2c 3s 3h 3d 3c 4s 4h 4d 4c 5s 5h 5d 5c 6s 6h 6d 6c 7s 7h 7d 7c 8s 8h 8d",
    "8c 9s 9h 9d 9c Ts Th Td Tc Js Jh Jd Jc Qs Qh Qd Qc Ks Kh Kd Kc As Ah Ad Ac SJ SJ",
    "2s 2h 2d 2c 3s 3h 3d 3c 4s 4h 4d 4c 5s 5h 5d 5c 6s 6h 6d 6c 7s 7h 7d 7c 8s 8h 8d",
    "8c 9s 9h 9d 9c Ts Th Td Tc Js Jh Jd Jc Qs Qh Qd Qc Ks Kh Kd Kc As Ah Ad Ac BJ BJ",
]
"""Two decks: seat 3 (the last in a single defeat) holds both big jokers."""


def _swap(hands: list[list[Card]], a: int, card_a: Card, b: int, index_b: int) -> None:
    """Move one ``card_a`` from hand ``a`` to hand ``b`` and hand ``b``'s card at
    ``index_b`` back."""
    hands[a].remove(card_a)
    hands[a].append(hands[b].pop(index_b))
    hands[b].append(card_a)


def _anti(deal: OneDeal) -> list[Message]:
    return [m for ms in deal.messages for m in ms if m["stage"] == "anti-tribute"]


def test_gd15_a_single_refusal_is_an_anti_tribute_notice_naming_the_refuser() -> None:
    """GD-15: the last player holds both big jokers: every seat is told ``anti-tribute``
    with that seat, and the first player (头游) is asked to lead, with no best play."""
    deal = refusal_deal(double=False)
    assert (
        _anti(deal)
        == [{"type": "notify", "stage": "anti-tribute", "antiNum": 1, "antiPos": [3]}] * 4
    )
    acts = [m for ms in deal.messages for m in ms if m["type"] == "act"]
    assert len(acts) == 1 and acts[0]["stage"] == "play"
    assert deal.state.to_act == 0 and acts[0]["curPos"] == -1 and acts[0]["greaterPos"] == -1


@pytest.mark.parametrize("both_in_one_hand", [False, True])
def test_gd15_a_double_refusal_names_both_losers_never_who_holds_the_jokers(
    both_in_one_hand: bool,
) -> None:
    """GD-15, C-5: after 双下 the losers together hold both big jokers: ``antiPos`` names
    both losers whether each holds one or one holds both (who holds them is hidden)."""
    deal = refusal_deal(double=True, both_in_one_hand=both_in_one_hand)
    expected = {"type": "notify", "stage": "anti-tribute", "antiNum": 2, "antiPos": [1, 3]}
    assert _anti(deal) == [expected] * 4


# ------------------------------------------------------------ tribute and return


def test_gd13_gd14_tribute_and_back_notices_follow_the_engine_events() -> None:
    """GD-13, GD-14: the ``tribute`` and ``back`` notices list ``[giver, receiver, card]``
    as the engine's events do, once every tribute (every return) is made; the receiver's
    ``act`` of stage ``back`` already holds the tribute card."""
    game = GuandanGame()
    order = (1, 3, 0, 2)  # double defeat of team 0
    state = game.new_deal(GuandanSetup(levels=(0, 2), level_team=1, previous_order=order), seed=5)
    seats = [PlatformSeat(s) for s in range(NUM_SEATS)]
    clients = [PlatformClient() for _ in range(NUM_SEATS)]
    while state.phase in ("tribute", "return"):
        seat = state.to_act
        for message in seats[seat].update(state.observe(seat)):
            reply = clients[seat].feed(json.dumps(message))
        assert clients[seat].check_against(state.observe(seat)) == []
        state.apply(seats[seat].action_for(parse_answer(reply or "")))
    tributes = [[e.seat, e.target, code(e.cards[0])] for e in state.events if e.kind == "tribute"]
    backs = [[e.seat, e.target, code(e.cards[0])] for e in state.events if e.kind == "return"]
    assert len(tributes) == 2 and len(backs) == 2
    for seat in range(NUM_SEATS):
        for message in seats[seat].update(state.observe(seat)):
            clients[seat].feed(json.dumps(message))
        assert clients[seat].tributes == tributes and clients[seat].backs == backs
        assert clients[seat].check_against(state.observe(seat)) == []
        assert clients[seat].problems == []


# ------------------------------------------------------------------ the encoding


def test_c1_every_card_code_is_one_card_both_ways() -> None:
    """C-1: the 54 cards and the platform's 54 codes map one to one (``Th`` ↔ ``HT``,
    ``SJ`` ↔ ``SB``, ``BJ`` ↔ ``HR``), as our client reads them on its own."""
    codes = [code(card) for card in range(NUM_KINDS)]
    assert len(set(codes)) == NUM_KINDS
    assert [card_of(c) for c in codes] == list(range(NUM_KINDS))
    assert [our_text(c) for c in codes] == [format_card(c) for c in range(NUM_KINDS)]
    assert (code(parse_cards("SJ")[0]), code(parse_cards("BJ")[0])) == ("SB", "HR")


@pytest.mark.parametrize(
    ("level", "cards", "entry"),
    [
        (0, "3s 4h 5d 6c 2h", ["Straight", "3", ["S3", "H4", "D5", "C6", "H2"]]),
        (0, "As 2s 3s 4s 5s", ["StraightFlush", "A", ["SA", "S2", "S3", "S4", "S5"]]),
        (0, "Ts Js Qs Ks As", ["StraightFlush", "T", ["ST", "SJ", "SQ", "SK", "SA"]]),
        (0, "5s 5h 2h 7s 7d", ["ThreeWithTwo", "7", ["S7", "D7", "H2", "S5", "H5"]]),
        (0, "Ks Kh Kd SJ SJ", ["ThreeWithTwo", "K", ["SK", "HK", "DK", "SB", "SB"]]),
        (0, "SJ SJ BJ BJ", ["Bomb", "JOKER", ["SB", "SB", "HR", "HR"]]),
        (0, "BJ", ["Single", "R", ["HR"]]),
        (0, "SJ SJ", ["Pair", "B", ["SB", "SB"]]),
        (8, "Ts Td", ["Pair", "T", ["ST", "DT"]]),
        (8, "Th", ["Single", "T", ["HT"]]),
        (0, "3s 3h 4s 2h 5s 5d", ["ThreePair", "3", ["S3", "H3", "S4", "H2", "S5", "D5"]]),
        (0, "Qs Qh Qd Ks Kh 2h", ["TwoTrips", "Q", ["SQ", "HQ", "DQ", "SK", "HK", "H2"]]),
    ],
)
def test_gd6_gd8_a_play_is_named_at_the_engines_reading(
    level: int, cards: str, entry: list[Any]
) -> None:
    """GD-6 … GD-9: a play's type and rank are the engine's reading (a sequence by its
    lowest rank, A-low with ``A``; a wild card counted as what it stands for and placed
    where it stands), and the entry reads back to the same action."""
    action = Action.make("play", parse_cards(cards))
    assert encode(action, level) == entry
    assert decode(entry, level) == action


def test_gd8_cards_read_as_two_kinds_keep_the_kind_their_action_names() -> None:
    """GD-8: ``A A K K`` with two wild cards is two consecutive triples or three
    consecutive pairs; each of our two actions has its own entry and reads back to
    itself."""
    cards = parse_cards("As Ah Ks Kh 2h 2h")
    runs = Action.make("play", cards, "triple_run")
    pairs = Action.make("play", cards, "pair_run")
    assert encode(runs, 0)[:2] == ["TwoTrips", "K"]
    assert encode(pairs, 0)[:2] == ["ThreePair", "Q"]
    assert (decode(encode(runs, 0), 0), decode(encode(pairs, 0), 0)) == (runs, pairs)


@pytest.mark.parametrize(
    "answer",
    [
        '{"actIndex": 99999}',
        '{"actIndex": -1}',
        '{"actIndex": true}',
        '{"actIndex": "0"}',
        '{"actIndex": 1.0}',
        '{"index": 0}',
        "[0]",
        "not json",
        "",
        '{"actIndex": null}',
    ],
)
def test_an_answer_that_names_no_action_is_refused_quoting_it(answer: str) -> None:
    """An index out of range, of the wrong type, or an answer that is no
    ``{"actIndex": N}``: :class:`ParseError` quoting it; the pending ``act`` stays, to
    be sent again, and the same observation asks nothing new."""
    state = GuandanGame().new_deal(seed=3)
    seat = PlatformSeat(state.to_act)
    observation = state.observe(state.to_act)
    sent = seat.update(observation)
    with pytest.raises(ParseError) as error:
        seat.action_for(parse_answer(answer))
    shown = str(error.value)
    assert "actIndex" in shown
    assert seat.pending_act is sent[-1]
    assert seat.update(observation) == []
    assert seat.action_for(0) is state.legal_actions()[0]


def test_to_action_refuses_garbage_entries_and_lists_without_a_level() -> None:
    state = GuandanGame().new_deal(seed=4)
    message = PlatformSeat(state.to_act).update(state.observe(state.to_act))[-1]
    with pytest.raises(ParseError, match="needs the level"):
        to_action(message["actionList"], 0)
    assert to_action(message["actionList"], 0, state.level) == state.legal_actions()[0]
    for entry in [
        ["Single", "3", ["XX"]],
        ["Boom", "3", ["S3"]],
        "PASS",
        ["Pair", "3", ["S3", "S4"]],
    ]:
        with pytest.raises(ParseError):
            to_action([entry], 0, state.level)
    with pytest.raises(ValueError, match="no decision pending"):
        PlatformSeat(0).action_for(0)


# ------------------------------------------------------------ over our wire


@pytest.mark.parametrize("compact", [False, True], ids=["protocol-1", "protocol-2"])
def test_an_observation_sent_over_our_wire_makes_the_same_messages(compact: bool) -> None:
    """A seat played by an SDK bot gets its observations and the deal's result over the
    arena's gRPC wire (protocol 1 carries the facts as a ``Struct``, its numbers floats;
    protocol 2 as JSON): the platform messages made of them are those made of the
    engine's own, and the result details' seats are whole numbers."""
    game = GuandanGame()
    setup = GuandanSetup(levels=(3, 5), level_team=1, previous_order=(1, 3, 0, 2))
    state = game.new_deal(setup, seed=21)
    direct = [PlatformSeat(s) for s in range(NUM_SEATS)]
    wired = [PlatformSeat(s) for s in range(NUM_SEATS)]
    rng = random.Random(21)
    while not state.is_terminal():
        for seat in range(NUM_SEATS):
            observation = state.observe(seat)
            wire = over_wire(observation, compact)
            assert texts(direct[seat].update(observation)) == texts(wired[seat].update(wire))
        legal = state.legal_actions()
        state.apply(legal[rng.randrange(len(legal))])
    details = json_format.MessageToDict(struct(state.outcome().details))
    for seat in range(NUM_SEATS):
        expected = texts(direct[seat].end_deal(state.events, state.outcome().details))
        assert texts(wired[seat].end_deal(state.events, details)) == expected


def texts(messages: list[Message]) -> list[str]:
    """The messages as the socket carries them (``1`` and ``1.0`` differ there)."""
    return [json.dumps(message) for message in messages]


def over_wire(observation: Observation, compact: bool) -> Observation:
    """The observation as an SDK bot reads it from a DecisionRequest."""
    message = observation_to_proto(observation, 1, compact=compact)
    events = [
        event_from_proto(event_to_proto(e, n, 1, "")) for n, e in enumerate(observation.events)
    ]
    return observation_from_proto(message, events)


# ------------------------------------------------------------- hidden cards


def test_c5_each_seat_is_told_its_own_remaining_cards_only() -> None:
    """C-5: ``episodeOver``'s ``restCards`` names the seat's own cards left, never
    another seat's."""
    table = play_series(seed=11, games=1, looks=1.0)
    assert table.problems == []
    assert all(client.orders for client in table.clients)


@pytest.mark.interpreted_engines
@pytest.mark.parametrize(
    "plant", [plants.guandan_tribute_shown_when_given, plants.guandan_return_shown_when_made]
)
def test_the_hidden_card_check_finds_a_leak_planted_in_the_engine(
    monkeypatch: pytest.MonkeyPatch, plant: Callable[[pytest.MonkeyPatch], None]
) -> None:
    """GD-14: a tribute (return) published as it is given face down reaches the seats as
    a ``tribute`` (``back``) notice too early; the check of every message finds it."""
    plant(monkeypatch)
    table = play_series(seed=7, games=1, looks=1.0)
    assert any("shows hidden" in problem for problem in table.problems)
