"""Which rules a finished deal used (arena.games.usage): deals where a rule is known to
apply or not, and a property: the uses agree with recounts from the deal's events."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bots
from arena.cards import RANK_ACE, SMALL_JOKER, parse_cards
from arena.chance import derive_seed
from arena.errors import ConfigError
from arena.games import PASS, Action, make, team_of
from arena.games.base import State
from arena.games.guandan import GuandanSetup, GuandanState
from arena.games.guandan.combos import wild_card
from arena.games.sanfu import SanfuState
from arena.games.shengji import ShengjiSetup, ShengjiState
from arena.games.shengji.order import TRUMP, TrumpOrder
from arena.games.shengji.usage import _cards_used
from arena.games.usage import OPTION_USES, rule_key, rules_applied
from arena.match import deal_seed, play_deal
from arena.sim.balance import VariantSpec, plan_jobs, play_balance_batch, report

Chooser = Callable[[State], Action | None]
"""A scripted decision, or ``None`` to let a seeded random choice decide."""


def play_out(state: State, seed: int, choose: Chooser | None = None) -> State:
    """Play the deal to its end: ``choose`` first, else a random legal action."""
    rng = random.Random(seed)
    while not state.is_terminal():
        action = choose(state) if choose is not None else None
        if action is None:
            legal = state.legal_actions()
            action = legal[rng.randrange(len(legal))]
        state.apply(action)
    return state


def events_of(state: State, kind: str) -> list[Any]:
    return [e for e in state.events if e.kind == kind]


# ================================================================== Shengji


def _leading(state: State) -> bool:
    return state.phase == "play" and state.observe(state.to_act).public["trick"]["plays"] == []


def failing_throw(state: State) -> Action | None:
    """SJ-17: at a lead, two singles of a plain suit that another hand can beat."""
    assert isinstance(state, ShengjiState)
    if not _leading(state) or events_of(state, "throw_failed"):
        return None
    order = state.order
    assert order is not None
    seat = state.to_act
    by_suit: dict[int, list[int]] = {}
    for card in set(state.hand(seat)):
        if order.suits[card] != TRUMP:
            by_suit.setdefault(order.suits[card], []).append(card)
    for suit, cards in sorted(by_suit.items()):
        ranks = sorted(cards, key=lambda c: order.orders[c])
        if len(ranks) < 2:
            continue
        low = ranks[:2]
        others = [c for s in range(4) if s != seat for c in state.hand(s)]
        if any(order.suits[c] == suit and order.orders[c] > order.orders[low[1]] for c in others):
            return Action.make("play", low)
    return None


def singles_only(state: State) -> Action | None:
    """Lead one card at a time: never a throw (SJ-17), never a set."""
    if not _leading(state):
        return None
    return Action("play", (min(state.hand(state.to_act)),))


def never_declare(state: State) -> Action | None:
    return PASS if state.phase == "declare" else None


def test_sj17_failed_throw_is_the_use_throw_penalty_acts_on() -> None:
    for penalty in (0, 10):
        state = play_out(
            make("shengji-2", throw_penalty=penalty).new_deal(seed=11), 1, failing_throw
        )
        assert events_of(state, "throw_failed")
        used = rules_applied(state)
        assert {"SJ-17", "SJ-17/failed"} <= used
        assert ("SJ-17/penalty" in used) == (penalty > 0)
    assert OPTION_USES["shengji"]["throw_penalty"] == "SJ-17/failed"


def test_sj17_no_throw_when_every_lead_is_a_single() -> None:
    state = play_out(make("shengji-2").new_deal(seed=11), 1, singles_only)
    used = rules_applied(state)
    assert not {"SJ-17", "SJ-17/failed", "SJ-17/standing", "SJ-14", "SJ-15"} & used


@pytest.mark.parametrize("option", ["notrump", "flip_kitty"])
def test_sj08_nobody_declared_is_the_use_no_declaration_acts_on(option: str) -> None:
    state = play_out(make("shengji-2", no_declaration=option).new_deal(seed=3), 2, never_declare)
    assert isinstance(state, ShengjiState)
    used = rules_applied(state)
    assert {"SJ-8/undeclared", f"SJ-8/{option}"} <= used
    assert "SJ-8/declared" not in used and "SJ-11" not in used
    assert ("SJ-5" in used) == (state.order is not None and state.order.trump is None)
    assert OPTION_USES["shengji"]["no_declaration"] == "SJ-8/undeclared"


def test_sj10_four_decks_undeclared_is_spades_not_the_option() -> None:
    state = play_out(make("shengji-4").new_deal(seed=3), 2, never_declare)
    used = rules_applied(state)
    assert {"SJ-10", "SJ-10/undeclared", "SJ-3", "SJ-27", "SJ-30"} <= used
    assert not {"SJ-8", "SJ-8/undeclared", "SJ-13", "SJ-25"} & used


def test_sj02_constant_twos_use_is_a_two_trump_only_by_the_option() -> None:
    cards = parse_cards
    hearts_10 = TrumpOrder(8, 1, constant_twos=True)  # playing 10, hearts trump

    def used(order: TrumpOrder, text: str) -> set[str]:
        found: set[str] = set()
        _cards_used(tuple(sorted(cards(text))), order, found)
        return found

    assert used(hearts_10, "2s") == {"SJ-2/constant_twos"}
    assert used(hearts_10, "2h") == set()  # a trump-suit 2 is a trump anyway
    assert used(TrumpOrder(8, 1), "2s") == set()  # the option off
    assert used(TrumpOrder(0, None, constant_twos=True), "2s") == set()  # 2 is the level
    assert used(TrumpOrder(8, None, constant_twos=True), "2d") == {"SJ-2/constant_twos"}


def test_sj31_a_pair_of_one_colour_two_suits() -> None:
    order = TrumpOrder(8, 0, two_colour=True)

    def used(text: str) -> set[str]:
        found: set[str] = set()
        _cards_used(tuple(sorted(parse_cards(text))), order, found)
        return found

    assert used("Kh Kd") == {"SJ-31/pair"}
    assert used("Ks Kc") == {"SJ-31/pair"}
    assert used("Kh Ks") == set()
    assert used("Ks Kh Kc") == {"SJ-31/pair"}  # Ks Kc, with the Kh between them
    assert used("Ks Kh 9c") == set()
    assert used("Kh") == set()


def test_sj24_match_end_use_when_the_two_match_end_rules_disagree() -> None:
    """SJ-24: declarers at A who win the deal win the match under pass_a only (reach_a:
    their level reached A before): the deal used match_end; a take-over does not."""
    seen = set()
    for seed in range(12):
        setup = ShengjiSetup(levels=(RANK_ACE, 0), dealer=0, deal_index=3)
        state = play_out(make("shengji-2").new_deal(setup, seed=seed), seed)
        details = state.outcome().details
        used = rules_applied(state)
        declarers_won = not details["take_over"]
        assert ("SJ-24/match_end" in used) == declarers_won
        assert ("SJ-24/match_won" in used) == declarers_won
        assert "SJ-12/first_deal" not in used
        seen.add(declarers_won)
    assert seen == {True, False}


def test_sj25_kitty_multiplied_iff_the_defenders_won_the_last_trick() -> None:
    seen = set()
    for seed in range(10):
        state = play_out(make("shengji-2").new_deal(seed=seed), seed)
        assert isinstance(state, ShengjiState)
        last = events_of(state, "trick")[-1].seat
        defenders = team_of(last) != state.declarer_team
        assert ("SJ-25" in rules_applied(state)) == defenders
        seen.add(defenders)
    assert seen == {True, False}


def test_an_unfinished_deal_is_refused() -> None:
    with pytest.raises(ValueError, match="finished deal"):
        rules_applied(make("shengji-2").new_deal(seed=1))


def test_a_game_without_rules_is_refused() -> None:
    with pytest.raises(ConfigError, match="no rule usage"):
        rules_applied(object())  # type: ignore[arg-type]


def test_rule_key_sorts_ids_in_rule_order() -> None:
    ids = ["SJ-17/failed", "SJ-10", "SJ-2", "SJ-17", "GD-6/bomb", "GD-14"]
    assert sorted(ids, key=rule_key) == [
        "GD-6/bomb",
        "GD-14",
        "SJ-2",
        "SJ-10",
        "SJ-17",
        "SJ-17/failed",
    ]


# ================================================================== Guandan

GUANDAN = make("guandan")
GUANDAN_FAIL = make("guandan", a_fail_limit=1)


def guandan_deal(
    hands: Sequence[str],
    *,
    order: Sequence[int] = (),
    level: int = 0,
    leader: int = 0,
    game: Any = GUANDAN,
    levels: tuple[int, int] | None = None,
) -> GuandanState:
    team = team_of(order[0]) if order else 0
    both = [0, 0]
    both[team] = level
    setup = GuandanSetup(
        levels=levels or (both[0], both[1]),
        level_team=team,
        previous_order=tuple(order),
        leader=None if order else leader,
    )
    state = game.new_deal(setup, hands=list(hands))
    assert isinstance(state, GuandanState)
    return state


def scripted(*moves: str) -> Chooser:
    """Each move as written, in order, then random play."""
    queue = [Action.from_str(m) for m in moves]

    def choose(state: State) -> Action | None:
        return queue.pop(0) if queue else None

    return choose


def test_gd15_refused_single_tribute_and_gd13_not_paid() -> None:
    state = play_out(guandan_deal(["3s 4s", "5d 6d", "7d 8d", "BJ BJ 9c"], order=(0, 1, 2, 3)), 1)
    used = rules_applied(state)
    assert "GD-15" in used and "GD-15/double" not in used
    assert not {"GD-13", "GD-14", "GD-3"} & used


def test_gd15_refused_double_tribute() -> None:
    state = play_out(guandan_deal(["3s 4s", "BJ 6s", "8s 9s", "BJ 7d"], order=(0, 2, 1, 3)), 1)
    assert {"GD-15", "GD-15/double"} <= rules_applied(state)


def test_gd14_double_tribute_and_equal_cards() -> None:
    unequal = play_out(guandan_deal(["3s 4s", "Ad 6s", "8s 9s", "Ks 7d"], order=(0, 2, 1, 3)), 1)
    equal = play_out(guandan_deal(["3s 4s", "Ad 6s", "8s 9s", "As 7d"], order=(0, 2, 1, 3)), 1)
    assert {"GD-13", "GD-14"} <= rules_applied(unequal)
    assert "GD-14/equal" not in rules_applied(unequal)
    assert {"GD-14", "GD-14/equal"} <= rules_applied(equal)


def test_gd13_single_tribute_between_partners() -> None:
    """The previous first player's partner finished last: tribute goes between partners."""
    state = play_out(guandan_deal(["3s 4s", "5d 6d", "Ad 8d", "9c Tc"], order=(0, 1, 3, 2)), 1)
    used = rules_applied(state)
    assert {"GD-13", "GD-13/partner"} <= used and "GD-14" not in used
    other = play_out(guandan_deal(["3s 4s", "5d 6d", "7d 8d", "Ac Tc"], order=(0, 1, 2, 3)), 1)
    assert "GD-13" in rules_applied(other) and "GD-13/partner" not in rules_applied(other)


