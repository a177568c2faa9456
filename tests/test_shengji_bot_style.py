"""The Shengji heuristic's style (bots/shengji/levers.py): throws safe or risky by the
shared reading (SJ-17), contested declarations (SJ-8 … SJ-11), points buried or kept
(SJ-13), points fed and saved against tempo (SJ-18, SJ-22), all legal and deterministic.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_shengji_bot import Recorder

from arena.cards import parse_cards
from arena.games import PASS, Action, Observation, make
from arena.games.base import team_of
from arena.games.shengji import ShengjiSetup, ShengjiState
from arena.games.shengji.order import TrumpOrder, card_points
from arena.games.shengji.reading import cards_out, read_throw
from arena.games.shengji.shapes import decompose
from arena.match import play_deal, play_match
from arena.web.readings import read_selection
from bots.heuristic import HeuristicBot
from bots.shengji.burying import bury_plan, kitty_safe
from bots.shengji.leading import choose_lead
from bots.shengji.levers import Levers
from bots.shengji.view import View
from bots.shengji_bot import ShengjiHeuristic
from bots.style import Style

CAUTIOUS = Style(risk=0.0)
BOLD = Style(risk=1.0)
SAFE = "A throw safe to try"


def played_deals(style: Style, deals: range, variant: str = "shengji-2") -> Iterator[ShengjiState]:
    """Deals played to the end by four bots of ``style`` (every other deal a later deal of
    a match, its dealer fixed, so that every seat deals)."""
    game = make(variant)
    for seed in deals:
        setup = ShengjiSetup(levels=(seed % 13, 0), dealer=seed % 4, deal_index=1)
        state = game.new_deal(setup if seed % 2 else None, seed=seed)
        assert isinstance(state, ShengjiState)
        play_deal(state, [ShengjiHeuristic(seed * 4 + i, style) for i in range(4)])
        yield state


def failed_throws(state: ShengjiState) -> int:
    return sum(1 for event in state.events if event.kind == "throw_failed")


def throws_made(recorders: list[Recorder]) -> Iterator[tuple[Observation, Action]]:
    """The leads of several units (throws) the recorded bots made."""
    for recorder in recorders:
        for observation, action in recorder.seen:
            trick = observation.public.get("trick") or {}
            if observation.phase != "play" or trick.get("plays") or len(action.cards) < 2:
                continue
            memory = recorder.inner._memories[observation.seat]
            assert memory.order is not None
            if len(decompose(action.cards, memory.order)) > 1:
                yield observation, action


def recorded_deals(style: Style, deals: range) -> list[Recorder]:
    recorders = []
    game = make("shengji-2")
    for seed in deals:
        seats = [Recorder(ShengjiHeuristic(seed * 4 + i, style)) for i in range(4)]
        play_deal(game.new_deal(seed=seed), seats)
        recorders += seats
    return recorders


# ---------------------------------------------------------------- throws (SJ-17)


def test_a_cautious_bot_never_fails_a_throw_sj_17() -> None:
    """risk 0: over many deals no throw fails, yet the bot throws (safe throws only)."""
    states = list(played_deals(CAUTIOUS, range(40)))
    assert sum(map(failed_throws, states)) == 0
    recorders = recorded_deals(CAUTIOUS, range(10))
    assert list(throws_made(recorders))


def test_a_bold_bot_fails_some_throws_sj_17() -> None:
    """risk 1: risky throws are tried whenever offered, and some of them fail."""
    states = list(played_deals(BOLD, range(10)))
    assert sum(1 for state in states if failed_throws(state)) >= 3


def test_the_default_bot_fails_throws_in_some_deals_sj_17() -> None:
    """At the default style a failed throw happens in a measurable share of deals (so
    ``throw_penalty`` comes into play for the default bots)."""
    states = list(played_deals(Style(), range(30)))
    assert sum(1 for state in states if failed_throws(state)) >= 2


def test_throws_are_read_as_the_peoples_table_reads_them_sj_17() -> None:
    """Every throw a cautious bot makes is one the people's table reads as safe; a bold
    bot's throws include ones it reads as risky, and a cautious bot never makes those."""
    for observation, action in throws_made(recorded_deals(CAUTIOUS, range(10))):
        assert read_selection(observation, _codes(action), "en")["throw"].startswith(SAFE)
    risky = 0
    for observation, action in throws_made(recorded_deals(BOLD, range(6))):
        reading = read_selection(observation, _codes(action), "en")["throw"]
        if not reading.startswith(SAFE):
            risky += 1
            assert ShengjiHeuristic(0, CAUTIOUS).act(observation) != action
    assert risky > 0


def _codes(action: Action) -> list[str]:
    return str(action).split()[1:]


