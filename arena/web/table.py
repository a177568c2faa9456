"""A match's Watch messages as frames of a drawn card table (pure: no I/O, no store).

The browser's table draws frames and does no game logic: every seat's hand (a finished,
stored match only), the trick on the table and the last one, points, levels, trump,
the wild card, finishing places, roles, automatic plays and flights, the moment of the
step and the log lines in the page's language are all in the frames.

Messages are ``WatchMessage`` dicts (``MessageToDict(..., preserving_proto_field_name=
True)``): ``match``, ``deal_started``, ``events``, ``turn``, ``deal_result``,
``match_result``.
One frame is drawn for a deal's start, one per step (one decision and what it caused:
a batch of events, split if a catch-up batch holds several decisions) and one for the
deal's result. :class:`TableFold` draws them as the messages arrive (a live match);
:func:`table_view` draws a whole stored match.

What a frame shows of the hands: the four hands only when the match's record is given
(a finished, stored match, whose record anyone may read), re-played by the engine and
matched to the frames by the events' ``seq``; otherwise ``hand`` is ``null`` and
``count`` only what the game makes public.

Whose turn it is: a frame's ``to_act`` is the seat whose decision comes next (public),
``phase`` the deal's phase then. Within a batch it is the next step's actor; after a
batch a ``turn`` message says it (a stored match's re-play, or the session asking a seat
as the match is played), with the time left (``clock``: ``decision_ms``, ``bank_ms``) on
a running match. A ``turn`` message draws no frame: it completes the last one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from arena.games import turn_of
from arena.games.base import NUM_SEATS
from arena.plural import counted
from arena.replay import MatchRecord
from arena.web.table_deal import DealView, Event, MatchFacts, Step, event_seat
from arena.web.table_guandan import GuandanView
from arena.web.table_hands import Hands, RecordMismatch, RevealedHands
from arena.web.table_sanfu import SanfuView
from arena.web.table_shengji import ShengjiView
from arena.web.table_text import Words

__all__ = ["RecordMismatch", "TableFold", "carried_forward", "deal_view", "one_deal", "table_view"]

VIEWS: dict[str, type[DealView]] = {
    "guandan": GuandanView,
    "shengji": ShengjiView,
    "sanfu": SanfuView,
}

DECISIONS = frozenset(
    {"play", "pass", "declare", "bury", "tribute", "return", "auto", "fled", "throw_failed"}
)
"""Event kinds of a decision: each is (or announces) one, made by its seat."""
STEP_STARTS = DECISIONS | {"dealt", "trump"}
"""Event kinds that start a step: the decisions, and the end of Shengji's dealing and of
its declarations (which a pass that shows no event may bring about)."""


def table_view(
    messages: Sequence[Mapping[str, Any]],
    record: MatchRecord | None,
    language: str,
    viewer: int | None = None,
) -> dict[str, Any]:
    """A whole match drawn: its header, deals, frames, result and the UI's words;
    ``viewer``: the player whose own page it is (seats named relative to them)."""
    fold = TableFold(language, record, viewer)
    frames = [frame for message in messages for frame in fold.feed(message)]
    return {
        "match": fold.header,
        "deals": fold.deals,
        "frames": frames,
        "result": fold.result,
        "labels": fold.labels,
    }


def deal_view(
    messages: Sequence[Mapping[str, Any]],
    outline: Sequence[Mapping[str, Any]],
    record: MatchRecord | None,
    language: str,
    deal: int,
    viewer: int | None = None,
) -> dict[str, Any]:
    """One deal of a stored match drawn, as :func:`table_view` draws it in the whole.

    ``messages`` are the match's Watch messages restricted to ``deal`` (its start,
    events and result between the MatchInfo and the MatchResult); ``outline`` holds
    every deal's start, result, the events before it and its batches' event kinds and
    seats, from which every deal's entry (its frames' numbers, its summary) is drawn
    without drawing its frames. The frames are those of ``deal`` alone, numbered as in
    the whole match; a field is given only where it differs from the frame before
    (:func:`carried_forward`)."""
    if not 1 <= deal <= len(outline):
        raise ValueError(f"deal {deal} is not one of the match's {counted(len(outline), 'deal')}")
    fold = TableFold(language, viewer=viewer)
    if record is not None:
        events_before = int(outline[deal - 1].get("events_before", 0))
        fold.revealed = RevealedHands.of(record, deal, events_before)
    frames: list[dict[str, Any]] = []
    entries: list[dict[str, Any]] = []
    for message in messages:
        if "deal_started" in message:
            entries = fold.outline_deals(outline)
            fold.resume(entries[deal - 1]["first"], outline, deal)
        frames.extend(fold.feed(message))
    return {
        "match": fold.header,
        "deals": entries,
        "deal": deal,
        "frames": carried_forward(frames),
        "result": fold.result,
        "labels": fold.labels,
    }


KEPT_FIELDS: Final = frozenset({"i", "deal", "seq"})
"""The fields every frame of :func:`carried_forward` keeps."""


def carried_forward(frames: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The frames with each field (and each seat's field) that the frame before in the
    same deal holds the same left out: the page carries it forward. A deal's first frame
    is whole; ``i``, ``deal`` and ``seq`` are always there."""
    carried: list[dict[str, Any]] = []
    before: dict[str, Any] | None = None
    for frame in frames:
        if before is None or before.get("deal") != frame.get("deal"):
            carried.append(frame)
        else:
            changed = {
                key: value
                for key, value in frame.items()
                if key in KEPT_FIELDS or key not in before or before[key] != value
            }
            if "seats" in changed and len(before.get("seats") or ()) == len(frame["seats"]):
                changed["seats"] = [
                    {k: v for k, v in seat.items() if k not in held or held[k] != v}
                    for seat, held in zip(frame["seats"], before["seats"], strict=True)
                ]
            carried.append(changed)
        before = frame
    return carried


