"""Who is calling: owner keys, bot tokens and admin tokens (docs/protocol.md, Authentication).

Every call carries ``authorization: Bearer <secret>``. A secret is one of

* an **owner key**, configured when the server starts (:func:`parse_owner_keys`):
  it authenticates ``Registry`` calls and names the owner;
* a **bot token**, issued by ``Registry.Register`` (:func:`issue_token`) and kept in
  the store only as its SHA-256 hash (table ``tokens``): it names a bot;
* an **admin token**, given on the command line (``--admin-token``) or in the
  environment (``ARENA_ADMIN_TOKEN``), or stored in ``tokens`` with kind ``admin``.

Owner keys file (``--owner-keys FILE``, or the same text in ``ARENA_OWNER_KEYS``)::

    # one owner per line: a name, then the key itself or its hash
    ada    ok_3bd1e0c2a4f64f0d9a77
    grace  sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08

Blank lines and lines starting with ``#`` are ignored. An owner may have several keys.
Storing ``sha256:<hex>`` instead of the key keeps the key itself out of the file.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final, Literal

from arena.errors import ArenaError, quoted
from arena.protocol import ADMIN_TOKEN_ENV
from arena.store import Store, StoreError

__all__ = [
    "ADMIN_TOKEN_ENV",
    "OWNER_KEYS_ENV",
    "AuthError",
    "Authenticator",
    "Principal",
    "hash_secret",
    "issue_token",
    "parse_owner_keys",
]

OWNER_KEYS_ENV: Final = "ARENA_OWNER_KEYS"

Kind = Literal["owner", "bot", "admin"]
Failure = Literal["unauthenticated", "permission_denied"]


class AuthError(ArenaError):
    """A call is not allowed; ``failure`` says whether who (unauthenticated) or what (denied)."""

    def __init__(self, failure: Failure, message: str) -> None:
        super().__init__(message)
        self.failure: Failure = failure
        self.message = message


@dataclass(frozen=True)
class Principal:
    """An authenticated caller: an owner (``name`` = owner), a bot (bot name) or an admin."""

    kind: Kind
    name: str
    token_id: str | None = None


TOKEN_PREFIX: Final = "arena_"
"""Bot tokens start with it: recognisable in a leaked file, never read as a command-line
option (a bare URL-safe token may start with "-")."""


def issue_token() -> str:
    """A new secret: the prefix and 32 random bytes, URL-safe base64."""
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


def new_token_id() -> str:
    """A public handle of a token, for revoking it without showing it."""
    return f"tok-{secrets.token_hex(8)}"


def hash_secret(secret: str) -> str:
    """SHA-256 of a secret, lower-case hex: what the server keeps."""
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def parse_owner_keys(text: str, source: str = "owner keys") -> dict[str, str]:
    """Owner keys file text → {hash of the key: owner name}. See the module docstring."""
    keys: dict[str, str] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        parts = line.split()
        if len(parts) != 2:
            # the line is not quoted: its one field may well be a key
            raise ArenaError(
                f"{source}, line {number}: expected 'OWNER KEY' (two fields), got {len(parts)}"
            )
        owner, key = parts
        if key.startswith("sha256:"):
            digest = key.removeprefix("sha256:").lower()
            if len(digest) != 64 or any(c not in "0123456789abcdef" for c in digest):
                raise ArenaError(
                    f"{source}, line {number}: not a SHA-256 hex digest: {quoted(key)}"
                )
        else:
            digest = hash_secret(key)
        if keys.get(digest, owner) != owner:
            raise ArenaError(f"{source}, line {number}: the same key for two owners")
        keys[digest] = owner
    return keys


def bearer(metadata: Sequence[tuple[str, str | bytes]] | None) -> str | None:
    """The secret of ``authorization: Bearer <secret>``; None when absent.

    Raises AuthError for an authorization entry that is not a bearer token.
    """
    for key, value in metadata or ():
        if key.lower() != "authorization":
            continue
        text = value.decode("utf-8", "replace") if isinstance(value, bytes) else value
        scheme, _, secret = text.strip().partition(" ")
        if scheme.lower() != "bearer" or not secret.strip():
            raise AuthError(
                "unauthenticated",
                "malformed authorization metadata: expected 'Bearer <token>'",
            )
        return secret.strip()
    return None


class Authenticator:
    """Identifies secrets against owner keys, admin tokens and the store's tokens."""

    def __init__(
        self,
        store: Store,
        owner_keys: Mapping[str, str] | None = None,
        admin_tokens: Sequence[str] = (),
    ) -> None:
        self.store = store
        self._owner_keys = dict(owner_keys or {})
        self._admin_hashes = [hash_secret(token) for token in admin_tokens if token]

    def identify(self, secret: str, expected: Kind = "bot") -> Principal:
        """Who holds ``secret``; AuthError (unauthenticated) if nobody or revoked, naming
        the ``expected`` kind of secret as the wrong one."""
        digest = hash_secret(secret)
        if any(hmac.compare_digest(digest, known) for known in self._admin_hashes):
            return Principal("admin", "admin")
        owner = self._owner_keys.get(digest)
        if owner is not None:
            return Principal("owner", owner)
        try:
            token = self.store.token(hash=digest)
        except StoreError as err:  # pragma: no cover - a broken store
            raise AuthError("unauthenticated", f"cannot check the token: {err}") from None
        if token is None:
            noun = _NAMES[expected].split(" ", 1)[1]
            raise AuthError("unauthenticated", f"wrong {noun}: no {noun} of this server matches")
        if token.revoked:
            raise AuthError("unauthenticated", f"revoked token {token.token_id}")
        if token.kind == "admin":
            return Principal("admin", "admin", token.token_id)
        assert token.bot is not None
        return Principal("bot", token.bot, token.token_id)

    def require(
        self, metadata: Sequence[tuple[str, str | bytes]] | None, kind: Kind, service: str
    ) -> Principal:
        """The caller, who must hold a secret of ``kind`` to call ``service``."""
        secret = bearer(metadata)
        if secret is None:
            raise AuthError(
                "unauthenticated",
                f"missing token: {service} needs {_NAMES[kind]} "
                "as 'authorization: Bearer <token>' metadata",
            )
        principal = self.identify(secret, kind)
        if principal.kind != kind:
            raise AuthError(
                "permission_denied",
                f"wrong kind of token: {service} needs {_NAMES[kind]}, "
                f"this is {_NAMES[principal.kind]}",
            )
        return principal

    def issue_bot_token(self, bot: str) -> tuple[str, str]:
        """A new token for a registered bot: (the secret, its token_id). Only the hash is kept."""
        secret = issue_token()
        token_id = new_token_id()
        self.store.add_token(token_id, bot, hash_secret(secret), "bot")
        return secret, token_id


_NAMES: Final[dict[Kind, str]] = {
    "owner": "an owner key",
    "bot": "a bot token",
    "admin": "an admin token",
}
