"""An observation's views (arena/games/views.py): its facts made on demand behave as
the read-only dict of them (made once, when first read; equal, pickled and copied as that
dict), and its events so far as the tuple of them, whatever the list gets after.

The tests with a subclass of their own run on the interpreted engines (a compiled class
takes no interpreted subclass); a Shengji observation's facts are checked on both.
"""

from __future__ import annotations

import copy
import json
import operator
import pickle
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from arena.commands.bench_deals import match_setups
from arena.games import make
from arena.games.base import Event, Observation, _jsonable
from arena.games.views import NO_FACTS, FactsOnDemand, SoFar
from arena.server.remote import struct

own_subclass = pytest.mark.interpreted_engines


class Counted(FactsOnDemand):
    """Facts that count how often they were made."""

    def __init__(self, facts: dict[str, Any]) -> None:
        super().__init__()
        self.source, self.made = facts, 0

    def _make(self) -> dict[str, Any]:
        self.made += 1
        return dict(self.source)


FACTS = {"level": 3, "counts": [25, 25, 24, 25], "trick": {"leader": 1, "plays": [(1, "Ah")]}}


@own_subclass
def test_facts_are_made_once_and_only_when_read() -> None:
    facts = Counted(FACTS)
    assert facts.made == 0
    assert facts["level"] == 3
    assert facts.get("trump", "none") == "none"
    assert list(facts) == list(FACTS) and len(facts) == 3 and "trick" in facts
    assert facts.made == 1


@own_subclass
def test_facts_read_as_the_dict_of_them() -> None:
    facts = Counted(FACTS)
    assert isinstance(facts, Mapping)
    other = {**FACTS, "level": 4}
    for left, right in ((facts, FACTS), (FACTS, facts)):  # either side first
        assert operator.eq(left, right) and not operator.ne(left, right)
    for left, right in ((facts, other), (other, facts)):
        assert operator.ne(left, right) and not operator.eq(left, right)
    assert facts == Counted(FACTS)
    assert (facts == [1]) is False
    assert list(facts.keys()) == list(FACTS.keys())
    assert list(facts.items()) == list(FACTS.items())
    assert list(facts.values()) == list(FACTS.values())
    assert dict(facts) == {**facts} == FACTS
    assert repr(facts) == repr(FACTS)
    with pytest.raises(KeyError):
        facts["nothing"]
    with pytest.raises(TypeError):
        hash(facts)  # a mapping, unhashable as a dict is


@own_subclass
def test_facts_pickle_and_copy_as_the_dict_of_them() -> None:
    facts = Counted(FACTS)
    for made in (pickle.loads(pickle.dumps(facts)), copy.copy(facts), copy.deepcopy(facts)):
        assert type(made) is dict and made == FACTS


@own_subclass
def test_facts_go_to_json_and_to_the_wire_as_a_dict() -> None:
    facts = Counted(FACTS)
    assert json.loads(json.dumps(_jsonable(facts))) == json.loads(json.dumps(FACTS))
    assert struct(facts)["level"] == 3


@own_subclass
def test_a_subclass_that_does_not_say_how_its_facts_are_made_is_named() -> None:
    class Silent(FactsOnDemand):
        pass

    with pytest.raises(NotImplementedError, match="Silent does not say"):
        Silent()["level"]


def test_no_facts_is_an_empty_mapping_that_pickles() -> None:
    assert NO_FACTS == {} and len(NO_FACTS) == 0 and isinstance(NO_FACTS, Mapping)
    assert pickle.loads(pickle.dumps(NO_FACTS)) == {}
    observation = Observation("guandan", 0, "play", 0, (), (), ())
    assert observation.public is NO_FACTS and observation.private is NO_FACTS
    assert pickle.loads(pickle.dumps(observation)) == observation


def test_a_shengji_observation_makes_its_public_facts_when_first_read() -> None:
    game = make("shengji-2")
    state = game.new_deal(match_setups(game, [7])[0], seed=7)
    while state.phase != "play" or len(state.observe(0).public["trick"]["plays"]) != 2:
        state.apply(state.legal_actions()[0])
    observation = state.observe(1)
    public = observation.public
    assert isinstance(public, FactsOnDemand) and public._facts is None
    state.apply(state.legal_actions()[0])  # the trick goes on: what was seen stays
    assert public._facts is None
    assert len(public["trick"]["plays"]) == 2 and public._facts is not None
    assert public == dict(public) == pickle.loads(pickle.dumps(observation)).public
    assert observation.private is NO_FACTS or observation.private == {}


EVENTS = [Event("deal"), Event("play", 0, (1, 2)), Event("pass", 1), Event("play", 2, (3,))]


def test_events_so_far_read_as_the_tuple_of_them_whatever_comes_after() -> None:
    events = list(EVENTS)
    seen = SoFar(events, 3)
    events.append(Event("trick", 2))  # the deal goes on: what was seen stays
    expected = tuple(EVENTS[:3])
    assert isinstance(seen, Sequence) and len(seen) == 3
    assert seen[0] == EVENTS[0] and seen[-1] == EVENTS[2] and seen[-3] == EVENTS[0]
    for index in (3, -4):
        with pytest.raises(IndexError):
            seen[index]
    assert seen[1:] == expected[1:] and type(seen[1:]) is tuple and seen[::-1] == expected[::-1]
    assert list(seen) == list(expected) and list(reversed(seen)) == list(reversed(expected))
    assert EVENTS[1] in seen and EVENTS[3] not in seen
    assert seen.index(EVENTS[2]) == 2 and seen.count(EVENTS[1]) == 1
    with pytest.raises(ValueError):
        seen.index(EVENTS[3])
    assert operator.add(seen, (EVENTS[3],)) == tuple(EVENTS)  # + as the tuple's
    assert operator.add((EVENTS[3],), seen) == (EVENTS[3], *expected)
    assert hash(seen) == hash(expected) and repr(seen) == repr(expected)


def test_events_so_far_equal_any_sequence_of_the_same_events() -> None:
    events = list(EVENTS)
    seen = SoFar(events, 2)
    for same in (tuple(EVENTS[:2]), list(EVENTS[:2]), SoFar(events, 2), SoFar(list(EVENTS), 2)):
        assert operator.eq(seen, same) and operator.eq(same, seen) and not operator.ne(seen, same)
    for other in (tuple(EVENTS[:3]), (), SoFar(events, 3), SoFar(EVENTS[1:], 2)):
        assert operator.ne(seen, other) and operator.ne(other, seen)
    assert (seen == 2) is False


def test_events_so_far_pickle_and_copy_as_the_tuple_of_them() -> None:
    seen = SoFar(list(EVENTS), 3)
    for made in (pickle.loads(pickle.dumps(seen)), copy.copy(seen), copy.deepcopy(seen)):
        assert type(made) is tuple and made == tuple(EVENTS[:3])


def test_every_game_shows_its_events_so_far() -> None:
    for name in ("guandan", "shengji-1", "sanfu"):
        game = make(name)
        state = game.new_deal(match_setups(game, [3])[0], seed=3)
        observation = state.observe(0)
        count = len(state.events)
        state.apply(state.legal_actions()[0])
        assert isinstance(observation.events, SoFar) and len(observation.events) == count
        assert observation.events == tuple(state.events)[:count]
        assert observation.to_dict()["events"] == [e.to_dict() for e in state.events[:count]]
