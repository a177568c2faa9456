"""Argument types shared by every ``arena`` command: each turns one command-line text into
a checked value, or tells argparse what was wrong (usage, then one line, exit status 2).

They apply the rules of :mod:`arena.inputs`, so ``--matches x`` on the command line and
``matches = "x"`` in a definition file are refused in the same words.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Annotated, Any, NoReturn

from pydantic import BeforeValidator

from arena import games
from arena.errors import ConfigError
from arena.inputs import (
    MAX_COUNT,
    MAX_TEXT_BYTES,
    Bot,
    Count,
    Elo,
    ManyDeals,
    Margin,
    Name,
    OptionKey,
    OptionValue,
    Port,
    Probability,
    Seconds,
    SecondsOrZero,
    Seed,
    check_integer,
    one_line,
    shown,
    validate,
)
from arena.plural import counted
from arena.protocol import BOT_NAME
from arena.store.postgres import is_url

__all__ = [
    "MAX_COUNT",
    "ArenaParser",
    "bot",
    "bot_class",
    "bot_list",
    "bot_name",
    "bot_names",
    "count",
    "database",
    "elo",
    "game_option",
    "game_options",
    "host",
    "host_port",
    "integer_in",
    "many_deals",
    "margin",
    "name",
    "output_file",
    "parse_option",
    "pem_file",
    "port",
    "probability",
    "readable_file",
    "seconds",
    "seconds_or_zero",
    "secret",
    "secret_or_env",
    "seed",
    "split_bots",
    "variant",
]


def _typed(kind: object, parse: Callable[[str], object]) -> Callable[[str], Any]:
    """An argparse type: ``parse`` the text, then check it as ``kind``."""

    def convert(text: str) -> Any:
        try:
            return validate(kind, parse(text))
        except ConfigError as err:
            raise argparse.ArgumentTypeError(str(err)) from None

    return convert


def _integer(text: str) -> object:
    try:
        return int(text, 10) if len(text) <= 40 else text
    except ValueError:
        return text  # not an integer: the check says what is wanted


def _number(text: str) -> object:
    try:
        return float(text) if len(text) <= 40 else text
    except ValueError:
        return text


def _text(text: str) -> object:
    return text


def integer_in(low: int, high: int) -> Callable[[str], int]:
    """An argparse type: an integer from ``low`` to ``high``."""
    kind = Annotated[int, BeforeValidator(partial(check_integer, low=low, high=high))]
    checked: Callable[[str], int] = _typed(kind, _integer)
    return checked


count = _typed(Count, _integer)
"""Matches, rounds or deals: an integer from 1 to a million."""
many_deals = _typed(ManyDeals, _integer)
"""Deals of a balance run: an integer from 1 to a billion."""
seed = _typed(Seed, _integer)
port = _typed(Port, _integer)
seconds = _typed(Seconds, _number)
"""A positive, finite number of seconds (at most a week)."""
seconds_or_zero = _typed(SecondsOrZero, _number)
probability = _typed(Probability, _number)
elo = _typed(Elo, _number)
margin = _typed(Margin, _number)
"""A margin a difference is answered within: a positive number."""
name = _typed(Name, _text)
"""A name: printable text of sane length (a variant, a tournament, a host …)."""
bot = _typed(Bot, _text)
"""A bot name, maybe with parameters: ``search:samples=16``."""


def variant(text: str) -> str:
    """A variant this arena plays: ``guandan``, ``shengji-1`` … ``shengji-4``, ``sanfu``."""
    known = games.names()
    if text not in known:
        raise argparse.ArgumentTypeError(
            f"unknown variant {shown(text)}; known: {', '.join(known)}"
        )
    return text


HOST = re.compile(r"[A-Za-z0-9._%-]{1,253}|\[[0-9A-Fa-f:.%]{2,60}\]|[0-9A-Fa-f:.%]{2,60}")
"""A host name, an IPv4 address or an IPv6 address (bare, or in brackets)."""


def host(text: str) -> str:
    """A host name or an IP address to listen on or connect to."""
    labels_fit = all(len(label) <= 63 for label in text.split("."))
    if not HOST.fullmatch(text) or not labels_fit:
        raise argparse.ArgumentTypeError(f"must be a host name or an IP address, got {shown(text)}")
    return text


def host_port(text: str) -> str:
    """``HOST:PORT`` of a server (``[::1]:50051`` for an IPv6 address)."""
    where, colon, number = text.rpartition(":")
    bare_ipv6 = ":" in where and not where.startswith("[")
    wanted = f"must be HOST:PORT with a port from 1 to 65535, got {shown(text)}"
    if not colon or bare_ipv6:
        raise argparse.ArgumentTypeError(wanted)
    try:
        host(where)
        checked = port(number)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(wanted) from None
    if checked == 0:
        raise argparse.ArgumentTypeError(wanted)
    return text


SECRET = re.compile(r"[!-~]{1,512}")
"""A token or a key: visible ASCII (it travels in a gRPC header), no spaces."""
SECRET_RULE = "a token or key is 1 to 512 visible ASCII characters without spaces"


def check_secret(value: str, source: str) -> str:
    """``value`` if it can be a token or key (empty: none given); a :class:`ConfigError`
    naming ``source`` — never quoting the secret — if not."""
    if value and not SECRET.fullmatch(value):
        raise ConfigError(f"{source}: {SECRET_RULE} (got {counted(len(value), 'character')})")
    return value


def secret(text: str) -> str:
    """An argparse type: a token or a key (never quoted back)."""
    if not SECRET.fullmatch(text):
        raise argparse.ArgumentTypeError(f"{SECRET_RULE} (got {counted(len(text), 'character')})")
    return text


def secret_or_env(given: str | None, env: str) -> str:
    """The secret given as an option, else the one in the environment variable ``env``
    (checked), else ``""``."""
    return given or check_secret(os.environ.get(env, ""), f"${env}")


BOT_CLASS = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*:[A-Za-z_]\w*")


def bot_class(text: str) -> str:
    """``MODULE:CLASS`` of a bot class to import, e.g. ``bots.simple:RandomBot``."""
    if len(text) > 200 or not BOT_CLASS.fullmatch(text):
        raise argparse.ArgumentTypeError(
            f"must be MODULE:CLASS, e.g. bots.simple:RandomBot, got {shown(text)}"
        )
    return text


def bot_name(text: str) -> str:
    """A bot's registered name: 1 to 40 letters, digits, '-', '_' or '.'."""
    if not BOT_NAME.fullmatch(text):
        raise argparse.ArgumentTypeError(
            f"must be 1 to 40 letters, digits, '-', '_' or '.', got {shown(text)}"
        )
    return text


