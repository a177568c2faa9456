"""What a person's seat page showed while a match was played, and the engine's figures
to hold it to (the browser tests of whole matches, ``test_table_matches_browser.py``).

- :data:`RECORD_STREAMS`: a script run in the page before its own, which keeps every
  server-sent event the page's scripts listen to (the felt's public stream and the
  seat's own), in the order they came, in ``window.arenaSeen``.
- :data:`SNAPSHOT`: what the page draws now: the felt's frame, its numbers (facts, each
  seat's card count, points and total), its cards and text, the seat panel's hand.
- :class:`Figures`: a stored record re-played by the engine, each step's public facts
  (levels, points, the hand counts the rules make public) and each deal's totals before
  it, numbered as :class:`browser.Timeline` numbers the steps.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from typing import Any

from browser import Timeline

from arena import games
from arena.cards import rank_label
from arena.games.base import NUM_SEATS, team_of
from arena.record import MatchRecord, start_deal
from arena.replay import replay_entry
from arena.web.i18n import translate

RECORD_STREAMS = """(() => {
  const seen = [];
  window.arenaSeen = seen;
  const Native = window.EventSource;
  window.EventSource = class extends Native {
    constructor(url, init) {
      super(url, init);
      this.recorded = new Set();
    }
    addEventListener(type, listener, options) {
      if (!this.recorded.has(type) && type !== 'open' && type !== 'error') {
        this.recorded.add(type);
        super.addEventListener(type, (event) =>
          seen.push({ url: this.url, type, data: event.data, at: Date.now() }));
      }
      super.addEventListener(type, listener, options);
    }
  };
})();"""
"""Run before the page's scripts: every stream event a script listens to is kept."""

SNAPSHOT = """() => {
  const table = document.getElementById('table');
  const panel = document.getElementById('seat');
  // what a person can see: neither hidden parts nor the page's data blocks
  const felt = [...table.children].filter((node) => node !== panel && node.tagName !== 'SCRIPT');
  const seen = (node) => !node.closest('[hidden]');
  const codes = (nodes) => nodes.flatMap((node) =>
    [...node.querySelectorAll('[data-card]')].filter(seen).map((card) => card.dataset.card));
  const cards = codes(felt);
  const words = (nodes) => nodes.flatMap((node) => {
    // the texts of a part of the page, but those of its drawn cards (read by their codes)
    const walker = document.createTreeWalker(node, NodeFilter.SHOW_TEXT, {
      acceptNode: (t) => t.parentElement.closest('.card, script') || !seen(t.parentElement)
        ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT,
    });
    const found = [];
    while (walker.nextNode()) {
      found.push(walker.currentNode.textContent);
    }
    return found;
  }).join('\\n');
  const text = (node, selector) => {
    const found = node.querySelector(selector);
    return found ? found.textContent : null;
  };
  return {
    frame: Number(table.dataset.frame),
    seq: Number(table.dataset.seq || 0),
    facts: [...document.querySelectorAll('#facts .fact')].map((fact) =>
      [fact.querySelector('dt').textContent, fact.querySelector('dd').textContent]),
    seats: [0, 1, 2, 3].map((s) => {
      const node = table.querySelector(`.seat[data-seat="${s}"]`);
      return {
        count: text(node, '.stack-count') ?? text(node, '.tag.count'),
        points: text(node, '.tag.points'),
        total: text(node, '.tag.total'),
        toAct: node.classList.contains('to-act'),
        position: node.className,
      };
    }),
    feltCards: cards,
    feltText: words(felt),
    hand: [...document.querySelectorAll('#my-hand .hand-card')].map((b) => b.dataset.card),
    cardWidth: Math.min(...[...document.querySelectorAll('#my-hand .hand-card')]
      .map((b) => b.getBoundingClientRect().width)),
    panelCards: codes([panel]),
    panelText: words([panel]),
    state: panel.dataset.state,
    request: panel.dataset.request,
    legal: [...document.querySelectorAll('#legal .legal-action')].map((b) => b.dataset.action),
    result: !document.getElementById('result').hidden,
    hiddenLastTrick: document.querySelectorAll('#last-trick[hidden] [data-card]').length,
    lang: document.documentElement.lang,
  };
}"""
"""What the seat page draws now (the felt apart from the seat's panel)."""

FRAMES = """() => {
  const view = JSON.parse(document.getElementById('table-data').textContent);
  return view.frames;
}"""
"""The frames the page was served with (the stream's come after them)."""


@dataclass(frozen=True)
class StepFigures:
    """The engine's public numbers at one step of a deal."""

    level: int | None
    levels: tuple[int, int] | None
    counts: tuple[int | None, ...] | None
    """Each seat's cards left, ``None`` where the rules keep it hidden (GD-12); no
    tuple: not known at this moment."""
    defender_points: int | None
    captured: tuple[int, ...] | None
    """Sanfu: the points each seat took."""
    to_act: int | None
    """The seat whose decision comes next (``None``: the deal is over)."""


