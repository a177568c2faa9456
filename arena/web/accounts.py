"""People's accounts: a name kept with a password, so that a rated table's seat is its
person's alone.

A guest plays casual tables under any free name; an account holds its name for good
(no guest may take it) and may sit at rated tables, which are rated in the people's
pool (:mod:`arena.rating.pools`). Passwords are kept as scrypt hashes, salted, with
their parameters (:func:`hash_password`); sign-in tries are limited per name
(:data:`TRIES_PER_SECOND`), so that a name's password cannot be guessed quickly.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
import threading
from collections import OrderedDict
from typing import Final

from arena.rating.pools import PERSON_PREFIX
from arena.server.limits import RateLimit
from arena.store import Store
from arena.web.i18n import Refusal

__all__ = [
    "PASSWORD_MAX",
    "PASSWORD_MIN",
    "AccountProblem",
    "Accounts",
    "hash_password",
    "password_matches",
    "password_problem",
]

PASSWORD_MIN: Final = 8
PASSWORD_MAX: Final = 200
SCRYPT_N, SCRYPT_R, SCRYPT_P = 2**14, 8, 1
"""scrypt's cost (16 MiB and some 65 ms a hash on this machine)."""
TRIES_PER_SECOND: Final = 0.2
"""A name's sign-in tries, on average (bursts of :data:`TRIES_BURST`)."""
TRIES_BURST: Final = 5.0
NAMES_TRACKED: Final = 10_000
"""Names whose tries are counted; the least recently tried is forgotten beyond."""


class AccountProblem(Refusal):
    """Why a sign-in or a new account was refused (``account.problem.*``)."""

    PREFIX = "account.problem."


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _scrypt(password: str, salt: bytes, n: int, r: int, p: int) -> bytes:
    return hashlib.scrypt(password.encode("utf-8"), salt=salt, n=n, r=r, p=p, dklen=32)


def hash_password(password: str) -> str:
    """``scrypt$N$R$P$SALT$KEY`` (base64): what the store keeps of a password."""
    salt = secrets.token_bytes(16)
    key = _scrypt(password, salt, SCRYPT_N, SCRYPT_R, SCRYPT_P)
    return f"scrypt${SCRYPT_N}${SCRYPT_R}${SCRYPT_P}${_b64(salt)}${_b64(key)}"


def password_matches(password: str, stored: str) -> bool:
    """Whether ``password`` is the one ``stored`` (:func:`hash_password`) was made of."""
    try:
        scheme, n, r, p, salt, key = stored.split("$")
        if scheme != "scrypt":
            return False
        again = _scrypt(password, base64.b64decode(salt), int(n), int(r), int(p))
        return hmac.compare_digest(again, base64.b64decode(key))
    except ValueError:  # a hash changed by hand: no password matches it
        return False


def password_problem(password: str) -> AccountProblem | None:
    """Why ``password`` cannot be an account's, or None."""
    if len(password) < PASSWORD_MIN:
        return AccountProblem("password_short", n=PASSWORD_MIN)
    if len(password) > PASSWORD_MAX:
        return AccountProblem("password_long", n=PASSWORD_MAX)
    return None


class Accounts:
    """The accounts a store keeps (blocking: call from a worker thread)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._tries: OrderedDict[str, RateLimit] = OrderedDict()
        self._lock = threading.Lock()

    def exists(self, name: str) -> bool:
        """Whether ``name`` is an account's."""
        return self.store.password_hash(PERSON_PREFIX + name) is not None

    def sign_up(self, name: str, password: str) -> None:
        """A new account for ``name`` (checked by the caller), or :class:`AccountProblem`."""
        problem = password_problem(password)
        if problem is not None:
            raise problem
        player = PERSON_PREFIX + name
        if not self.store.add_person(player, hash_password(password)):
            raise AccountProblem("taken", name=name)

    def sign_in(self, name: str, password: str) -> None:
        """Nothing when ``password`` is the account's; :class:`AccountProblem` otherwise
        (the same words for an unknown name and a wrong password)."""
        self._try(name)
        stored = self.store.password_hash(PERSON_PREFIX + name)
        if stored is None or not password_matches(password, stored):
            raise AccountProblem("wrong")

    def _try(self, name: str) -> None:
        with self._lock:
            limit = self._tries.get(name)
            if limit is None:
                limit = self._tries[name] = RateLimit(TRIES_PER_SECOND, TRIES_BURST)
                while len(self._tries) > NAMES_TRACKED:
                    self._tries.popitem(last=False)
            self._tries.move_to_end(name)
            allowed = limit.allow()
        if not allowed:
            raise AccountProblem("too_many", name=name, seconds=round(1 / TRIES_PER_SECOND))
