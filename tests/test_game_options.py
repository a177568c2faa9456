"""Every game's numeric options are bounded: a value outside its range, of another type or
not finite is refused with a ConfigError naming the option (a match of a billion deals or
an endless decision time is no option), and the bounds themselves are accepted."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.errors import ConfigError
from arena.games import make
from arena.games.guandan import MAX_A_FAILS
from arena.games.sanfu import MAX_DEALS, MAX_TIME_LIMIT
from arena.games.shengji import MAX_THROW_PENALTY

WHOLE = [
    ("guandan", "a_fail_limit", 0, MAX_A_FAILS),
    ("sanfu", "deals", 1, MAX_DEALS),
    *((f"shengji-{decks}", "throw_penalty", 0, MAX_THROW_PENALTY) for decks in range(1, 5)),
]


@pytest.mark.parametrize(("variant", "option", "low", "high"), WHOLE)
def test_whole_number_options_accept_their_bounds(
    variant: str, option: str, low: int, high: int
) -> None:
    for value in (low, high):
        assert make(variant, **{option: value}).options[option] == value


@pytest.mark.parametrize(("variant", "option", "low", "high"), WHOLE)
@given(
    value=st.one_of(
        st.integers(),
        st.floats(allow_nan=True, allow_infinity=True),
        st.booleans(),
        st.text(max_size=5),
        st.none(),
    )
)
def test_whole_number_options_refuse_what_is_out_of_range(
    variant: str, option: str, low: int, high: int, value: object
) -> None:
    in_range = type(value) is int and low <= value <= high
    none_is_off = option == "a_fail_limit" and value is None  # the option's own "off"
    if in_range or none_is_off:
        return
    with pytest.raises(ConfigError, match=rf"^{option} must be a whole number from {low} to "):
        make(variant, **{option: value})


@pytest.mark.parametrize("value", [0, -1, math.nan, math.inf, MAX_TIME_LIMIT + 1, True, "30"])
def test_sf12_time_limit_is_a_finite_number_of_seconds(value: object) -> None:
    with pytest.raises(ConfigError, match=r"^time_limit must be a number of seconds above 0"):
        make("sanfu", time_limit=value)
    assert make("sanfu", time_limit=MAX_TIME_LIMIT).options["time_limit"] == MAX_TIME_LIMIT
