"""Shengji end of the deal: points, kitty, levels, next dealer, match end, room points.

Rules SJ-17 (throw penalty), SJ-22 … SJ-27, SJ-30 and SJ-32 of rules/shengji.md, as
pure functions. "P" is the defenders' points, the only total that decides the result
(SJ-22). Levels are rank indices as in :mod:`arena.cards`: 0 is the 2, 12 the ace.
Teams are 0 (seats 0 and 2) and 1 (seats 1 and 3).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from arena.cards import RANK_ACE, Card
from arena.errors import ConfigError
from arena.games.base import NUM_SEATS, Seat, next_seat, partner_of, team_of
from arena.games.shengji.order import card_points
from arena.plural import counted

MATCH_ENDS = ("pass_a", "reach_a")
MAX_KITTY_EXPONENT = 6
"""SJ-25: the kitty multiplier is at most 2 ** 6 = 64."""
SHUTOUT_LEVELS = 3
"""SJ-26: 大光, the declarers' gain when the defenders score nothing."""
DECLARER_BAND_LEVELS = (2, 1)
"""SJ-26: the declarers' gain in the first and second bands of ``step`` points above 0."""
MAX_DECLARER_ROOM_POINTS = 4
ROOM_BANDS = ((300, 3), (80, 2))
"""SJ-32: (at least, factor), highest first: room points ≥ 300 triple, [80, 300) double."""
SET_WIDTHS = range(1, 5)


# ------------------------------------------------------------------ points (SJ-22)


def points_in(cards: Iterable[Card]) -> int:
    """C-3: the card points of ``cards``."""
    return sum(card_points(card) for card in cards)


def defender_trick_points(trick: Iterable[Card], winner: Seat, declarer_team: int) -> int:
    """SJ-22: the points a trick adds to the defenders' total (none if a declarer won it)."""
    _check_team(declarer_team)
    return 0 if team_of(winner) == declarer_team else points_in(trick)


def throw_penalty_points(
    penalty_per_card: int, failed_throw_cards: int, thrower_is_defender: bool, defender_points: int
) -> int:
    """SJ-17: the defenders' total after a failed throw of ``failed_throw_cards`` cards.

    A declarer's failed throw gives the defenders the penalty; a defender's is
    subtracted from the defenders' total, which never goes below 0.
    """
    if penalty_per_card < 0 or failed_throw_cards < 0:
        raise ValueError(
            f"throw penalty {penalty_per_card} per card and {counted(failed_throw_cards, 'card')} "
            "must not be negative"
        )
    penalty = penalty_per_card * failed_throw_cards
    if thrower_is_defender:
        return max(0, defender_points - penalty)
    return defender_points + penalty


# ------------------------------------------------------------------ kitty (SJ-25)


def kitty_multiplier(largest_unit_cards: int) -> int:
    """SJ-25: 2 ** k, k the cards in the largest combination of the last winning play; ≤ 64."""
    if largest_unit_cards < 1:
        raise ValueError(f"a combination has at least one card, not {largest_unit_cards}")
    return 1 << min(largest_unit_cards, MAX_KITTY_EXPONENT)


def kitty_points(kitty: Sequence[Card], largest_unit_cards: int) -> int:
    """SJ-25: the kitty's card points times :func:`kitty_multiplier`."""
    return points_in(kitty) * kitty_multiplier(largest_unit_cards)


def settle_kitty(
    defender_points: int,
    kitty: Sequence[Card],
    last_winner_is_defender: bool,
    largest_unit_cards: int,
) -> int:
    """SJ-25: the defenders' final total, 1 to 3 decks: the kitty counts only for them."""
    if not last_winner_is_defender:
        return defender_points
    return defender_points + kitty_points(kitty, largest_unit_cards)


# ------------------------------------------------------------------ last trick, 4 decks (SJ-30)


def last_trick_settlement(winner_points: int, loser_points: int, widest_set: int) -> int:
    """SJ-30: what the last trick's winners take from the other team.

    That is the other team's points times ``widest_set``, the width of the widest set
    in the winning play (single 1, pair 2, triple 3, quad 4; a tractor by its width).
    The winners' own points do not enter the product; they are checked like the others.
    """
    if widest_set not in SET_WIDTHS:
        raise ValueError(f"the widest set has 1 to 4 cards, not {widest_set}")
    if winner_points < 0 or loser_points < 0:
        raise ValueError(
            f"trick points before settlement cannot be negative: {winner_points}, {loser_points}"
        )
    return loser_points * widest_set


def settle_four_decks(
    defender_points: int, declarer_points: int, last_winner_is_defender: bool, widest_set: int
) -> int:
    """SJ-30: the defenders' final total in 4 decks; it may be negative.

    The rule says whichever team wins the last trick takes from the other team that
    team's points multiplied by the width. So defenders winning it add
    ``declarer_points * widest_set``; declarers winning it subtract
    ``defender_points * widest_set`` from the defenders (a single leaves them 0).
    """
    if last_winner_is_defender:
        return defender_points + last_trick_settlement(defender_points, declarer_points, widest_set)
    return defender_points - last_trick_settlement(declarer_points, defender_points, widest_set)


# ------------------------------------------------------------------ levels (SJ-26, SJ-27)


@dataclass(frozen=True)
class LevelChange:
    """The result of a deal: the declarers go up, or the defenders take over (and go up)."""

    declarers_up: int
    defenders_up: int
    take_over: bool

    def __post_init__(self) -> None:
        if self.take_over:
            valid = self.declarers_up == 0 and self.defenders_up >= 0
        else:
            valid = self.declarers_up > 0 and self.defenders_up == 0
        if not valid:
            raise ValueError(
                f"not a deal result: declarers +{self.declarers_up}, "
                f"defenders +{self.defenders_up}, take_over={self.take_over}"
            )

    def winning_team(self, declarer_team: int) -> int:
        """The team that won the deal: the declarers unless the defenders took over."""
        _check_team(declarer_team)
        return 1 - declarer_team if self.take_over else declarer_team


