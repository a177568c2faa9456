"""Tournaments: a definition (TOML), the matches it means, and playing them on Ray.

A definition names the teams (or bots, each partnered with itself), the variant
and its options, the format — a round robin of teams, a gauntlet of every team
against a reference, or rated rounds (Swiss-style: teams of close Elo meet, no
rematch while one can be avoided, byes rotated) — the matches per pairing
(rounds), the deals per match, the seed and whether to pair deals. Every match
has a deterministic id (tournament, pairing, match, side), so a rerun skips what
is stored and a retried batch is stored once.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from itertools import combinations
from pathlib import Path
from typing import Any

import bots
from arena.chance import derive_seed
from arena.definitions import (
    TournamentDefinition,
    definition_from_toml,
    load_definition,
    parse_definition,
)
from arena.errors import ConfigError, quoted
from arena.games import make
from arena.plural import counted
from arena.sim.jobs import MatchJob, team_players
from arena.sim.swiss import pair_swiss
from arena.store import Store, Tournament

EXAMPLE = """\
# arena tournament definition
name = "weekly-guandan"
variant = "guandan"
options = { a_fail_limit = 3 }
teams = [["random", "random"], ["first", "first"], ["random", "first"]]
format = "round_robin"      # or "gauntlet" (every team against `reference`), or "rated"
# reference = ["random", "random"]
matches = 10                # per pairing (per pair when paired); "rated": the rounds
deals = 5                   # deals per match (omit for whole matches)
seed = 1
paired = true               # each seed twice, partnerships swapped
"""


@dataclass(frozen=True)
class TournamentConfig:
    name: str
    variant: str
    teams: tuple[tuple[str, str], ...]
    options: Mapping[str, Any] = field(default_factory=dict)
    format: str = "round_robin"
    reference: tuple[str, str] | None = None
    matches: int = 10
    deals: int | None = None
    seed: int = 0
    paired: bool = False

    @property
    def id(self) -> str:
        """The tournament id: its name and a digest of everything that decides its matches."""
        digest = hashlib.blake2b(
            json.dumps(asdict(self), sort_keys=True, default=list).encode(), digest_size=4
        ).hexdigest()
        return f"{self.name}-{digest}"

    @classmethod
    def load(cls, path: str | Path) -> TournamentConfig:
        return cls.from_definition(load_definition(path))

    @classmethod
    def from_toml(
        cls, text: str, known_bot: Callable[[str], bool] | None = None
    ) -> TournamentConfig:
        """A checked definition from a TOML text (what the Admin RPCs accept)."""
        return cls.from_definition(definition_from_toml(text), known_bot)

    @classmethod
    def from_mapping(
        cls, data: Mapping[str, Any], known_bot: Callable[[str], bool] | None = None
    ) -> TournamentConfig:
        """A checked definition; ``known_bot`` says which bot names exist (default: the
        built-in bots)."""
        return cls.from_definition(parse_definition(data), known_bot)

    def definition(self) -> dict[str, Any]:
        """The definition as JSON data (stored with the tournament): :meth:`from_mapping`
        makes this config of it again, with the same :attr:`id`."""
        data: dict[str, Any] = {
            "name": self.name,
            "variant": self.variant,
            "options": dict(self.options),
            "teams": [list(team) for team in self.teams],
            "format": self.format,
            "matches": self.matches,
            "seed": self.seed,
            "paired": self.paired,
        }
        if self.reference is not None:
            data["reference"] = list(self.reference)
        if self.deals is not None:
            data["deals"] = self.deals
        return data

    @classmethod
    def from_definition(
        cls, definition: TournamentDefinition, known_bot: Callable[[str], bool] | None = None
    ) -> TournamentConfig:
        """The tournament a checked definition means, once its variant, options and bots
        are known to exist."""
        config = cls(
            name=definition.name,
            variant=definition.variant,
            teams=definition.all_teams,
            options=dict(definition.options),
            format=definition.format,
            reference=definition.reference,
            matches=definition.matches,
            deals=definition.deals,
            seed=definition.seed,
            paired=definition.paired,
        )
        config.check(known_bot)
        return config

    def check(self, known_bot: Callable[[str], bool] | None = None) -> None:
        """The variant and its options exist, and so do the bots (the shape was checked by
        :class:`~arena.definitions.TournamentDefinition`)."""
        make(self.variant, **self.options)  # unknown game or option: ConfigError
        names = {b for team in self.teams for b in team} | set(self.reference or ())
        for name in sorted(names):
            if known_bot is None:
                bots.make(name)  # unknown bot: ConfigError
            elif not known_bot(name):
                raise ConfigError(f"unknown bot {name!r}")

    def pairings(self) -> list[tuple[tuple[str, str], tuple[str, str]]]:
        if self.format == "gauntlet":
            assert self.reference is not None
            return [(team, self.reference) for team in self.teams]
        return list(combinations(self.teams, 2))


Team = tuple[str, str]
Meeting = tuple[Team, Team]


def pair_round(
    config: TournamentConfig,
    elo: Mapping[str, float],
    earlier: Sequence[Sequence[Meeting]] = (),
    initial: float = 1500.0,
) -> list[Meeting]:
    """The meetings of a round of rated matchmaking, Swiss-style (:func:`pair_swiss`):
    teams in the order of their Elo (the mean of their bots) meet teams of similar
    strength, no two teams meet again while that can be avoided in the ``earlier``
    rounds, and with an odd number of teams the bye goes to one with the fewest byes."""

    def strength(team: Team) -> tuple[float, str]:
        return (-(elo.get(team[0], initial) + elo.get(team[1], initial)) / 2, ",".join(team))

    met = {frozenset(meeting) for meetings in earlier for meeting in meetings}
    byes = Counter(
        team
        for meetings in earlier
        for team in set(config.teams) - {team for meeting in meetings for team in meeting}
    )
    return pair_swiss(sorted(config.teams, key=strength), met, byes).meetings


def round_jobs(
    config: TournamentConfig, round_index: int, meetings: Sequence[Meeting]
) -> list[MatchJob]:
    """The matches of a round with these meetings (sides alternate by round; paired,
    each meeting is both halves of a pair)."""
    jobs = []
    for i, (first, second) in enumerate(meetings):
        seed = derive_seed(config.seed, config.variant, "round", round_index, 2 * i)
        base = f"{config.id}:r{round_index}:{'+'.join(first)}~{'+'.join(second)}"
        if config.paired:
            for side, (a, b) in (("a", (first, second)), ("b", (second, first))):
                jobs.append(_job(config, f"{base}:{side}", seed, a, b, pair=base))
        else:
            a, b = (first, second) if round_index % 2 == 0 else (second, first)
            jobs.append(_job(config, base, seed, a, b, pair=None))
    return jobs


def plan_round(
    config: TournamentConfig, round_index: int, elo: Mapping[str, float], initial: float = 1500.0
) -> list[MatchJob]:
    """One round of rated matchmaking from these ratings, as a first round
    (:func:`pair_round`, :func:`round_jobs`)."""
    return round_jobs(config, round_index, pair_round(config, elo, (), initial))


def plan(config: TournamentConfig) -> list[MatchJob]:
    """Every match of the tournament, in a fixed order, with deterministic ids and seeds.

    Unpaired, the teams change sides every match; paired, each seed is played twice
    with the partnerships swapped (the same cards go to the other team).
    """
    if config.format == "rated":
        raise ConfigError("a rated tournament is planned round by round (plan_round)")
    tid = config.id
    jobs = []
    for p, (first, second) in enumerate(config.pairings()):
        for m in range(config.matches):
            seed = derive_seed(config.seed, config.variant, p, m)
            base = f"{tid}:p{p}:m{m}"
            if config.paired:
                for side, (a, b) in (("a", (first, second)), ("b", (second, first))):
                    jobs.append(_job(config, f"{base}:{side}", seed, a, b, pair=base))
            else:
                a, b = (first, second) if m % 2 == 0 else (second, first)
                jobs.append(_job(config, base, seed, a, b, pair=None))
    return jobs


def _job(
    config: TournamentConfig,
    match_id: str,
    seed: int,
    team_a: Sequence[str],
    team_b: Sequence[str],
    pair: str | None,
) -> MatchJob:
    return MatchJob(
        id=match_id,
        variant=config.variant,
        options=dict(config.options),
        seed=seed,
        players=team_players(team_a, team_b),
        max_deals=config.deals,
        pair=pair,
    )


def find_stored(store: Store, key: str) -> Tournament:
    """The tournament of ``store`` whose id is ``key``, or else whose definition's name
    is; an error naming the candidates when the name is several tournaments'."""
    tournaments = store.tournaments()
    for tournament in tournaments:
        if tournament.id == key:
            return tournament
    named = [tournament for tournament in tournaments if tournament.name == key]
    if len(named) == 1:
        return named[0]
    if named:
        ids = ", ".join(tournament.id for tournament in named)
        raise ConfigError(
            f"{counted(len(named), 'tournament')} are named {quoted(key)}; give one's id: {ids}"
        )
    raise ConfigError(
        f"no tournament {quoted(key)} in {store.path}, by id or name "
        "('arena matches' lists the stored matches with their tournaments)"
    )