def test_a_risky_throw_is_tried_at_the_rate_the_style_sets_sj_17() -> None:
    """Where a bold bot makes a risky throw, a bot of another style draws once, at its
    rate for the unit risked (√risk a set, risk² a single), if the throw is within the
    odds it takes: the risky throw when the draw says so, else a lead the reading does
    not call risky."""
    risky = []
    for observation, action in throws_made(recorded_deals(BOLD, range(8))):
        order = _order(observation)
        if read_throw(decompose(action.cards, order), _out(observation), order) is not None:
            risky.append((observation, action))
    assert len(risky) >= 5
    asked = 0
    for style in (Style(risk=0.5), BOLD):
        levers = Levers.of(style)
        for observation, action in risky:
            bot = ShengjiHeuristic(0, style)
            view = View.of(observation, bot._memory_for(observation), _buried(observation))
            order, out = view.order, _out(observation)
            taking, declining = Draws(True), Draws(False)
            taken = choose_lead(view, True, levers, taking)
            declined = choose_lead(view, True, levers, declining)
            units = decompose(declined, order)
            assert len(units) == 1 or read_throw(units, out, order) is None
            assert taking.rates == declining.rates and len(taking.rates) <= 1
            if not taking.rates:
                assert style != BOLD and taken == declined
                continue
            asked += 1
            forced = read_throw(decompose(taken, order), out, order)
            assert forced is not None
            rate = levers.single_rate if forced.width == 1 else levers.throw_rate
            assert taking.rates == [rate]
            if style == BOLD:
                assert taken == action.cards
    assert asked > len(risky)


class Draws:
    """A draw that always answers the same, noting the rates it was asked at."""

    def __init__(self, answer: bool) -> None:
        self.answer = answer
        self.rates: list[float] = []

    def __call__(self, what: str, rate: float) -> bool:
        assert what == "throw"
        self.rates.append(rate)
        return self.answer


def _out(observation: Observation) -> list[int]:
    return cards_out(2, observation.hand, observation.events, _buried(observation))


def _order(observation: Observation) -> TrumpOrder:
    bot = ShengjiHeuristic(0)
    bot.act(observation)
    order = bot._memories[observation.seat].order
    assert order is not None
    return order


def _buried(observation: Observation) -> tuple[int, ...]:
    shown = observation.private.get("buried")
    return parse_cards(str(shown)) if shown else ()


# ------------------------------------------------------- declarations (SJ-8 … SJ-11)


def declare_decisions(seed: int, variant: str = "shengji-2") -> Iterator[Observation]:
    """The declaration questions of a deal's dealing, the bold bots answering."""
    state = make(variant).new_deal(seed=seed)
    bots = [ShengjiHeuristic(i, BOLD) for i in range(4)]
    while state.phase == "declare":
        observation = state.observe(state.to_act)
        if any(a.verb == "declare" for a in observation.legal_actions):
            yield observation
        state.apply(bots[state.to_act].act(observation))


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 10**6), variant=st.sampled_from(["shengji-2", "shengji-3"]))
def test_a_bolder_bot_declares_whenever_a_more_cautious_one_does_sj_8(
    seed: int, variant: str
) -> None:
    """Eagerness grows with risk: at every declaration question (SJ-11), the bold bot
    declares whenever the cautious or the default bot does."""
    for observation in declare_decisions(seed, variant):
        answers = [ShengjiHeuristic(0, s).act(observation) for s in (CAUTIOUS, Style(), BOLD)]
        for calmer, bolder in pairwise(answers):
            assert calmer == PASS or bolder != PASS


def test_declarations_are_contested_sj_8() -> None:
    """Over a few deals, bold bots override an opponent's declaration (反主), and declare
    more often than cautious bots do."""
    overrides = 0
    declared = {CAUTIOUS: 0, BOLD: 0}
    for seed in range(12):
        for style in (CAUTIOUS, BOLD):
            state = make("shengji-2").new_deal(seed=seed)
            bots = [ShengjiHeuristic(i, style) for i in range(4)]
            while state.phase == "declare":
                state.apply(bots[state.to_act].act(state.observe(state.to_act)))
            seats = [e.seat for e in state.events if e.kind == "declare"]
            declared[style] += len(seats)
            if style == BOLD:
                overrides += any(team_of(a) != team_of(b) for a, b in pairwise(seats))
    assert overrides >= 2
    assert declared[BOLD] > declared[CAUTIOUS]


# ------------------------------------------------------------------- burying (SJ-13)

SPADES_TRUMP = TrumpOrder(level=0, trump=0)
"""Playing 2, spades trump."""
BURY_HAND = parse_cards(
    "2s 3s 4s 6s 7s 8s 9s Js Qs As 2h 2d 2c SJ BJ 3h 4h 6h 7h 8h 9h 3d 4d 6d 7d 8d 9d 5c"
)
"""A hand with the top trump, half of it trumps (a safe kitty), clubs only a 5."""


