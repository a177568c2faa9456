"""The Guandan heuristic makes every kind of decision a person makes, in every style:
wild cards in straight flushes and bombs (GD-6, GD-7), play for a finishing partner
(接风, GD-11), the return to a partner (GD-13), refused tribute being no decision
(GD-15), and the style's levers (``risk``, ``points``) each moving a decision."""

from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st
from test_guandan_bot import GAME, Recording, build, cards, play

from arena.games.base import PASS, Action, Event
from arena.games.guandan import GuandanState
from arena.match import Policy, play_match
from bots.guandan.decide import feed_limit
from bots.guandan.partition import Splitter
from bots.guandan_bot import GuandanHeuristic
from bots.style import Style

TEAM_FIRST = Style(points=1.0)
TEMPO_FIRST = Style(points=0.0)
CAUTIOUS = Style(risk=0.0)


DEFAULT = Style()


def decide(state: GuandanState, style: Style = DEFAULT, seed: int = 0) -> Action:
    return GuandanHeuristic(seed, style).act(state.observe(state.to_act))


# ------------------------------------------------------------- wild cards


def test_gd6_the_split_completes_a_straight_flush_with_the_wild_card() -> None:
    """GD-6/GD-7: four spades of 5 … 9 and the wild 2h are a straight flush (a bomb),
    not a plain straight with a spare level card."""
    plan = Splitter(0).split(cards("5s 6s 8s 9s 2h 7d Kc Kd"))
    assert [b.cards for b in plan.bombs] == [cards("5s 6s 8s 9s 2h")]
    assert plan.bombs[0].kind.label == "straight_flush"


def test_gd6_bombs_an_opponent_about_to_go_out_with_a_wild_straight_flush() -> None:
    """The opponent keeps five cards: the planned straight flush is played (a bot that
    does not plan it passes, keeping its wild bomb for a last resort)."""
    state = build({1: "Ah Ad 9d 9h 3c 4c 6c", 2: "5s 6s 8s 9s 2h 7d Kc Kd"}, leader=1)
    play(state, "play Ah Ad")
    assert decide(state).cards == cards("5s 6s 8s 9s 2h")


def _wild_plays(style: Style, matches: int) -> Counter[str]:
    """Plays holding a wild card over seeded matches of four bots in ``style``, by kind."""
    found: Counter[str] = Counter()

    def sink(state: object, event: Event) -> None:
        level = getattr(state, "level", 0)
        if event.kind == "play" and level * 4 + 1 in event.cards:
            found[event.tag] += 1

    for seed in range(matches):
        bots = [GuandanHeuristic(seat, style) for seat in range(4)]
        play_match(GAME, bots, seed=seed, max_deals=2, on_event=sink)
    return found


def test_gd6_gd7_wild_cards_are_played_in_bombs_and_straight_flushes_over_seeded_deals() -> None:
    """Over these 24 deals the wild card goes into 7 straight flushes and 12 bombs (a
    split that never plans a wild straight flush finds 1, by chance)."""
    found = _wild_plays(Style(), 12)
    assert found["bomb"] >= 5 and found["straight_flush"] >= 4, found


# ------------------------------------------------- a finishing partner (接风)


def test_gd11_lets_a_finishing_partners_last_play_stand_and_leads_after_it() -> None:
    """GD-11: the partner's last card wins the trick, so the lead comes to us (接风):
    in every style the bot does not overtake it, though it could."""
    state = build({0: "Ks", 2: "As Ad 3c 4d 9h 9s"}, leader=0)
    play(state, "play Ks", "pass")
    for style in (DEFAULT, TEMPO_FIRST, Style(risk=1.0, points=0.0)):
        assert decide(state, style) == PASS
    play(state, "pass", "pass")
    assert state.to_act == 2
    assert state.observe(2).events[-1] == Event("lead", 2, tag="partner")


def test_gd11_takes_the_lead_with_a_control_to_feed_a_partner_about_to_go_out() -> None:
    """Early on a joker is kept rather than spent on a low single (a cautious bot: no
    drawn exception); with the partner holding two cards the bot takes the lead with
    it, to feed the partner next."""
    ours = "3s 3d 5c 5d 7s 7d 9c 9d Jc Jd BJ"
    opponents = {
        1: "4c 5h 7h 9c Qh Qs Kh Ks Ah As 4h 5d 7c",
        3: "4s 5s 7d 9d Qc Qd Kc Kd Ac Ad 4d 5c 7s",
    }
    calm = build({2: ours, **opponents}, leader=1)
    play(calm, "play 4c")
    assert decide(calm, CAUTIOUS) == PASS
    fed = build({2: ours, 0: "9s Th", **opponents}, leader=1)
    play(fed, "play 4c")
    assert decide(fed, CAUTIOUS).cards == decide(fed).cards == cards("BJ")


def test_gd11_team_first_feeds_the_partner_before_its_own_last_two_plays() -> None:
    """With two plays left the bot leads its stronger one to go out from the lead;
    team-first, it feeds the partner holding one card first (a double finish, GD-16)."""
    state = build({2: "4c Ad Ac", 0: "9h"}, leader=2)
    assert decide(state).cards == cards("Ad Ac")
    assert decide(state, TEAM_FIRST).cards == cards("4c")