def split_bots(text: str) -> list[str]:
    """Comma-separated bots, unchecked: ``random,search:samples=16,candidates=4`` is two
    bots (a part ``key=value`` after a bot with parameters is one more of them)."""
    names: list[str] = []
    for part in (part.strip() for part in text.split(",")):
        if names and ":" in names[-1] and "=" in part and ":" not in part:
            names[-1] += "," + part
        else:
            names.append(part)
    return names


def bot_names(text: str, field: str = "") -> list[str]:
    """Comma-separated bots (``random,first``), checked, or a :class:`ConfigError` that
    names ``field`` if given."""
    names = split_bots(text)
    if not text.strip() or not all(names):
        where = f"{field}: " if field else ""
        raise ConfigError(f"{where}must be comma-separated bot names, got {shown(text)}")
    return [validate(Bot, name, field) for name in names]


def bot_list(text: str) -> list[str]:
    """An argparse type: comma-separated bot names."""
    try:
        return bot_names(text)
    except ConfigError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def team(text: str) -> tuple[str, str]:
    """Two bots: ``A,B``."""
    names = bot_list(text)
    if len(names) != 2:
        raise argparse.ArgumentTypeError(
            f"a team is exactly two bots A,B, got {len(names)}: {shown(text)}"
        )
    return (names[0], names[1])


def option_value(text: str) -> int | float | str:
    """A game option's value from text: an integer, a number, else the text (``true`` stays
    text: the games read it, and option values keep the form tournament ids were made of)."""
    for parse in (_integer, _number):
        value = parse(text)
        if not isinstance(value, str):
            return validate(OptionValue, value)  # type: ignore[no-any-return]
    return validate(OptionValue, text)  # type: ignore[no-any-return]