def one_deal(view: Mapping[str, Any], deal: int | None) -> dict[str, Any]:
    """A whole :func:`table_view` cut to the frames of ``deal`` (the last deal when
    None); ``view`` itself when it has no frames."""
    deals = view.get("deals") or []
    if not deals:
        return dict(view)
    numbers = [int(entry["number"]) for entry in deals]
    shown = numbers[-1] if deal is None else deal
    if shown not in numbers:
        raise ValueError(f"deal {shown} is not one of the match's deals {numbers}")
    frames = [frame for frame in view.get("frames") or () if frame.get("deal") == shown]
    return {**view, "deal": shown, "frames": frames}


def split_steps(events: Sequence[Event]) -> list[list[Event]]:
    """A batch of events cut into steps, each starting with one decision's event (or
    the end of Shengji's dealing).

    A failed throw and its forced play are one step, as are tributes (or returns)
    revealed together; events before any decision (a deal's opening) are a step.
    """
    steps: list[list[Event]] = []
    opener: Event | None = None
    for event in events:
        starts = event.get("kind") in STEP_STARTS
        if not steps or (starts and not (opener is not None and _same_step(opener, event))):
            steps.append([])
            opener = event if starts else None
        steps[-1].append(event)
    return steps


def _same_step(opener: Event, event: Event) -> bool:
    first, kind = opener.get("kind"), event.get("kind")
    if first == "throw_failed" and kind == "play":
        return event_seat(opener) == event_seat(event)
    return first == kind and kind in ("tribute", "return")


def _actor(step: Sequence[Event]) -> int | None:
    for event in step:
        if event.get("kind") in DECISIONS:
            return event_seat(event)
    return None


