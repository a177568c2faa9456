"""The card table's words in one language: catalog texts, cards, places, teams.

Everything the table frames say to people goes through :class:`Words`, which reads the
``table.*`` keys of :mod:`arena.web.i18n`'s catalogs; a key the table uses is always in
both catalogs (a test checks it).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from arena.cards import BIG_JOKER, SMALL_JOKER, parse_card, rank_label
from arena.web.i18n import translate

__all__ = ["LABEL_KEYS", "PLACES", "POSITIONS", "Words", "person_name", "position_of", "where_key"]

POSITIONS = ("south", "west", "north", "east")
"""Where the drawn table puts a seat, counted from the bottom (templates/match.html)."""
PERSON_PREFIX = "person:"
"""How a person's seat is named among bots (arena.web.host)."""

PLACES = ("guandan", "sanfu")
"""The games whose players finish in places (头游 …, 上游 …)."""

_SUIT_SYMBOLS = {"s": "♠", "h": "♥", "d": "♦", "c": "♣"}

LABEL_KEYS = (
    "prev",
    "next",
    "prev_trick",
    "next_trick",
    "prev_deal",
    "next_deal",
    "play",
    "pause",
    "speed",
    "deal",
    "step",
    "trick",
    "last_trick",
    "pass",
    "hand",
    "cards_left",
    "points",
    "team",
    "seat",
    "log",
    "result",
    "totals",
    "auto",
    "fled",
    "revealed",
    "hidden",
    "live",
    "ended",
    "level",
    "trump",
    "wild",
    "dealer",
    "declarer",
    "defender",
    "turned",
    "tried",
    "winner",
    # the page's own phrases, their {fields} filled by static/table.js
    "position",
    "deal_option",
    "trick_no",
    "count",
    "seat_points",
    "first",
    "last",
    "scrub",
    "keys",
    "reconnecting",
    "named",
    "to_act",
    "to_declare",
    "to_bury",
    "to_tribute",
    "to_return",
    "time_left",
    "time_bank",
    "joker_big",
    "joker_small",
)
"""The UI words a frame's ``labels`` carries (``table.label.<key>``)."""


def person_name(name: str) -> str:
    """A player's name as people read it: a person by their own name."""
    return name.removeprefix(PERSON_PREFIX)


def position_of(seat: int, bottom: int, turn: str | None) -> int:
    """Where ``seat`` is drawn (an index of :data:`POSITIONS`) when ``bottom`` is drawn
    south: the seat after it east when the turn goes counter-clockwise, west when
    clockwise (static/table.js draws so)."""
    after = (seat - bottom) % 4
    return (4 - after) % 4 if turn == "counter-clockwise" else after


def where_key(seat: int, bottom: int, turn: str | None, relative: bool) -> str:
    """The catalog key (``table.where.*``) saying where ``seat`` sits: its compass point
    (the bottom seat south), or, ``relative`` to a player at ``bottom``: you, partner,
    the next or previous player with their side of the drawn table."""
    position = POSITIONS[position_of(seat, bottom, turn)]
    if not relative:
        return position
    if position in ("south", "north"):
        return "you" if position == "south" else "partner"
    side = "left" if position == "west" else "right"
    return f"{side}_{'next' if (seat - bottom) % 4 == 1 else 'previous'}"


class Words:
    """The table's texts in ``language``."""

    def __init__(self, language: str) -> None:
        self.language = language

    def __call__(self, key: str, /, **fields: object) -> str:
        """The text of ``table.<key>``, its fields filled."""
        return translate(self.language, f"table.{key}", **fields)

    def labels(self, game: str) -> dict[str, str]:
        """The UI words, the finishing places of ``game`` among them (``place.N``)."""
        words = {key: self(f"label.{key}") for key in LABEL_KEYS}
        if game in PLACES:
            for place in range(1, 5):
                words[f"place.{place}"] = self.place(game, place)
        return words

    def card(self, code: str) -> str:
        """One card as people read it: ``♠A``, ``♥10``, the jokers by name."""
        card = parse_card(code)
        if card == SMALL_JOKER:
            return self("card.small_joker")
        if card == BIG_JOKER:
            return self("card.big_joker")
        return _SUIT_SYMBOLS[code[-1]] + rank_label(card >> 2)

    def cards(self, codes: Iterable[str]) -> str:
        return " ".join(self.card(code) for code in codes)

    def rank(self, rank: int) -> str:
        """A rank index (0 = 2 … 12 = A) as a level: ``2`` … ``10`` … ``A``."""
        return rank_label(rank)

    def place(self, game: str, place: int) -> str:
        """A finishing place in ``game``'s words (头游 …, 上游 …)."""
        return self(f"place.{game}.{min(max(place, 1), 4)}")

    def suit(self, name: str) -> str:
        """A trump name as the engine gives it (``s h d c``, ``notrump``, ``red``, ``black``)."""
        return self(f"suit.{name}")

    def team(self, side: str, names: Sequence[str]) -> str:
        """A team by its side of the table (``side.*``) with its two players' names."""
        return self("team", side=self(f"side.{side}"), first=names[0], second=names[1])

    def named(self, name: str, where: str) -> str:
        """A player named where they sit (``where.*``): ``heuristic (E)``, ``random（下家）``.
        Every line of the table names a seat so, and bots of one name are told apart."""
        return self("named", name=person_name(name), where=self(f"where.{where}"))

    def kind(self, game: str, label: str) -> str:
        """A combination's name (``pair``, ``bomb`` …) in ``game``'s words."""
        return self(f"kind.{game}.{label}") if label else ""
