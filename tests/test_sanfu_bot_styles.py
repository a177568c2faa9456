"""The sanfu heuristic in every style: the partner reveal being no decision (SF-2 …
SF-5), three jokers played for their bonus (报喜, SF-16), and each lever of
:mod:`bots.sanfu.levers` moving a decision — points captured and saved against
shedding fast (SF-10, SF-13), specials early against kept (SF-9)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from test_sanfu_bot import GAME, observation, played, same_cards

from arena.cards import BIG_JOKER, SMALL_JOKER
from arena.games import PASS, Action, Event, Observation
from arena.match import play_match
from bots.sanfu.levers import levers
from bots.sanfu_bot import Decision, SanfuHeuristic
from bots.style import Style

DEFAULT = Style()
TEMPO_FIRST = Style(points=0.0)
POINTS_FIRST = Style(points=1.0)


def decide(obs: Observation, style: Style = DEFAULT, seed: int = 0) -> Decision:
    decision = SanfuHeuristic(seed, style).decide(obs)
    assert decision.action in obs.legal_actions
    return decision


class Recorder:
    """A heuristic seat in a style that checks each answer is legal and keeps what it saw."""

    def __init__(self, seed: int, style: Style) -> None:
        self.bot = SanfuHeuristic(seed, style)
        self.seen: list[Observation] = []
        self.actions: list[Action] = []

    def act(self, obs: Observation) -> Action:
        action = self.bot.act(obs)
        assert action in obs.legal_actions
        self.seen.append(obs)
        self.actions.append(action)
        return action


# ----------------------------------------------------------- no decision


def test_sf2_to_sf5_the_reveal_and_the_seat_swaps_ask_nobody_anything() -> None:
    """SF-2 … SF-5: the turned cards, the partnerships and the swaps happen during the
    deal; the first question any seat is asked is a play, after the public record of them."""
    seats = [Recorder(seat, DEFAULT) for seat in range(4)]
    play_match(GAME, seats, seed=2, max_deals=3)
    seen = [obs for seat in seats for obs in seat.seen]
    assert {obs.phase for obs in seen} == {"play"}
    first = min(seen, key=lambda obs: len(obs.events))
    assert any(event.kind == "turn" for event in first.events)


# ---------------------------------------------------------------- 报喜


def _jokers(style: Style, matches: int) -> tuple[int, int]:
    """Three-joker combinations dealt and played over seeded matches in ``style``."""
    dealt = played_ = 0

    def sink(state: object, event: Event) -> None:
        nonlocal dealt, played_
        if event.kind == "deal":
            for seat in range(4):
                hand = state.observe(seat).hand  # type: ignore[attr-defined]
                dealt += (hand.count(BIG_JOKER) == 3) + (hand.count(SMALL_JOKER) == 3)
        elif event.kind == "play" and event.tag == "joker_triple":
            played_ += 1

    for seed in range(matches):
        bots = [SanfuHeuristic(seat, style) for seat in range(4)]
        play_match(GAME, bots, seed=seed, max_deals=2, on_event=sink)
    return dealt, played_


def test_sf16_three_jokers_dealt_are_played_for_the_bonus() -> None:
    """SF-16: holding three jokers pays nothing; the default bot plays every set it is
    dealt over seeded deals."""
    dealt, played_ = _jokers(DEFAULT, 12)
    assert dealt >= 1 and played_ == dealt


def test_sf16_the_risk_lever_moves_when_three_jokers_are_led() -> None:
    """With a seat at 22 cards a cautious bot secures the bonus now; the default keeps
    the jokers (its urgency starts at 20 cards) and leads its weakest play."""
    hand = "3s 4s 4h 8d 9s 9h Jc Jc Jd Qs Qh Ac Ad 6s 6h 6d 8s 8h 2s 2h BJ BJ BJ"
    obs = observation(hand, counts=(0, 30, 30, 22))
    assert played(decide(obs, Style(risk=0.0))) == "BJ BJ BJ"
    assert played(decide(obs)) == "3s"


# --------------------------------------------------------- points, tempo


def test_sf13_a_small_point_trick_is_fought_for_unless_tempo_first() -> None:
    """SF-10/SF-13: a 5 on the table: the default breaks its pair of Js to capture it;
    tempo-first (contests from 15 points) keeps the pair and passes."""
    hand = "3s Jd Jh Qs Qh Qd Qc"
    obs = observation(hand, table=(1, "8d"), played=[(3, "5h")])
    assert (played(decide(obs)), decide(obs).rule) == ("Jh", "fight for a point trick")
    assert decide(obs, TEMPO_FIRST).action == PASS


def test_sf13_points_are_held_back_from_the_lead_unless_tempo_first() -> None:
    """A 5 an opponent could overtake is led last by default; tempo-first sheds it in
    its place (the lowest rank)."""
    obs = observation("5s 8h Jc Jd")
    assert played(decide(obs)) == "8h"
    assert played(decide(obs, TEMPO_FIRST)) == "5s"


def test_sf13_tempo_first_follows_with_a_point_card_an_opponent_could_overtake() -> None:
    obs = observation("Ks 2s 6c 6c Qs Qh Qd Qc", table=(1, "8d"))
    assert decide(obs).action == PASS
    assert played(decide(obs, TEMPO_FIRST)) == "Ks"


def test_sf9_points_first_spends_a_same_suit_triple_on_a_ten_point_trick() -> None:
    """SF-9: the same-suit triple beats the K; a 10-point trick is worth it points-first,
    not by default (it waits for 15)."""
    obs = observation("3s 4s 7c 7c 7c 7h 9s 9h", table=(1, "Ks"))
    assert decide(obs).action == PASS
    assert played(decide(obs, POINTS_FIRST)) == "7c 7c 7c"


def test_the_levers_move_monotonically_with_the_style() -> None:
    by_points = [levers(Style(points=p)) for p in (0.0, 0.25, 0.5, 0.75, 1.0)]
    assert [lv.contest_points for lv in by_points] == sorted(
        (lv.contest_points for lv in by_points), reverse=True
    )
    assert [lv.feed_penalty for lv in by_points] == sorted(lv.feed_penalty for lv in by_points)
    assert [lv.race_cards for lv in by_points] == sorted(
        (lv.race_cards for lv in by_points), reverse=True
    )
    by_risk = [levers(Style(risk=r)) for r in (0.0, 0.5, 1.0)]
    assert by_risk[0].early_special_rate == 0 < by_risk[1].early_special_rate
    assert by_risk[0].joker_urgent_cards > by_risk[-1].joker_urgent_cards


# ------------------------------------------------------------------ risk


def test_sf9_the_risk_lever_moves_an_early_special_on_an_empty_trick() -> None:
    """Two specials and no ordinary play over A A on an empty trick: cautious, the bot
    passes at every seed; aggressive, it plays its bomb at some seeds and not all."""
    obs = observation("3s 4s 7c 7c 7c Qs Qh Qd Qc 9s 9h", table=(1, "Ah Ad"))
    cautious = {decide(obs, Style(risk=0.0), seed).action for seed in range(30)}
    aggressive = {played(decide(obs, Style(risk=1.0), seed)) for seed in range(30)}
    assert cautious == {PASS}
    assert aggressive == {"pass", same_cards("Qs Qh Qd Qc")}


# ------------------------------------------------ whole matches, any style


@settings(max_examples=5, deadline=None)
@given(st.floats(0, 1), st.floats(0, 1), st.floats(0, 1), st.floats(0, 1), st.integers(0, 9999))
def test_whole_matches_are_legal_and_repeatable_in_any_styles(
    risk_a: float, points_a: float, risk_b: float, points_b: float, seed: int
) -> None:
    styles = [Style(risk_a, points_a), Style(risk_b, points_b)] * 2
    records = []
    for _ in range(2):
        seats = [Recorder(seed + s, styles[s]) for s in range(4)]
        records.append(play_match(GAME, seats, seed=seed, max_deals=2).record)
    assert [d.actions for d in records[0].deals] == [d.actions for d in records[1].deals]


def test_decisions_in_a_style_depend_only_on_the_seed_and_the_observation() -> None:
    """An aggressive, tempo-first table's observations, given in reverse to fresh bots of
    the same seeds and style, get the same actions (the drawn choices included)."""
    style = Style(risk=1.0, points=0.0)
    seats = [Recorder(seat, style) for seat in range(4)]
    play_match(GAME, seats, seed=4, max_deals=2)
    for seat, recorder in enumerate(seats):
        fresh = SanfuHeuristic(seat, style)
        replayed = [fresh.act(obs) for obs in reversed(recorder.seen)]
        assert replayed == recorder.actions[::-1]
