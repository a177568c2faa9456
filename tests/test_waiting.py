"""wait_for_count (tests/waiting.py): a count that reaches what is expected ends the wait;
one past it fails at once with the value seen; one that stays short fails, on timeout,
with the last value seen."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st
from waiting import wait_for_count


def counter(values: list[int]) -> tuple[Iterator[int], list[int]]:
    """The values in turn, the last one for ever after; and the list of those read."""
    read: list[int] = []

    def values_then_last() -> Iterator[int]:
        for value in values:
            read.append(value)
            yield value
        while True:
            read.append(values[-1])
            yield values[-1]

    return values_then_last(), read


# a count that only grows, from 0, by steps of 0 to 3, with the expected count
growing = st.lists(st.integers(0, 3), min_size=1, max_size=30).map(
    lambda steps: [sum(steps[:i]) for i in range(1, len(steps) + 1)]
)


@given(growing, st.integers(0, 20))
def test_the_wait_ends_on_the_expected_count_or_fails_on_the_first_past_it(
    counts: list[int], expected: int
) -> None:
    values, read = counter(counts)
    first_not_below = next((c for c in counts if c >= expected), None)
    if first_not_below is None:  # stays short: fails after the time allowed
        with pytest.raises(AssertionError) as short:
            wait_for_count(lambda: next(values), expected, "things", seconds=0, interval=0)
        assert str(short.value) == f"things: still {read[-1]} of {expected} after 0 s"
    elif first_not_below == expected:
        wait_for_count(lambda: next(values), expected, "things", seconds=60, interval=0)
        assert read[-1] == expected and all(c < expected for c in read[:-1])
    else:  # jumps past it: fails at once, with the value seen
        with pytest.raises(AssertionError) as past:
            wait_for_count(lambda: next(values), expected, "things", seconds=60, interval=0)
        assert str(past.value) == f"things: {first_not_below}, expected {expected}"
        assert read[-1] == first_not_below
