"""The values users give the arena, checked at the edge: one set of rules for every door.

A count, a seed, a name, a bot, a team, a game option, a number of seconds: each is an
``Annotated`` pydantic type whose check says, in plain words, what the value must be.
The tournament definition (:mod:`arena.definitions`), the command line's argument types
(:mod:`arena.commands.arguments`) and the Admin RPCs all use these types, so a value
refused at one door is refused at every door with the same words. :func:`describe`
turns a pydantic error into one line that names the field and quotes what was given:
``matches: must be an integer from 1 to 1,000,000, got 'x'``.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping, Sequence
from functools import lru_cache, partial
from pathlib import Path
from typing import Annotated, Any, Final, TypeAlias

from pydantic import BeforeValidator, TypeAdapter, ValidationError
from pydantic_core import ErrorDetails, PydanticCustomError

from arena.errors import ConfigError
from arena.plural import counted

MAX_COUNT: Final = 1_000_000
"""The most matches, rounds or deals one input may ask for."""
MAX_DEALS: Final = 10**9
"""The most deals one balance run may ask for."""
MAX_SEED: Final = 2**63 - 1
"""Seeds are 63-bit, like every seed the arena derives (and the store keeps 64-bit ints)."""
MAX_NAME_LENGTH: Final = 100
MAX_SECONDS: Final = 7 * 24 * 3600.0
"""The longest clock, wait or time limit: a week."""
MAX_OPTIONS: Final = 32
MAX_OPTION_INT: Final = 10**9
MAX_OPTION_TEXT: Final = 100
MAX_TEXT_BYTES: Final = 1_000_000
"""The largest definition or key file read (a megabyte)."""

BOT_SPEC: Final = re.compile(r"[A-Za-z0-9._-]{1,40}(:[A-Za-z0-9._=,+/-]{1,200})?")
"""A bot name (letters, digits, '-', '_', '.') with maybe parameters: ``search:samples=16``,
``policy:path=runs/guandan.npz`` (a file's path: '/' too)."""
OPTION_KEY: Final = re.compile(r"[a-z][a-z0-9_]{0,39}")

WHOLE: Final = "whole"
"""The kind of error about a definition as a whole (no single value to quote)."""


def shown(value: object) -> str:
    """A short quote of a value for an error message (never the whole of a huge one)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 64:
        return f"an integer of {value.bit_length()} bits"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


MAX_MESSAGE: Final = 400
"""The longest error line the arena prints (a message quoting a huge input is cut)."""


def one_line(message: str, limit: int = MAX_MESSAGE) -> str:
    """``message`` on one line and at most ``limit`` characters: whitespace runs become one
    space, and a longer message keeps its start and its end around an ellipsis."""
    text = " ".join(message.split())
    if len(text) <= limit:
        return text
    half = (limit - 3) // 2
    return f"{text[:half]} … {text[-half:]}"


def _number(value: float) -> str:
    return f"{int(value):,}" if float(value).is_integer() else f"{value:g}"


def invalid(kind: str, message: str) -> PydanticCustomError:
    """The error a check raises: ``kind`` names it, ``message`` says what is wanted."""
    return PydanticCustomError(kind, message)


def check_integer(value: object, low: int, high: int) -> int:
    """An int (not a bool, not a float) from ``low`` to ``high``."""
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise invalid("integer_range", f"must be an integer from {low:,} to {high:,}")
    return value


def check_number(value: object, low: float, high: float, *, open_low: bool = False) -> float:
    """A finite int or float from ``low`` (excluded when ``open_low``) to ``high``."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        inside = low < value if open_low else low <= value
        if inside and value <= high:  # False for nan; huge ints compare exactly
            return float(value)
    if open_low:
        wanted = f"above {_number(low)} and at most {_number(high)}"
    else:
        wanted = f"from {_number(low)} to {_number(high)}"
    raise invalid("number_range", f"must be a finite number {wanted}")


def check_name(value: object) -> str:
    """Printable text, 1 to ``MAX_NAME_LENGTH`` characters, no surrounding spaces."""
    if (
        not isinstance(value, str)
        or not 1 <= len(value) <= MAX_NAME_LENGTH
        or not value.isprintable()
        or value != value.strip()
    ):
        raise invalid(
            "name",
            f"must be printable text of 1 to {MAX_NAME_LENGTH} characters without "
            "surrounding spaces",
        )
    return value


def check_bot(value: object) -> str:
    """A bot name, maybe with parameters (``search:samples=16``)."""
    if not isinstance(value, str) or not BOT_SPEC.fullmatch(value):
        raise invalid(
            "bot",
            "must be a bot name of 1 to 40 letters, digits, '-', '_' or '.', "
            "maybe with parameters (NAME:key=value,...)",
        )
    return value


def check_team(value: object) -> tuple[str, str]:
    """Exactly two bots."""
    if isinstance(value, str) or not isinstance(value, Sequence) or len(value) != 2:
        raise invalid("team", "a team must be a list of exactly two bots")
    return (value[0], value[1])


def check_option_key(value: object) -> str:
    if not isinstance(value, str) or not OPTION_KEY.fullmatch(value):
        raise invalid("option_key", "must be 1 to 40 lower-case letters, digits or '_'")
    return value


def check_option_value(value: object) -> bool | int | float | str:
    """A game option's value: true/false, a bounded integer, a finite number or short text.
    (The game itself then says whether the value suits the option.)"""
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return check_integer(value, -MAX_OPTION_INT, MAX_OPTION_INT)
    if isinstance(value, float):
        return check_number(value, -MAX_OPTION_INT, MAX_OPTION_INT)
    if isinstance(value, str) and len(value) <= MAX_OPTION_TEXT and value.isprintable():
        return value
    raise invalid(
        "option_value",
        f"an option value must be true, false, an integer or finite number within "
        f"±{MAX_OPTION_INT:,}, or printable text of at most {MAX_OPTION_TEXT} characters",
    )


def check_options(value: object) -> dict[str, Any]:
    """A table of at most ``MAX_OPTIONS`` game options (their values checked one by one)."""
    if not isinstance(value, Mapping):
        raise invalid("options", "must be a table of game options (KEY = VALUE)")
    if len(value) > MAX_OPTIONS:
        raise invalid("options", f"at most {MAX_OPTIONS} game options")
    return dict(value)


def check_sequence(value: object, limit: int) -> list[Any]:
    """A list (not text) of at most ``limit`` items."""
    if isinstance(value, str | bytes | Mapping) or not isinstance(value, Sequence):
        raise invalid("list", "must be a list")
    if len(value) > limit:
        raise invalid("list", f"must be a list of at most {limit} items")
    return list(value)


def check_flag(value: object) -> bool:
    if not isinstance(value, bool):
        raise invalid("flag", "must be true or false")
    return value


Count = Annotated[int, BeforeValidator(partial(check_integer, low=1, high=MAX_COUNT))]
"""Matches, rounds or deals: 1 to a million."""
ManyDeals = Annotated[int, BeforeValidator(partial(check_integer, low=1, high=MAX_DEALS))]
"""Deals of a balance run: 1 to a billion."""
Seed = Annotated[int, BeforeValidator(partial(check_integer, low=0, high=MAX_SEED))]
Port = Annotated[int, BeforeValidator(partial(check_integer, low=0, high=65535))]
"""A TCP port; 0 asks for any free one."""
Seconds = Annotated[
    float, BeforeValidator(partial(check_number, low=0.0, high=MAX_SECONDS, open_low=True))
]
"""A positive, finite duration of at most a week."""
SecondsOrZero = Annotated[float, BeforeValidator(partial(check_number, low=0.0, high=MAX_SECONDS))]
Probability = Annotated[
    float, BeforeValidator(partial(check_number, low=0.0, high=0.5, open_low=True))
]
"""An error rate of a test: above 0, at most one half."""
Elo = Annotated[float, BeforeValidator(partial(check_number, low=-2000.0, high=2000.0))]
Margin = Annotated[float, BeforeValidator(partial(check_number, low=0.0, high=1e9, open_low=True))]
"""A margin a difference is answered within: above 0."""
Name = Annotated[str, BeforeValidator(check_name)]
Bot = Annotated[str, BeforeValidator(check_bot)]
Team = Annotated[tuple[Bot, Bot], BeforeValidator(check_team)]
OptionValue = Annotated[bool | int | float | str, BeforeValidator(check_option_value)]
OptionKey = Annotated[str, BeforeValidator(check_option_key)]
GameOptions: TypeAlias = Annotated[dict[OptionKey, OptionValue], BeforeValidator(check_options)]
Flag = Annotated[bool, BeforeValidator(check_flag)]


def describe(error: ValidationError, field: str = "") -> str:
    """One line: the first problem, the field it is in and what was given (``field``
    prefixes the location, e.g. ``--matches``)."""
    problems = error.errors()
    first = problems[0]
    where = _location(first["loc"], field)
    message = _message(first)
    if first["type"] not in ("missing", "extra_forbidden", WHOLE):
        message += f", got {shown(first['input'])}"
    more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
    return f"{where}: {message}{more}" if where else message + more


def _location(loc: tuple[int | str, ...], field: str) -> str:
    text = field
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def _message(problem: ErrorDetails) -> str:
    kind, message = problem["type"], problem["msg"]
    if kind == "missing":
        return "is required"
    if kind == "extra_forbidden":
        return "unknown field"
    message = message.removeprefix("Value error, ").removeprefix("Assertion failed, ")
    if message.startswith("Input should"):
        message = "must" + message.removeprefix("Input should")
    return message


@lru_cache(maxsize=64)
def _adapter(kind: Any) -> TypeAdapter[Any]:
    return TypeAdapter(kind)


def validate(kind: Any, value: object, field: str = "") -> Any:
    """``value`` checked as ``kind`` (an annotated type or a model); a :class:`ConfigError`
    of one line naming ``field`` if it is not one."""
    try:
        return _adapter(kind).validate_python(value)
    except ValidationError as err:
        raise ConfigError(describe(err, field)) from None


def read_text(path: str | Path, what: str, limit: int = MAX_TEXT_BYTES) -> str:
    """The UTF-8 text of a file a user named, or a :class:`ConfigError` saying why not."""
    try:
        with open(path, "rb") as file:
            data = file.read(limit + 1)
    except OSError as err:
        reason = err.strerror or type(err).__name__
        raise ConfigError(f"cannot read {what} {shown(str(path))}: {reason}") from None
    except ValueError as err:  # e.g. a NUL byte in the path
        raise ConfigError(f"cannot read {what} {shown(str(path))}: {err}") from None
    if len(data) > limit:
        raise ConfigError(
            f"{what} {shown(str(path))} is larger than {counted(limit, 'byte', spec=',')}"
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise ConfigError(
            f"{what} {shown(str(path))} is not UTF-8 text (byte {err.start})"
        ) from None


def parse_toml(text: str, source: str = "") -> dict[str, Any]:
    """A TOML document, or a one-line :class:`ConfigError` (naming ``source`` if given)."""
    where = f"{source}: " if source else ""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"{where}not valid TOML: {err}") from None
    except (ValueError, RecursionError) as err:  # e.g. an integer of 5,000 digits
        reason = str(err).split(":")[0] if str(err) else type(err).__name__
        raise ConfigError(f"{where}not valid TOML: {reason}") from None
