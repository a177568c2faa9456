"""``arena rules …``: the rules oracle."""

from __future__ import annotations

import argparse
from collections import Counter
from collections.abc import Sequence

from arena.cards import RANKS, SUITS, Card, format_card, format_cards, parse_cards
from arena.commands import Subcommands, arguments, print_json, refuse
from arena.commands.rules_sanfu import add_sanfu_parser, run_sanfu
from arena.errors import ConfigError, ParseError
from arena.games.guandan import combos
from arena.games.shengji import scoring, trick
from arena.games.shengji.follow import follow_error
from arena.games.shengji.order import TrumpOrder
from arena.games.shengji.shapes import Unit, decompose
from arena.plural import counted


def parse_level(text: str) -> int:
    """A level given as a rank: ``2`` … ``10`` (or ``T``) … ``A``."""
    token = "T" if text == "10" else text.upper()
    if len(token) != 1 or token not in RANKS:
        raise argparse.ArgumentTypeError(f"level must be a rank 2..10, J, Q, K or A, got {text!r}")
    return RANKS.index(token)


def add_parser(sub: Subcommands) -> None:
    """``arena rules GAME QUESTION …``: one parser per game, one per question."""
    rules = sub.add_parser("rules", help="rules oracle: how cards read and what beats what")
    rules.set_defaults(handler=run_rules)
    games = rules.add_subparsers(dest="rules_game", required=True, metavar="GAME")
    guandan = games.add_parser("guandan", help="Guandan combinations (GD-5 … GD-9)")
    questions = guandan.add_subparsers(dest="rules_command", required=True, metavar="QUESTION")
    classify = questions.add_parser("classify", help="every reading of CARDS as a combination")
    classify.add_argument("--level", type=parse_level, default=0, help="level rank (default 2)")
    classify.add_argument("cards", help='cards, e.g. "3s 3d 4s 4h 2h 2h"')
    beats = questions.add_parser("beats", help="whether PLAY beats ON_TABLE")
    beats.add_argument("--level", type=parse_level, default=0, help="level rank (default 2)")
    beats.add_argument("play", help="the cards played")
    beats.add_argument("on_table", help="the cards on the table")
    _add_shengji_parser(games)
    add_sanfu_parser(games)


def _shengji_options(parser: argparse.ArgumentParser, defaults: bool) -> None:
    """The deal's facts; given before or after the question (after wins)."""

    def default(value: object) -> object:
        return value if defaults else argparse.SUPPRESS

    parser.add_argument(
        "--decks",
        type=arguments.integer_in(1, 4),
        default=default(2),
        help="number of decks, 1 to 4 (default 2)",
    )
    parser.add_argument(
        "--level", type=parse_level, default=default(0), help="level rank (default 2)"
    )
    parser.add_argument(
        "--trump",
        default=default(None),
        help="trump suit: s, h, d, c or none (notrump); with --two-colour: black, red or none",
    )
    parser.add_argument(
        "--constant-twos",
        action="store_true",
        default=default(False),
        help="2s are permanent trumps (always on with 4 decks)",
    )
    parser.add_argument(
        "--two-colour",
        action="store_true",
        default=default(False),
        help="1 deck: hearts+diamonds are one suit 'red', spades+clubs 'black' (SJ-31)",
    )


