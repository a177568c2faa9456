"""Ratings (``ratings``) and every change of them (``rating_history``); they change
only with a stored match (:meth:`arena.store.matches.Matches.add_match`)."""

from __future__ import annotations

from typing import Final

from arena.store.database import Database
from arena.store.rows import in_bytes
from arena.store.values import Rating, RatingChange, Standing

_RATING: Final = "SELECT bot, variant, system, value, sigma, matches, updated_at FROM ratings"
_CHANGE: Final = (
    'SELECT id, match_id, bot, variant, system, "before", after, sigma, at FROM rating_history'
)


class Ratings(Database):
    """Current ratings, their history, and the standings they make."""

    def ratings(self, variant: str, system: str | None = None) -> list[Rating]:
        """Current ratings in a variant (all systems, or one), best first within a system."""
        one = "" if system is None else " AND system = :system"
        rows = self._read(
            f"{_RATING} WHERE variant = :variant{one} "
            f"ORDER BY system, value DESC, {in_bytes('bot', self.dialect)}",
            {"variant": variant, "system": system},
        )
        return [Rating(*row) for row in rows]

    def bot_ratings(self, bot: str) -> list[Rating]:
        """A bot's current ratings in every variant and system."""
        rows = self._read(
            f"{_RATING} WHERE bot = :bot ORDER BY {in_bytes('variant', self.dialect)}, system",
            {"bot": bot},
        )
        return [Rating(*row) for row in rows]

    def elo_rank(self, variant: str, elo: float) -> int:
        """The rank an Elo of ``elo`` has in a variant (1: none higher)."""
        rows = self._read(
            "SELECT count(*) FROM ratings "
            "WHERE variant = :variant AND system = 'elo' AND value > :elo",
            {"variant": variant, "elo": elo},
        )
        rank: int = rows[0][0] + 1
        return rank

    def rating_history(self, bot: str, variant: str, system: str) -> list[RatingChange]:
        """Every change of one rating, oldest first."""
        rows = self._read(
            f"{_CHANGE} WHERE bot = :bot AND variant = :variant AND system = :system ORDER BY id",
            {"bot": bot, "variant": variant, "system": system},
        )
        return [RatingChange(*row) for row in rows]

    def bot_rating_history(self, bot: str) -> list[RatingChange]:
        """Every change of every rating of a bot (all variants and systems), oldest first."""
        rows = self._read(f"{_CHANGE} WHERE bot = :bot ORDER BY id", {"bot": bot})
        return [RatingChange(*row) for row in rows]

    def rated_match_ids(self, pool: str) -> set[str]:
        """The ids of the matches that changed a rating of ``pool`` (a variant, or
        ``people:VARIANT``)."""
        rows = self._read(
            "SELECT DISTINCT match_id FROM rating_history WHERE variant = :pool", {"pool": pool}
        )
        return {row[0] for row in rows}

    def standings(self, variant: str) -> list[Standing]:
        """Every bot rated in a variant or with results there, best Elo first (those
        without an Elo last, by name): one query over ``ratings`` and ``bot_results``."""
        rows = self._read(
            "SELECT bot, max(CASE WHEN system = 'elo' THEN value END) AS elo, "
            "max(CASE WHEN system = 'openskill' THEN value END), "
            "max(CASE WHEN system = 'openskill' THEN sigma END), "
            "max(CASE WHEN system = 'room' THEN value END), "
            "sum(wins), sum(draws), sum(losses) FROM ("
            "SELECT bot, system, value, sigma, 0 AS wins, 0 AS draws, 0 AS losses "
            "FROM ratings WHERE variant = :variant UNION ALL "
            "SELECT bot, NULL, NULL, NULL, wins, draws, losses FROM bot_results "
            "WHERE variant = :variant) AS standing GROUP BY bot "
            # PostgreSQL names an output column alone in ORDER BY, not within an expression
            "ORDER BY max(CASE WHEN system = 'elo' THEN value END) IS NULL, elo DESC, "
            + in_bytes("bot", self.dialect),
            {"variant": variant},
        )
        return [Standing(*row) for row in rows]