@dataclass(frozen=True)
class LevelTable:
    """SJ-26/SJ-27 for one deck count, in bands of ``step`` defender points.

    P ≤ 0: declarers +3; then one band per entry of :data:`DECLARER_BAND_LEVELS`;
    from the band after them the defenders take over, gaining ``takeover_levels`` in
    the first take-over band and one more per further band.
    """

    step: int
    takeover_levels: int = 0
    negative_points: bool = False

    def change(self, defender_points: int) -> LevelChange:
        if defender_points < 0 and not self.negative_points:
            raise ValueError(f"the defenders' points cannot be negative: {defender_points}")
        if defender_points <= 0:
            return LevelChange(SHUTOUT_LEVELS, 0, take_over=False)
        band = defender_points // self.step
        if band < len(DECLARER_BAND_LEVELS):
            return LevelChange(DECLARER_BAND_LEVELS[band], 0, take_over=False)
        gain = self.takeover_levels + band - len(DECLARER_BAND_LEVELS)
        return LevelChange(0, gain, take_over=True)


LEVEL_TABLES = {
    1: LevelTable(step=20),
    2: LevelTable(step=40),
    3: LevelTable(step=60),
    4: LevelTable(step=80, takeover_levels=1, negative_points=True),
}
"""SJ-26 (1 to 3 decks) and SJ-27 (4 decks: no take-over without gain, P may be < 0)."""


def level_table(decks: int, two_colour: bool = False) -> LevelTable:
    """The level table of a deck count; two-colour (1 deck only) uses the 1-deck table."""
    if decks not in LEVEL_TABLES:
        raise ConfigError(f"Shengji is played with 1 to 4 decks, not {decks}")
    if two_colour and decks != 1:
        raise ConfigError(f"the two-colour option is for 1 deck, not {decks}")
    return LEVEL_TABLES[decks]


def level_change(defender_points: int, decks: int, two_colour: bool = False) -> LevelChange:
    """SJ-26/SJ-27: the level change for the defenders' final points."""
    return level_table(decks, two_colour).change(defender_points)


def apply_levels(
    levels: tuple[int, int], declarer_team: int, change: LevelChange
) -> tuple[int, int]:
    """SJ-24: the two teams' levels after the deal, never past A."""
    _check_team(declarer_team)
    for level in levels:
        if not 0 <= level <= RANK_ACE:
            raise ValueError(f"a level is 0 (the 2) to {RANK_ACE} (the ace), not {level}")
    up = (change.declarers_up, change.defenders_up)
    up0, up1 = up if declarer_team == 0 else up[::-1]
    return (min(levels[0] + up0, RANK_ACE), min(levels[1] + up1, RANK_ACE))


# ------------------------------------------------------------------ next deal, match end


def next_dealer(dealer: Seat, change: LevelChange) -> Seat:
    """SJ-23: the dealer's partner if the declarers went up, else the player after the dealer."""
    return next_seat(dealer) if change.take_over else partner_of(dealer)


def match_winner(
    levels_before: tuple[int, int],
    levels_after: tuple[int, int],
    declarer_team: int,
    change: LevelChange,
    match_end: str,
) -> int | None:
    """SJ-24: the team that wins the match with this deal, if any.

    ``pass_a``: the declarers, when they win the deal (no take-over) while playing A.
    ``reach_a``: the team whose level reaches A in this deal (a team already at A
    before the deal does not reach it again).
    """
    _check_team(declarer_team)
    if match_end == "pass_a":
        won_on_a = not change.take_over and levels_before[declarer_team] == RANK_ACE
        return declarer_team if won_on_a else None
    if match_end == "reach_a":
        for team in (0, 1):
            if levels_before[team] < RANK_ACE <= levels_after[team]:
                return team
        return None
    raise ConfigError(f"unknown match_end {match_end!r}: expected one of {', '.join(MATCH_ENDS)}")


# ------------------------------------------------------------------ room points (SJ-32)


def room_multiplier(room_points: Sequence[int]) -> int:
    """SJ-32: 2 if all four room points are in [80, 300), 3 if all are ≥ 300, else 1."""
    factors = {_room_band(points) for points in room_points}
    return factors.pop() if len(factors) == 1 else 1


def _room_band(points: int) -> int:
    return next((factor for low, factor in ROOM_BANDS if points >= low), 1)


def room_points_change(
    change: LevelChange, room_points: Sequence[int], declarer_team: int
) -> tuple[int, int, int, int]:
    """SJ-32: each seat's room-point change; the losing side loses what the winners gain.

    Take-over: 2 + the defenders' levels gained. Declarers up N: N + 1, at most 4.
    The levels are those of the result, before the cap at A.
    """
    if len(room_points) != NUM_SEATS:
        raise ValueError(f"room points are one per seat, got {len(room_points)}")
    if change.take_over:
        gain = 2 + change.defenders_up
    else:
        gain = min(1 + change.declarers_up, MAX_DECLARER_ROOM_POINTS)
    gain *= room_multiplier(room_points)
    team0 = gain if change.winning_team(declarer_team) == 0 else -gain
    return (team0, -team0, team0, -team0)


def _check_team(team: int) -> None:
    if team not in (0, 1):
        raise ValueError(f"a team is 0 or 1, not {team}")
