"""The tournament definition's schema, and the checked values every input shares.

A definition (a TOML file, the command line's options, the Admin RPCs' TOML text) is
accepted whole or refused with one line naming the field and quoting what was given;
generated TOML documents never end in anything else.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.definitions import MAX_MATCHES, MAX_TEAMS, TournamentDefinition, load_definition
from arena.errors import ConfigError
from arena.inputs import MAX_COUNT, MAX_SEED, shown
from arena.sim.tournament import EXAMPLE, TournamentConfig

TWO_BOTS = 'bots = ["random", "first"]\n'


def refusal(text: str) -> str:
    with pytest.raises(ConfigError) as refused:
        TournamentConfig.from_toml(text)
    message = str(refused.value)
    assert "\n" not in message
    return message


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("teams = 5", "teams: must be a list, got 5"),
        ("teams = [[]]", "teams[0]: a team must be a list of exactly two bots, got []"),
        ('teams = [["random"]]', "teams[0]: a team must be a list of exactly two bots"),
        ('teams = [["random", "first", "random"]]', "teams[0]: a team must be a list of exactly"),
        ('teams = ["random", "first"]', "teams[0]: a team must be a list of exactly two bots"),
        ('teams = [[1, "random"]]', "teams[0][0]: must be a bot name"),
        (TWO_BOTS + 'matches = "x"', "matches: must be an integer from 1 to 1,000,000, got 'x'"),
        (TWO_BOTS + "matches = 0", "matches: must be an integer from 1 to 1,000,000, got 0"),
        (TWO_BOTS + "matches = 2.0", "matches: must be an integer from 1 to 1,000,000, got 2.0"),
        (TWO_BOTS + "deals = -3", "deals: must be an integer from 1 to 1,000,000, got -3"),
        (TWO_BOTS + "seed = 1e400", "seed: must be an integer from 0 to"),
        (TWO_BOTS + "seed = nan", "seed: must be an integer from 0 to"),
        (TWO_BOTS + f"seed = {MAX_SEED + 1}", "seed: must be an integer from 0 to"),
        (TWO_BOTS + "seed = " + "9" * 5000, "not valid TOML"),
        (TWO_BOTS + "options = 3", "options: must be a table of game options"),
        (TWO_BOTS + "options = { a_fail_limit = nan }", "options.a_fail_limit: must be a finite"),
        (TWO_BOTS + "options = { a_fail_limit = [1] }", "options.a_fail_limit: an option value"),
        (TWO_BOTS + 'name = ""', "name: must be printable text of 1 to 100 characters"),
        (TWO_BOTS + f'name = "{"n" * 101}"', "name: must be printable text of 1 to 100"),
        (TWO_BOTS + 'name = "a\\u0007b"', "name: must be printable text"),
        (TWO_BOTS + "paired = 1", "paired: must be true or false, got 1"),
        (TWO_BOTS + 'format = "swiss"', "format: must be one of round_robin, gauntlet, rated"),
        (TWO_BOTS + 'format = "gauntlet"', "reference: a gauntlet needs a reference team"),
        (TWO_BOTS + 'reference = ["random"]', "reference: a team must be a list of exactly two"),
        (
            TWO_BOTS + 'reference = ["random", "first"]',
            "reference: only a gauntlet has a reference team, not a round_robin",
        ),
        ('bots = ["random"]', "teams: a round_robin needs at least 2 teams"),
        ("bots = []", "teams: a round_robin needs at least 2 teams"),
        ('bots = "random"', "bots: must be a list, got 'random'"),
        ('bots = ["ran dom", "first"]', "bots[0]: must be a bot name"),
        (TWO_BOTS + "colour = 1", "unknown tournament field: 'colour'"),
        ("[teams]\na = 1", "teams: must be a list"),
        ("teams = " + "[" * 3000 + "]" * 3000, "not valid TOML"),
        ('bots = ["random", "nobody"]', "unknown bot 'nobody'"),
        (TWO_BOTS + 'variant = "poker"', "unknown game 'poker'"),
        (TWO_BOTS + "options = { colour = 1 }", "unknown option for guandan: colour"),
        (
            f"bots = {json.dumps(['random'] * 50)}\nmatches = 1000",
            f"matches: the definition plans 1,225,000 matches, at most {MAX_MATCHES:,}",
        ),
        (
            f"bots = {json.dumps(['random'] * (MAX_TEAMS + 1))}",
            f"bots: must be a list of at most {MAX_TEAMS} items",
        ),
    ],
)
def test_a_bad_definition_is_one_line_naming_the_field(text: str, message: str) -> None:
    assert message in refusal(text)


def test_the_example_and_the_smallest_definitions_are_accepted() -> None:
    config = TournamentConfig.from_toml(EXAMPLE)
    assert config.variant == "guandan" and config.paired and config.matches == 10
    smallest = TournamentConfig.from_toml(TWO_BOTS)
    assert smallest.teams == (("random", "random"), ("first", "first"))
    gauntlet = TournamentConfig.from_toml(
        'bots = ["first"]\nformat = "gauntlet"\nreference = ["random", "random"]'
    )
    assert gauntlet.pairings() == [(("first", "first"), ("random", "random"))]


def test_a_definition_file_that_cannot_be_read_is_one_line(tmp_path: Path) -> None:
    binary = tmp_path / "binary.toml"
    binary.write_bytes(bytes(range(256)))
    huge = tmp_path / "huge.toml"
    huge.write_text("# " + "x" * 2_000_000)
    cases = {
        tmp_path / "missing.toml": "cannot read tournament file",
        tmp_path: "cannot read tournament file",
        binary: "is not UTF-8 text",
        huge: "is larger than 1,000,000 bytes",
    }
    for path, message in cases.items():
        with pytest.raises(ConfigError, match=message) as refused:
            load_definition(path)
        assert "\n" not in str(refused.value)


def test_a_huge_value_is_quoted_short() -> None:
    assert shown(10**5000) == "an integer of 16610 bits"
    assert len(shown("x" * 10_000)) == 60


# ------------------------------------------------------------------ generated documents

FIELDS = list(TournamentDefinition.model_fields)
BOT_NAMES = st.sampled_from(["random", "first", "heuristic", "nobody", "", "a b", "search:x=1"])
SCALARS = (
    st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.sampled_from([0, 1, 2, 3, MAX_COUNT, MAX_COUNT + 1, MAX_SEED, MAX_SEED + 1])
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=12)
    | BOT_NAMES
    | st.sampled_from(["guandan", "sanfu", "round_robin", "gauntlet", "rated"])
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.sampled_from(["a_fail_limit", "deals", "x", "Bad Key"]), inner, max_size=3
        )
    ),
    max_leaves=12,
)
GOOD_BOTS = st.sampled_from(["random", "first"])
PLAUSIBLE: dict[str, st.SearchStrategy[Any]] = {
    "name": st.sampled_from(["t", "weekly-guandan"]),
    "variant": st.sampled_from(["guandan", "sanfu", "shengji-2"]),
    "options": st.sampled_from([{}, {"a_fail_limit": 3}, {"deals": 2}]),
    "teams": st.lists(st.lists(GOOD_BOTS, min_size=2, max_size=2), max_size=4),
    "bots": st.lists(GOOD_BOTS, max_size=4),
    "format": st.sampled_from(["round_robin", "gauntlet", "rated"]),
    "reference": st.lists(GOOD_BOTS, min_size=2, max_size=2),
    "matches": st.integers(1, 3),
    "deals": st.integers(1, 3),
    "seed": st.integers(0, 10),
    "paired": st.booleans(),
}
"""For each field, values that are often valid (so whole definitions get accepted too)."""


def toml_value(value: Any) -> str:
    """``value`` as a TOML value (inline tables and arrays; every float spelled out)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else "inf" if value > 0 else "-inf"
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str):  # JSON's escapes are TOML's, but for DEL
        return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007F")
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return "{" + ", ".join(f"{json.dumps(k)} = {toml_value(v)}" for k, v in value.items()) + "}"


