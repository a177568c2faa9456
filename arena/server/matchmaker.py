"""Seats waiting connections four at a time, by variant and rated/casual.

Connections wait in arrival order. A match of a variant forms as soon as four joined
connections want it (and agree on rated or casual). In a rated match two bots of the
same owner never sit on opposite teams (bots without an owner are free to sit anywhere).
A connection may ask for built-in bots in the empty seats after a wait (:meth:`fill`);
fixtures take the connections of named bots (:meth:`take`).
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Final

__all__ = ["Matchmaker", "Waiting", "seating"]

_LOOKAHEAD: Final = 12
"""How many waiting connections a rated match is searched among."""


@dataclass(eq=False)
class Waiting:
    """A connection's wish: its bot, the bot's owner, the variants, rated or casual."""

    bot: str
    owner: str | None
    variants: tuple[str, ...]
    rated: bool
    token: object = field(default=None)
    """What the caller gets back when this connection is seated."""


def seating(group: Sequence[Waiting], rated: bool) -> list[Waiting] | None:
    """Four connections in seat order (players 0 and 2 one team), or None if a rated match
    would put two bots of one owner on opposite teams."""
    if not rated:
        return list(group)
    a = group[0]
    for partner in group[1:]:
        rest = [w for w in group[1:] if w is not partner]
        team0, team1 = (a, partner), rest
        owners0 = {w.owner for w in team0 if w.owner is not None}
        owners1 = {w.owner for w in team1 if w.owner is not None}
        if not owners0 & owners1:
            return [team0[0], team1[0], team0[1], team1[1]]
    return None


class Matchmaker:
    """Thread-safe queue of waiting connections; ``start`` is called with each match."""

    def __init__(self, start: Callable[[str, bool, list[Waiting]], None]) -> None:
        self._start = start
        self._lock = threading.Lock()
        self._waiting: list[Waiting] = []

    def join(self, waiting: Waiting, *, form: bool = True) -> None:
        """Add (or replace) a connection's wish, then (unless ``form`` is false) seat every
        match that can form."""
        with self._lock:
            self._waiting = [w for w in self._waiting if w.token is not waiting.token]
            self._waiting.append(waiting)
        if form:
            self.form()

    def form(self) -> None:
        """Seat every match that can form."""
        with self._lock:
            formed = self._form()
        for variant, rated, players in formed:
            self._start(variant, rated, players)

    def leave(self, token: object) -> None:
        with self._lock:
            self._waiting = [w for w in self._waiting if w.token is not token]

    def waiting(self) -> int:
        with self._lock:
            return len(self._waiting)

    def queued(self) -> dict[str, int]:
        """How many connections wait for each variant (one connection may count twice)."""
        with self._lock:
            counts: dict[str, int] = {}
            for waiting in self._waiting:
                for variant in waiting.variants:
                    counts[variant] = counts.get(variant, 0) + 1
            return counts

    def fill(self, token: object, bot: str) -> None:
        """Seat the connection ``token`` now, if it still waits, with the others waiting for
        its first variant and the built-in ``bot`` in the seats left (``token`` None)."""
        with self._lock:
            mine = next((w for w in self._waiting if w.token is token), None)
            if mine is None:
                return
            variant = mine.variants[0]
            others = [
                w
                for w in self._waiting
                if w is not mine and w.rated == mine.rated and variant in w.variants
            ][:3]
            builtin = [Waiting(bot, None, (variant,), mine.rated) for _ in range(3 - len(others))]
            players = seating([mine, *others, *builtin], mine.rated) or seating(
                [mine, *(Waiting(bot, None, (variant,), mine.rated) for _ in range(3))],
                mine.rated,
            )
            assert players is not None  # built-in bots have no owner: always seatable
            chosen = {id(w) for w in players}
            self._waiting = [w for w in self._waiting if id(w) not in chosen]
        self._start(variant, mine.rated, players)

    def take(
        self, bots: Sequence[str], variant: str, rated: bool | None = None
    ) -> list[Waiting] | None:
        """One waiting connection of each named bot (distinct connections) that joined
        ``variant`` (for ``rated`` or casual matches only, when given), removed from the
        queue; None (nothing taken) while one has none."""
        with self._lock:
            taken: list[Waiting] = []
            for bot in bots:
                found = next(
                    (
                        w
                        for w in self._waiting
                        if w.bot == bot
                        and variant in w.variants
                        and (rated is None or w.rated == rated)
                        and all(w is not t for t in taken)
                    ),
                    None,
                )
                if found is None:
                    return None
                taken.append(found)
            chosen = {id(w) for w in taken}
            self._waiting = [w for w in self._waiting if id(w) not in chosen]
            return taken

    def waits(self, bot: str, variant: str, rated: bool) -> bool:
        """Whether a connection of ``bot`` waits for a ``rated`` (or casual) ``variant`` match."""
        with self._lock:
            return any(
                w.bot == bot and variant in w.variants and w.rated == rated for w in self._waiting
            )

    def waiting_bots(self, rated: bool) -> list[str]:
        """The bots with a connection waiting for ``rated`` (or casual) matches, by name."""
        with self._lock:
            return sorted({w.bot for w in self._waiting if w.rated == rated})

    def clear(self) -> list[Waiting]:
        """Stop seating: every waiting connection is taken off the queue (and returned)."""
        with self._lock:
            waiting, self._waiting = self._waiting, []
            return waiting

    def _form(self) -> list[tuple[str, bool, list[Waiting]]]:
        formed = []
        progress = True
        while progress:
            progress = False
            for variant, rated in {(v, w.rated) for w in self._waiting for v in w.variants}:
                wanting = [w for w in self._waiting if w.rated == rated and variant in w.variants]
                for group in itertools.combinations(wanting[:_LOOKAHEAD], 4):
                    players = seating(group, rated)
                    if players is not None:
                        chosen = {id(w) for w in players}
                        self._waiting = [w for w in self._waiting if id(w) not in chosen]
                        formed.append((variant, rated, players))
                        progress = True
                        break
                if progress:
                    break
        return formed
