"""Who a stored match's clock marks were for: automatic plays, flights and forfeits per
player, found by re-playing the record (the seat to act when time ran out, the seat
that fled, the player sitting there at that moment). Pure: no store, no I/O."""

from __future__ import annotations

from dataclasses import dataclass

from arena import games
from arena.match import AUTO_MARK
from arena.replay import MatchRecord, fled_seat, replay_entry, start_deal

__all__ = ["Incidents", "match_incidents"]


@dataclass(frozen=True)
class Incidents:
    """A bot's incidents: decisions made by automatic play (its time ran out), deals it
    fled, matches its team forfeited by its flight."""

    automatic_plays: int = 0
    flights: int = 0
    forfeits: int = 0

    def __add__(self, other: Incidents) -> Incidents:
        return Incidents(
            self.automatic_plays + other.automatic_plays,
            self.flights + other.flights,
            self.forfeits + other.forfeits,
        )

    def __bool__(self) -> bool:
        return bool(self.automatic_plays or self.flights or self.forfeits)


def match_incidents(record: MatchRecord) -> dict[str, Incidents]:
    """Each bot's incidents in a recorded match (bots without any are left out)."""
    game = games.make(record.game, **record.options)
    found: dict[str, Incidents] = {}

    def note(player: int, incident: Incidents) -> None:
        bot = record.players[player] if 0 <= player < len(record.players) else f"#{player}"
        found[bot] = found.get(bot, Incidents()) + incident

    for deal in record.deals:
        state = start_deal(game, deal)
        for entry in deal.actions:
            seat = None if entry == AUTO_MARK else fled_seat(entry)
            if entry == AUTO_MARK:
                note(state.player_at(state.to_act), Incidents(automatic_plays=1))
            elif seat is not None:
                forfeit = int("forfeit" in deal.result.get("details", {}))
                note(state.player_at(seat), Incidents(flights=1, forfeits=forfeit))
            replay_entry(state, entry)
    return found