@pytest.mark.parametrize(
    ("play", "uses", "not_uses"),
    [
        ("play 3s 3d 3c 2h", {"GD-6", "GD-6/bomb", "GD-8/bomb"}, set()),
        ("play 2s 2h", {"GD-8/pair"}, {"GD-6"}),  # the wild card as itself
        ("play 2h 2s 2d Ks Kd", {"GD-8/full_house"}, {"GD-6"}),  # read as 2s over Ks
        ("play 2h 5s 5d Ks Kd", {"GD-6", "GD-8/full_house"}, {"GD-6/bomb"}),
        ("play 2h", {"GD-8/single"}, {"GD-6"}),
        ("play 3s 2h", {"GD-6", "GD-8/pair"}, {"GD-6/bomb"}),
        # read at its highest, 3h … 7h: the wild stands for the 7h
        ("play 2h 3h 4h 5h 6h", {"GD-6", "GD-6/straight_flush"}, {"GD-6/bomb"}),
        ("play 3h 4h 5h 6h 7h", {"GD-8/straight_flush", "GD-7"}, {"GD-6"}),
        ("play As 2s 3d 4c 5h", {"GD-7", "GD-7/ace_low", "GD-8/straight"}, {"GD-6"}),
        ("play Ts Js Qs Ks As", {"GD-7", "GD-8/straight_flush"}, {"GD-7/ace_low", "GD-6"}),
    ],
)
def test_gd06_wild_card_only_when_it_stands_for_another_card(
    play: str, uses: set[str], not_uses: set[str]
) -> None:
    cards = play.removeprefix("play ")
    state = guandan_deal([cards, "9d", "9c", "9s"], leader=0)  # level 2: the wild is 2h
    state.apply(Action.from_str(play))
    used = rules_applied(play_out(state, 1))
    assert uses <= used
    assert not not_uses & used


