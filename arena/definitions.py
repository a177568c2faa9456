"""The tournament definition's schema: what a TOML file, the command line's options and
the Admin RPCs may say about a tournament.

:class:`TournamentDefinition` checks the shape of a definition — types, ranges, sizes,
teams of exactly two bots, enough teams for the format, a bounded number of matches —
and :func:`parse_definition` turns any mapping (or :func:`load_definition` a TOML file,
:func:`definition_from_toml` a TOML text) into one, or raises a one-line
:class:`~arena.errors.ConfigError` naming the field: ``teams[0]: a team must be a list of
exactly two bots, got []``. Whether the variant, its options and the bots exist is
checked where they are known (:class:`arena.sim.tournament.TournamentConfig`).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from math import comb
from pathlib import Path
from typing import Annotated, Final, Literal, get_args

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, model_validator
from pydantic_core import PydanticCustomError

from arena.errors import ConfigError
from arena.inputs import (
    WHOLE,
    Bot,
    Count,
    Flag,
    GameOptions,
    Name,
    Seed,
    Team,
    check_sequence,
    parse_toml,
    read_text,
    shown,
    validate,
)
from arena.plural import counted, noun

Format = Literal["round_robin", "gauntlet", "rated"]
FORMATS: Final[tuple[str, ...]] = get_args(Format)
MAX_TEAMS: Final = 256
MAX_MATCHES: Final = 1_000_000
"""The most matches one tournament may plan."""


def _format(value: object) -> object:
    if value not in FORMATS:
        raise PydanticCustomError("format", f"must be one of {', '.join(FORMATS)}")
    return value


class TournamentDefinition(BaseModel):
    """A tournament as a user writes it (``bots`` are teams of a bot with itself)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: Name = "tournament"
    variant: Name = "guandan"
    options: GameOptions = Field(default_factory=dict)
    teams: Annotated[
        tuple[Team, ...], BeforeValidator(partial(check_sequence, limit=MAX_TEAMS))
    ] = ()
    bots: Annotated[tuple[Bot, ...], BeforeValidator(partial(check_sequence, limit=MAX_TEAMS))] = ()
    format: Annotated[Format, BeforeValidator(_format)] = "round_robin"
    reference: Team | None = None
    matches: Count = 10
    deals: Count | None = None
    seed: Seed = 0
    paired: Flag = False

    @property
    def all_teams(self) -> tuple[tuple[str, str], ...]:
        """The teams, then each of ``bots`` partnered with itself."""
        return self.teams + tuple((bot, bot) for bot in self.bots)

    @model_validator(mode="after")
    def _whole(self) -> TournamentDefinition:
        teams = len(self.all_teams)
        if teams > MAX_TEAMS:
            raise PydanticCustomError(
                WHOLE, f"teams: at most {MAX_TEAMS} teams and bots in all, got {teams}"
            )
        if self.format == "gauntlet" and self.reference is None:
            raise PydanticCustomError(WHOLE, "reference: a gauntlet needs a reference team")
        if self.format != "gauntlet" and self.reference is not None:
            raise PydanticCustomError(
                WHOLE, f"reference: only a gauntlet has a reference team, not a {self.format}"
            )
        needed = 1 if self.format == "gauntlet" else 2
        if teams < needed:
            raise PydanticCustomError(
                WHOLE,
                f"teams: a {self.format} needs at least {counted(needed, 'team')} "
                f"(teams of two bots or bots), got {teams}",
            )
        total = self.planned_matches
        if total > MAX_MATCHES:
            raise PydanticCustomError(
                WHOLE,
                f"matches: the definition plans {counted(total, 'match', spec=',')}, at most "
                f"{MAX_MATCHES:,}",
            )
        return self

    @property
    def planned_matches(self) -> int:
        """How many matches the definition plans (both halves of a pair counted)."""
        teams = len(self.all_teams)
        if self.format == "rated":
            per_stage = teams // 2
        elif self.format == "gauntlet":
            per_stage = teams
        else:
            per_stage = comb(teams, 2)
        return per_stage * self.matches * (2 if self.paired else 1)


def parse_definition(data: object) -> TournamentDefinition:
    """A checked definition from a mapping (a parsed TOML document, or built from options)."""
    if not isinstance(data, Mapping):
        raise ConfigError("a tournament definition must be a table of fields")
    unknown = sorted(str(key) for key in data if key not in TournamentDefinition.model_fields)
    if unknown:
        fields = ", ".join(TournamentDefinition.model_fields)
        raise ConfigError(
            f"unknown tournament {noun(len(unknown), 'field')}: {shown(', '.join(unknown))}; "
            f"the fields: {fields}"
        )
    checked: TournamentDefinition = validate(TournamentDefinition, data)
    return checked


def definition_from_toml(text: str, source: str = "tournament definition") -> TournamentDefinition:
    return parse_definition(parse_toml(text, source))


def load_definition(path: str | Path) -> TournamentDefinition:
    text = read_text(path, "tournament file")
    return definition_from_toml(text, str(path))
