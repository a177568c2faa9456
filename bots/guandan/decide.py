"""The rules of thumb of the Guandan heuristic: tribute, return, lead and follow.

Every choice is made from the seat's :class:`~bots.guandan.view.View` and its legal
actions, with the hand's split (:mod:`bots.guandan.partition`) as the plan:

* **go out** when one legal play holds the whole hand;
* **lead the weakest combination first**, longer ones before singles of the same
  strength, keeping control cards (jokers, level cards, aces) and bombs for later;
* **two plays from the end, lead the stronger** one (the likelier to win the trick),
  so that the other goes out from the lead;
* **feed the partner** who is about to go out (and closer than the opponents):
  lead a low combination small enough for them to follow; when an opponent leads,
  **take the lead to feed** with a combination of the plan (controls included);
* **let a finishing partner's play stand** (GD-11, 接风): never overtake the partner,
  above all not their last play — when it wins the trick the lead comes to us;
* **block an opponent who is about to go out**: lead combinations with more cards
  than they hold, or failing that the strongest;
* **do not overtake the partner**: when the partner is winning the trick, pass,
  unless a low combination of the plan follows cheaply (never a bomb);
* **follow an opponent cheaply**: with a combination of the plan, else by breaking
  one when the plan keeps as many plays; a control card (joker, level card) is not
  spent on a low play early on;
* **bombs when they matter** (GD-9): when an opponent is about to go out, or when
  taking the lead lets us go out (no more plays left than bombs to win leads back);
* **wild cards** (GD-6, GD-7) are placed by the split: in a straight flush or a bomb
  when that sheds the hand in fewer plays than using them as level cards or in
  sequences, and such a bomb is played like any other;
* **tribute and return** (GD-13, GD-14): give the tribute card whose loss hurts the
  plan least (the engine lists only the highest cards, the wild card excepted), and
  return a low card that breaks no combination. Refusing tribute (GD-15) is no
  decision: the engine refuses it whenever the givers hold both big jokers.

The style (:mod:`bots.style`) moves these levers:

* ``risk`` (cautious 0 ↔ aggressive 1) — **early bombs** (GD-9): with no planned
  play to beat an opponent, bomb to take the lead at a rate of √``risk``
  (:func:`early_bomb_rate`; kept for a strong play or a long one worth stopping);
  **breaking combinations to follow** (GD-10): the plan may get up to
  ``risk`` × :data:`BREAK_PER_RISK` plays costlier; **controls spent early**: a
  joker or level card goes on a low play at a rate of ``risk``² ×
  :data:`CONTROL_RATE`;
* ``points`` (tempo-first 0 ↔ team-first 1, GD-11, GD-16) — **feeding the
  partner**: a partner is fed from :func:`feed_limit` cards (2 at 0, 4 at the
  default, 6 at 1), and from :data:`TEAM_FIRST` up even when an opponent is as close,
  and before our own last two plays (the double finish, GD-16, is worth more than our
  own exit); **overtaking the partner**: from :data:`TEAM_FIRST` never, below
  :data:`TEMPO_FIRST` with any planned play up to an A (the default: up to a 10, on a
  play up to an 8); **the return to a partner**
  (GD-13): from :data:`TEAM_FIRST` the highest loose card the rule allows (help the
  partner), else the lowest (keep our own hand).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from arena.cards import Card, format_cards
from arena.games.base import PASS, Action, Observation, partner_of
from arena.games.guandan.combos import (
    LEVEL_VALUE,
    Kind,
    Reading,
    card_value,
    play_readings,
    strength,
)
from bots.guandan.partition import Combo, Partition
from bots.guandan.view import View
from bots.style import DEFAULT_STYLE, Style

__all__ = [
    "Draw",
    "Split",
    "choose_play",
    "choose_return",
    "choose_tribute",
    "early_bomb_rate",
    "feed_limit",
]

Split = Callable[[tuple[Card, ...]], Partition]
"""The split of a hand (cached by the caller)."""
Draw = Callable[[str, float], bool]
"""Whether a choice named ``what`` taken at a rate is taken at this decision
(:func:`bots.style.chance`, bound to the bot's seed and the observation)."""


def never(what: str, rate: float) -> bool:
    """The draw of a bot that takes no chance."""
    return False


THREAT = 5
"""An opponent with this many cards or fewer is about to go out."""
FEED = 4
"""A partner with this many cards or fewer (and fewer than any opponent) is fed."""
BREAK_PER_RISK = 0.5
"""Per unit of ``risk``, how much costlier the plan may get when a follow breaks a
combination: at the default risk a little (0.1), so that a follow costing no play (one
card of a pair on a single) is made, one that adds a play is not."""


STRONG_TABLE = 13
"""An opponent's play up to this value (a K) is not worth an early bomb unless long."""
LONG_PLAY = 5
CONTROL_RATE = 0.5
"""Per unit of ``risk`` squared, the rate of a control card spent on a low play early."""
TEAM_FIRST = 0.75
"""From this ``points`` up the bot plays for the team first (module docstring)."""
TEMPO_FIRST = 0.25
"""Below this ``points`` the bot plays for its own exit first."""
BREAK_CANDIDATES = 3
RETURN_CANDIDATES = 3
CHEAP_VALUE = 10
"""A combination up to this value (a 10, or a sequence topped by one) is cheap."""
EARLY_HANDS = 5
"""With this many plays or more still to go, the game is early: controls are kept."""
LOW_TABLE = 10
LEAD_SIZE_BONUS = 0.04
"""Per card, how much weaker a combination counts when choosing a lead: a straight
goes before a single of about the same strength."""


def remove(hand: tuple[Card, ...], cards: Sequence[Card]) -> tuple[Card, ...]:
    """``hand`` without ``cards`` (both sorted multisets)."""
    rest = list(hand)
    for card in cards:
        rest.remove(card)
    return tuple(rest)


# ---------------------------------------------------------------- tribute


def choose_tribute(observation: Observation, split: Split) -> Action:
    """The tribute card (GD-13 decides its value): among equal cards, the one whose
    place in the plan is the least valuable (a single before a pair, … a bomb last)."""
    plan = split(tuple(observation.hand))
    return min(observation.legal_actions, key=lambda a: (_harm(plan, a.cards[0]), a.cards))


def choose_return(observation: Observation, split: Split, style: Style = DEFAULT_STYLE) -> Action:
    """Return a low card that breaks no combination: the lowest single of the plan up
    to a 10 (to a partner, GD-13, from :data:`TEAM_FIRST` the highest: it helps them
    more); else the low card whose loss leaves the cheapest plan (never a joker, level
    card or ace when a lower card will do)."""
    level = int(observation.public["level"])
    hand = tuple(observation.hand)
    plan = split(hand)
    legal = observation.legal_actions
    low = [a for a in legal if card_value(a.cards[0], level) <= CHEAP_VALUE]
    loose = [a for a in low if _harm(plan, a.cards[0]) == 0]
    if loose:
        if style.points >= TEAM_FIRST and _to_partner(observation):
            return max(loose, key=lambda a: (card_value(a.cards[0], level), a.cards))
        return min(loose, key=lambda a: (card_value(a.cards[0], level), a.cards))
    pool = sorted(low or legal, key=lambda a: (card_value(a.cards[0], level), a.cards))
    by_value: dict[int, Action] = {}
    for action in pool:
        by_value.setdefault(card_value(action.cards[0], level), action)
    candidates = list(by_value.values())[:RETURN_CANDIDATES]
    if len(candidates) == 1:
        return candidates[0]
    return min(
        candidates,
        key=lambda a: (
            removal_cost(plan, a.cards, split) + 0.02 * card_value(a.cards[0], level),
            a.cards,
        ),
    )


def _to_partner(observation: Observation) -> bool:
    """Whether the return goes to this seat's partner (the tribute it answers came from
    them: GD-13, the previous deal's last player was the partner)."""
    for event in reversed(observation.events):
        if event.kind == "tribute" and event.target == observation.seat:
            return event.seat == partner_of(observation.seat)
    return False


def removal_cost(plan: Partition, cards: Sequence[Card], split: Split) -> float:
    """How much costlier the plan gets without ``cards``: the combinations holding them
    are split again without them (the rest of the plan stays as it is)."""
    need = list(cards)
    touched: list[Card] = []
    for combo in plan.combos + plan.bombs:
        hit = False
        for card in combo.cards:
            if card in need:
                need.remove(card)
                hit = True
        if hit:
            touched.extend(combo.cards)
            if not need:
                break
    if need:
        raise ValueError(f"the plan does not hold {format_cards(need)}")
    held = tuple(sorted(touched))
    rest = remove(held, cards)
    return (split(rest).cost if rest else 0.0) - split(held).cost


_HARM = {
    Kind.SINGLE: 0,
    Kind.PAIR: 1,
    Kind.TRIPLE: 2,
    Kind.FULL_HOUSE: 3,
    Kind.STRAIGHT: 4,
    Kind.PAIR_RUN: 4,
    Kind.TRIPLE_RUN: 4,
    Kind.BOMB: 5,
    Kind.STRAIGHT_FLUSH: 6,
    Kind.JOKER_BOMB: 7,
}
"""How much a card's loss hurts the plan, by the kind of combination that holds it."""


def _harm(plan: Partition, card: Card) -> int:
    for combo in plan.combos + plan.bombs:
        if card in combo.cards:
            return _HARM[combo.kind]
    return 0


# ------------------------------------------------------------------- play


def choose_play(
    view: View,
    actions: Sequence[Action],
    split: Split,
    style: Style = DEFAULT_STYLE,
    draw: Draw = never,
) -> Action:
    """The play (or pass) of the seat to act, by the rules of thumb above, in ``style``
    (``draw`` decides the choices taken at a rate)."""
    legal = Legal(actions)
    whole = legal.of(view.hand) if len(view.hand) <= MAX_PLAY else None
    if whole is not None:  # go out
        return whole
    plan = split(view.hand)
    if view.table is None:
        return _lead(view, plan, legal, style)
    return _follow(view, plan, legal, split, style, draw)


def feed_limit(style: Style) -> int:
    """A partner holding this many cards or fewer is fed (2 tempo-first … 6 team-first)."""
    return FEED + round((style.points - DEFAULT_STYLE.points) * 4)


def early_bomb_rate(style: Style) -> float:
    """The rate of a bomb on an opponent's strong play that is not urgent: √``risk``
    (0.45 at the default: measured against the bot that never bombed early, taking the
    lead back this often wins more deals than keeping every bomb for the end)."""
    return math.sqrt(style.risk)


def _feeding(view: View, style: Style) -> bool:
    """Whether the partner is about to go out and worth feeding (module docstring)."""
    partner_cards = view.counts[view.partner]
    if not 0 < partner_cards <= feed_limit(style):
        return False
    return partner_cards < view.fewest_opponent_cards() or style.points >= TEAM_FIRST


MAX_PLAY = 10
"""No combination has more than 10 cards (GD-8)."""


class Legal:
    """The legal actions, asked about a few plays each (cheaper than indexing them all)."""

    __slots__ = ("actions",)

    def __init__(self, actions: Sequence[Action]) -> None:
        self.actions = actions

    def of(self, cards: tuple[Card, ...], kind: Kind | None = None) -> Action | None:
        """The legal play of exactly ``cards`` (made as ``kind`` when the cards can be two)."""
        tags: tuple[str, ...] = ("",)
        if len(cards) == 6:  # only 6 cards with wild cards can need their kind named
            tags = ("", kind.label) if kind is not None else ("", "pair_run", "triple_run")
        for tag in tags:
            action = Action("play", cards, tag)
            if action in self.actions:
                return action
        return None

    def play(self, combo: Combo) -> Action | None:
        return self.of(combo.cards, combo.kind)


def control(combo: Combo) -> float:
    """How hard a combination is to beat, 0 (lowest of its kind) to 1 (unbeatable)."""
    if combo.is_bomb:
        return 1.0 + strength(combo.reading)[0] / 100
    if combo.kind in (Kind.STRAIGHT, Kind.PAIR_RUN, Kind.TRIPLE_RUN):
        return (combo.value - 5) / 9
    return (combo.value - 2) / 15


def _lead_key(combo: Combo) -> tuple[float, tuple[Card, ...]]:
    """Weakest first; a longer combination goes before a slightly weaker short one."""
    return control(combo) - LEAD_SIZE_BONUS * combo.size, combo.cards


def _lead(view: View, plan: Partition, legal: Legal, style: Style) -> Action:
    combos = list(plan.combos)
    while combos:  # every combination may lead: the first choice is legal
        chosen = _choose_lead(view, plan, combos, style)
        action = legal.play(chosen)
        if action is not None:
            return action
        combos.remove(chosen)
    for bomb in plan.bombs:  # only bombs left
        action = legal.play(bomb)
        if action is not None:
            return action
    return legal.actions[0]


def _choose_lead(view: View, plan: Partition, combos: list[Combo], style: Style) -> Combo:
    partner_cards = view.counts[view.partner]
    feeding = _feeding(view, style)
    small = [c for c in combos if c.size <= partner_cards] if feeding else []
    if len(combos) == 2 and not plan.bombs and not (small and style.points >= TEAM_FIRST):
        return max(combos, key=lambda c: (control(c), c.cards))  # the likelier to hold first
    threat = [view.counts[s] for s in view.active_opponents() if view.counts[s] <= THREAT]
    if small:
        return min(small, key=_lead_key)
    if threat:
        most = max(threat)
        safe = [c for c in combos if c.size > most]
        if safe:
            return min(safe, key=_lead_key)
        return max(combos, key=lambda c: (control(c), c.cards))
    return min(combos, key=_lead_key)


def _follow(
    view: View, plan: Partition, legal: Legal, split: Split, style: Style, draw: Draw
) -> Action:
    table = view.table
    assert table is not None
    on = table.reading
    fits = [
        c
        for c in plan.combos
        if c.kind == on.kind and c.size == on.size and c.value > on.value and legal.play(c)
    ]
    if table.seat == view.partner:
        return _over_partner(view, fits, legal, style)
    urgent = view.counts[table.seat] <= THREAT + 1 or view.fewest_opponent_cards() <= THREAT - 1
    if fits:
        cheapest = min(fits, key=lambda c: (c.value, c.cards))
        if (
            urgent
            or _feeding(view, style)  # take the lead to feed the partner
            or not _keeps_control(cheapest, on.value, plan)
            or draw("spend a control early", style.risk**2 * CONTROL_RATE)
        ):
            return legal.play(cheapest) or PASS
        return PASS
    broken = _break_follow(view, plan, legal, split, urgent, style.risk * BREAK_PER_RISK)
    if broken is not None:
        return broken
    bomb = _bomb(view, plan, legal, urgent)
    early = plan.bombs and _worth_an_early_bomb(table.reading, table.cards)
    if bomb is None and early and draw("bomb early", early_bomb_rate(style)):
        bomb = _bomb(view, plan, legal, True)
    return bomb or PASS


def _worth_an_early_bomb(on: Reading, cards: tuple[Card, ...]) -> bool:
    """A strong play (above a K) or a long one is worth a bomb to take the lead early."""
    return not on.power and (on.value > STRONG_TABLE or len(cards) >= LONG_PLAY)


def _over_partner(view: View, fits: list[Combo], legal: Legal, style: Style) -> Action:
    """Partner winning: pass — above all on a finishing partner's last play (GD-11: the
    lead comes to us) — unless a planned combination follows cheaply (low, or tempo-first
    short of a control), the partner far from going out, and the style not team-first."""
    table = view.table
    assert table is not None
    if style.points >= TEAM_FIRST or view.counts[view.partner] <= THREAT:
        return PASS
    tempo = style.points < TEMPO_FIRST  # any planned play short of a control, on a K
    limit, top = (LEVEL_VALUE - 1, LEVEL_VALUE - 2) if tempo else (CHEAP_VALUE, CHEAP_VALUE - 2)
    cheap = [c for c in fits if c.value <= limit and table.reading.value <= top]
    if cheap and view.fewest_opponent_cards() > THREAT:
        return legal.play(min(cheap, key=lambda c: (c.value, c.cards))) or PASS
    return PASS


def _keeps_control(combo: Combo, table_value: int, plan: Partition) -> bool:
    """Early on, a joker or level card is not spent on a low single or pair."""
    return (
        combo.kind in (Kind.SINGLE, Kind.PAIR)
        and combo.value >= LEVEL_VALUE
        and table_value <= LOW_TABLE
        and plan.hands >= EARLY_HANDS
    )


def _break_follow(
    view: View,
    plan: Partition,
    legal: Legal,
    split: Split,
    urgent: bool,
    tolerance: float,
) -> Action | None:
    """Follow by breaking a combination, when the plan gets at most ``tolerance`` plays
    costlier (or it is urgent)."""
    table = view.table
    assert table is not None
    size = table.reading.size
    level = view.level
    wild = level * 4 + 1
    candidates: dict[int, Action] = {}
    for action in legal.actions:
        cards = action.cards
        if len(cards) != size or not cards:
            continue
        if size <= 3:
            natural = [c for c in cards if c != wild]
            value = card_value(natural[0], level) if natural else LEVEL_VALUE
        elif not urgent:
            continue
        else:
            read = play_readings(cards, level)
            if not read or read[0].power:
                continue
            value = read[0].value
        best = candidates.get(value)
        if best is None or cards.count(wild) < best.cards.count(wild):
            candidates[value] = action
    if not candidates:
        return None
    ordered = sorted(candidates.items())
    if urgent:
        return ordered[0][1]
    for value, action in ordered[:BREAK_CANDIDATES]:
        if value >= LEVEL_VALUE and plan.hands >= EARLY_HANDS:
            break  # early on, controls are not broken off for a low play
        if removal_cost(plan, action.cards, split) <= tolerance:
            return action
    return None


def _bomb(view: View, plan: Partition, legal: Legal, urgent: bool) -> Action | None:
    """A bomb when an opponent is about to go out, or when the lead lets us go out."""
    if urgent or plan.hands <= len(plan.bombs):  # stop them, or take the lead to go out
        for bomb in plan.bombs:
            action = legal.play(bomb)
            if action is not None:
                return action
    table = view.table
    if urgent and table is not None and view.counts[table.seat] <= THREAT - 2:
        # the last resort: any bomb that beats, even one broken off a bigger bomb
        spare = []
        for action in legal.actions:
            if len(action.cards) >= 4:
                read = play_readings(action.cards, view.level)
                if read and read[0].power:
                    spare.append((strength(read[0]), action.cards, action))
        if spare:
            return min(spare)[2]
    return None