@st.composite
def definitions(draw: st.DrawFn) -> dict[str, Any]:
    """A definition of any shape: known fields, each with a plausible value or (one time in
    four) a value of any type; sometimes an unknown field."""
    data: dict[str, Any] = {}
    for field in draw(st.lists(st.sampled_from(FIELDS), unique=True, max_size=len(FIELDS))):
        data[field] = draw(VALUES if draw(st.integers(0, 3)) == 0 else PLAUSIBLE[field])
    if draw(st.integers(0, 9)) == 0:
        data[draw(st.text(min_size=1, max_size=5))] = draw(SCALARS)
    return data


def toml_document(data: dict[str, Any]) -> str:
    return "".join(f"{json.dumps(key)} = {toml_value(value)}\n" for key, value in data.items())


@settings(max_examples=400, deadline=None)
@given(data=definitions())
def test_any_generated_definition_is_accepted_whole_or_refused_in_one_line(
    data: dict[str, Any],
) -> None:
    text = toml_document(data)
    try:
        config = TournamentConfig.from_toml(text)
    except ConfigError as refused:
        message = str(refused)
        assert message and "\n" not in message and len(message) < 400, message
        return
    assert all(len(team) == 2 for team in config.teams)
    assert len(config.teams) >= (1 if config.format == "gauntlet" else 2)
    assert 1 <= config.matches <= MAX_COUNT and 0 <= config.seed <= MAX_SEED
    assert config.deals is None or 1 <= config.deals <= MAX_COUNT
    assert isinstance(config.paired, bool)
    # accepted whole: every field given is the tournament's, as written
    for field in ("name", "variant", "format", "matches", "deals", "seed", "paired"):
        if field in data:
            assert getattr(config, field) == data[field], field
    if "options" in data:
        assert dict(config.options) == data["options"]
    if "reference" in data:
        assert config.reference == tuple(data["reference"])
    written = [tuple(team) for team in data.get("teams", [])]
    assert config.teams == (*written, *((bot, bot) for bot in data.get("bots", [])))