def test_gd06_wild_card_in_a_straight_flush() -> None:
    state = guandan_deal(["3h 4h 5h 6h 9h", "Td", "Tc", "Ts"], level=7, leader=0)  # wild 9h
    assert wild_card(7) in state.hand(0)
    state.apply(Action.from_str("play 3h 4h 5h 6h 9h"))
    used = rules_applied(play_out(state, 1))
    assert {"GD-6", "GD-6/straight_flush"} <= used and "GD-6/bomb" not in used


def test_gd11_partner_leads_after_a_trick_won_by_a_player_out() -> None:
    state = guandan_deal(["As", "3d 4d", "5c 6c", "7s 8s"], leader=0)
    state.apply(Action.from_str("play As"))  # out at once: three passes, then 接风
    for _ in range(3):
        state.apply(PASS)
    assert events_of(state, "lead")[-1].tag == "partner"
    assert "GD-11" in rules_applied(play_out(state, 1))


@pytest.mark.parametrize("game", [GUANDAN, GUANDAN_FAIL])
def test_gd17_a_failure_is_the_use_a_fail_limit_acts_on(game: Any) -> None:
    """GD-17: team 0 plays its own A and seat 1 goes out first: a failed deal at A;
    with a_fail_limit=1 the team drops back to 2."""
    state = guandan_deal(
        ["3s 4s 5s", "As", "6d 7d 8d", "9c Tc"], levels=(RANK_ACE, 0), leader=1, game=game
    )
    state.apply(Action.from_str("play As"))
    used = rules_applied(play_out(state, 1))
    assert {"GD-17", "GD-17/a_fail"} <= used and "GD-17/match_won" not in used
    assert ("GD-17/drop" in used) == (game is GUANDAN_FAIL)
    assert OPTION_USES["guandan"] == {"a_fail_limit": "GD-17/a_fail"}