class Figures:
    """A stored record re-played by the engine: each step's public numbers and the
    match totals (by player) before each deal, the steps as :class:`Timeline`'s."""

    def __init__(self, record: dict[str, Any]) -> None:
        parsed = MatchRecord.from_dict(record)
        game = games.make(parsed.game, **parsed.options)
        self.timeline = Timeline(record)
        self.steps: list[list[StepFigures]] = []
        self.totals_before: list[list[int]] = []
        self.settled: list[list[int] | None] = []
        self.defended: list[int | None] = []
        """Each deal's defenders' points as its result counts them (Shengji: the kitty's
        points multiplied, SJ-22, once the last trick turns it over)."""
        """Each deal's teams' points as its result settles them (sanfu, SF-13)."""
        totals = [0] * NUM_SEATS
        for deal in parsed.deals:
            self.totals_before.append(list(totals))
            state = start_deal(game, deal)
            figures = [self._figures(state)]
            for text in deal.actions:
                replay_entry(state, text)
                figures.append(self._figures(state))
            self.steps.append(figures)
            details = deal.result.get("details") or {}
            self.defended.append(details.get("defender_points"))
            settled = details.get("team_points")
            self.settled.append(None if settled is None else [int(p) for p in settled])
            for player, score in enumerate(deal.result.get("scores") or ()):
                totals[player] += int(score)
        self.final_totals = list(parsed.result.get("totals") or totals)

    @staticmethod
    def _figures(state: Any) -> StepFigures:
        public = dict(state.observe(0).public)
        hands = [len(state.hand(s)) for s in range(NUM_SEATS)]
        counts = public.get("counts")
        if counts is None or len(counts) != NUM_SEATS:
            counts = hands
        levels = public.get("levels")
        captured = public.get("captured")
        return StepFigures(
            public.get("level"),
            None if levels is None else (int(levels[0]), int(levels[1])),
            tuple(None if c is None else int(c) for c in counts),
            public.get("defender_points"),
            None if captured is None else tuple(int(c) for c in captured),
            None if state.is_terminal() else state.to_act,
        )

    def at(self, deal: int, seq: int) -> list[StepFigures]:
        """The figures a frame of ``deal`` numbered ``seq`` may show: several steps may
        publish nothing new; a frame drawn amid one step's events (the table draws
        Shengji's dealing apart from the trump it brings, where the record holds one
        step) shows counts the engine never stood at."""
        replayed = self.timeline.deal(deal)
        shown = replayed.steps_at(seq)
        indexes = [replayed.steps.index(step) for step in shown]
        figures = [self.steps[deal - 1][index] for index in indexes]
        if shown[0].seq > seq:  # amid one step's events: its counts are not the engine's
            return [replace(step, counts=None) for step in figures]
        return figures


def fact(lang: str, facts: list[list[str]], key: str) -> str | None:
    """The value the felt shows beside the fact ``key`` (``table.fact.KEY``)."""
    name = translate(lang, f"table.fact.{key}")
    return next((value for label, value in facts if label == name), None)


def number_in(text: str | None) -> int | None:
    """The first whole number of a shown text (``+12``, ``35 pts``), or ``None``."""
    if text is None:
        return None
    digits = "".join(ch if ch.isdigit() or ch in "+-" else " " for ch in text).split()
    return int(digits[0]) if digits else None


def by_team(text: str | None) -> list[str] | None:
    """The two values of a fact told by team (``us 2 · them 5``), in the order shown."""
    parts = (text or "").split(" · ")
    if len(parts) != 2:
        return None
    return [part.rsplit(" ", 1)[-1] for part in parts]


@dataclass(frozen=True)
class Seating:
    """Who sits where in a deal, seen from the person's page: each seat's player, the
    person's team (told first), the deal's settled team points (sanfu's last frame)."""

    players: list[int]
    own_team: int
    settled: list[int] | None = None
    defended: int | None = None
    """The deal's defenders' points as its result counts them (its last trick on)."""

    def ordered(self, values: tuple[int, int] | list[int]) -> list[int]:
        return [values[self.own_team], values[1 - self.own_team]]


def figure_problems(
    lang: str, shown: dict[str, Any], figures: StepFigures, totals: list[int], seating: Seating
) -> list[str]:
    """What the felt's numbers (``shown``: a :data:`SNAPSHOT`) say that the engine's
    ``figures`` do not; ``totals`` by player."""
    problems = []
    for seat, drawn in enumerate(shown["seats"]):
        count = number_in(drawn["count"])
        if count is not None and figures.counts and count != figures.counts[seat]:
            problems.append(f"seat {seat} shows {count} cards, the engine {figures.counts[seat]}")
        total = number_in(drawn["total"])
        player = seating.players[seat]
        if total is not None and total != totals[player]:
            problems.append(f"seat {seat} shows total {total}, the engine {totals[player]}")
        points = number_in(drawn["points"])
        if figures.captured is not None and (points or 0) != figures.captured[seat]:
            problems.append(f"seat {seat} shows {points} points, took {figures.captured[seat]}")
    facts = shown["facts"]
    if figures.level is not None:
        level = fact(lang, facts, "level")
        if level != rank_label(figures.level):
            problems.append(f"level {level!r}, the engine's {rank_label(figures.level)}")
    if figures.levels is not None:
        levels = by_team(fact(lang, facts, "levels"))
        wanted = [rank_label(rank) for rank in seating.ordered(figures.levels)]
        if levels != wanted:
            problems.append(f"levels {levels}, the engine's {wanted} (the person's team first)")
    defended = number_in(fact(lang, facts, "defender_points"))
    if defended is not None and defended not in (figures.defender_points, seating.defended):
        problems.append(f"defenders' points {defended}, the engine's {figures.defender_points}")
    if figures.captured is not None:
        taken = [0, 0]
        for seat, points in enumerate(figures.captured):
            taken[team_of(seat)] += points
        if seating.settled is not None:
            taken = seating.settled
        team_points = by_team(fact(lang, facts, "team_points"))
        wanted = [str(points) for points in seating.ordered(taken)]
        if team_points != wanted:
            problems.append(f"team points {team_points}, the engine's {wanted}")
    return problems


def owned(timeline: Timeline, deal: int, seat: int) -> Counter[str]:
    """Every card ``seat`` held at some moment of ``deal`` (its own to see)."""
    held: Counter[str] = Counter()
    for step in timeline.deal(deal).steps:
        held |= Counter(step.hands[seat])
    return held
