"""The shape of a match record, checked before anything reads it.

A record comes from a file a user names or from the store, and either may hold
anything: text that is not JSON, numbers of thousands of digits, ``NaN``, lists nested
thousands deep, a string where a list belongs, a megabyte of actions. :func:`parse_text`
reads JSON text within the limits below, and :data:`RECORD` checks every field of the
result (types, ranges, sizes); each failure is one line naming the field, e.g.
``deals[2].seed: must be an integer from 0 to 9223372036854775807, got 'x'``.

What the fields mean together (whether the deals follow each other, whether the
actions are legal) is :mod:`arena.replay`'s business.
"""

from __future__ import annotations

import json
import math
import re
from functools import partial
from typing import Annotated, Any, Final, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, TypeAdapter, ValidationError

from arena.errors import ParseError
from arena.inputs import (
    GameOptions,
    Name,
    check_integer,
    check_number,
    describe,
    invalid,
    shown,
)
from arena.plural import counted

FORMAT: Final = "arena-record/1"

MAX_RECORD_BYTES: Final = 64 * 1024 * 1024
"""The largest record read (a whole match of many deals is a few megabytes)."""
MAX_DEALS: Final = 10_000
MAX_ENTRIES: Final = 10_000
"""The most entries (actions and marks) of one deal."""
MAX_TEXT: Final = 1_000
"""The longest action, hand, summary or detail text."""
MAX_ITEMS: Final = 1_000
"""The most items of a list or keys of an object inside a setup or a result."""
MAX_DEPTH: Final = 4
"""How deeply a deal result's details may nest lists and objects."""
MAX_NUMBER: Final = 2**63 - 1
"""Every integer of a record fits in 64 bits (seeds are 63-bit, scores are small)."""
MAX_DIGITS: Final = 20
"""An integer written with more digits than this is refused while parsing."""
MAX_SCORE: Final = 10**9
MAX_SECONDS: Final = 1e9
"""The longest decision time or time bank a record may name."""


def parse_text(text: str | bytes) -> Any:
    """JSON text as Python data, or a one-line :class:`ParseError` saying what is wrong.

    ``NaN`` and ``Infinity`` are not JSON; integers of more than :data:`MAX_DIGITS`
    digits and nesting Python cannot follow are refused without a traceback.
    """
    try:
        return json.loads(
            text, parse_constant=_no_constant, parse_int=_bounded_int, parse_float=_finite
        )
    except ParseError:
        raise
    except RecursionError:
        raise ParseError("not a JSON record: nested too deeply") from None
    except json.JSONDecodeError as err:
        raise ParseError(f"not a JSON record: {err.msg} (line {err.lineno})") from None
    except UnicodeDecodeError as err:
        raise ParseError(f"not a JSON record: not UTF-8 text (byte {err.start})") from None
    except ValueError as err:
        raise ParseError(f"not a JSON record: {err}") from None


def _no_constant(name: str) -> float:
    raise ParseError(f"not a JSON record: {name} is not a JSON number")


def _finite(text: str) -> float:
    if not math.isfinite(number := float(text)):
        raise ParseError(f"not a JSON record: the number {shown(text)} is out of range")
    return number


def _bounded_int(digits: str) -> int:
    if len(digits.lstrip("-")) > MAX_DIGITS:
        raise ParseError(
            f"not a JSON record: an integer of {len(digits.lstrip('-')):,} digits "
            f"(at most {MAX_DIGITS})"
        )
    return int(digits)


def check_text(value: object, limit: int = MAX_TEXT) -> str:
    """Text of at most ``limit`` characters."""
    if not isinstance(value, str) or len(value) > limit:
        raise invalid("text", f"must be text of at most {counted(limit, 'character', spec=',')}")
    return value