def test_gd03_first_deal_of_a_match_and_no_tribute_rules() -> None:
    state = play_out(GUANDAN.new_deal(seed=4), 4)
    used = rules_applied(state)
    assert "GD-3" in used
    assert not {"GD-13", "GD-14", "GD-15", "GD-17"} & used


# ================================================================== property


def consecutive_deal(name: str, options: dict[str, Any], seed: int, later: int) -> State:
    """The ``later``-th deal of a match played randomly (so later-deal rules occur)."""
    game = make(name, **options)
    setup = game.first_setup()
    for number in range(later + 1):
        state = play_out(game.new_deal(setup, seed=deal_seed(seed, number)), seed + number)
        if number == later:
            return state
        setup = state.outcome().next_setup or game.first_setup()
    raise AssertionError("unreachable")


VARIANTS = [
    ("shengji-1", {"two_colour": True}),
    ("shengji-2", {"throw_penalty": 5, "no_declaration": "flip_kitty"}),
    ("shengji-3", {"constant_twos": True}),
    ("shengji-4", {}),
    ("guandan", {"a_fail_limit": 2}),
    ("sanfu", {"deals": 3}),
]


def recount(state: State) -> dict[str, bool]:
    """Uses read straight from the events and outcome, independently of the module."""
    events = state.events
    kinds = [e.kind for e in events]
    details = state.outcome().details
    plays = [e for e in events if e.kind == "play"]
    partner_lead = any(e.kind == "lead" and e.tag == "partner" for e in events)
    if isinstance(state, ShengjiState):
        declared = "declare" in kinds
        decks = state.rules.decks
        last = [e for e in events if e.kind == "trick"][-1].seat
        return {
            "SJ-17/failed": "throw_failed" in kinds,
            "SJ-17/penalty": "throw_failed" in kinds and state.rules.throw_penalty > 0,
            "SJ-8/declared": declared and decks < 4,
            "SJ-10/declared": declared and decks == 4,
            "SJ-8/undeclared": not declared and decks < 4,
            "SJ-5": next(e for e in events if e.kind == "trump").tag == "notrump",
            "SJ-13": "bury" in kinds,
            "SJ-23/take_over": bool(details["take_over"]),
            "SJ-25": decks < 4 and team_of(last) != state.declarer_team,
            "SJ-24/match_won": details["match_winner"] is not None,
            "SJ-31": state.rules.two_colour,
        }
    if isinstance(state, GuandanState):
        wild = wild_card(state.level)
        order = details["order"]
        return {
            "GD-15": "refuse_tribute" in kinds,
            "GD-14": kinds.count("tribute") == 2,
            "GD-13": "tribute" in kinds,
            "GD-11": partner_lead,
            "GD-12": "announce" in kinds,
            "GD-2/double_down": team_of(order[0]) == team_of(order[1]),
            "GD-17": state.setup.level == RANK_ACE,
            "GD-17/match_won": details["match_winner"] is not None,
            "GD-8/bomb": any(e.tag == "bomb" for e in plays),
            "GD-8/straight_flush": any(e.tag == "straight_flush" for e in plays),
            "wild played": any(wild in e.cards for e in plays),
            "GD-3": not state.setup.previous_order,
        }
    assert isinstance(state, SanfuState)
    turns = kinds.count("turn")
    return {
        "SF-16": any(e.tag == "joker_triple" and e.cards[0] >= SMALL_JOKER for e in plays),
        "SF-2": turns == 2,
        "SF-5": turns == 1,
        "SF-10/partner": partner_lead,
        "SF-14/sweep": bool(details["sweep"]),
        "SF-13/transfer": sum(details["transferred"]) > 0,
        "SF-17": state.outcome().next_setup is None,
    }


