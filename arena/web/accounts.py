"""People's accounts: a name kept with a password, so that a rated table's seat is its
person's alone.

A guest plays casual tables under any free name; an account holds its name for good
(no guest may take it) and may sit at rated tables, which are rated in the people's
pool (:mod:`arena.rating.pools`). Passwords are kept as scrypt hashes, salted, with
their parameters (:func:`hash_password`).

Guessing is slowed without locking the owner out (:meth:`Accounts.sign_in`):

- each client (its address, or the browser's device token when it signed in to the
  name before) has its own tries at each name (:data:`TRIES_PER_SECOND`): one guesser
  spends only their own, never the owner's, nor their own at another name;
- all the clients a name has never let in share a larger, faster bucket of tries at it
  (:data:`NAME_TRIES_PER_SECOND`), which bounds guessing from many addresses; a browser the owner
  signed in from before (its device token, :data:`DEVICE_COOKIE`) is let past it.

An unknown name costs the same scrypt work as a known one (a hash made once of a random
password is checked instead), so the answer's time does not tell who has an account.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Final

from arena.rating.pools import PERSON_PREFIX
from arena.server.limits import RateLimit
from arena.store import Store
from arena.web.i18n import Refusal

__all__ = [
    "DEVICE_COOKIE",
    "NAME_TRIES_BURST",
    "NAME_TRIES_PER_SECOND",
    "PASSWORD_MAX",
    "PASSWORD_MIN",
    "TRIES_BURST",
    "TRIES_PER_SECOND",
    "AccountProblem",
    "Accounts",
    "Client",
    "Tries",
    "hash_password",
    "password_matches",
    "password_problem",
]

PASSWORD_MIN: Final = 8
PASSWORD_MAX: Final = 200
SCRYPT_N, SCRYPT_R, SCRYPT_P = 2**14, 8, 1
"""scrypt's cost (16 MiB and some 65 ms a hash on this machine)."""
TRIES_PER_SECOND: Final = 0.2
"""A client's sign-in tries at one name, on average (bursts of :data:`TRIES_BURST`)."""
TRIES_BURST: Final = 5.0
NAME_TRIES_PER_SECOND: Final = 1.0
"""The tries at one name of all the clients it never let in, together, on average
(bursts of :data:`NAME_TRIES_BURST`)."""
NAME_TRIES_BURST: Final = 50.0
TRACKED: Final = 100_000
"""Buckets of tries kept (and devices remembered); the least recently used go beyond."""
UNKNOWN: Final = (
    f"scrypt${SCRYPT_N}${SCRYPT_R}${SCRYPT_P}$0edWE9K5f9cc0IWSshIu7w==$"
    "8MMuUSs670gsOoA43z662Og52oggxX8x8dNiZkpMslk="
)
"""What an unknown name's password is checked against: a hash of the same cost as an
account's, its key random (no password is known to match it)."""
DEVICE_COOKIE: Final = "arena_device"
"""The cookie naming a browser that signed in before (a random token, HttpOnly)."""
DEVICE_MAX: Final = 64
"""The longest device token taken from a cookie (longer: none)."""


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


@dataclass(frozen=True)
class Client:
    """Who tries to sign in: the request's address, and the device token its browser
    holds (:data:`DEVICE_COOKIE`), if any."""

    address: str
    device: str | None = None

    @classmethod
    def of(cls, address: str | None, device: str | None) -> Client:
        """A request's client; a device token of sane length only."""
        sane = device if device and len(device) <= DEVICE_MAX and device.isascii() else None
        return cls(address or "", sane)


class Tries:
    """Token buckets by key, the least recently used forgotten beyond ``most``."""

    def __init__(
        self,
        rate: float,
        burst: float,
        most: int = TRACKED,
        now: Callable[[], float] | None = None,
    ) -> None:
        self.rate, self.burst, self.most = rate, burst, most
        self._now = now
        self._buckets: OrderedDict[Hashable, RateLimit] = OrderedDict()
        self._lock = threading.Lock()

    def allow(self, key: Hashable) -> bool:
        """Take a try of ``key``'s bucket if it has one."""
        with self._lock:
            bucket = self._buckets.get(key)
            if bucket is None:
                now = () if self._now is None else (self._now,)
                bucket = self._buckets[key] = RateLimit(self.rate, self.burst, *now)
                while len(self._buckets) > self.most:
                    self._buckets.popitem(last=False)
            self._buckets.move_to_end(key)
            return bucket.allow()


class Accounts:
    """The accounts a store keeps (blocking: call from a worker thread)."""

    def __init__(self, store: Store, now: Callable[[], float] | None = None) -> None:
        self.store = store
        self._by_client = Tries(TRIES_PER_SECOND, TRIES_BURST, now=now)
        self._by_name = Tries(NAME_TRIES_PER_SECOND, NAME_TRIES_BURST, now=now)
        self._devices: OrderedDict[tuple[str, str], None] = OrderedDict()
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

    def sign_in(self, name: str, password: str, client: Client) -> str:
        """The device token of ``client``'s browser when ``password`` is the account's
        (the browser is remembered as one the name let in); :class:`AccountProblem`
        otherwise: ``too_many`` when the client's tries at the name are spent (or all
        strangers' are, and the browser never signed in to it), ``wrong`` for an unknown
        name and a wrong password alike, after the same work."""
        remembered = self.remembers(client, name)
        who = ("device", client.device) if remembered else ("address", client.address)
        if not self._by_client.allow((who, name)) or (
            not remembered and not self._by_name.allow(name)
        ):
            raise AccountProblem("too_many", name=name, seconds=round(1 / TRIES_PER_SECOND))
        stored = self.store.password_hash(PERSON_PREFIX + name)
        matches = password_matches(password, UNKNOWN if stored is None else stored)
        if stored is None or not matches:
            raise AccountProblem("wrong")
        return self.remember(client, name)

    def remembers(self, client: Client, name: str) -> bool:
        """Whether ``client``'s browser signed in to ``name`` before."""
        if client.device is None:
            return False
        with self._lock:
            return (client.device, name) in self._devices

    def remember(self, client: Client, name: str) -> str:
        """Remember ``client``'s browser as one ``name`` let in: its device token (a new
        one if it has none)."""
        device = client.device or secrets.token_urlsafe(32)
        with self._lock:
            self._devices[(device, name)] = None
            self._devices.move_to_end((device, name))
            while len(self._devices) > TRACKED:
                self._devices.popitem(last=False)
        return device
