"""Replaying records: every action legal, every result the same, and the record whole.

A record is checked as a whole (the deals follow each other from the match seed and
the first setup, the clock's marks stand where a clock could make them) and a stored
match's record against the store. A property test mutates real records of every
variant in every way the record could be tampered with; each mutation is refused.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import bots
from arena.chance import derive_seed
from arena.errors import ArenaError, ConfigError
from arena.games import make, names
from arena.games.guandan import GuandanSetup
from arena.match import (
    AUTO_MARK,
    AUTO_PLAYS_TO_FLEE,
    Clock,
    FirstLegal,
    play_deal,
    play_match,
)
from arena.record import DealRecord, MatchRecord, match_summary, outcome_to_dict
from arena.replay import ReplayError, replay_entry, start_deal, verify, verify_stored
from arena.store import StoredMatch

GAME = make("guandan")
VARIANTS = names()


def recorded(
    variant: str = "guandan", seed: int = 17, max_deals: int | None = 3, clock: Clock | None = None
) -> dict[str, Any]:
    policies = [bots.make("random", derive_seed(seed, "bot", s)) for s in range(4)]
    names_ = ["random", "random", "random", "random"]
    result = play_match(
        make(variant), policies, seed=seed, players=names_, max_deals=max_deals, clock=clock
    )
    return json.loads(result.record.to_json())


@pytest.fixture(scope="module")
def record_data() -> dict[str, Any]:
    return recorded()


@pytest.fixture
def data(record_data: dict[str, Any]) -> dict[str, Any]:
    """A fresh copy of a three-deal record, to tamper with."""
    return copy.deepcopy(record_data)


def check(data: dict[str, Any]) -> Any:
    return verify(MatchRecord.from_dict(data))


def stored(data: dict[str, Any], **changes: Any) -> StoredMatch:
    """The stored match whose record ``data`` is (``changes``: other stored fields)."""
    fields: dict[str, Any] = {
        "id": "m1",
        "tournament_id": None,
        "variant": data["game"],
        "options": dict(data["options"]),
        "seed": data["seed"],
        "seating": tuple(data["players"]),
        "outcome": {
            "winner": data["result"]["match_winner"],
            "totals": data["result"]["totals"],
        },
        "record": data,
        "deals": len(data["deals"]),
        "decisions": sum(len(d["actions"]) for d in data["deals"]),
    }
    fields.update(changes)
    return StoredMatch(**fields)


# ------------------------------------------------------------------ good records


def test_verify_reports_deals_and_actions(data: dict[str, Any]) -> None:
    report = check(data)
    assert report.deals == 3 == len(report.outcomes)
    assert report.actions == sum(len(d["actions"]) for d in data["deals"])
    assert report.result["match_winner"] is None


def test_complete_match_verifies() -> None:
    data = recorded(seed=2, max_deals=None)
    assert data["result"]["complete"] is True
    report = check(data)
    assert report.result["match_winner"] == data["result"]["match_winner"] in (0, 1)


@pytest.mark.parametrize("clock", [None, Clock(limit=30.0, bank=60.0)])
@pytest.mark.parametrize("variant", VARIANTS)
def test_unmodified_records_of_every_variant_replay(variant: str, clock: Clock | None) -> None:
    data = recorded(variant, seed=4, clock=clock)
    assert data["clock"] == (
        None if clock is None else {"decision_seconds": 30.0, "time_bank_seconds": 60.0}
    )
    assert check(data).deals == 3
    record, report = verify_stored(stored(data))
    assert report.deals == 3 and record.players == data["players"]


def test_a_composed_record_gives_hands_and_may_start_anywhere() -> None:
    """Without a match seed a record is a composed position: every deal gives its hands,
    and its first deal may start from any setup."""
    dealt = GAME.new_deal(GAME.first_setup(), seed=99)
    setup = GuandanSetup(leader=2)
    state = GAME.new_deal(setup, hands=[dealt.hand(s) for s in range(4)])
    actions = play_deal(state, [bots.make("first")] * 4)
    hands = [" ".join(str(c) for c in _texts(dealt.hand(s))) for s in range(4)]
    outcome = state.outcome()
    deal = DealRecord(GAME.setup_to_dict(setup), actions, None, hands, outcome_to_dict(outcome))
    record = MatchRecord("guandan", dict(GAME.options), None, ["first"] * 4, [deal])
    record.result = match_summary([outcome])
    data = json.loads(record.to_json())
    assert check(data).actions == len(actions)
    del data["deals"][0]["hands"]
    with pytest.raises(ReplayError, match=r"^deal 1: a record without a match seed gives"):
        check(data)


def _texts(cards: tuple[int, ...]) -> list[str]:
    from arena.cards import format_card

    return [format_card(c) for c in cards]


# ------------------------------------------------------------- tampered records


def first_choice(deal: dict[str, Any]) -> tuple[int, str]:
    """The first action of a deal that had an alternative, and that alternative."""
    state = GAME.new_deal(GAME.setup_from_dict(deal["setup"]), seed=deal["seed"])
    for index, text in enumerate(deal["actions"]):
        action = state.parse_action(text)
        others = [a for a in state.legal_actions() if a != action]
        if others:
            return index, str(others[-1])
        state.apply(action)
    raise AssertionError("a deal without a choice")


def test_illegal_action_is_reported_with_deal_and_action(data: dict[str, Any]) -> None:
    data["deals"][1]["actions"][4] = "play BJ BJ BJ"
    with pytest.raises(ReplayError, match=r"^deal 2, action 5: .*'play BJ BJ BJ'"):
        check(data)


def test_another_legal_action_breaks_the_replay(data: dict[str, Any]) -> None:
    deal = data["deals"][0]
    index, other = first_choice(deal)
    deal["actions"][index] = other
    with pytest.raises(ReplayError, match=r"^deal 1[,:]"):
        check(data)


def test_unreadable_action_is_reported(data: dict[str, Any]) -> None:
    data["deals"][2]["actions"][0] = "play 3s Xx"
    with pytest.raises(ReplayError, match=r"^deal 3, action 1: .*'Xx'"):
        check(data)


@pytest.mark.parametrize("entry", ["!", "!fled", "!fled 4", "!fled ３", "!fled 1 2", "!pause"])
def test_an_unknown_mark_is_reported(data: dict[str, Any], entry: str) -> None:
    data["deals"][0]["actions"][3] = entry
    with pytest.raises(ReplayError, match=r"^deal 1, action 4: bad record entry"):
        check(data)


def test_changed_deal_result_is_reported(data: dict[str, Any]) -> None:
    data["deals"][1]["result"]["scores"] = [9, -9, 9, -9]
    with pytest.raises(ReplayError, match=r"^deal 2: result differs"):
        check(data)


def test_changed_summary_is_reported(data: dict[str, Any]) -> None:
    data["deals"][0]["result"]["summary"] += "!"
    with pytest.raises(ReplayError, match=r"^deal 1: result differs"):
        check(data)


def test_truncated_actions_are_reported(data: dict[str, Any]) -> None:
    del data["deals"][2]["actions"][-3:]
    with pytest.raises(ReplayError, match=r"^deal 3: the recorded actions end before the deal"):
        check(data)


def test_actions_after_the_end_are_reported(data: dict[str, Any]) -> None:
    actions = data["deals"][0]["actions"]
    actions.append("pass")
    with pytest.raises(ReplayError, match=rf"^deal 1, action {len(actions)} 'pass': .*over"):
        check(data)


def test_changed_deal_seed_is_reported(data: dict[str, Any]) -> None:
    data["deals"][0]["seed"] += 1
    with pytest.raises(ReplayError, match=r"^deal 1: seed \d+ is not the one match seed 17 gives"):
        check(data)


def test_changed_match_seed_is_reported(data: dict[str, Any]) -> None:
    data["seed"] = 18
    with pytest.raises(ReplayError, match=r"^deal 1: seed \d+ is not the one match seed 18 gives"):
        check(data)


def test_missing_deal_seed_is_reported(data: dict[str, Any]) -> None:
    del data["deals"][1]["seed"]
    with pytest.raises(ReplayError, match=r"^deal 2: seed None is not the one"):
        check(data)


def test_hands_in_a_seeded_match_are_reported(data: dict[str, Any]) -> None:
    data["deals"][1]["hands"] = ["3s", "4s", "5s", "6s"]
    with pytest.raises(ReplayError, match=r"^deal 2: gives hands, but the match seed shuffles"):
        check(data)


def test_changed_setup_is_reported(data: dict[str, Any]) -> None:
    data["deals"][1]["setup"]["levels"] = [5, 5]
    with pytest.raises(ReplayError, match=r"^deal 2: setup .* is not what deal 1 led to"):
        check(data)


def test_a_setup_field_added_is_reported(data: dict[str, Any]) -> None:
    data["deals"][1]["setup"]["bonus"] = 1
    with pytest.raises(ReplayError, match=r"^deal 2: setup .* is not what deal 1 led to"):
        check(data)


def test_a_first_setup_other_than_the_games_is_reported(data: dict[str, Any]) -> None:
    data["deals"][0]["setup"]["levels"] = [3, 0]
    with pytest.raises(ReplayError, match=r"^deal 1: setup .* is not how a match starts"):
        check(data)


def test_an_impossible_setup_is_reported(data: dict[str, Any]) -> None:
    data["deals"][1]["setup"]["levels"] = [20, 0]
    with pytest.raises(ReplayError, match=r"^deal 2: cannot start the deal: .*levels"):
        check(data)


def test_missing_deal_is_reported(data: dict[str, Any]) -> None:
    del data["deals"][1]
    with pytest.raises(ReplayError, match=r"^deal 2: seed"):
        check(data)


def test_missing_first_deal_is_reported(data: dict[str, Any]) -> None:
    del data["deals"][0]
    with pytest.raises(ReplayError, match=r"^deal 1: seed"):
        check(data)


def test_an_empty_record_is_reported(data: dict[str, Any]) -> None:
    data["deals"] = []
    data["result"] = match_summary([])
    with pytest.raises(ReplayError, match="the record has no deal"):
        check(data)


def test_a_match_cut_short_before_its_first_deal_ended_replays(data: dict[str, Any]) -> None:
    data["deals"] = []
    data["result"] = match_summary([])
    data["aborted"] = "shutdown"
    assert check(data).deals == 0


def test_a_match_said_cut_short_after_it_ended_is_reported() -> None:
    data = recorded(seed=2, max_deals=None)
    data["aborted"] = "cancelled"
    with pytest.raises(ReplayError, match=r"cut short \(cancelled\), but deal \d+ ended it"):
        check(data)


def test_deal_after_the_match_ended_is_reported() -> None:
    data = recorded(seed=2, max_deals=None)
    data["deals"].append(copy.deepcopy(data["deals"][-1]))
    with pytest.raises(ReplayError, match=rf"^deal {len(data['deals']) - 1}: the match ended here"):
        check(data)


def test_changed_match_totals_are_reported(data: dict[str, Any]) -> None:
    data["result"]["totals"] = [99, -99, 99, -99]
    with pytest.raises(ReplayError, match="totals"):
        check(data)


def test_changed_match_winner_is_reported(data: dict[str, Any]) -> None:
    data["result"]["match_winner"] = 1
    data["result"]["complete"] = True
    with pytest.raises(ReplayError, match="winner"):
        check(data)


def test_unknown_game_is_reported(data: dict[str, Any]) -> None:
    data["game"] = "mahjong"
    with pytest.raises(ConfigError, match="unknown game 'mahjong'"):
        check(data)


def test_unknown_option_is_reported(data: dict[str, Any]) -> None:
    data["options"] = {"jokers": 4}
    with pytest.raises(ConfigError, match="jokers"):
        check(data)


# ---------------------------------------------------------------- the clock's marks

CLOCK = {"decision_seconds": 30.0, "time_bank_seconds": 0.0}


def automatic_play(deal: dict[str, Any], index: int) -> str:
    """What automatic play chooses before entry ``index`` (from 0) of a deal."""
    state = start_deal(GAME, DealRecord.from_checked({"hands": None, **deal}))
    for text in deal["actions"][:index]:
        replay_entry(state, text)
    return str(FirstLegal().act(state.observe(state.to_act)))


def test_automatic_play_without_a_clock_is_reported(data: dict[str, Any]) -> None:
    deal = data["deals"][0]
    deal["actions"].insert(0, AUTO_MARK)
    with pytest.raises(ReplayError, match=r"^deal 1, action 1: '!auto' in a record without a"):
        check(data)


def test_automatic_play_with_a_clock_replays(data: dict[str, Any]) -> None:
    """A mark before the very action automatic play chooses is what a late decision
    leaves in a record with a clock."""
    data["clock"] = CLOCK
    deal = data["deals"][0]
    index = next(i for i in range(10) if deal["actions"][i] == automatic_play(deal, i))
    deal["actions"].insert(index, AUTO_MARK)
    check(data)


def test_automatic_play_must_be_the_automatic_choice(data: dict[str, Any]) -> None:
    data["clock"] = CLOCK
    deal = data["deals"][0]
    index = next(i for i in range(50) if deal["actions"][i] != automatic_play(deal, i))
    chosen = automatic_play(deal, index)
    deal["actions"].insert(index, AUTO_MARK)
    with pytest.raises(ReplayError, match=rf"^deal 1, action {index + 2}: .*chooses '{chosen}'"):
        check(data)


def test_a_mark_without_its_automatic_play_is_reported(data: dict[str, Any]) -> None:
    data["clock"] = CLOCK
    data["deals"][0]["actions"].append(AUTO_MARK)
    with pytest.raises(ReplayError, match=r"^deal 1, action \d+ '!auto': the deal is already"):
        check(data)
    data["deals"][0]["actions"][-2:] = [AUTO_MARK]
    with pytest.raises(ReplayError, match=r"^deal 1: ends with '!auto', without the automatic"):
        check(data)


def test_sf12_five_automatic_plays_in_a_row_are_followed_by_fleeing() -> None:
    """SF-12 (系統幫助出牌連續5次視為逃跑): right after a seat's fifth automatic play in a
    row the seat has fled: any other entry there is refused (the flight itself replays in
    the records of ``test_match_clock`` and ``test_replay_cli``)."""
    data = recorded(clock=Clock(limit=30.0), max_deals=1)
    state = start_deal(GAME, MatchRecord.from_dict(data).deals[0])
    entries: list[str] = []
    seat = state.to_act
    automatic = 0
    while automatic < AUTO_PLAYS_TO_FLEE:  # the others' decisions the first legal action
        choice = str(FirstLegal().act(state.observe(state.to_act)))
        if state.to_act == seat:
            entries.append(AUTO_MARK)
            replay_entry(state, AUTO_MARK)
            automatic += 1
        entries.append(choice)
        replay_entry(state, choice)
    data["deals"][0]["actions"] = entries
    next_entry = str(FirstLegal().act(state.observe(state.to_act)))
    data["deals"][0]["actions"].append(next_entry)
    with pytest.raises(ReplayError, match=rf"so '!fled {seat}' comes here \(SF-12\)"):
        check(data)
    data["deals"][0]["actions"][-1] = AUTO_MARK  # nor a sixth automatic play
    with pytest.raises(ReplayError, match=rf"so '!fled {seat}' comes here \(SF-12\)"):
        check(data)


def test_fleeing_out_of_turn_is_reported(data: dict[str, Any]) -> None:
    deal = data["deals"][0]
    state = start_deal(GAME, MatchRecord.from_dict(data).deals[0])
    other = (state.to_act + 1) % 4
    deal["actions"][0] = f"!fled {other}"
    with pytest.raises(ReplayError, match=rf"^deal 1, action 1: '!fled {other}': only the seat"):
        check(data)


def test_fleeing_ends_the_deal(data: dict[str, Any]) -> None:
    state = start_deal(GAME, MatchRecord.from_dict(data).deals[0])
    data["deals"][0]["actions"].insert(0, f"!fled {state.to_act}")
    with pytest.raises(ReplayError, match=r"^deal 1, action 2 .*: the deal is already over"):
        check(data)


# ------------------------------------------------------------------ stored matches


@pytest.mark.parametrize(
    ("changes", "reason"),
    [
        ({"seating": ("random", "random", "first", "random")}, "players .* are not the stored"),
        ({"variant": "shengji-2"}, "the record's game 'guandan' is not 'shengji-2'"),
        ({"options": {"a_fail_limit": 3}}, "options"),
        ({"seed": 99}, "the record's seed 17 is not 99"),
        ({"outcome": {"winner": 1, "totals": [0, 0, 0, 0]}}, "match_winner None is not"),
        ({"outcome": {"aborted": "shutdown"}}, "cut short"),
        ({"deals": 2}, "the store counts"),
        ({"decisions": 5}, "the store counts"),
        ({"outcome": [1]}, "the store's options or outcome is not a JSON object"),
        ({"options": "x"}, "the store's options or outcome is not a JSON object"),
    ],
)
def test_a_stored_record_must_be_the_stored_match(
    data: dict[str, Any], changes: dict[str, Any], reason: str
) -> None:
    with pytest.raises(ArenaError, match=rf"^stored match 'm1': .*{reason}"):
        verify_stored(stored(data, **changes))


def test_a_malformed_stored_record_is_named(data: dict[str, Any]) -> None:
    data["seed"] = float("nan")
    with pytest.raises(ArenaError, match=r"^stored match 'm1': malformed record: seed: must be"):
        verify_stored(stored(data, seed=17))


# ------------------------------------------------------ every mutation is refused

Mutation = Callable[[dict[str, Any], st.DataObject], None]


def _index(draw: st.DataObject, items: list[Any]) -> int:
    return draw.draw(st.integers(0, len(items) - 1))


def drop_deal(data: dict[str, Any], draw: st.DataObject) -> None:
    del data["deals"][_index(draw, data["deals"])]


def duplicate_deal(data: dict[str, Any], draw: st.DataObject) -> None:
    deals = data["deals"]
    at = _index(draw, deals)
    deals.insert(at, copy.deepcopy(deals[at]))


def reorder_deals(data: dict[str, Any], draw: st.DataObject) -> None:
    deals = data["deals"]
    order = draw.draw(st.permutations(range(len(deals))).filter(lambda p: list(p) != sorted(p)))
    data["deals"] = [deals[i] for i in order]


def change_match_seed(data: dict[str, Any], draw: st.DataObject) -> None:
    data["seed"] = draw.draw(st.integers(0, 2**63 - 1).filter(lambda s: s != data["seed"]))


def change_deal_seed(data: dict[str, Any], draw: st.DataObject) -> None:
    deal = data["deals"][_index(draw, data["deals"])]
    deal["seed"] = draw.draw(st.integers(0, 2**63 - 1).filter(lambda s: s != deal["seed"]))


def change_action(data: dict[str, Any], draw: st.DataObject) -> None:
    """Another entry in place of one: an action of elsewhere in the match that the rules
    do not allow there, or a mark. (Another legal action is refused only when it changes
    what follows: a sanfu deal, say, can often be played otherwise to the same result.)"""
    deal = data["deals"][_index(draw, data["deals"])]
    actions = deal["actions"]
    at = _index(draw, actions)
    elsewhere = sorted({a for d in data["deals"] for a in d["actions"]} - {actions[at]})
    entry = draw.draw(st.sampled_from([*elsewhere, "!fled 0", "!fled 3", "play"]))
    assume(entry.startswith("!") or not legal_here(data, deal, at, entry))
    actions[at] = entry


def legal_here(data: dict[str, Any], deal: dict[str, Any], at: int, entry: str) -> bool:
    """Whether the rules allow ``entry`` in place of the deal's entry ``at``."""
    game = make(data["game"], **data["options"])
    state = start_deal(game, DealRecord.from_checked({"hands": None, **deal}))
    for text in deal["actions"][:at]:
        replay_entry(state, text)
    try:
        replay_entry(state.clone(), entry)
    except ArenaError:
        return False
    return True