def _add_shengji_parser(games: Subcommands) -> None:
    shengji = games.add_parser(
        "shengji", help="Shengji shapes, trick winner, follow check, kitty (SJ-14 … SJ-25)"
    )
    _shengji_options(shengji, defaults=True)
    questions = shengji.add_subparsers(dest="rules_command", required=True, metavar="QUESTION")
    classify = questions.add_parser("classify", help="CARDS as sets and tractors (SJ-14 … SJ-16)")
    classify.add_argument("cards", help='cards of one suit, e.g. "Ks Ks Qs Qs 5s"')
    beats = questions.add_parser("beats", help="whether PLAY beats the best play so far (SJ-20)")
    beats.add_argument("--lead", required=True, help="the lead of the trick")
    beats.add_argument("--best", help="the best play so far (default: the lead)")
    beats.add_argument("--play", required=True, help="the play, assumed a legal follow")
    follow = questions.add_parser("follow", help="whether PLAY from HAND is a legal follow (SJ-19)")
    follow.add_argument("--hand", required=True, help="the follower's hand, holding PLAY")
    follow.add_argument("--lead", required=True, help="the lead of the trick")
    follow.add_argument("--play", required=True, help="the cards played")
    multiplier = questions.add_parser(
        "multiplier", help="kitty multiplier when CARDS win the last trick (SJ-25)"
    )
    multiplier.add_argument("cards", help="the winning play of the last trick")
    for question in (classify, beats, follow, multiplier):
        _shengji_options(question, defaults=False)


def run_rules(args: argparse.Namespace) -> int:
    if args.rules_game == "shengji":
        return run_shengji(args)
    if args.rules_game == "sanfu":
        return run_sanfu(args)
    if args.rules_command == "classify":
        cards = parse_cards(args.cards)
        found = combos.readings(cards, args.level)
        if not found:
            return _no_combination(args.cards, cards, args.level)
        print_json({"readings": [r.to_dict(args.level) for r in found]})
        return 0
    play, table = parse_cards(args.play), parse_cards(args.on_table)
    play_found = combos.readings(play, args.level)
    table_found = combos.readings(table, args.level)
    for text, cards, found in ((args.play, play, play_found), (args.on_table, table, table_found)):
        if not found:
            return _no_combination(text, cards, args.level)
    print_json({"beats": combos.beats_any(play_found, table_found)})
    return 0


def _no_combination(text: str, cards: tuple[int, ...], level: int) -> int:
    reason = combos.no_combination_reason(cards, level)
    return refuse(f"{text!r} is no combination: {reason} (GD-8)")


# ------------------------------------------------------------------ Shengji

_COLOURS = ("black", "red")


def run_shengji(args: argparse.Namespace) -> int:
    """``arena rules shengji [options] QUESTION …``: answers as one line of JSON."""
    order = _shengji_order(args)
    decks: int = args.decks
    question = args.rules_command
    if question == "classify":
        cards = _cards(args.cards, "CARDS", decks)
        suit = _one_suit(cards, args.cards, order, "a combination is of one suit (SJ-14)")
        units = decompose(cards, order)
        print_json({"suit": order.suit_name(suit), "units": [_unit(u, order) for u in units]})
    elif question == "multiplier":
        if decks == 4:
            raise ConfigError("4 decks have no kitty: the last trick is settled by SJ-30")
        cards = _cards(args.cards, "CARDS", decks)
        _one_suit(cards, args.cards, order, "a play that wins a trick is of one suit (SJ-20)")
        largest = trick.largest_unit_cards(cards, order)
        print_json({"multiplier": scoring.kitty_multiplier(largest)})
    elif question == "beats":
        print_json({"beats": _beats(args, order)})
    else:
        print_json(_follow(args, order))
    return 0


def _shengji_order(args: argparse.Namespace) -> TrumpOrder:
    decks: int = args.decks
    if not 1 <= decks <= 4:
        raise ConfigError(f"Shengji is played with 1 to 4 decks, not {decks}")
    two_colour: bool = args.two_colour
    if two_colour and decks != 1:
        raise ConfigError(f"--two-colour is a 1-deck option (SJ-31), not for {decks} decks")
    text = args.trump
    if text is None:
        names = "black, red or none" if two_colour else "s, h, d, c or none"
        raise ConfigError(f"--trump is required: {names}")
    return TrumpOrder(
        args.level, _trump(text, two_colour), args.constant_twos or decks == 4, two_colour
    )