@settings(max_examples=30, deadline=None)
@given(
    variant=st.sampled_from(VARIANTS),
    seed=st.integers(0, 2**32 - 1),
    later=st.integers(0, 3),
)
def test_uses_agree_with_recounts_from_the_events(
    variant: tuple[str, dict[str, Any]], seed: int, later: int
) -> None:
    """SJ-17/failed iff a throw_failed event, GD-15 iff a refusal, SF-16 iff three
    jokers played, … and every use of every option is a use the family can return."""
    name, options = variant
    state = consecutive_deal(name, options, seed, later)
    used = rules_applied(state)
    counted = recount(state)
    if counted.pop("wild played", True) is False:
        assert not {"GD-6", "GD-6/bomb", "GD-6/straight_flush"} & used  # GD-6
    for rule, expected in counted.items():
        assert (rule in used) == expected, rule
    for use in [u for u in used if "/" in u]:
        assert use.split("/")[0] in used or use.startswith(("GD-8/", "SF-8/")), use
    assert all(rule == rule.strip() and "-" in rule for rule in used)


# ================================================================== balance counts


@pytest.mark.parametrize("name", ["shengji-2", "guandan", "sanfu"])
def test_balance_counts_each_rule_use_in_the_deals_it_applied_in(name: str) -> None:
    """Summary key ``rules/<id>``: the deals of the batch whose rules_applied holds the id
    (recounted by playing the same deals again), reported in rule order as rates."""
    job = plan_jobs([VariantSpec(name)], deals=12, players=("random",) * 4)[0]
    summary = play_balance_batch(job)
    game = make(name)
    policies = [bots.make(b, derive_seed(job.seed, "bot", p)) for p, b in enumerate(job.bots)]
    expected: dict[str, int] = {}
    setup = game.first_setup()
    for number in range(job.deals):
        state = game.new_deal(setup, seed=deal_seed(job.seed, number))
        play_deal(state, policies)
        for rule in rules_applied(state):
            expected[rule] = expected.get(rule, 0) + 1
        setup = state.outcome().next_setup or game.first_setup()
    counted = {
        k.removeprefix("rules/"): v for k, v in summary.counts.items() if k.startswith("rules/")
    }
    assert counted == expected
    section = report(summary, VariantSpec(name), {})["rules"]
    assert list(section) == sorted(expected, key=rule_key)
    assert all(
        cell["count"] == expected[rule] and cell["n"] == 12 for rule, cell in section.items()
    )
