"""A client of the Guandan competition platform's protocol, written from its messages.

It plays as a platform bot does: it reads each JSON message (``type`` ``notify`` or
``act``, and a ``stage``), keeps the state such a bot keeps from the messages alone
(its hand from ``beginning`` and the ``tribute`` / ``back`` / ``play`` notices, each
seat's card count, the trick's best play, the finishing orders, the series counters),
answers each ``act`` with ``{"actIndex": i}`` chosen by a policy
(``choose(act_message) -> int``), and records every way the messages contradict one
another (``problems``): an ``act`` whose ``handCards`` is not the hand the notices
built, an ``indexRange`` that is not the list's last index, a card played that the
hand did not hold, a notice of an unknown stage…

It knows nothing of the arena's gateway code: card codes are read here on their own
(``S2``, ``HT``, ``SB`` / ``HR`` for the small / big joker). :meth:`PlatformClient.check_against`
compares what it holds with the engine's observation of its seat, and
:func:`entry_problems` an ``actionList`` entry with the engine's legal action and the
play event it became; :func:`play_websocket` plays it over a real WebSocket.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from arena.cards import format_card
from arena.games.base import Action, Event, Observation

Policy = Callable[[Mapping[str, Any]], int]
"""Chooses an ``actIndex`` for an ``act`` message."""

SUITS = {"S": "s", "H": "h", "C": "c", "D": "d"}
RANKS = "23456789TJQKA"
JOKERS = {"SB": "SJ", "HR": "BJ"}
DEALT = 27
PASS = ["PASS", "PASS", "PASS"]
TYPES = {
    "single": "Single",
    "pair": "Pair",
    "triple": "Trips",
    "full_house": "ThreeWithTwo",
    "pair_run": "ThreePair",
    "triple_run": "TwoTrips",
    "straight": "Straight",
    "straight_flush": "StraightFlush",
    "bomb": "Bomb",
    "joker_bomb": "Bomb",
}
"""The platform's type of each of the engine's kinds (a play event's tag)."""
MATCH_KINDS = {
    ("notify", "beginning"),
    ("notify", "play"),
    ("notify", "tribute"),
    ("notify", "anti-tribute"),
    ("notify", "back"),
    ("notify", "episodeOver"),
    ("notify", "gameOver"),
    ("act", "play"),
    ("act", "tribute"),
    ("act", "back"),
}
"""The kinds of message (``type``, ``stage``) a seat gets in a whole match; a series ends
with ``gameResult`` too."""
RUN_LENGTH = {"straight": 5, "straight_flush": 5, "pair_run": 3, "triple_run": 2}


def our_text(card_code: str) -> str:
    """The arena's text of a platform card code (``HT`` → ``Th``, ``SB`` → ``SJ``)."""
    if card_code in JOKERS:
        return JOKERS[card_code]
    if len(card_code) != 2 or card_code[0] not in SUITS or card_code[1] not in RANKS:
        raise ValueError(f"not a card code: {card_code!r}")
    return card_code[1] + SUITS[card_code[0]]


def is_code(text: object) -> bool:
    return isinstance(text, str) and (
        text in JOKERS or (len(text) == 2 and text[0] in SUITS and text[1] in RANKS)
    )


def first_policy(message: Mapping[str, Any]) -> int:
    return 0


def random_policy(seed: int) -> Policy:
    rng = random.Random(seed)
    return lambda message: rng.randint(0, message["indexRange"])


class PlatformClient:
    """One seat's bot, fed the platform's messages as JSON text or parsed."""

    def __init__(self, choose: Policy = first_policy) -> None:
        self.choose = choose
        self.my_pos = -1
        self.hand: Counter[str] = Counter()
        self.cur_rank = self.self_rank = self.oppo_rank = ""
        self.rest = [DEALT] * 4
        self.greater_pos = -1
        self.greater_action: list[Any] | None = None
        self.tributes: list[list[Any]] = []
        self.backs: list[list[Any]] = []
        self.anti: list[tuple[int, list[int]]] = []
        self.orders: list[list[int]] = []
        self.game_overs: list[tuple[int, int]] = []
        self.result: tuple[list[int], list[int]] | None = None
        self.kinds: Counter[tuple[str, str]] = Counter()
        self.problems: list[str] = []
        self.last_act: dict[str, Any] | None = None
        self.last_index = -1

    # ------------------------------------------------------------------ reading

    def feed(self, text: str | bytes) -> str | None:
        """One message as the socket delivers it; the JSON answer to send, if any."""
        index = self.receive(json.loads(text))
        return None if index is None else json.dumps({"actIndex": index})

    def receive(self, message: dict[str, Any]) -> int | None:
        """One parsed message; the chosen ``actIndex`` when it is an ``act``."""
        kind = (message.get("type"), message.get("stage"))
        self.kinds[(str(kind[0]), str(kind[1]))] += 1
        handler = _HANDLERS.get((str(kind[0]), str(kind[1])))
        if handler is None:
            self._problem(f"unknown message {kind}")
            return None
        return handler(self, message)

    def _problem(self, text: str) -> None:
        self.problems.append(f"seat {self.my_pos}: {text}")

    def _beginning(self, message: dict[str, Any]) -> None:
        self.my_pos = message["myPos"]
        self.hand = Counter(message["handCards"])
        if sum(self.hand.values()) != DEALT:
            self._problem(f"beginning deals {sum(self.hand.values())} cards, not {DEALT}")
        self.cur_rank = message.get("curRank", self.cur_rank)
        self.self_rank = message.get("selfRank", self.self_rank)
        self.oppo_rank = message.get("oppoRank", self.oppo_rank)
        self.rest = [DEALT] * 4
        self.greater_pos, self.greater_action = -1, None

    def _move(self, message: dict[str, Any], into: list[list[Any]]) -> None:
        for giver, receiver, card in message["result"]:
            into.append([giver, receiver, card])
            self.rest[giver] -= 1
            self.rest[receiver] += 1
            if giver == self.my_pos:
                self._take(card)
            if receiver == self.my_pos:
                self.hand[card] += 1

    def _tribute(self, message: dict[str, Any]) -> None:
        self._move(message, self.tributes)

    def _back(self, message: dict[str, Any]) -> None:
        self._move(message, self.backs)

    def _anti(self, message: dict[str, Any]) -> None:
        number, seats = message["antiNum"], message["antiPos"]
        if number != len(seats):
            self._problem(f"antiNum {number} but antiPos {seats}")
        self.anti.append((number, list(seats)))

    def _take(self, card: str) -> None:
        if self.hand[card] <= 0:
            self._problem(f"gives or plays {card}, which the hand does not hold")
        self.hand[card] -= 1
        self.hand += Counter()  # drop the empty counts

    def _play(self, message: dict[str, Any]) -> None:
        pos, action = message["curPos"], message["curAction"]
        if action != PASS:
            for card in action[2]:
                if pos == self.my_pos:
                    self._take(card)
            self.rest[pos] -= len(action[2])
            if (message["greaterPos"], message["greaterAction"]) != (pos, action):
                self._problem(f"a play is not the trick's best play: {message}")
        elif self.greater_pos != -1 and (
            message["greaterPos"],
            message["greaterAction"],
        ) != (self.greater_pos, self.greater_action):
            self._problem(f"a pass changed the trick's best play: {message}")
        self.greater_pos, self.greater_action = message["greaterPos"], message["greaterAction"]

    def _act(self, message: dict[str, Any]) -> int:
        self.last_act = message
        entries = message["actionList"]
        if message["indexRange"] != len(entries) - 1:
            self._problem(f"indexRange {message['indexRange']} for {len(entries)} actions")
        if Counter(message["handCards"]) != self.hand:
            self._problem(
                f"act handCards {sorted(message['handCards'])} but the notices built "
                f"{sorted(self.hand.elements())}"
            )
        info = message["publicInfo"]
        rests = [seat_info["rest"] for seat_info in info]
        mine = sum(self.hand.values())
        expected = [mine if s == self.my_pos else self.rest[s] for s in range(4)]
        if rests != expected:
            self._problem(f"publicInfo rest {rests}, counted {expected}")
        for entry in entries:
            if entry != PASS and Counter(entry[2]) - self.hand:
                self._problem(f"an action plays cards not held: {entry}")
        leading = message["curPos"] == -1
        if message["stage"] == "play":
            if leading and (PASS in entries or message["greaterPos"] != -1):
                self._problem("a lead offers a pass or names a best play")
            if not leading and entries[0] != PASS:
                self._problem("a follow does not offer the pass first")
        self.cur_rank = message["curRank"]
        self.self_rank, self.oppo_rank = message["selfRank"], message["oppoRank"]
        self.last_index = self.choose(message)
        return self.last_index

    def _episode_over(self, message: dict[str, Any]) -> None:
        order = message["order"]
        if sorted(order) != [0, 1, 2, 3]:
            self._problem(f"order {order} is not the four seats")
        self.orders.append(list(order))
        for seat, cards in message["restCards"]:
            if seat != self.my_pos:
                self._problem(f"restCards show seat {seat}'s hand")
            elif Counter(cards) != self.hand:
                self._problem(f"restCards {cards}, the hand is {sorted(self.hand.elements())}")
        if not message["restCards"] and self.hand:
            self._problem("restCards omit the cards this seat still holds")

    def _game_over(self, message: dict[str, Any]) -> None:
        self.game_overs.append((message["curTimes"], message["settingTimes"]))

    def _game_result(self, message: dict[str, Any]) -> None:
        self.result = (list(message["victoryNum"]), list(message["draws"]))

    # ------------------------------------------------------------- the engine

    def check_against(self, observation: Observation) -> list[str]:
        """Where the client's state differs from the engine's observation of its seat:
        the hand, and at its decision each entry of the last ``actionList``."""
        problems = []
        held = sorted(our_text(c) for c in self.hand.elements())
        engine = sorted(format_card(c) for c in observation.hand)
        if held != engine:
            problems.append(
                f"seat {observation.seat}: the client holds {held}, the engine {engine}"
            )
        if observation.to_act == observation.seat and self.last_act is not None:
            legal = list(observation.legal_actions)
            entries = self.last_act["actionList"]
            if len(entries) != len(legal):
                problems.append(f"{len(entries)} entries for {len(legal)} legal actions")
            for entry, action in zip(entries, legal, strict=False):
                problems += entry_problems(entry, action)
        return problems


def entry_problems(
    entry: list[Any], action: Action, event: Event | None = None, level_letter: str = ""
) -> list[str]:
    """Where an ``actionList`` entry and the engine's legal action at its index differ:
    the verb and the cards; with ``event`` (the play it became) and the level's letter,
    the type and rank."""
    kind, rank, cards = entry
    verb = {"PASS": "pass", "tribute": "tribute", "back": "return"}.get(kind, "play")
    named = [] if kind == "PASS" else sorted(our_text(c) for c in cards)
    if verb != action.verb or named != sorted(format_card(c) for c in action.cards):
        return [f"entry {entry} is not the engine's {str(action)!r}"]
    if event is None or event.kind != "play":
        return []
    expected = (TYPES[event.tag], event_rank(event, level_letter))
    if (kind, rank) != expected:
        return [f"entry {entry} names {kind} {rank}; the engine played {expected}"]
    return []


def event_rank(event: Event, level_letter: str) -> str:
    """The platform's rank of a play event: its rank letter (the level's when it is
    the level card's value 15), ``B`` / ``R`` for jokers, ``JOKER`` for the joker bomb;
    a sequence by its lowest rank (``A`` when it starts from the low ace)."""
    if event.tag == "joker_bomb":
        return "JOKER"
    if event.tag in RUN_LENGTH:
        low = event.value - RUN_LENGTH[event.tag] + 1
        return "A" if low == 1 else RANKS[low - 2]
    return {15: level_letter, 16: "B", 17: "R"}.get(event.value) or RANKS[event.value - 2]


_HANDLERS: dict[tuple[str, str], Callable[[PlatformClient, dict[str, Any]], Any]] = {
    ("notify", "beginning"): PlatformClient._beginning,
    ("notify", "tribute"): PlatformClient._tribute,
    ("notify", "back"): PlatformClient._back,
    ("notify", "anti-tribute"): PlatformClient._anti,
    ("notify", "play"): PlatformClient._play,
    ("notify", "episodeOver"): PlatformClient._episode_over,
    ("notify", "gameOver"): PlatformClient._game_over,
    ("notify", "gameResult"): PlatformClient._game_result,
    ("act", "play"): PlatformClient._act,
    ("act", "tribute"): PlatformClient._act,
    ("act", "back"): PlatformClient._act,
}


async def play_websocket(
    url: str,
    client: PlatformClient,
    *,
    until: Callable[[PlatformClient], bool] | None = None,
    sent: Sequence[str] = (),
) -> None:
    """Play ``client`` over a real WebSocket at ``url`` (``ws://HOST:PORT/game/NAME``)
    until the server closes it or ``until(client)`` holds after a message; ``sent``
    are raw texts sent first (garbage, to test refusals)."""
    from websockets.asyncio.client import connect

    async with connect(url) as socket:
        for text in sent:
            await socket.send(text)
        async for text in socket:
            answer = client.feed(text)
            if answer is not None:
                await socket.send(answer)
            if until is not None and until(client):
                return