VARIANT_OPTIONS = [
    ("guandan", {}),
    ("guandan", {"a_fail_limit": 3}),
    ("sanfu", {"deals": 2}),
    ("shengji-2", {"throw_penalty": 5}),
    ("shengji-1", {"constant_twos": True}),
]
"""A variant with options of its own, each valid."""


@settings(max_examples=150, deadline=None)
@given(
    teams=st.lists(
        st.tuples(st.sampled_from(["random", "first"]), st.sampled_from(["random", "first"])),
        max_size=5,
    ),
    bots=st.lists(st.sampled_from(["random", "first", "heuristic"]), max_size=3),
    variant_options=st.sampled_from(VARIANT_OPTIONS),
    format=st.sampled_from(["round_robin", "rated", "gauntlet"]),
    reference=st.tuples(st.sampled_from(["random", "first"]), st.sampled_from(["heuristic"])),
    matches=st.integers(1, 50),
    deals=st.none() | st.integers(1, MAX_COUNT),
    seed=st.integers(0, MAX_SEED),
    paired=st.booleans(),
    name=st.text(st.characters(codec="utf-8", categories=["L", "N"]), min_size=1, max_size=20),
)
def test_every_valid_definition_is_accepted_as_written(
    teams: list[tuple[str, str]],
    bots: list[str],
    variant_options: tuple[str, dict[str, Any]],
    format: str,
    reference: tuple[str, str],
    matches: int,
    deals: int | None,
    seed: int,
    paired: bool,
    name: str,
) -> None:
    """Every field of a valid definition (variant and its options, teams and bots, each
    format with its reference) is the tournament's as written: fails if one is dropped,
    defaulted or reordered."""
    variant, options = variant_options
    if len(teams) + len(bots) < (1 if format == "gauntlet" else 2):
        teams = [*teams, ("random", "first"), ("first", "first")]
    data: dict[str, Any] = {
        "name": name,
        "variant": variant,
        "options": options,
        "teams": [list(t) for t in teams],
        "bots": bots,
        "format": format,
        "matches": matches,
        "seed": seed,
        "paired": paired,
    }
    if format == "gauntlet":
        data["reference"] = list(reference)
    if deals is not None:
        data["deals"] = deals
    config = TournamentConfig.from_toml(toml_document(data))
    assert (config.name, config.variant, dict(config.options)) == (name, variant, options)
    assert config.teams == (*teams, *((bot, bot) for bot in bots))
    assert config.format == format
    assert config.reference == (reference if format == "gauntlet" else None)
    assert config.matches == matches
    assert (config.deals, config.seed, config.paired) == (deals, seed, paired)