def test_the_points_lever_moves_overtaking_a_partner() -> None:
    """A low planned single over the partner's 9: the default passes, tempo-first takes
    the trick to shed (over a J too, with a K); over the partner's 7 the default takes
    it, team-first never."""
    ours = "3s 3d 5c 5d Ts Qh Qd Ks Kd"
    nine = build({0: "9s 4c 4d 6h 6s 7c 7d 8h 8s Jh Jd Qc", 2: ours}, leader=0)
    play(nine, "play 9s", "pass")
    assert decide(nine) == PASS
    assert decide(nine, TEMPO_FIRST).cards == cards("Ts")
    jack = build(
        {0: "Js 4c 4d 6h 6s 7c 7d 8h 8s Jh Jd Qc", 2: "3s 3d 5c 5d 9s Qh Qd Ah Kd"}, leader=0
    )
    play(jack, "play Js", "pass")
    assert decide(jack) == PASS
    assert decide(jack, TEMPO_FIRST).cards == cards("Kd")  # short of a control (level card)
    seven = build({0: "7s 4c 4d 6h 6s 7c 7d 8h 8s Jh Jd Qc", 2: ours}, leader=0)
    play(seven, "play 7s", "pass")
    assert decide(seven).cards == cards("Ts")
    assert decide(seven, TEAM_FIRST) == PASS


def test_the_feed_limit_grows_with_points() -> None:
    limits = [feed_limit(Style(points=p)) for p in (0.0, 0.25, 0.5, 0.75, 1.0)]
    assert limits == sorted(limits) and limits[0] < limits[2] == 4 < limits[-1]


# --------------------------------------------------------- tribute, return


def test_gd13_returns_a_higher_loose_card_to_a_partner_when_team_first() -> None:
    """GD-13: the previous deal finished 0, 1, 3, 2: seat 2 (last) pays its partner,
    seat 0, who returns a card of rank 2 … 10: the lowest loose one by default, the
    highest team-first (it helps the partner more)."""
    ours = "3s 8d Js Jd Ks Kd As Ad"
    state = build({0: ours, 2: "BJ 4c 5c 7c 8c Tc Qc 4d 5d 7d Td Qd"}, leader=0, order=(0, 1, 3, 2))
    play(state, "tribute BJ")
    assert state.phase == "return" and state.to_act == 0
    assert decide(state) == Action("return", cards("3s"))
    assert decide(state, TEAM_FIRST) == Action("return", cards("8d"))


def test_gd15_a_refused_tribute_is_no_decision() -> None:
    """GD-15: the single tributer holds both big jokers: the engine refuses the tribute
    itself and the first player leads; no seat is asked anything about it."""
    state = build({1: "BJ BJ 4c 5c 7c 8c Tc Qc 4d 5d 7d 8d Td"}, leader=0, order=(0, 3, 2, 1))
    assert state.phase == "play" and state.to_act == 0
    assert [e.kind for e in state.observe(0).events][-2:] == ["refuse_tribute", "lead"]


# ------------------------------------------------------------ risk


def test_the_risk_lever_moves_bombing_an_opponents_strong_play_early() -> None:
    """No opponent is close and the bot has no pair to beat A A: cautious, it keeps its
    bomb at every seed; at the default risk it bombs at some seeds (a drawn rate) and
    not all; at the most aggressive, always."""
    ours = "5s 5s 5d 5c 3s 4s 9s Js Qh Th 8d Kd"
    theirs = "Ah Ad 9d 9h 3d 4d 6d 7d 8h Tc Jc Qc"
    state = build({1: theirs, 2: ours}, leader=1)
    play(state, "play Ah Ad")
    bomb = Action.make("play", cards("5s 5s 5d 5c"))

    def answers(risk: float) -> list[Action]:
        return [decide(state, Style(risk=risk), seed) for seed in range(24)]

    assert set(answers(0.0)) == {PASS}
    assert set(answers(DEFAULT.risk)) == {PASS, bomb}
    assert set(answers(1.0)) == {bomb}


def test_risk_changes_how_many_bombs_seeded_deals_see() -> None:
    """The same seeded matches: a table of aggressive bots plays more bombs than a table
    of cautious ones (the measured effect of the risk lever)."""

    def bombs(style: Style) -> int:
        found = 0

        def sink(state: object, event: Event) -> None:
            nonlocal found
            found += event.kind == "play" and event.tag in ("bomb", "straight_flush")

        for seed in range(6):
            bots = [GuandanHeuristic(seat, style) for seat in range(4)]
            play_match(GAME, bots, seed=seed, max_deals=1, on_event=sink)
        return found

    assert bombs(Style(risk=1.0)) > bombs(Style(risk=0.0))


# ------------------------------------------------ whole matches, any style


@settings(max_examples=6, deadline=None)
@given(
    st.floats(0, 1),
    st.floats(0, 1),
    st.floats(0, 1),
    st.floats(0, 1),
    st.integers(0, 10_000),
)
def test_whole_matches_are_legal_in_any_styles(
    risk_a: float, points_a: float, risk_b: float, points_b: float, seed: int
) -> None:
    """Two teams of different styles play legal matches through tribute and return;
    the same styles and seeds replay the same match."""
    styles = [Style(risk_a, points_a), Style(risk_b, points_b)] * 2
    records = []
    for _ in range(2):
        bots: list[Policy] = [Recording(GuandanHeuristic(seed + s, styles[s])) for s in range(4)]
        records.append(play_match(GAME, bots, seed=seed, max_deals=2).record)
    assert [d.actions for d in records[0].deals] == [d.actions for d in records[1].deals]