def _trump(text: str, two_colour: bool) -> int | None:
    """``none`` is notrump; else a suit letter, or with two colours a colour (SJ-31)."""
    token = text.lower()
    if token == "none":
        return None
    if two_colour:
        if token in _COLOURS:
            return _COLOURS.index(token)
        raise ConfigError(f"--trump must be black, red or none with --two-colour, got {text!r}")
    if len(token) == 1 and token in SUITS:
        return SUITS.index(token)
    raise ConfigError(f"--trump must be s, h, d, c or none, got {text!r}")


def _cards(text: str, what: str, decks: int) -> tuple[Card, ...]:
    cards = parse_cards(text)
    if not cards:
        raise ParseError(f"{what} holds no cards")
    _copies(cards, what, decks)
    return cards


def _copies(cards: Sequence[Card], what: str, decks: int) -> None:
    for card, n in sorted(Counter(cards).items()):
        if n > decks:
            raise ParseError(
                f"{what}: {n} copies of {format_card(card)}, but there are only {decks} decks"
            )


def _one_suit(cards: Sequence[Card], text: str, order: TrumpOrder, why: str) -> int:
    suits = {order.suits[c] for c in cards}
    if len(suits) != 1:
        first = {order.suits[c]: c for c in reversed(cards)}
        mixed = ", ".join(f"{format_card(first[s])} is {order.suit_name(s)}" for s in sorted(suits))
        raise ParseError(f"{text!r} mixes suits ({mixed}): {why}")
    return suits.pop()


def _lead(text: str, order: TrumpOrder, decks: int) -> tuple[tuple[Card, ...], list[Unit], int]:
    """The lead's cards, units and suit."""
    cards = _cards(text, "--lead", decks)
    suit = _one_suit(cards, text, order, "a lead is of one suit (SJ-18)")
    units = decompose(cards, order)
    if len(units) > 1 and decks == 4:
        raise ParseError(f"--lead {text!r} is a throw: not allowed with 4 decks (SJ-17)")
    return cards, units, suit


def _beats(args: argparse.Namespace, order: TrumpOrder) -> bool:
    decks: int = args.decks
    lead, units, suit = _lead(args.lead, order, decks)
    play = _same_size(_cards(args.play, "--play", decks), "--play", lead)
    if args.best is None:
        best, used = trick.lead_contender(units, suit), [*lead, *play]
    else:
        best_cards = _same_size(_cards(args.best, "--best", decks), "--best", lead)
        found = trick.contender(best_cards, units, suit, order, decks)
        if found is None:
            raise ParseError(
                f"--best {args.best!r} is a discard (not of the led suit, or not all trumps, "
                "or not covering the lead's shape): it cannot be the best play (SJ-20)"
            )
        best, used = found, [*lead, *best_cards, *play]
    _copies(used, "--lead, --best and --play together", decks)
    challenger = trick.contender(play, units, suit, order, decks)
    return challenger is not None and challenger.beats(best)


def _follow(args: argparse.Namespace, order: TrumpOrder) -> dict[str, object]:
    decks: int = args.decks
    hand = _cards(args.hand, "--hand", decks)
    lead, units, suit = _lead(args.lead, order, decks)
    play = _cards(args.play, "--play", decks)
    _copies([*hand, *lead], "--hand and --lead together", decks)
    missing = Counter(play) - Counter(hand)
    if missing:
        raise ParseError(
            f"--play {args.play!r}: {format_cards(sorted(missing.elements()))} not in --hand"
        )
    reason = follow_error(hand, play, units, suit, order, decks)
    return {"legal": not reason, "reason": reason}


def _same_size(cards: tuple[Card, ...], what: str, lead: Sequence[Card]) -> tuple[Card, ...]:
    if len(cards) != len(lead):
        raise ParseError(
            f"{what} has {counted(len(cards), 'card')}, the lead {len(lead)}: every play of a "
            f"trick "
            "has as many cards as the lead (SJ-19)"
        )
    return cards


def _unit(unit: Unit, order: TrumpOrder) -> dict[str, object]:
    top = max(unit.cards, key=lambda c: order.orders[c])
    return {"width": unit.width, "length": unit.length, "top": format_card(top)}