class TableFold:
    """The frames of a match drawn as its Watch messages arrive."""

    def __init__(
        self, language: str, record: MatchRecord | None = None, viewer: int | None = None
    ) -> None:
        self.words = Words(language)
        self.viewer = viewer
        self.revealed = None if record is None else RevealedHands.of(record)
        self.match: MatchFacts | None = None
        self._header: dict[str, Any] = {}
        self.deals: list[dict[str, Any]] = []
        self.deal: DealView | None = None
        self.totals = [0] * NUM_SEATS
        self.count = 0
        self.seq = 0
        self._result: dict[str, Any] | None = None
        self.labels: dict[str, str] = {}
        self.last: dict[str, Any] | None = None
        """The newest frame drawn (a ``turn`` message completes it)."""
        self.awaiting: list[dict[str, Any]] = []
        """The deal's frames since its last decision, awaiting the next one's seat (a
        deal's start, Shengji's dealing, the frames of one decision's events)."""
        self.first_awaiting = 0
        """The first frame the newest ``turn`` message completed."""

    @property
    def header(self) -> dict[str, Any]:
        """The match: id, variant, game, decks, options, players, rated, tournament, live
        (true once a message came as the match was played), revealed (hands shown)."""
        return self._header

    @property
    def result(self) -> dict[str, Any] | None:
        return self._result

    def feed(self, message: Mapping[str, Any]) -> list[dict[str, Any]]:
        """The new frames one message draws (none for the match's header or result)."""
        if message.get("live") and self._header:
            self._header["live"] = True  # caught up: following the match as it is played
        if "match" in message:
            self._start_match(message["match"], bool(message.get("live")))
            return []
        if "deal_started" in message:
            return [self._start_deal(message["deal_started"])]
        if "events" in message:
            return self._events((message["events"] or {}).get("events") or [])
        if "turn" in message:
            self._turn(message["turn"])
            return []
        if "deal_result" in message:
            return self._deal_result(message["deal_result"])
        if "match_result" in message:
            self._match_result(message["match_result"])
        return []

    def outline_deals(self, outline: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
        """Every deal's entry (number, its first and last frames' numbers, summary) from
        the match's outline, the deals' frames not drawn (the MatchInfo fed first)."""
        if self.match is None:
            raise ValueError("a deal's outline before the match's header")
        view = VIEWS.get(self.match.game, DealView)
        entries: list[dict[str, Any]] = []
        first = 0
        for item in outline:
            deal = view(self.words, self.match, item.get("deal_started") or {})
            steps = sum(
                len(split_steps([{"kind": kind, "seat": seat} for kind, seat in batch]))
                for batch in item.get("kinds") or ()
            )
            ended = deal.result(item.get("deal_result") or {})
            last = first + steps + 1  # the deal's start, its steps, its result
            summary = ended.moment["text"] if ended.moment else ""
            entries.append(
                {"number": deal.number, "first": first, "last": last, "summary": summary}
            )
            first = last + 1
        return entries

    def resume(self, first: int, outline: Sequence[Mapping[str, Any]], deal: int) -> None:
        """Go on from the start of ``deal`` (1-based) as if the deals before it had been
        fed: frames numbered from ``first``, events after those of the earlier deals,
        the scores the deal before left."""
        self.count = first
        self.seq = int(outline[deal - 1].get("events_before", 0))
        if deal > 1:
            totals = (outline[deal - 2].get("deal_result") or {}).get("totals") or ()
            if len(totals) == NUM_SEATS:
                self.totals = [int(t) for t in totals]

    # -------------------------------------------------------------- messages

    def _start_match(self, info: Mapping[str, Any], live: bool) -> None:
        variant = str(info.get("variant", ""))
        game, _, decks = variant.partition("-")
        players = [str(p) for p in info.get("players") or ()]
        self.match = MatchFacts(
            game=game,
            variant=variant,
            options=dict(info.get("options") or {}),
            players=players,
            decks=int(decks) if decks.isdigit() else None,
            turn=turn_of(variant),
            max_deals=int(info.get("max_deals", 0)) or None,
            viewer=self.viewer,
        )
        self._header = {
            "id": str(info.get("match_id", "")),
            "variant": variant,
            "game": game,
            "turn": turn_of(variant),
            "decks": self.match.decks,
            "options": self.match.options,
            "max_deals": self.match.max_deals,
            "players": players,
            "rated": bool(info.get("rated")),
            "tournament": info.get("tournament_id") or None,
            "live": live,
            "revealed": self.revealed is not None,
            "viewer": self.viewer,
        }
        self.labels = self.words.labels(game)

    def _start_deal(self, started: Mapping[str, Any]) -> dict[str, Any]:
        if self.match is None:
            raise ValueError("a deal_started message before the match's header")
        view = VIEWS.get(self.match.game, DealView)
        self.deal = view(self.words, self.match, started)
        self.awaiting = []
        self.deals.append(
            {"number": self.deal.number, "first": self.count, "last": self.count, "summary": ""}
        )
        hands = None if self.revealed is None else self.revealed.start(self.deal.number)
        return self._frame(Step(), hands)

    def _events(self, events: Sequence[Event]) -> list[dict[str, Any]]:
        deal = self._current()
        frames: list[dict[str, Any]] = []
        for step in split_steps(events):
            actor = _actor(step)
            if actor is not None:  # the next decision, in the same batch
                for frame in self.awaiting:
                    frame["to_act"] = actor
                self.awaiting = []
            done = deal.apply(step, actor)
            last = step[-1]
            self.seq = int(last.get("seq", self.seq))
            hands = None
            if self.revealed is not None:
                hands = self.revealed.at(self.seq, str(last.get("kind", "")))
            frames.append(self._frame(done, hands))
        return frames

    def _turn(self, turn: Mapping[str, Any]) -> None:
        """Whose decision comes after the newest frame (and, live, the time it has)."""
        frame = self.last
        if frame is not None:
            self.first_awaiting = int(frame["i"])
        if frame is None or self.deal is None or int(turn.get("deal", 0)) != self.deal.number:
            return
        if any(line.get("kind") == "deal_result" for line in frame.get("log") or ()):
            return  # the deal is over
        decision, bank = int(turn.get("decision_ms", 0)), int(turn.get("time_bank_ms", 0))
        waiting = self.awaiting or [frame]  # the newest frame is the last of them
        self.first_awaiting = int(waiting[0]["i"])
        for each in waiting:
            each["to_act"] = int(turn.get("seat", 0))
            each["phase"] = str(turn.get("phase", "")) or None
        frame["clock"] = {"decision_ms": decision, "bank_ms": bank} if decision or bank else None
        self.awaiting = []

    @property
    def turn(self) -> dict[str, Any] | None:
        """The newest frame's number and whose turn it shows (a live stream sends it when
        a ``turn`` message completes a frame already sent); ``first``: the first frame
        it completes (the frames since the last decision, sent before it was known)."""
        frame = self.last
        if frame is None:
            return None
        turn = {key: frame.get(key) for key in ("i", "deal", "seq", "to_act", "phase", "clock")}
        turn["first"] = self.first_awaiting
        return turn

    def _deal_result(self, result: Mapping[str, Any]) -> list[dict[str, Any]]:
        deal = self._current()
        totals = [int(t) for t in result.get("totals") or ()]
        if len(totals) == NUM_SEATS:
            self.totals = totals
        self.awaiting = []  # the deal is over: no decision awaited
        step = deal.result(result)
        self.deals[-1]["summary"] = step.moment["text"] if step.moment else ""
        hands = None if self.revealed is None else self.revealed.end(deal.number)
        return [self._frame(step, hands)]

    def _match_result(self, result: Mapping[str, Any]) -> None:
        totals = [int(t) for t in result.get("totals") or self.totals]
        winner = result.get("winner_team")
        reason = str(result.get("reason") or "END_REASON_UNSPECIFIED")
        players = self.match.players if self.match else []
        if winner is None:
            summary = self.words("result.no_winner", deals=int(result.get("deals", 0)))
        elif self.deal is not None:
            summary = self.words("result.match_winner", team=self.deal.team_text(int(winner)))
        else:
            names = [players[p] if p < len(players) else "" for p in (int(winner), int(winner) + 2)]
            side = "north_south" if int(winner) == 0 else "east_west"
            summary = self.words("result.match_winner", team=self.words.team(side, names))
        self._result = {
            "summary": summary,
            "totals": totals,
            "reason": self.words(f"reason.{reason}"),
            "winner_team": None if winner is None else int(winner),
        }

    # ----------------------------------------------------------------- frames

    def _current(self) -> DealView:
        if self.deal is None:
            raise ValueError("events or a deal result before any deal_started message")
        return self.deal

    def _frame(self, step: Step, hands: Hands | None) -> dict[str, Any]:
        deal = self._current()
        frame = deal.frame(self.count, self.seq, step, self.totals, hands)
        frame.update(to_act=None, phase=None, clock=None)
        self.last = frame
        self.awaiting.append(frame)
        self.deals[-1]["last"] = self.count
        self.count += 1
        return frame
