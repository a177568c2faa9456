"""``arena admin …``: every Admin RPC from the command line.

``fixture`` (CreateFixture), ``tournament`` (CreateTournament from a definition file),
``list`` (ListMatches: scheduled, running and stored matches), ``cancel`` (CancelMatch)
and ``revoke`` (RevokeToken). Each takes ``--server HOST:PORT``, the admin token
(``--admin-token`` or ``$ARENA_ADMIN_TOKEN``) and ``--tls`` / ``--tls-ca FILE``.

A refusal by the server is one line naming its status and message, exit status 2 (as
for any bad input); a server that cannot be reached, or does not answer in time, is one
line too, exit status 1.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from datetime import UTC
from pathlib import Path
from typing import Any, Final

import grpc
from google.protobuf import json_format, struct_pb2
from google.protobuf.message import Message

from arena._proto.arena.v1 import arena_pb2, arena_pb2_grpc
from arena.commands import EXIT_USAGE, Subcommands, arguments, print_json
from arena.commands.matches import print_table
from arena.errors import ArenaError
from arena.inputs import one_line, read_text
from arena.plural import counted
from arena.protocol import ADMIN_TOKEN_ENV, DEFAULT_SERVER

EXIT_UNREACHABLE: Final = 1
DEFAULT_LIMIT: Final = 50
STATUSES: Final = {
    "scheduled": arena_pb2.MATCH_STATUS_SCHEDULED,
    "running": arena_pb2.MATCH_STATUS_RUNNING,
    "finished": arena_pb2.MATCH_STATUS_FINISHED,
    "cancelled": arena_pb2.MATCH_STATUS_CANCELLED,
}
UNREACHABLE: Final = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)

Action = Callable[[arena_pb2_grpc.AdminStub, argparse.Namespace], dict[str, Any]]
"""An RPC made from the arguments: prints its answer for people unless ``--json``, and
returns it as JSON-ready data."""


def add_parser(sub: Subcommands) -> None:
    """``arena admin fixture|tournament|list|cancel|revoke``."""
    parser = sub.add_parser(
        "admin",
        help="operate a running server: fixtures, tournaments, the match list, cancel, revoke",
        description="Call the Admin service of an arena server. The admin token comes from "
        f"--admin-token or ${ADMIN_TOKEN_ENV}. A refusal prints the server's status and "
        "message (exit status 2); an unreachable server exits with status 1.",
    )
    connection = arguments.ArenaParser(add_help=False)
    connection.add_argument(
        "--server",
        type=arguments.host_port,
        default=DEFAULT_SERVER,
        help=f"HOST:PORT ({DEFAULT_SERVER})",
    )
    connection.add_argument(
        "--admin-token",
        type=arguments.secret,
        metavar="TOKEN",
        help=f"(default ${ADMIN_TOKEN_ENV})",
    )
    connection.add_argument("--tls", action="store_true", help="connect over TLS (system roots)")
    connection.add_argument(
        "--tls-ca",
        type=arguments.readable_file,
        metavar="FILE",
        help="connect over TLS trusting this CA certificate (PEM)",
    )
    connection.add_argument(
        "--timeout", type=arguments.seconds, default=30.0, help="seconds to wait for an answer (30)"
    )
    connection.add_argument("--json", action="store_true", help="the answer as JSON")
    actions = parser.add_subparsers(dest="admin_command", required=True, metavar="ACTION")
    _add_fixture(actions, connection)
    tournament = actions.add_parser(
        "tournament",
        parents=[connection],
        help="schedule a tournament from a definition file (see 'arena tournament --example')",
    )
    tournament.add_argument("file", type=arguments.readable_file, help="the definition (TOML)")
    tournament.set_defaults(admin_action=create_tournament)
    _add_list(actions, connection)
    cancel = actions.add_parser(
        "cancel", parents=[connection], help="cancel a scheduled or running match (not rated)"
    )
    cancel.add_argument("match_id", metavar="MATCH_ID", help="the match ('admin list' shows ids)")
    cancel.add_argument("--reason", default="", help="told to the seated bots and stored")
    cancel.set_defaults(admin_action=cancel_match)
    revoke = actions.add_parser(
        "revoke", parents=[connection], help="revoke bot tokens (their connections are closed)"
    )
    target = revoke.add_mutually_exclusive_group(required=True)
    target.add_argument("--token-id", type=arguments.name, help="one token, by its handle")
    target.add_argument("--token", type=arguments.secret, help="one token, by its secret")
    target.add_argument("--bot", type=arguments.bot, help="every token of this bot")
    revoke.set_defaults(admin_action=revoke_tokens)
    parser.set_defaults(handler=run_admin)


def _add_fixture(actions: Subcommands, connection: arguments.ArenaParser) -> None:
    fixture = actions.add_parser(
        "fixture",
        parents=[connection],
        help="schedule matches between four named bots",
        description="Schedule matches between four bots by player index (players 0 and 2 "
        "are a team, 1 and 3 the other): registered bots or built-in ones.",
    )
    fixture.add_argument("name", type=arguments.name, help="the fixture's name")
    fixture.add_argument("--variant", type=arguments.variant, required=True, help="the variant")
    fixture.add_argument(
        "--players", type=arguments.bot_list, required=True, metavar="A,B,C,D", help="four bots"
    )
    fixture.add_argument(
        "--option", type=arguments.game_option, action="append", default=[], metavar="KEY=VALUE"
    )
    fixture.add_argument("--matches", type=arguments.count, default=1, help="matches (1)")
    fixture.add_argument("--deals", type=arguments.count, help="deals per match (whole matches)")
    fixture.add_argument("--seed", type=arguments.seed, help="the first match's seed (random)")
    fixture.add_argument("--paired", action="store_true", help="each seed twice, sides swapped")
    fixture.add_argument("--rated", action="store_true", help="the matches count for ratings")
    fixture.add_argument("--decision-seconds", type=arguments.seconds, help="time per decision")
    fixture.add_argument("--time-bank", type=arguments.seconds_or_zero, help="seconds a seat")
    fixture.add_argument("--grace", type=arguments.seconds, help="seconds a lost seat waits")
    fixture.add_argument(
        "--auto-plays-to-flee", type=arguments.count, help="automatic plays in a row that flee"
    )
    fixture.set_defaults(admin_action=create_fixture)


def _add_list(actions: Subcommands, connection: arguments.ArenaParser) -> None:
    listing = actions.add_parser(
        "list",
        parents=[connection],
        help="scheduled, running and stored matches (newest first)",
    )
    listing.add_argument("--tournament", metavar="ID", help="only this tournament's")
    listing.add_argument("--variant", type=arguments.variant, help="only this variant's")
    listing.add_argument("--bot", type=arguments.bot, help="only those this bot plays in")
    listing.add_argument(
        "--status", action="append", choices=list(STATUSES), help="only these (repeatable)"
    )
    listing.add_argument(
        "--limit", type=arguments.count, default=DEFAULT_LIMIT, help=f"at most ({DEFAULT_LIMIT})"
    )
    listing.set_defaults(admin_action=list_matches)


# ------------------------------------------------------------------ the calls


def _clock(args: argparse.Namespace) -> arena_pb2.ClockSettings | None:
    given = {
        "decision_ms": args.decision_seconds,
        "time_bank_ms": args.time_bank,
        "grace_ms": args.grace,
    }
    if all(v is None for v in given.values()) and args.auto_plays_to_flee is None:
        return None
    clock = arena_pb2.ClockSettings(auto_plays_to_flee=args.auto_plays_to_flee or 0)
    for field, seconds in given.items():
        if seconds is not None:
            setattr(clock, field, round(seconds * 1000))
    return clock


def create_fixture(stub: arena_pb2_grpc.AdminStub, args: argparse.Namespace) -> dict[str, Any]:
    if len(args.players) != 4:
        raise ArenaError(f"--players names four bots A,B,C,D, got {len(args.players)}")
    options = struct_pb2.Struct()
    options.update(arguments.game_options(args.option))
    request = arena_pb2.CreateFixtureRequest(
        name=args.name,
        variant=args.variant,
        options=options,
        players=args.players,
        matches=args.matches,
        deals=args.deals or 0,
        seed=args.seed,
        paired=args.paired,
        rated=args.rated,
        clock=_clock(args),
    )
    reply: arena_pb2.CreateFixtureResponse = stub.CreateFixture(request, **_call(args))
    if not args.json:
        print(f"fixture {reply.tournament_id}: {counted(len(reply.match_ids), 'match')} scheduled")
        for match_id in reply.match_ids:
            print(f"  {match_id}")
    return _data(reply)


def create_tournament(stub: arena_pb2_grpc.AdminStub, args: argparse.Namespace) -> dict[str, Any]:
    text = read_text(args.file, "tournament file")
    request = arena_pb2.CreateTournamentRequest(toml=text)
    reply: arena_pb2.CreateTournamentResponse = stub.CreateTournament(request, **_call(args))
    if not args.json:
        print(f"tournament {reply.tournament_id}: {counted(reply.matches, 'match')} scheduled")
    return _data(reply)


def list_matches(stub: arena_pb2_grpc.AdminStub, args: argparse.Namespace) -> dict[str, Any]:
    request = arena_pb2.ListMatchesRequest(
        variant=args.variant or "",
        bot=args.bot or "",
        tournament_id=args.tournament or "",
        statuses=[STATUSES[status] for status in args.status or ()],
        page_size=args.limit,
    )
    found = arena_pb2.ListMatchesResponse()
    while True:
        page: arena_pb2.ListMatchesResponse = stub.ListMatches(request, **_call(args))
        found.matches.extend(page.matches[: args.limit - len(found.matches)])
        if not page.next_page_token or len(found.matches) >= args.limit:
            break
        request.page_token = page.next_page_token
    rows = [summary_row(summary) for summary in found.matches]
    if not args.json:
        print_table(rows, f"matches on {args.server}, newest first (times UTC)", args.limit)
    return {"matches": rows}


def cancel_match(stub: arena_pb2_grpc.AdminStub, args: argparse.Namespace) -> dict[str, Any]:
    request = arena_pb2.CancelMatchRequest(match_id=args.match_id, reason=args.reason)
    reply: arena_pb2.CancelMatchResponse = stub.CancelMatch(request, **_call(args))
    if not args.json:
        print(f"cancelled {reply.match.info.match_id} after {counted(reply.match.deals, 'deal')}")
    return _data(reply)


def revoke_tokens(stub: arena_pb2_grpc.AdminStub, args: argparse.Namespace) -> dict[str, Any]:
    if args.bot is not None:
        request = arena_pb2.RevokeTokenRequest(bot_id=args.bot)
    elif args.token is not None:
        request = arena_pb2.RevokeTokenRequest(token=args.token)
    else:
        request = arena_pb2.RevokeTokenRequest(token_id=args.token_id)
    reply: arena_pb2.RevokeTokenResponse = stub.RevokeToken(request, **_call(args))
    if not args.json:
        revoked = counted(reply.revoked, "token")
        closed = counted(reply.connections_closed, "connection")
        print(f"revoked {revoked}, closed {closed}")
    return _data(reply)


def _data(reply: Message) -> dict[str, Any]:
    return json_format.MessageToDict(
        reply, preserving_proto_field_name=True, always_print_fields_with_no_presence=True
    )


def _name(enum: Any, value: int, prefix: str) -> str:
    return str(enum.Name(value)).removeprefix(prefix).lower().replace("_", " ")


def summary_row(summary: arena_pb2.MatchSummary) -> dict[str, Any]:
    """A MatchSummary as a row of ``arena matches`` (and its status)."""
    finished = (
        summary.finished_at.ToDatetime(tzinfo=UTC).isoformat()
        if summary.HasField("finished_at")
        else None
    )
    unended = summary.end_reason == arena_pb2.END_REASON_UNSPECIFIED
    return {
        "id": summary.info.match_id,
        "status": _name(arena_pb2.MatchStatus, summary.status, "MATCH_STATUS_"),
        "finished_at": finished,
        "variant": summary.info.variant,
        "tournament": summary.info.tournament_id or None,
        "players": list(summary.info.players),
        "winner_team": summary.winner_team if summary.HasField("winner_team") else None,
        "totals": list(summary.totals),
        "deals": summary.deals,
        "end": None if unended else _name(arena_pb2.EndReason, summary.end_reason, "END_REASON_"),
    }


# ------------------------------------------------------------------ the connection


def _call(args: argparse.Namespace) -> dict[str, Any]:
    """The keyword arguments of every call: the admin token and the deadline."""
    metadata = (("authorization", f"Bearer {args.token_value}"),)
    return {"metadata": metadata, "timeout": args.timeout}


def _channel(args: argparse.Namespace) -> grpc.Channel:
    if not (args.tls or args.tls_ca):
        return grpc.insecure_channel(args.server)
    roots = None
    if args.tls_ca is not None:
        try:
            roots = Path(args.tls_ca).read_bytes()
        except OSError as err:
            raise ArenaError(f"cannot read --tls-ca {args.tls_ca}: {err.strerror}") from None
    return grpc.secure_channel(args.server, grpc.ssl_channel_credentials(roots))


def run_admin(args: argparse.Namespace) -> int:
    args.token_value = arguments.secret_or_env(args.admin_token, ADMIN_TOKEN_ENV)
    if not args.token_value:
        raise ArenaError(f"no admin token: give --admin-token or set ${ADMIN_TOKEN_ENV}")
    action: Action = args.admin_action
    with _channel(args) as channel:
        try:
            reply = action(arena_pb2_grpc.AdminStub(channel), args)
        except grpc.RpcError as err:
            code: grpc.StatusCode = err.code()
            details = one_line(err.details() or "")
            if code in UNREACHABLE:
                print(
                    f"arena: cannot reach an arena server at {args.server} "
                    f"({code.name}: {details})",
                    file=sys.stderr,
                )
                return EXIT_UNREACHABLE
            print(f"arena: the server refused: {code.name}: {details}", file=sys.stderr)
            return EXIT_USAGE
    if args.json:
        print_json(reply)
    return 0
