"""An observation's facts made on demand (arena/games/facts.py) behave as the read-only
dict of them: made once, when first read, and equal, pickled and copied as that dict.

The tests with a subclass of their own run on the interpreted engines (a compiled class
takes no interpreted subclass); a Shengji observation's facts are checked on both.
"""

from __future__ import annotations

import copy
import json
import operator
import pickle
from collections.abc import Mapping
from typing import Any

import pytest

from arena.commands.bench_deals import match_setups
from arena.games import make
from arena.games.base import Observation, _jsonable
from arena.games.facts import NO_FACTS, FactsOnDemand
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
