"""The sanfu heuristic (bots/sanfu_bot.py, bots/sanfu/): legal and deterministic over
random deals, a function of its observation, and each rule of thumb in a situation
built for it (rules/sanfu.md: SF-9 specials, SF-10 tricks and points, SF-11 going
out, SF-16 the three-joker bonus).

Situations are observations built by :func:`observation`: the hand of seat 0 (whose
partner is seat 2, C-2), the play on the table and who made it, the trick's points,
the card counts, and the legal actions the engine's move generator lists for them.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest

import bots
from arena.cards import format_cards, parse_cards, to_counts
from arena.games import PASS, Action, Event, Observation, make, partner_of
from arena.games.sanfu import SanfuSetup
from arena.games.sanfu.combos import Kind, reading
from arena.games.sanfu.moves import legal_plays
from arena.match import play_match
from bots.heuristic import HeuristicBot
from bots.sanfu.actions import FALLBACK_RULE, resolve
from bots.sanfu.choice import Choice
from bots.sanfu.hand import plan_hand
from bots.sanfu.view import PlayedMemory, read_view
from bots.sanfu_bot import Decision, SanfuHeuristic

GAME = make("sanfu")

# seat 0: a low single, a full house 777+44, a pair of 9s, a 2 and a bomb of four Qs
SHEDDER = "3s 4s 4h 7s 7h 7d 9s 9h 2s Qs Qh Qd Qc"


def observation(
    hand: str,
    *,
    table: tuple[int, str] | None = None,
    points: int | None = None,
    counts: Sequence[int] = (40, 40, 40, 40),
    played: Sequence[tuple[int, str]] = (),
    limit: int = 1000,
) -> Observation:
    """Seat 0 to act with ``hand``; ``table`` is (seat, cards) of the play to beat, made
    after the ``played`` plays; ``points`` the trick's points (default: the table's)."""
    cards = parse_cards(hand)
    sizes = list(counts)
    sizes[0] = len(cards)
    events = [Event("deal"), Event("lead", played[0][0] if played else 0)]
    for seat, text in [*played, *([table] if table else [])]:
        shown = tuple(sorted(parse_cards(text)))
        combo = reading(shown)
        assert combo is not None, text
        events.append(Event("play", seat, shown, value=combo.value, tag=combo.kind.label))
    public_table = None
    to_beat = None
    if table is not None:
        to_beat = reading(parse_cards(table[1]))
        assert to_beat is not None
        public_table = {
            "seat": table[0],
            "points": points
            if points is not None
            else sum(_points(text) for _, text in [*played, table]),
            **to_beat.to_dict(),
        }
    plays, complete = legal_plays(to_counts(cards), to_beat, limit)
    actions = [Action("play", c) for c, _ in plays]
    return Observation(
        game="sanfu",
        seat=0,
        phase="play",
        to_act=0,
        hand=cards,
        legal_actions=tuple([PASS, *actions] if table else actions),
        events=tuple(events),
        public={
            "seating": (0, 1, 2, 3),
            "counts": sizes,
            "captured": [0, 0, 0, 0],
            "finished": (),
            "table": public_table,
        },
        legal_complete=complete,
    )


def _points(text: str) -> int:
    return sum({"5": 5, "T": 10, "K": 10}.get(token[0], 0) for token in text.split())


def decide(obs: Observation, seed: int = 0) -> Decision:
    decision = SanfuHeuristic(seed).decide(obs)
    assert decision.action in obs.legal_actions
    return decision


def played(decision: Decision) -> str:
    return "pass" if decision.action == PASS else format_cards(decision.action.cards)


def same_cards(text: str) -> str:
    return format_cards(sorted(parse_cards(text)))


# --------------------------------------------------------- over random deals


class Recorder:
    """A heuristic seat that checks each answer and keeps (observation, decision)."""

    def __init__(self, seed: int) -> None:
        self.bot = SanfuHeuristic(seed)
        self.seen: list[tuple[Observation, Decision]] = []

    def act(self, obs: Observation) -> Action:
        decision = self.bot.decide(obs)
        assert decision.action in obs.legal_actions, (str(decision.action), decision.rule)
        assert decision.rule != FALLBACK_RULE, str(decision.action)
        self.seen.append((obs, decision))
        return decision.action


@pytest.mark.parametrize("layout", ["HRHR", "HHRR", "RHHH"])
def test_only_legal_actions_over_random_deals(layout: str) -> None:
    """Matches against random bots, the seats mixed so that partnerships vary (SF-3)."""
    rules: set[str] = set()
    for seed in range(15):
        policies = [
            Recorder(seed * 4 + p) if kind == "H" else bots.make("random", seed * 4 + p)
            for p, kind in enumerate(layout)
        ]
        result = play_match(GAME, policies, seed=seed, max_deals=2)
        assert len(result.outcomes) == 2
        for policy in policies:
            if isinstance(policy, Recorder):
                rules.update(d.rule for _, d in policy.seen)
    assert {"go out", "weak combinations first", "don't overtake a winning partner"} <= rules


def test_the_heuristic_bot_dispatches_sanfu_to_this_strategy() -> None:
    result = play_match(GAME, [HeuristicBot(p) for p in range(4)], seed=3, max_deals=1)
    assert result.outcomes[0].details["order"]  # somebody went out: the deal was played


def _actions(seed: int) -> list[list[str]]:
    policies = [bots.make("heuristic", seed + p) for p in range(4)]
    return [d.actions for d in play_match(GAME, policies, seed=seed, max_deals=2).record.deals]


def test_deterministic_for_a_seed() -> None:
    assert _actions(5) == _actions(5)


def test_decisions_depend_only_on_the_observation() -> None:
    """The observations one bot saw, given to a fresh bot of the same seed in another
    order (its memory of the deal must rebuild itself), give the same actions."""
    seat = Recorder(11)
    play_match(
        GAME,
        [seat, bots.make("random", 1), Recorder(12), bots.make("random", 3)],
        seed=8,
        max_deals=2,
    )
    seen = seat.seen
    assert len(seen) > 20
    fresh = SanfuHeuristic(11)
    order = list(range(len(seen)))
    random.Random(0).shuffle(order)
    for i in order:
        obs, decision = seen[i]
        assert fresh.decide(obs) == decision


def test_a_decision_that_is_not_this_seats_is_refused() -> None:
    obs = observation(SHEDDER)
    with pytest.raises(ValueError, match="no decision"):
        SanfuHeuristic().decide(obs._replace(to_act=1, legal_actions=()))
    with pytest.raises(ValueError, match="guandan"):
        SanfuHeuristic().decide(obs._replace(game="guandan"))


# ------------------------------------------------------------ the hand's plan


def test_plan_keeps_specials_whole_and_joins_the_rest() -> None:
    """Shed in few plays: plates, consecutive pairs, triples with the lowest pair; three
    identical cards stay a same-suit triple (stronger than any bomb, SF-9)."""
    plan = plan_hand(
        parse_cards(
            "3s 3h 3d 4s 4h 4d 6s 6h 7s 7h 8s 8h 9s 9h 9d Jd Jd "
            "Ts Ts Ts Tc Tc Kh Ac Ac Ad Ah SJ SJ SJ"
        )
    )
    shown = {format_cards(g.cards): g.reading.kind for g in plan.ordinary + plan.specials}
    assert shown == {
        same_cards("3s 3h 3d 4s 4h 4d"): Kind.PLATE,
        same_cards("6s 6h 7s 7h 8s 8h"): Kind.PAIR_RUN,
        same_cards("9s 9h 9d Tc Tc"): Kind.FULL_HOUSE,
        same_cards("Jd Jd"): Kind.PAIR,
        "Kh": Kind.SINGLE,
        same_cards("Ts Ts Ts"): Kind.SUITED_TRIPLE,
        same_cards("Ac Ac Ad Ah"): Kind.BOMB,
        "SJ SJ SJ": Kind.JOKER_TRIPLE,
    }
    assert plan.plays == 8
    assert [g.reading.kind for g in plan.specials] == [
        Kind.BOMB,
        Kind.SUITED_TRIPLE,
        Kind.JOKER_TRIPLE,  # weakest first
    ]


def test_plan_partitions_dealt_hands_into_true_combinations() -> None:
    """Every card of a dealt hand is in exactly one group, and each group reads (SF-8) as
    the combination the plan says it is."""
    for seed in range(40):
        state = GAME.new_deal(SanfuSetup(), seed=seed)
        for seat in range(4):
            hand = state.hand(seat)
            plan = plan_hand(hand)
            groups = plan.ordinary + plan.specials
            assert sorted(c for g in groups for c in g.cards) == list(hand)
            for g in groups:
                assert reading(g.cards) == g.reading, format_cards(g.cards)
            assert [g.reading.power for g in plan.specials] == sorted(
                g.reading.power for g in plan.specials
            )


def test_three_identical_cards_and_one_more_are_a_same_suit_triple_and_a_single() -> None:
    plan = plan_hand(parse_cards("7c 7c 7c 7h"))
    assert [format_cards(g.cards) for g in plan.specials] == ["7c 7c 7c"]
    assert [format_cards(g.cards) for g in plan.ordinary] == ["7h"]


# ------------------------------------------------------------------- leading


def test_sheds_weak_combinations_first_and_keeps_the_bomb() -> None:
    """Weak combinations first: lowest rank first, each whole; the 2 before the bomb;
    the last combination goes out."""
    hand = parse_cards(SHEDDER)
    leads = []
    for _ in range(5):
        decision = decide(observation(format_cards(hand)))
        leads.append((played(decision), decision.rule))
        left = list(hand)
        for card in decision.action.cards:
            left.remove(card)
        hand = tuple(left)
    assert leads == [
        ("3s", "weak combinations first"),
        (same_cards("4s 4h 7s 7h 7d"), "weak combinations first"),
        ("9s 9h", "weak combinations first"),
        ("2s", "weak combinations first"),
        (same_cards("Qs Qh Qd Qc"), "go out"),
    ]
    assert not hand


def test_holds_back_a_point_card_an_opponent_could_capture() -> None:
    """Avoid feeding points: the single 5 (5 points, beatable) is led after the 8 and the Js."""
    decisions = [played(decide(observation(h))) for h in ("5s 8h Jc Jd", "5s Jc Jd")]
    assert decisions == ["8h", same_cards("Jc Jd")]


def test_leads_low_to_a_partner_about_to_go_out() -> None:
    one = decide(observation("3s 9s 9h Ks Kh Kd 6c 6c", counts=(0, 30, 1, 30)))
    assert (played(one), one.rule) == ("3s", "lead to the partner")
    two = decide(observation("3s 9s 9h Ks Kh Kd", counts=(0, 30, 2, 30)))
    assert (played(two), two.rule) == ("9s 9h", "lead to the partner")


def test_blocks_an_opponent_holding_one_card() -> None:
    decision = decide(observation("3s 4s 4h 9s Jd", counts=(0, 1, 30, 30)))
    assert (played(decision), decision.rule) == ("4s 4h", "block the opponent about to go out")


def test_three_jokers_are_played_once_the_deal_may_end() -> None:
    """SF-16: the bonus is paid only for three jokers played, so play them in time."""
    hand = "3s 4s 4h 8d 9s 9h Jc Jc Jd Qs Qh Ac Ad 6s 6h 6d 8s 8h 2s 2h BJ BJ BJ"  # 23 cards
    calm = decide(observation(hand))
    assert played(calm) == "3s"
    urgent = decide(observation(hand, counts=(0, 30, 30, 20)))
    assert (played(urgent), urgent.rule) == ("BJ BJ BJ", "three jokers pay only when played")
    over = decide(observation(hand, table=(1, "Ks"), points=10))
    assert (played(over), over.rule) == ("BJ BJ BJ", "three jokers pay only when played")


def test_goes_out_even_over_the_partner() -> None:
    decision = decide(observation("8s 8h 8d Ts Th", table=(2, "7s 7h 7d 3s 3h")))
    assert (played(decision), decision.rule) == (same_cards("8s 8h 8d Ts Th"), "go out")


# ----------------------------------------------------------------- following


def test_captures_a_point_rich_trick_with_the_bomb_it_kept() -> None:
    decision = decide(observation(SHEDDER, table=(3, "Ah Ad"), played=[(1, "Ks Kd")]))
    assert (played(decision), decision.rule) == (
        same_cards("Qs Qh Qd Qc"),
        "keep bombs for point-rich tricks",
    )


def test_captures_a_point_rich_trick_with_a_same_suit_triple() -> None:
    """Three identical 7s, kept apart from the fourth 7, beat a 40-point full house."""
    decision = decide(observation("3s 4s 7c 7c 7c 7h 9s 9h", table=(1, "Ks Kh Kd 5s 5h")))
    assert (played(decision), decision.rule) == ("7c 7c 7c", "keep bombs for point-rich tricks")


def test_does_not_waste_a_bomb_on_an_empty_trick() -> None:
    decision = decide(observation(SHEDDER, table=(3, "Ah Ad")))
    assert decision.action == PASS
    assert decision.rule == "don't waste strong plays on empty tricks"


def test_stops_an_opponent_about_to_go_out_with_the_bomb() -> None:
    decision = decide(observation(SHEDDER, table=(3, "Ah Ad"), counts=(0, 30, 30, 3)))
    assert (played(decision), decision.rule) == (
        same_cards("Qs Qh Qd Qc"),
        "stop the opponent about to go out",
    )


def test_does_not_overtake_a_winning_partner() -> None:
    hand = "8s 9s Jh 4c 4c Qs Qh Qd Qc"
    partner = decide(observation(hand, table=(2, "6d")))
    assert (partner.action, partner.rule) == (PASS, "don't overtake a winning partner")
    opponent = decide(observation(hand, table=(1, "6d")))
    assert (played(opponent), opponent.rule) == ("8s", "shed by following")


def test_does_not_overtake_a_winning_partner_in_a_dealt_deal() -> None:
    """From real deals: a leads a single, b (a's opponent) beats it, a's partner passes;
    b's partner, the heuristic, passes too and lets b take the trick."""
    checked = 0
    for seed in range(20):
        state = GAME.new_deal(SanfuSetup(), seed=seed)
        leader = state.to_act
        singles = [a for a in state.legal_actions() if len(a.cards) == 1]
        state.apply(singles[0])
        over = [a for a in state.legal_actions() if len(a.cards) == 1]
        if not over:
            continue
        state.apply(over[0])
        state.apply(PASS)  # the leader's partner
        seat = state.to_act
        assert seat == partner_of(next_to(leader))
        obs = state.observe(seat)
        if any(len(a.cards) == len(obs.hand) for a in obs.legal_actions):
            continue
        decision = SanfuHeuristic(seed).decide(obs)
        assert (decision.action, decision.rule) == (PASS, "don't overtake a winning partner")
        checked += 1
    assert checked >= 10


def next_to(seat: int) -> int:
    return (seat + 1) % 4


def test_sheds_by_following_without_feeding_points() -> None:
    """Over an opponent's single on an empty trick: the lowest whole single that is not a
    beatable point card (the K could be overtaken, the 9 is played); 2s are kept."""
    decision = decide(observation("Ks 9d 2s 6c 6c Qs Qh Qd Qc", table=(1, "8d")))
    assert played(decision) == "9d"
    kept = decide(observation("Ks 2s 6c 6c Qs Qh Qd Qc", table=(1, "8d")))
    assert kept.action == PASS


def test_follows_an_opponent_in_the_race_with_any_ordinary_play() -> None:
    """Once the opponent is down to 28 cards the guard against spending the K is off."""
    hand = "Ks 2s 6c 6c Qs Qh Qd Qc"
    decision = decide(observation(hand, table=(1, "8d"), counts=(0, 20, 30, 30)))
    assert (played(decision), decision.rule) == ("Ks", "shed by following")


def test_takes_the_lead_with_a_bomb_to_run_out() -> None:
    """Bomb and one single left: the bomb takes the empty trick, the single goes out next."""
    decision = decide(observation("9s Qs Qh Qd Qc", table=(1, "Ah Ad")))
    assert (played(decision), decision.rule) == (
        same_cards("Qs Qh Qd Qc"),
        "take the lead to run out",
    )


def test_fights_for_a_point_trick_by_breaking_a_pair() -> None:
    """With 10 points on the table a pair of Js is split to beat the 8; without, pass."""
    hand = "3s Jd Jh Qs Qh Qd Qc"
    decision = decide(observation(hand, table=(1, "8d"), played=[(3, "Th")]))
    assert (played(decision), decision.rule) == ("Jh", "fight for a point trick")
    assert decide(observation(hand, table=(1, "8d"))).action == PASS


# --------------------------------------------------------- actions and memory


def test_a_play_missing_from_a_sampled_list_becomes_the_listed_play_of_its_pattern() -> None:
    obs = observation("4s 4h 4d 4c 9s", limit=1)
    assert not obs.legal_complete
    wanted = tuple(parse_cards("4d 4c"))
    assert Action("play", wanted) not in obs.legal_actions
    action, rule = resolve(Choice(wanted, "weak combinations first"), obs)
    assert action in obs.legal_actions and rule == "weak combinations first"
    assert reading(action.cards) == reading(wanted)


def test_memory_counts_cards_still_out_and_rebuilds_for_another_deal() -> None:
    memory = PlayedMemory()
    first = observation("Ad 3s", table=(1, "As Ah"), played=[(3, "Kd")])
    view = read_view(first, memory)
    assert view.unseen[14] == 12 - 1 - 2 and view.unseen[13] == 12 - 1
    other = observation("Ad 3s", table=(3, "Ks"))  # a shorter, different history
    assert read_view(other, memory).unseen == read_view(other, PlayedMemory()).unseen
    assert read_view(other, memory).unseen[14] == 11
