"""Bots (``bots``) and the tokens that authenticate them (``tokens``)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

from arena.store.database import Database, run
from arena.store.rows import BOT_COLUMNS, bot_from_row, dumps, in_bytes, now
from arena.store.values import BUILTIN_KIND, TOKEN_KINDS, Bot, StoreError, Token, check

_TOKEN_COLUMNS: Final = "token_id, bot, hash, kind, created_at, revoked_at"


class Bots(Database):
    """Every bot that may be seated or rated, and its tokens."""

    def add_bot(
        self, name: str, kind: str, owner: str | None = None, version: str | None = None
    ) -> bool:
        """Register a bot; False if it already is, with the same attributes.

        The same name with another kind, owner or version is an error.
        """
        check(bool(name), "a bot needs a non-empty name")
        with self._write("cannot add a bot to store", "add_bot") as conn:
            row = run(
                conn, "SELECT kind, owner, version FROM bots WHERE name = :name", {"name": name}
            ).first()
            if row is not None:
                if tuple(row) != (kind, owner, version):
                    raise StoreError(
                        f"store {self.path}: bot {name!r} is already registered as "
                        f"kind={row[0]!r} owner={row[1]!r} version={row[2]!r}"
                    )
                return False
            run(
                conn,
                "INSERT INTO bots (name, kind, owner, version, created_at) "
                "VALUES (:name, :kind, :owner, :version, :at)",
                {"name": name, "kind": kind, "owner": owner, "version": version, "at": now()},
            )
            return True

    def add_builtin_bots(self, names: Iterable[str]) -> list[str]:
        """Make built-in bots known (kind :data:`BUILTIN_KIND`, no owner), in one
        transaction; those already known are left as they are. The names added.

        A name held by a bot of another kind is an error (nothing is added)."""
        wanted = sorted(set(names))
        check(all(wanted), "a bot needs a non-empty name")
        added: list[str] = []
        with self._write("cannot add built-in bots to store", "add_builtin_bots") as conn:
            for name in wanted:
                row = run(conn, "SELECT kind FROM bots WHERE name = :name", {"name": name}).first()
                if row is None:
                    run(
                        conn,
                        "INSERT INTO bots (name, kind, created_at) VALUES (:name, :kind, :at)",
                        {"name": name, "kind": BUILTIN_KIND, "at": now()},
                    )
                    added.append(name)
                elif row[0] != BUILTIN_KIND:
                    raise StoreError(
                        f"store {self.path}: {name!r} is a built-in bot's name, but a bot "
                        f"of kind {row[0]!r} holds it"
                    )
        return added

    def bots(self) -> list[Bot]:
        """Every registered bot, by name."""
        rows = self._read(
            f"SELECT {BOT_COLUMNS} FROM bots ORDER BY {in_bytes('name', self.dialect)}"
        )
        return [bot_from_row(row) for row in rows]

    def bot(self, name: str) -> Bot | None:
        """The bot ``name``, or None."""
        rows = self._read(f"SELECT {BOT_COLUMNS} FROM bots WHERE name = :name", {"name": name})
        return bot_from_row(rows[0]) if rows else None

    def set_bot_games(self, name: str, games: Sequence[str] | None) -> None:
        """The variants a registered bot plays (None: every variant)."""
        games_json = None if games is None else dumps(list(games), f"bot {name!r}: games")
        self._update(
            "set_bot_games",
            "UPDATE bots SET games_json = :games WHERE name = :name",
            {"games": games_json, "name": name},
            f"bot {name!r}",
        )

    def set_bot_profile(
        self,
        name: str,
        *,
        version: str | None,
        description: str | None,
        owner_name: str | None,
    ) -> None:
        """What a registered remote bot's owner says of it (each registration again)."""
        self._update(
            "set_bot_profile",
            "UPDATE bots SET version = :version, description = :description, "
            "owner_name = :owner_name WHERE name = :name",
            {
                "version": version,
                "description": description,
                "owner_name": owner_name,
                "name": name,
            },
            f"bot {name!r}",
        )

    # -- tokens ------------------------------------------------------------------

    def add_token(self, token_id: str, bot: str | None, hash: str, kind: str = "bot") -> Token:
        """Store a token's hash: a ``bot`` token names a registered bot, an ``admin`` one none."""
        check(kind in TOKEN_KINDS, f"unknown token kind {kind!r} (expected bot or admin)")
        check(
            (kind == "bot") == (bot is not None),
            f"a {kind} token {'needs' if kind == 'bot' else 'names no'} bot",
        )
        created_at = now()
        with self._write("cannot add a token to store", "add_token") as conn:
            if bot is not None:
                row = run(conn, "SELECT kind FROM bots WHERE name = :name", {"name": bot}).first()
                if row is None:
                    raise StoreError(f"store {self.path}: no bot {bot!r}")
                if row[0] == BUILTIN_KIND:
                    raise StoreError(
                        f"store {self.path}: {bot!r} is a built-in bot: it holds no token"
                    )
            run(
                conn,
                f"INSERT INTO tokens ({_TOKEN_COLUMNS}) "
                "VALUES (:token_id, :bot, :hash, :kind, :created_at, NULL)",
                {
                    "token_id": token_id,
                    "bot": bot,
                    "hash": hash,
                    "kind": kind,
                    "created_at": created_at,
                },
            )
        return Token(token_id, bot, hash, kind, created_at, None)

    def token(self, *, token_id: str | None = None, hash: str | None = None) -> Token | None:
        """The token with this handle or this hash (exactly one of them), or None."""
        check((token_id is None) != (hash is None), "give a token_id or a hash")
        column, value = ("token_id", token_id) if token_id is not None else ("hash", hash)
        rows = self._read(
            f"SELECT {_TOKEN_COLUMNS} FROM tokens WHERE {column} = :value", {"value": value}
        )
        return Token(*rows[0]) if rows else None

    def tokens(self, bot: str) -> list[Token]:
        """Every token of a bot, revoked or not, oldest first (tokens of the same moment by
        handle, on every database)."""
        rows = self._read(
            f"SELECT {_TOKEN_COLUMNS} FROM tokens WHERE bot = :bot ORDER BY created_at, token_id",
            {"bot": bot},
        )
        return [Token(*row) for row in rows]

    def revoke_tokens(self, *, token_id: str | None = None, bot: str | None = None) -> int:
        """Revoke one token (by handle) or every token of a bot; how many were not revoked yet."""
        check((token_id is None) != (bot is None), "give a token_id or a bot")
        column, value = ("token_id", token_id) if token_id is not None else ("bot", bot)
        with self._write("cannot revoke tokens in store", "revoke_tokens") as conn:
            cursor = run(
                conn,
                f"UPDATE tokens SET revoked_at = :at WHERE {column} = :value "
                "AND revoked_at IS NULL",
                {"at": now(), "value": value},
            )
            count: int = cursor.rowcount
            return count
