"""Swiss-style pairing of a round, as leagues pair them: one maximum-weight matching.

Given the teams in standing order (strongest first), the meetings of the rounds
before and the byes each team has had, a round's pairing is the matching of
least cost (:func:`networkx.max_weight_matching` over a complete graph, a *bye*
node added when the count is odd). Its cost orders what matters, each criterion
outweighing every one after it:

1. the bye goes to a team with the fewest byes so far (a rule, not a cost: only
   those teams are joined to the bye node, so byes never differ by two);
2. as few rematches (teams that met earlier in the tournament) as can be;
3. the bye to the lowest standing among the teams that may take it;
4. similar strength: the sum of the squared distances in the standings of the
   teams that meet.
"""

from __future__ import annotations

from collections.abc import Collection, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

import networkx as nx

T = TypeVar("T", bound=Hashable)


@dataclass(frozen=True)
class Pairing(Generic[T]):
    """A round: who meets whom (the stronger first), and who sits out (odd counts)."""

    meetings: list[tuple[T, T]]
    bye: T | None


class _Bye:
    """The node that stands for sitting the round out."""


def pair_swiss(
    standings: Sequence[T], met: Collection[frozenset[T]], byes: Mapping[T, int]
) -> Pairing[T]:
    """The pairing of least cost (see the module) of ``standings`` (strongest first),
    given the pairs of teams that have ``met`` and the ``byes`` each has had."""
    n = len(standings)
    if n < 2:
        raise ValueError(f"a round needs two teams or more, not {n}")
    rank = {team: r for r, team in enumerate(standings)}
    strength_scale = n**3 + 1  # above any sum of squared distances
    bye_scale = (n + 1) * strength_scale  # above any strength cost with any bye
    rematch_scale = (n + 1) * bye_scale  # above any bye and strength cost together
    ceiling = (n + 1) * rematch_scale  # every weight positive

    graph: nx.Graph[object] = nx.Graph()
    for i, a in enumerate(standings):
        for b in standings[i + 1 :]:
            cost = (rank[b] - rank[a]) ** 2
            if frozenset((a, b)) in met:
                cost += rematch_scale
            graph.add_edge(a, b, weight=ceiling - cost)
    bye = _Bye()
    if n % 2:
        fewest = min(byes.get(team, 0) for team in standings)
        for team in standings:
            if byes.get(team, 0) == fewest:
                graph.add_edge(bye, team, weight=ceiling - (n - 1 - rank[team]) * bye_scale)

    matching = nx.max_weight_matching(graph, maxcardinality=True)
    meetings: list[tuple[T, T]] = []
    sitting_out: T | None = None
    for a, b in matching:
        if a is bye or b is bye:
            sitting_out = b if a is bye else a
        else:
            meetings.append((a, b) if rank[a] < rank[b] else (b, a))
    meetings.sort(key=lambda meeting: rank[meeting[0]])
    return Pairing(meetings, sitting_out)
