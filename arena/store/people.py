"""People who play at the site's tables under an account (``people``)."""

from __future__ import annotations

from typing import Final

from arena.rating.pools import PERSON_PREFIX, is_person
from arena.store.database import Database, run
from arena.store.rows import in_bytes, now, tally
from arena.store.values import PERSON_KIND, Account, Results, check

_PERSON_NAMES: Final = (PERSON_PREFIX, PERSON_PREFIX[:-1] + chr(ord(PERSON_PREFIX[-1]) + 1))
"""Every person's player name sorts in [first, second) (an index range, not a LIKE)."""


class People(Database):
    """Accounts: a person is a row of ``bots`` (kind :data:`PERSON_KIND`) and of ``people``."""

    def add_person(self, player: str, password_hash: str) -> bool:
        """Give ``player`` (``person:NAME``) an account: a row of ``bots`` (kind
        :data:`PERSON_KIND`) and of ``people``, together. False, adding nothing, if the
        name is taken (by a person or a bot)."""
        check(is_person(player) and player != PERSON_PREFIX, f"{player!r} is no person's")
        check(bool(password_hash), f"{player!r}: an account needs a password hash")
        with self._write("cannot add a person to store", "add_person") as conn:
            if run(conn, "SELECT 1 FROM bots WHERE name = :name", {"name": player}).first():
                return False
            at = now()
            run(
                conn,
                "INSERT INTO bots (name, kind, created_at) VALUES (:name, :kind, :at)",
                {"name": player, "kind": PERSON_KIND, "at": at},
            )
            run(
                conn,
                "INSERT INTO people (player, password_hash, created_at) "
                "VALUES (:player, :hash, :at)",
                {"player": player, "hash": password_hash, "at": at},
            )
            return True

    def accounts(self) -> list[Account]:
        """Every person's account, by name."""
        rows = self._read(
            f"SELECT player, created_at FROM people ORDER BY {in_bytes('player', self.dialect)}"
        )
        return [Account(*row) for row in rows]

    def password_hash(self, player: str) -> str | None:
        """The stored password hash of the person ``player``, or None (no account)."""
        rows = self._read(
            "SELECT password_hash FROM people WHERE player = :player", {"player": player}
        )
        return str(rows[0][0]) if rows else None

    def set_password_hash(self, player: str, password_hash: str) -> None:
        """A new password hash for the person ``player`` (StoreError: no account)."""
        check(bool(password_hash), f"{player!r}: an account needs a password hash")
        self._update(
            "set_password_hash",
            "UPDATE people SET password_hash = :hash WHERE player = :player",
            {"hash": password_hash, "player": player},
            f"person {player!r}",
        )

    def people_results(self, variant: str, player: str | None = None) -> dict[str, Results]:
        """Each player's (or only ``player``'s) won, drawn and lost rated matches of
        ``variant`` at which a person sat (the people's pool's matches), people and bots
        alike."""
        one = "" if player is None else "AND p.bot = :player "
        rows = self._read(
            f"SELECT p.bot, {tally('p.score')} "
            "FROM match_players p JOIN match_summaries s ON s.number = p.number "
            f"WHERE s.rated = 1 AND p.score IS NOT NULL {one}AND p.number IN ("
            "SELECT number FROM match_players WHERE variant = :variant "
            f"AND {in_bytes('bot', self.dialect)} >= :first "
            f"AND {in_bytes('bot', self.dialect)} < :last) GROUP BY p.bot",
            {
                "player": player,
                "variant": variant,
                "first": _PERSON_NAMES[0],
                "last": _PERSON_NAMES[1],
            },
        )
        return {row[0]: Results(*row) for row in rows}