def parse_option(text: str) -> tuple[str, int | float | str]:
    """``KEY=VALUE`` → the key and its value, or a :class:`ConfigError`."""
    key, sep, value = text.partition("=")
    if not sep:
        raise ConfigError(f"option {shown(text)} is not KEY=VALUE")
    checked_key: str = validate(OptionKey, key.strip(), "option name")
    try:
        return checked_key, option_value(value)
    except ConfigError as err:
        raise ConfigError(f"option {checked_key}: {err}") from None


def game_option(text: str) -> str:
    """An argparse type for ``--option KEY=VALUE``: checked now, parsed again later by
    :func:`game_options` (so the command keeps the text it was given)."""
    try:
        parse_option(text)
    except ConfigError as err:
        raise argparse.ArgumentTypeError(str(err)) from None
    return text


def game_options(pairs: Iterable[str]) -> dict[str, Any]:
    """``KEY=VALUE`` texts → game options (each key once)."""
    options: dict[str, Any] = {}
    for pair in pairs:
        key, value = parse_option(pair)
        if key in options:
            raise ConfigError(f"option {key} given twice")
        options[key] = value
    return options


def readable_file(text: str) -> str:
    """The path of an existing, readable regular file."""
    with _path(text) as path:
        if not path.exists():
            raise argparse.ArgumentTypeError(f"no such file: {shown(text)}")
        if not path.is_file():
            raise argparse.ArgumentTypeError(f"not a regular file: {shown(text)}")
        if not os.access(path, os.R_OK):
            raise argparse.ArgumentTypeError(f"cannot read {shown(text)}: permission denied")
    return text


def existing_directory(text: str) -> Path:
    """An existing directory."""
    with _path(text) as path:
        if not path.is_dir():
            raise argparse.ArgumentTypeError(f"no such directory: {shown(text)}")
    return path


def pem_file(text: str) -> str:
    """A readable PEM file (a certificate or a key): text with a ``-----BEGIN`` line."""
    readable_file(text)
    with _path(text) as path, path.open("rb") as file:
        head = file.read(MAX_TEXT_BYTES)
    if b"-----BEGIN " not in head:
        raise argparse.ArgumentTypeError(f"not a PEM file (no -----BEGIN line): {shown(text)}")
    return text


def output_file(text: str) -> str:
    """A path a file can be written to: not a directory, in a directory that exists."""
    with _path(text) as path:
        _in_a_directory(path, "a file")
        writable = os.access(path.resolve().parent, os.W_OK)
        if not writable or (path.exists() and not os.access(path, os.W_OK)):
            raise argparse.ArgumentTypeError(f"cannot write {shown(text)}: permission denied")
    return text


def database(text: str) -> str:
    """The store's path: a file (existing or not) in a directory that exists, or the URL
    of a PostgreSQL database (``postgresql://…``)."""
    if is_url(text):
        return text
    with _path(text) as path:
        _in_a_directory(path, "a store")
        if path.exists() and not path.is_file():
            raise argparse.ArgumentTypeError(f"not a regular file: {shown(text)}")
    return text


def _in_a_directory(path: Path, what: str) -> None:
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"is a directory, not {what}: {shown(str(path))}")
    if not path.resolve().parent.is_dir():
        raise argparse.ArgumentTypeError(f"no such directory: {shown(str(path.parent))}")


@contextmanager
def _path(text: str) -> Iterator[Path]:
    """The path named by ``text``; what the system says against it, as an argument error."""
    if not text or "\0" in text:
        raise argparse.ArgumentTypeError(f"not a file path: {shown(text)}")
    try:
        yield Path(text)
    except OSError as err:  # e.g. a name too long
        reason = err.strerror or type(err).__name__
        raise argparse.ArgumentTypeError(f"cannot use {shown(text)}: {reason}") from None


class ArenaParser(argparse.ArgumentParser):
    """The command line's parser (its subcommands' parsers are of the same class).

    It refuses ``--flag=--``: argparse (before Python 3.12) turns that value into an
    empty list without calling the option's type, and the command would then fail on it.
    """

    def error(self, message: str) -> NoReturn:
        """Usage, then the refusal on one line of sane length."""
        super().error(one_line(message))

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        given = list(sys.argv[1:] if args is None else args)
        for token in given:
            flag, equals, value = token.partition("=")
            if flag.startswith("-") and equals and value == "--":
                self.error(f"argument {flag}: expected one value, got '--'")
        return super().parse_known_args(given, namespace)