def change_setup(data: dict[str, Any], draw: st.DataObject) -> None:
    setup = data["deals"][_index(draw, data["deals"])]["setup"]
    key = draw.draw(st.sampled_from(sorted(setup)))
    value = setup[key]
    if isinstance(value, bool):
        setup[key] = not value
    elif isinstance(value, int):
        setup[key] = value + draw.draw(st.sampled_from([-1, 1, 2]))
    elif isinstance(value, list) and value:
        value[_index(draw, value)] += 1
    else:
        setup[key] = draw.draw(st.sampled_from([1, [0, 1], None]).filter(lambda v: v != value))


def add_automatic_play(data: dict[str, Any], draw: st.DataObject) -> None:
    deal = data["deals"][_index(draw, data["deals"])]
    deal["actions"].insert(draw.draw(st.integers(0, len(deal["actions"]))), AUTO_MARK)


def change_player(data: dict[str, Any], draw: st.DataObject) -> None:
    players = data["players"]
    players[_index(draw, players)] = draw.draw(st.sampled_from(["first", "heuristic", "x"]))


MUTATIONS: list[Mutation] = [
    drop_deal,
    duplicate_deal,
    reorder_deals,
    change_match_seed,
    change_deal_seed,
    change_action,
    change_setup,
    add_automatic_play,
]


