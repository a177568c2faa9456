"""``arena play GAME``: one match between built-in bots, with a readable log."""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from typing import Any

import bots
from arena.cards import pretty_cards
from arena.chance import derive_seed
from arena.commands import Subcommands, arguments
from arena.errors import ConfigError
from arena.games import make
from arena.games.base import Event, Game, Outcome, State
from arena.match import Clock, play_match
from arena.plural import counted


def parse_options(pairs: list[str]) -> dict[str, Any]:
    """``--option KEY=VALUE`` texts → game options."""
    return arguments.game_options(pairs)


def parse_bots(text: str) -> list[str]:
    names = arguments.split_bots(text)
    if len(names) != 4 or not all(names):
        raise ConfigError(f"--bots needs four comma-separated names, got {text!r}")
    return arguments.bot_names(text, "--bots")


class Narrator:
    """Prints a match as it is played: one line per trick, other events on their own."""

    INLINE = frozenset({"announce", "out", "throw_failed", "trick"})
    """Events told inside the trick's line, after the play they follow."""

    def __init__(self, game: Game, players: list[str], quiet: bool) -> None:
        self.game, self.players, self.quiet = game, players, quiet
        self.line: list[str] = []
        self.last: tuple[str, int] = ("", 0)  # a repeated line and how often it came
        self.deal = 0

    def on_event(self, state: State, event: Event) -> None:
        if event.kind == "deal":
            self.flush()
            self.deal += 1
            if not self.quiet:
                print(f"\n=== deal {self.deal}: {self.game.describe_event(event, state)} ===")
        if self.quiet:
            return
        if event.kind == self.game.hands_shown_at:
            self.flush()
            self.end_repeat()
            for seat in range(4):
                player = state.player_at(seat)
                who = (
                    self.players[player] if player == seat else f"P{player} {self.players[player]}"
                )
                print(f"  S{seat} {who:>8}: {pretty_cards(state.hand(seat))}")
        if event.kind == "deal":
            return
        phrase = self.game.describe_event(event, state)
        if event.kind == "lead":
            self.flush()
            self.line.append(f"S{event.seat} {phrase}:")
        elif event.kind in ("play", "pass") and self.line:
            self.line.append(f"S{event.seat} {phrase}")
        elif event.kind in self.INLINE and self.line:
            self.line[-1] += f" [S{event.seat} {phrase}]"
        else:
            self.flush()
            self.say(f"S{event.seat} {phrase}" if event.seat >= 0 else phrase)

    def say(self, text: str) -> None:
        """Print a line; the same line again is counted, not repeated."""
        previous, times = self.last
        if text == previous:
            self.last = (text, times + 1)
            return
        self.end_repeat()
        print(f"  {text}")
        self.last = (text, 1)

    def end_repeat(self) -> None:
        times = self.last[1]
        if times > 1:
            print(f"  … {counted(times, 'time')} in all")
        self.last = ("", 0)

    def flush(self) -> None:
        if self.line:
            self.end_repeat()
            head, *rest = self.line
            print(f"  {head} " + " · ".join(rest))
            self.line = []


def add_parser(sub: Subcommands) -> None:
    """``arena play GAME``: one match between built-in bots, narrated."""
    parser = sub.add_parser("play", help="play one match between built-in bots and print its log")
    parser.add_argument("game", type=arguments.name, help="game name, e.g. guandan")
    parser.add_argument(
        "--bots",
        default="random,random,random,random",
        help="four comma-separated bot names for seats 0-3 (default: four random bots)",
    )
    parser.add_argument("--seed", type=arguments.seed, default=0, help="match seed (default 0)")
    parser.add_argument(
        "--deals", type=arguments.count, default=None, help="stop after this many deals"
    )
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="game option, e.g. a_fail_limit=3 (repeatable)",
    )
    parser.add_argument(
        "--record",
        type=arguments.output_file,
        metavar="FILE",
        help="write the match record (JSON) here",
    )
    parser.add_argument("--quiet", action="store_true", help="print only each deal's result")
    parser.add_argument(
        "--time-limit",
        type=arguments.seconds,
        default=None,
        metavar="SECONDS",
        help="decision time limit; late decisions are played automatically, five in a row "
        "is fleeing (default: the game's time_limit option, if it has one)",
    )
    parser.set_defaults(handler=run_play)


def print_match_start(game: Game, seed: int | None, names: Sequence[str]) -> None:
    """The log's first line: the game, the seed, who sits where."""
    players = ", ".join(f"S{i} {n}" for i, n in enumerate(names))
    print(f"{game.describe()} match, seed {seed}: {players}")


def print_match_end(
    game: Game, names: Sequence[str], outcomes: Sequence[Outcome], result: Mapping[str, Any]
) -> None:
    """The log's last lines: each deal's result, then the match's (``match_summary``)."""
    print()
    for number, outcome in enumerate(outcomes, start=1):
        print(f"deal {number}: {game.describe_outcome(outcome)}")
    deals = len(outcomes)
    team = result["match_winner"]
    if team is not None:
        print(
            f"\nmatch over after {counted(deals, 'deal')}: team {team} "
            f"(S{team} {names[team]} and S{team + 2} {names[team + 2]}) wins"
        )
    elif result["complete"]:  # no fixed teams (sanfu): results add up per player (SF-17)
        totals = ", ".join(f"P{p} {names[p]} {t:+d}" for p, t in enumerate(result["totals"]))
        print(f"\nmatch over after {counted(deals, 'deal')}; totals per player: {totals}")
    else:
        print(f"\nstopped after {counted(deals, 'deal')} without a match winner")


def run_play(args: argparse.Namespace) -> int:
    game = make(args.game, **parse_options(args.option))
    names = parse_bots(args.bots)
    policies = [
        bots.make(name, derive_seed(args.seed, "bot", seat)) for seat, name in enumerate(names)
    ]
    narrator = Narrator(game, names, args.quiet)
    limit = args.time_limit if args.time_limit is not None else game.options.get("time_limit")
    print_match_start(game, args.seed, names)
    result = play_match(
        game,
        policies,
        seed=args.seed,
        players=names,
        max_deals=args.deals,
        on_event=narrator.on_event,
        clock=Clock(limit=limit),
    )
    narrator.flush()
    print_match_end(game, names, result.outcomes, result.record.result)
    if args.record:
        result.record.save(args.record)
        print(f"record written to {args.record} (check it with: arena replay {args.record})")
    return 0
