"""Swiss-style rounds (arena/sim/swiss.py, the rated format's pairing): each round a
matching, byes rotated, no rematch while one can be avoided, similar strength first.

Properties over random standings, team counts (2–12, odd and even) and rounds; the
rematch and bye properties are checked against every pairing, found by brute force.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from arena.sim import TournamentConfig
from arena.sim.swiss import Pairing, pair_swiss
from arena.sim.tournament import Meeting, pair_round


def every_pairing(teams: Sequence[int]) -> Iterator[tuple[list[tuple[int, int]], int | None]]:
    """Every way to pair ``teams`` (one sitting out when the count is odd)."""
    if len(teams) % 2:
        for k, out in enumerate(teams):
            for meetings, _ in every_pairing([*teams[:k], *teams[k + 1 :]]):
                yield meetings, out
        return
    if not teams:
        yield [], None
        return
    first, rest = teams[0], teams[1:]
    for k, other in enumerate(rest):
        for meetings, _ in every_pairing([*rest[:k], *rest[k + 1 :]]):
            yield [(first, other), *meetings], None


def rematches(meetings: Sequence[tuple[int, int]], met: set[frozenset[int]]) -> int:
    return sum(frozenset(meeting) in met for meeting in meetings)


def play_rounds(
    standings_each_round: Sequence[Sequence[int]],
) -> Iterator[tuple[Pairing[int], set[frozenset[int]], Counter[int]]]:
    """Pair round after round with these standings; yield each round's pairing with the
    meetings and byes before it."""
    met: set[frozenset[int]] = set()
    byes: Counter[int] = Counter()
    for standings in standings_each_round:
        pairing = pair_swiss(standings, met, byes)
        yield pairing, set(met), Counter(byes)
        met |= {frozenset(meeting) for meeting in pairing.meetings}
        if pairing.bye is not None:
            byes[pairing.bye] += 1


@st.composite
def seasons(draw: st.DrawFn, most_teams: int = 12) -> list[list[int]]:
    """Team counts 2..most_teams, 1..12 rounds, the standings shuffled before each round
    (ratings move between rounds)."""
    n = draw(st.integers(2, most_teams))
    rounds = draw(st.integers(1, 12))
    return [draw(st.permutations(range(n))) for _ in range(rounds)]


@settings(max_examples=150, deadline=None)
@given(seasons())
def test_each_round_is_a_matching_with_one_bye_exactly_when_the_count_is_odd(
    season: list[list[int]],
) -> None:
    teams = set(season[0])
    for pairing, _, _ in play_rounds(season):
        seated = [team for meeting in pairing.meetings for team in meeting]
        assert len(seated) == len(set(seated))  # nobody twice in a round
        sitting = {pairing.bye} if pairing.bye is not None else set()
        assert set(seated) | sitting == teams  # everybody plays or sits out
        assert (pairing.bye is not None) == (len(teams) % 2 == 1)


@settings(max_examples=150, deadline=None)
@given(seasons())
def test_no_team_has_two_byes_more_than_another(season: list[list[int]]) -> None:
    """Byes go to the teams with the fewest: never two byes while another has none."""
    teams = season[0]
    byes: Counter[int] = Counter()
    for pairing, _, before in play_rounds(season):
        if pairing.bye is not None:
            assert before[pairing.bye] == min(before[team] for team in teams)
            byes = before + Counter([pairing.bye])
        assert max(byes[t] for t in teams) - min(byes[t] for t in teams) <= 1


@settings(max_examples=100, deadline=None)
@given(seasons(most_teams=8))
def test_no_rematch_when_a_pairing_without_one_exists(season: list[list[int]]) -> None:
    """Each round has as few rematches as any pairing that gives the bye to a team with
    the fewest byes (found by brute force): none while one can be avoided."""
    for pairing, met, byes in play_rounds(season):
        teams = season[0]
        fewest = min(byes[t] for t in teams)
        least = min(
            rematches(meetings, met)
            for meetings, out in every_pairing(sorted(teams))
            if out is None or byes[out] == fewest
        )
        assert rematches(pairing.meetings, met) == least


@settings(max_examples=100, deadline=None)
@given(st.permutations(range(6)))
def test_a_first_round_pairs_neighbours_in_the_standings(standings: list[int]) -> None:
    """With nothing played, first meets second, third meets fourth …"""
    pairing = pair_swiss(standings, set(), Counter())
    assert pairing.meetings == [(standings[k], standings[k + 1]) for k in (0, 2, 4)]


@settings(max_examples=100, deadline=None)
@given(st.permutations(range(7)))
def test_a_first_bye_goes_to_the_lowest_standing(standings: list[int]) -> None:
    assert pair_swiss(standings, set(), Counter()).bye == standings[-1]


def test_five_teams_three_rounds_every_team_plays_and_no_pair_meets_twice() -> None:
    """The rated format with 5 teams of fixed ratings and 3 rounds: three byes to three
    teams, six different meetings, every team in at least two of them."""
    teams = [["random", "random"], ["first", "first"], ["heuristic", "heuristic"],
             ["random", "first"], ["heuristic", "random"]]  # fmt: skip
    config = TournamentConfig.from_mapping(
        {"name": "five", "teams": teams, "format": "rated", "matches": 3, "deals": 1}
    )
    elo = {"random": 1400.0, "first": 1500.0, "heuristic": 1700.0}
    earlier: list[list[Meeting]] = []
    for _ in range(config.matches):
        earlier.append(pair_round(config, elo, earlier))
    meetings = [frozenset(meeting) for meetings in earlier for meeting in meetings]
    assert len(meetings) == len(set(meetings)) == 6
    played = Counter(team for meeting in meetings for team in meeting)
    assert set(played) == set(config.teams)
    assert sorted(played.values()) == [2, 2, 2, 3, 3]
