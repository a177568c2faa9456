"""Which rules of rules/shengji.md a finished Shengji deal used, read from its events.

:func:`rules_applied` replays nothing: it reads the deal's public events (declarations,
the trump, every lead, play and trick, the kitty), its setup and its outcome, after the
deal, so the engine pays nothing for it. It returns rule ids (``SJ-17``) and finer
*uses* of a rule written ``ID/what`` (``SJ-17/failed``). Ids and their meaning:

- always: ``SJ-1`` levels, ``SJ-2`` trumps, ``SJ-4`` plain order, ``SJ-7`` dealing,
  ``SJ-12`` the dealer, ``SJ-18`` leading, ``SJ-19`` following, ``SJ-20`` winning a
  trick, ``SJ-22`` points, ``SJ-23`` next dealer; ``SJ-26`` (1–3 decks) or ``SJ-27``
  and ``SJ-30`` (4 decks) the level change and last-trick settlement;
- ``SJ-2/constant_twos``: a 2 that is a trump only by ``constant_twos`` was played;
- ``SJ-3`` a trump suit, ``SJ-5`` notrump;
- ``SJ-6``: a play equal to the best one lost to it (the earlier play won);
- ``SJ-8`` a deal of 1 to 3 decks (its trump chosen by declarations):
  ``SJ-8/declared`` someone declared, ``SJ-8/override`` another player declared over
  them (反主), ``SJ-8/strengthen`` the declarer declared again (自保/自反),
  ``SJ-8/jokers`` a joker declaration (反无主); ``SJ-8/undeclared`` nobody declared
  (what ``no_declaration`` acts on), and then ``SJ-8/flip_kitty`` or ``SJ-8/notrump``;
- ``SJ-9`` a 1-deck deal; ``SJ-10`` a 4-deck deal (hidden declarations), with
  ``SJ-10/declared``, ``SJ-10/override`` and ``SJ-10/undeclared`` (spades) as for SJ-8;
- ``SJ-11`` a declaration was made, ``SJ-11/after_dealing`` one in the final round;
- ``SJ-12/first_deal`` the first deal of a match (the declaration chose the dealer);
- ``SJ-13`` the dealer buried a kitty;
- ``SJ-14`` a set of two or more was led, ``SJ-15`` a tractor, ``SJ-16`` a tractor of
  triples or quads;
- ``SJ-17`` a throw was led (standing or not), ``SJ-17/standing`` one stood,
  ``SJ-17/failed`` one failed (what ``throw_penalty`` acts on), ``SJ-17/penalty`` a
  failed throw cost points (``throw_penalty`` > 0);
- ``SJ-21`` a ruff won a trick, ``SJ-21/overruff`` a ruff beat another ruff;
- ``SJ-23/take_over`` the defenders took over;
- ``SJ-24`` every deal played out (the match end checked), ``SJ-24/cap`` a level would
  have passed A; ``SJ-24/match_end`` the deal ended the
  match under one ``match_end`` rule and not the other (what ``match_end`` acts on);
  ``SJ-24/match_won`` the deal ended the match;
- ``SJ-25`` the defenders won the last trick (the kitty multiplied), ``SJ-25/bonus``
  with kitty points added;
- ``SJ-26/shutout`` the defenders scored nothing (大光);
- ``SJ-27/negative`` (4 decks) the defenders ended below zero; ``SJ-30/bonus`` the last
  trick moved points;
- ``SJ-28`` (3 decks) a triple or Titanic was led; ``SJ-29`` (4 decks) a quad or a
  tractor was led;
- ``SJ-31`` a two-colour deal, ``SJ-31/pair`` a pair of two suits of one colour played.

SJ-32 (room points) is league scoring applied by the leaderboards, never by a deal.
A deal ended by a flight gives only the uses its events show.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from arena.cards import RANK_ACE, SMALL_JOKER, Card
from arena.games.base import NOBODY, Event, Outcome, Seat, team_of
from arena.games.shengji import scoring
from arena.games.shengji.order import TRUMP, TrumpOrder, colour_of
from arena.games.shengji.shapes import Unit, decompose
from arena.games.shengji.state import ShengjiState
from arena.games.shengji.trick import Contender, contender, lead_contender

ALWAYS: Final = ("SJ-1", "SJ-2", "SJ-4", "SJ-7", "SJ-12", "SJ-18", "SJ-19", "SJ-20", "SJ-22")
"""Rules every Shengji deal uses (definitions and the deal's fixed course)."""
SETTLED: Final = ("SJ-23", "SJ-24")
"""Rules every deal that was played out uses."""
OPTION_USES: Final = {
    "constant_twos": "SJ-2/constant_twos",
    "two_colour": "SJ-31",
    "no_declaration": "SJ-8/undeclared",
    "throw_penalty": "SJ-17/failed",
    "match_end": "SJ-24/match_end",
}
"""Each option of ``make("shengji-N", ...)`` and the use that says it came into play."""
_RANK_TWO: Final = 0
_BLACK: Final = 1 << 0 | 1 << 3
"""Spades and clubs, as bits of a rank's suits (SJ-31: one colour)."""
_RED: Final = 1 << 1 | 1 << 2
"""Hearts and diamonds."""


def rules_applied(state: ShengjiState, outcome: Outcome | None = None) -> frozenset[str]:
    """The rule ids and uses of rules/shengji.md that the finished deal (whose outcome is
    ``outcome``, worked out again when not given) used."""
    if not state.is_terminal():
        raise ValueError("rules_applied needs a finished deal; this one is still being played")
    rules = state.rules
    used: set[str] = set(ALWAYS)
    used.add(f"SJ-{26 if rules.decks < 4 else 27}")
    if rules.decks == 1:
        used.add("SJ-9")
    if rules.two_colour:
        used.add("SJ-31")
    if state.setup.dealer is None:
        used.add("SJ-12/first_deal")
    events = state.events
    _declarations(events, rules.decks, rules.no_declaration, used)
    order = state.order
    if order is None:  # fled before the trump was known
        return frozenset(used)
    used.add("SJ-5" if order.trump is None else "SJ-3")
    if any(e.kind == "bury" for e in events):
        used.add("SJ-13")
    _tricks(events, order, rules.decks, rules.throw_penalty, used)
    if state.fled < 0:
        _settlement(state, (outcome or state.outcome()).details, used)
    return frozenset(used)


def _declarations(events: Sequence[Event], decks: int, no_declaration: str, used: set[str]) -> None:
    """SJ-8 (1 to 3 decks) or SJ-10 (4 decks, hidden), SJ-11: who declared, and over whom."""
    rule = "SJ-10" if decks == 4 else "SJ-8"
    used.add(rule)
    declarer = -1
    dealt = False
    for event in events:
        kind = event.kind
        if kind == "dealt":
            dealt = True
        elif kind == "declare":
            used.add(f"{rule}/declared")
            used.add("SJ-11")
            if dealt:
                used.add("SJ-11/after_dealing")
            if declarer >= 0:
                used.add(f"{rule}/strengthen" if event.seat == declarer else f"{rule}/override")
            declarer = event.seat
            if event.cards and event.cards[0] >= SMALL_JOKER:
                used.add("SJ-8/jokers")
        elif kind == "trump":
            if declarer < 0:
                used.add(f"{rule}/undeclared")
                if decks < 4:
                    used.add(f"SJ-8/{no_declaration}")
            return


def _tricks(
    events: Sequence[Event], order: TrumpOrder, decks: int, penalty: int, used: set[str]
) -> None:
    """Every trick read again from its lead and plays: shapes, throws, ruffs, ties."""
    lead: list[Unit] = []
    suit = -1
    best: Contender | None = None
    ruffed = False
    for event in events:
        kind = event.kind
        if kind == "lead":
            lead, best, ruffed = [], None, False
        elif kind == "throw_failed":
            used.add("SJ-17")
            used.add("SJ-17/failed")
            if penalty:
                used.add("SJ-17/penalty")
        elif kind == "play":
            cards = event.cards
            _cards_used(cards, order, used)
            if not lead:
                suit = order.suits[cards[0]]
                if len(cards) == 1:  # a single: no shape to read
                    top = order.orders[cards[0]]
                    lead = [Unit(1, 1, top, cards)]
                    best = Contender(False, top, 0)
                    continue
                lead = decompose(cards, order)
                best = lead_contender(lead, suit)
                _lead_used(lead, decks, used)
                continue
            play = contender(cards, lead, suit, order, decks)
            if play is None or best is None:
                continue
            if play.beats(best):
                if play.ruff:
                    used.add("SJ-21")
                    if ruffed:
                        used.add("SJ-21/overruff")
                    ruffed = True
                best = play
            elif play == best:
                used.add("SJ-6")
            elif play.ruff:
                ruffed = True


def _lead_used(lead: list[Unit], decks: int, used: set[str]) -> None:
    """Uses a lead shows: throws (SJ-17), sets, tractors, and the 3- and 4-deck leads."""
    if len(lead) > 1:
        used.add("SJ-17")
        used.add("SJ-17/standing")
    for unit in lead:
        if unit.width >= 2:
            used.add("SJ-14")
            if unit.is_tractor:
                used.add("SJ-15")
                if unit.width >= 3:
                    used.add("SJ-16")
            if decks == 3 and unit.width == 3:
                used.add("SJ-28")
            if decks == 4 and (unit.width == 4 or unit.is_tractor):
                used.add("SJ-29")


def _cards_used(cards: tuple[Card, ...], order: TrumpOrder, used: set[str]) -> None:
    """Uses a play's cards show: a 2 trump by ``constant_twos``, a two-colour pair."""
    level, trump, two_colour = order.level, order.trump, order.two_colour
    rank_suits: dict[int, int] = {}
    for card in cards:
        if card >= SMALL_JOKER:
            break
        rank, suit = card >> 2, card & 3
        if order.constant_twos and rank == _RANK_TWO and level != _RANK_TWO:
            group = colour_of(suit) if two_colour else suit
            if order.suits[card] == TRUMP and group != trump:
                used.add("SJ-2/constant_twos")
        if two_colour:
            suits = rank_suits[rank] = rank_suits.get(rank, 0) | 1 << suit
            if suits & _BLACK == _BLACK or suits & _RED == _RED:
                used.add("SJ-31/pair")


def _settlement(state: ShengjiState, details: Mapping[str, Any], used: set[str]) -> None:
    """Uses the result shows: kitty, level bands, cap at A, match end."""
    rules = state.rules
    points = int(details["defender_points"])
    bonus = int(details["last_bonus"])
    declarers = int(details["declarer_team"])
    used.update(SETTLED)
    if rules.decks == 4:
        used.add("SJ-30")
        if bonus:
            used.add("SJ-30/bonus")
        if points < 0:
            used.add("SJ-27/negative")
    elif team_of(_last_winner(state.events)) != declarers:
        used.add("SJ-25")
        if bonus:
            used.add("SJ-25/bonus")
    if points <= 0:
        used.add("SJ-26/shutout" if rules.decks < 4 else "SJ-27/shutout")
    if details["take_over"]:
        used.add("SJ-23/take_over")
    before = (int(details["levels_before"][0]), int(details["levels_before"][1]))
    change = scoring.level_change(points, rules.decks, rules.two_colour)
    ups = (change.declarers_up, change.defenders_up)
    for team in (0, 1):
        up = ups[0] if team == declarers else ups[1]
        if before[team] + up > RANK_ACE:
            used.add("SJ-24/cap")
    after = scoring.apply_levels(before, declarers, change)
    winners = [
        scoring.match_winner(before, after, declarers, change, end) for end in scoring.MATCH_ENDS
    ]
    if winners[0] != winners[1]:
        used.add("SJ-24/match_end")
    if details["match_winner"] is not None:
        used.add("SJ-24/match_won")


def _last_winner(events: Sequence[Event]) -> Seat:
    """The winner of the deal's last trick."""
    for event in reversed(events):
        if event.kind == "trick":
            return event.seat
    return NOBODY