def test_points_first_keeps_points_out_of_the_kitty_unless_safe_sj_13() -> None:
    """Voiding clubs means burying the 5: a cautious points-first dealer does it only
    when the kitty is safe; a bold tempo-first dealer does it even when it is not."""
    assert kitty_safe(BURY_HAND, SPADES_TRUMP)
    unsafe_hand = [c for c in BURY_HAND if c not in parse_cards("SJ BJ")] + list(
        parse_cards("Th Td")
    )
    assert not kitty_safe(unsafe_hand, SPADES_TRUMP)
    keeper = Levers.of(Style(risk=0.0, points=1.0))
    gambler = Levers.of(Style(risk=1.0, points=0.0))
    five = parse_cards("5c")[0]
    assert five in bury_plan(BURY_HAND, 2, SPADES_TRUMP, keeper.safe_point_cost)
    assert five not in bury_plan(unsafe_hand, 2, SPADES_TRUMP, keeper.point_cost)
    assert five in bury_plan(unsafe_hand, 2, SPADES_TRUMP, gambler.point_cost)


def test_the_kitty_holds_more_points_the_bolder_the_style_sj_13() -> None:
    """Over the same deals, the points buried grow from the cautious points-first style
    to the bold tempo-first one."""

    def buried_points(style: Style) -> int:
        return sum(
            card_points(c) for state in played_deals(style, range(1, 30, 2)) for c in state.buried
        )

    keeper = buried_points(Style(risk=0.0, points=1.0))
    default = buried_points(Style())
    gambler = buried_points(Style(risk=1.0, points=0.0))
    assert keeper <= default < gambler


# ------------------------------------------------------ points against tempo (SJ-22)


def test_points_first_feeds_and_saves_more_points_than_tempo_first_sj_22() -> None:
    """At the same follow decisions, the points-first bot gives more points to a trick
    its partner is winning and fewer to one an opponent is winning."""
    fed = {0.0: 0, 1.0: 0}
    lost = {0.0: 0, 1.0: 0}
    for recorder in recorded_deals(Style(), range(6)):
        for observation, _ in recorder.seen:
            trick = observation.public.get("trick") or {}
            if observation.phase != "play" or not trick.get("plays"):
                continue
            partner_wins = team_of(trick["winning"]) == team_of(observation.seat)
            for points in fed:
                action = ShengjiHeuristic(0, Style(points=points)).act(observation)
                given = sum(card_points(c) for c in action.cards)
                (fed if partner_wins else lost)[points] += given
    assert fed[1.0] > fed[0.0]
    assert lost[1.0] < lost[0.0]


def test_levers_move_the_way_the_docstring_says() -> None:
    """Each lever moves with its axis, and the default style keeps the old values."""
    calm, bold = Levers.of(Style(risk=0.0)), Levers.of(Style(risk=1.0))
    assert calm.throw_rate == calm.single_rate == 0 and bold.throw_rate == bold.single_rate == 1
    assert bold.set_beaters > calm.set_beaters
    assert bold.early_share < calm.early_share and bold.late_share < calm.late_share
    assert bold.early_part < calm.early_part and bold.notrump_share > calm.notrump_share
    assert bold.point_cost < calm.point_cost and bold.gamble_points < calm.gamble_points
    tempo, keen = Levers.of(Style(points=0.0)), Levers.of(Style(points=1.0))
    assert keen.feed_weight > tempo.feed_weight and keen.lose_weight > tempo.lose_weight
    assert keen.lead_value < tempo.lead_value and keen.draw_share > tempo.draw_share
    assert keen.point_cost > tempo.point_cost
    default = Levers.of(Style())
    assert (default.early_share, default.late_share, default.point_cost) == (0.37, 0.33, 6.0)
    assert (default.feed_weight, default.lose_weight, default.lead_value) == (2.5, 3.0, 4.0)


# ------------------------------------------------------------ legality, determinism

STYLES = st.builds(Style, st.sampled_from([0.0, 0.2, 0.6, 1.0]), st.sampled_from([0.0, 0.5, 1.0]))


@pytest.mark.parametrize(
    ("variant", "options"),
    [
        ("shengji-1", {"two_colour": True}),
        ("shengji-2", {"throw_penalty": 5, "no_declaration": "flip_kitty"}),
        ("shengji-3", {"constant_twos": True}),
        ("shengji-4", {}),
    ],
)
@settings(max_examples=2, deadline=None)
@given(styles=st.lists(STYLES, min_size=4, max_size=4), seed=st.integers(0, 10**6))
def test_whole_matches_of_mixed_styles_are_legal(
    variant: str, options: dict[str, object], styles: list[Style], seed: int
) -> None:
    """Every variant, four bots of any styles: a whole match to its end (the driver
    refuses any illegal action, so finishing is the check)."""
    bots = [HeuristicBot(seed + i, s.risk, s.points) for i, s in enumerate(styles)]
    result = play_match(make(variant, **options), bots, seed=seed)
    assert result.outcomes[-1].match_over


def test_the_same_seed_and_style_play_the_same_deal() -> None:
    """Risky choices are drawn per decision: the same seeds and style replay a deal
    action for action; another seed may throw differently."""

    def actions(seed: int) -> list[str]:
        result = play_match(
            make("shengji-2"),
            [HeuristicBot(seed + i, 0.5, 0.5) for i in range(4)],
            seed=3,
            max_deals=1,
        )
        return result.record.deals[0].actions

    assert actions(1) == actions(1)