def check_json(value: object, depth: int = MAX_DEPTH) -> Any:
    """A JSON value within the record's limits: bounded integers, finite numbers, short
    texts, lists and objects of at most :data:`MAX_ITEMS` items nested at most
    :data:`MAX_DEPTH` deep."""
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, int):
        return check_integer(value, -MAX_NUMBER, MAX_NUMBER)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise invalid("json", "must be a finite number")
        return value
    if isinstance(value, str):
        return check_text(value)
    if isinstance(value, list | dict):
        if depth <= 0:
            raise invalid("json", f"lists and objects nest at most {MAX_DEPTH} deep here")
        if len(value) > MAX_ITEMS:
            raise invalid("json", f"at most {MAX_ITEMS:,} items")
        if isinstance(value, list):
            return [check_json(item, depth - 1) for item in value]
        return {check_text(key, 100): check_json(item, depth - 1) for key, item in value.items()}
    raise invalid("json", f"must be a JSON value, got {shown(value)}")


def check_object(value: object, depth: int) -> dict[str, Any]:
    """A JSON object within the limits of :func:`check_json`."""
    if not isinstance(value, dict):
        raise invalid("object", "must be a JSON object")
    checked: dict[str, Any] = check_json(value, depth)
    return checked


Integer = Annotated[int, BeforeValidator(partial(check_integer, low=-MAX_NUMBER, high=MAX_NUMBER))]
Seed = Annotated[int, BeforeValidator(partial(check_integer, low=0, high=MAX_NUMBER))]
Score = Annotated[int, BeforeValidator(partial(check_integer, low=-MAX_SCORE, high=MAX_SCORE))]
Count = Annotated[int, BeforeValidator(partial(check_integer, low=0, high=MAX_DEALS))]
Seconds = Annotated[float, BeforeValidator(partial(check_number, low=0.0, high=MAX_SECONDS))]
Text = Annotated[str, BeforeValidator(check_text)]
Setup = Annotated[dict[str, Any], BeforeValidator(partial(check_object, depth=2))]
"""A deal's setup: a small object (its game reads and checks the fields)."""
Details = Annotated[dict[str, Any], BeforeValidator(partial(check_object, depth=MAX_DEPTH))]
FourScores = Annotated[list[Score], Field(min_length=4, max_length=4)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class ClockSchema(_Strict):
    """The decision time limits the match was played with (automatic play, fleeing)."""

    decision_seconds: Seconds
    time_bank_seconds: Seconds


class DealResultSchema(_Strict):
    scores: FourScores
    summary: Text
    details: Details


class DealSchema(_Strict):
    setup: Setup
    seed: Seed | None = None
    hands: Annotated[list[Text], Field(min_length=4, max_length=5)] | None = None
    actions: Annotated[list[Text], Field(max_length=MAX_ENTRIES)]
    result: DealResultSchema


class MatchResultSchema(_Strict):
    deals: Count
    complete: bool
    match_winner: Literal[0, 1] | None
    totals: FourScores


class RecordSchema(_Strict):
    """A whole record, as :meth:`arena.record.MatchRecord.to_dict` writes it."""

    format: Literal["arena-record/1"]
    game: Annotated[str, BeforeValidator(partial(check_text, limit=40))]
    options: GameOptions
    seed: Integer | None
    players: Annotated[list[Name], Field(min_length=4, max_length=4)]
    clock: ClockSchema | None = None
    aborted: Text | None = None
    deals: Annotated[list[DealSchema], Field(max_length=MAX_DEALS)]
    result: MatchResultSchema


RECORD: Final = TypeAdapter(RecordSchema)
_MODEL_NAME: Final = re.compile(r" or instance of \w+Schema")


def check_record(data: object) -> dict[str, Any]:
    """``data`` checked field by field; the record as plain JSON-ready data.

    Raises :class:`ParseError` naming the first field that is wrong.
    """
    if not isinstance(data, dict):
        raise ParseError("not an arena record: a record is a JSON object")
    if data.get("format") != FORMAT:
        raise ParseError(
            f"not an arena record: format is {shown(data.get('format'))}, expected {FORMAT!r}"
        )
    try:
        checked = RECORD.validate_python(data)
    except ValidationError as err:
        problem = _MODEL_NAME.sub("", describe(err))  # the schema's class names mean nothing
        raise ParseError(f"malformed record: {problem}") from None
    return checked.model_dump(exclude_none=False)