@pytest.fixture(scope="module")
def records() -> dict[str, dict[str, Any]]:
    """A three-deal record of each variant (played without a clock)."""
    return {variant: recorded(variant, seed=11) for variant in VARIANTS}


def refused(data: dict[str, Any], *, store: dict[str, Any] | None = None) -> bool:
    try:
        if store is None:
            check(data)
        else:
            verify_stored(stored(store, record=data))
    except ArenaError:
        return True
    return False


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(variant=st.sampled_from(VARIANTS), mutate=st.sampled_from(MUTATIONS), draw=st.data())
def test_every_mutation_of_a_record_is_refused(
    records: dict[str, dict[str, Any]], variant: str, mutate: Mutation, draw: st.DataObject
) -> None:
    data = copy.deepcopy(records[variant])
    mutate(data, draw)
    assert refused(data), f"{mutate.__name__} of a {variant} record replays"


@settings(
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(
    variant=st.sampled_from(VARIANTS),
    mutate=st.sampled_from([*MUTATIONS, change_player]),
    draw=st.data(),
)
def test_every_mutation_of_a_stored_record_is_refused(
    records: dict[str, dict[str, Any]], variant: str, mutate: Mutation, draw: st.DataObject
) -> None:
    original = records[variant]
    data = copy.deepcopy(original)
    mutate(data, draw)
    assert refused(data, store=original), f"{mutate.__name__} of a stored {variant} record"
