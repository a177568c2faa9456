"""sanfu scoring: team points with the transfer, the deal's stake, the joker bonus
and fleeing (SF-13 … SF-16), in units of the table's base stake.

Everything here works on *players* (0..3): seats change between deals, results
add up per player (SF-17).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

TOTAL_POINTS = 300
"""Three decks hold 300 points (C-3)."""
SWEEP_STAKE, SWEEP_ALL_POINTS_STAKE = 3, 6
FLEE_STAKE = 10
JOKER_TRIPLE_GAIN, JOKER_TRIPLE_PAY = 6, 2


@dataclass(frozen=True)
class TeamPoints:
    """SF-13: each team's points after the transfer, and what was transferred."""

    points: tuple[int, int]
    transferred: tuple[int, int]
    """Points each team received from the other team's last player(s)."""


def team_points(
    captured: Sequence[int],
    hand_points: Sequence[int],
    last: Sequence[int],
    team_of: Sequence[int],
) -> TeamPoints:
    """SF-13: captured points per team; a last player's captures and hand go across.

    ``captured`` and ``hand_points`` are per player, ``last`` lists the players who
    end the deal last (one, or both of a team), ``team_of`` gives each player's team.
    """
    points = [0, 0]
    transferred = [0, 0]
    for player in range(len(captured)):
        team = team_of[player]
        if player in last:
            moved = captured[player] + hand_points[player]
            points[1 - team] += moved
            transferred[1 - team] += moved
        else:
            points[team] += captured[player]
    return TeamPoints((points[0], points[1]), (transferred[0], transferred[1]))


def deal_stake(points: tuple[int, int], first_team: int, sweep: bool) -> tuple[int, int]:
    """SF-14: (winning team, stake). A sweep wins 3× (6× with all 300 points);
    otherwise more points win (150–150: the first finisher's team) at 1×, 2× from
    200 points, 3× with all 300."""
    if sweep:
        all_points = points[first_team] == TOTAL_POINTS
        return first_team, SWEEP_ALL_POINTS_STAKE if all_points else SWEEP_STAKE
    if points[0] == points[1]:
        return first_team, _stake(points[first_team])
    winner = 0 if points[0] > points[1] else 1
    return winner, _stake(points[winner])


def _stake(won: int) -> int:
    return 3 if won == TOTAL_POINTS else 2 if won >= 200 else 1


def stake_results(winner: int, stake: int, team_of: Sequence[int]) -> list[int]:
    """Each winner gains the stake, each loser pays it (SF-14)."""
    return [stake if team_of[p] == winner else -stake for p in range(len(team_of))]


def joker_bonus(joker_triples_by: Sequence[int], players: int = 4) -> list[int]:
    """SF-16: per three-joker play (big or small) its player gains 6×, each other pays 2×.

    ``joker_triples_by`` lists the player of each such play; holding them is not enough.
    """
    result = [0] * players
    for player in joker_triples_by:
        for other in range(players):
            result[other] += JOKER_TRIPLE_GAIN if other == player else -JOKER_TRIPLE_PAY
    return result


def flee_results(fled: int, players: int = 4) -> list[int]:
    """SF-15: the player who fled pays 10×; nobody else gains or pays."""
    return [-FLEE_STAKE if p == fled else 0 for p in range(players)]
