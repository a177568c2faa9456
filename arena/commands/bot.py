"""``arena bot register NAME``: a bot's token; ``arena bot run MODULE:CLASS``: play a bot
class on an arena server.

The class is imported (the current directory is searched first) and instantiated with no
arguments, or with ``seed`` if its ``__init__`` takes one. The token comes from
``--token`` or the environment variable ``ARENA_BOT_TOKEN``; the owner key of
``register`` from ``--owner-key`` or ``ARENA_OWNER_KEY``.

``run --exec "CMD"`` plays a program that reads a JSON line per decision and writes
one back; ``run --botzone "CMD"`` a program written for Botzone's Tractor (either of
its interaction modes); see docs/gateways.md. Their processes end with the run.

``run`` tells on stderr what happens (connected, waiting, seated, each deal, each match,
refused answers, errors, reconnections): one line each in a terminal, structured log
events otherwise (or as ``ARENA_LOG_FORMAT`` says); stdout gets the number of matches
played at the end. A server that stays unreachable (``--give-up-after``, 2 minutes by
default) ends the run with one line and exit status 2.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import os
import sys
from pathlib import Path
from typing import Any

from arena.commands import Subcommands, arguments
from arena.errors import ArenaError
from arena.plural import counted
from arena.protocol import DEFAULT_SERVER

GIVE_UP_AFTER = 120.0
"""Seconds ``bot run`` keeps trying to reach an unreachable server before it stops."""
TOKEN_ENV = "ARENA_BOT_TOKEN"
OWNER_KEY_ENV = "ARENA_OWNER_KEY"


def add_parser(sub: Subcommands) -> None:
    """The ``bot`` subcommand's arguments."""
    parser = sub.add_parser("bot", help="play your bot on an arena server (the bot SDK)")
    actions = parser.add_subparsers(dest="bot_command", required=True, metavar="ACTION")
    run = actions.add_parser(
        "run",
        help="connect MODULE:CLASS to a server and play matches",
        description="Connect a bot class (e.g. bots.simple:RandomBot) to a server and play. "
        f"Token: --token or ${TOKEN_ENV}.",
    )
    mind = run.add_mutually_exclusive_group(required=True)
    mind.add_argument(
        "bot",
        nargs="?",
        type=arguments.bot_class,
        metavar="MODULE:CLASS",
        help="the bot class, e.g. mybot:MyBot",
    )
    mind.add_argument(
        "--exec",
        metavar="CMD",
        help="a program reading a JSON line per decision and writing one back (any variant)",
    )
    mind.add_argument(
        "--botzone",
        metavar="CMD",
        help="a Botzone Tractor program, simple or long-running (shengji variants)",
    )
    run.add_argument(
        "--server",
        type=arguments.host_port,
        default=DEFAULT_SERVER,
        help=f"HOST:PORT ({DEFAULT_SERVER})",
    )
    run.add_argument("--token", type=arguments.secret, help=f"the bot token (default ${TOKEN_ENV})")
    run.add_argument(
        "--variant",
        type=arguments.variant,
        action="append",
        default=[],
        help="a variant to play, repeatable (default guandan; shengji-2 with --botzone)",
    )
    run.add_argument("--casual", action="store_true", help="casual matches, not rated")
    run.add_argument(
        "--matches", type=arguments.count, default=None, help="stop after N (default: never)"
    )
    run.add_argument(
        "--seed", type=arguments.seed, default=0, help="given to a class taking a seed (0)"
    )
    run.add_argument(
        "--fill-after",
        type=arguments.seconds_or_zero,
        metavar="SECONDS",
        help="after this wait, fill the empty seats with built-in bots",
    )
    run.add_argument(
        "--fill-bot", type=arguments.bot, help="the built-in bot that fills seats (random)"
    )
    run.add_argument(
        "--give-up-after",
        type=arguments.seconds_or_zero,
        default=GIVE_UP_AFTER,
        metavar="SECONDS",
        help="stop with an error when no connection to the server succeeded for this "
        f"long, retrying meanwhile ({GIVE_UP_AFTER:g}; 0: retry forever)",
    )
    register = actions.add_parser(
        "register",
        help="register (or update) a bot with your owner key and print its new token",
        description="Register NAME with the owner key (--owner-key or "
        f"${OWNER_KEY_ENV}); the token is printed once, alone on stdout.",
    )
    register.add_argument(
        "name", type=arguments.bot_name, help="the bot's name: letters, digits, '-', '_', '.'"
    )
    register.add_argument(
        "--server",
        type=arguments.host_port,
        default=DEFAULT_SERVER,
        help=f"HOST:PORT ({DEFAULT_SERVER})",
    )
    register.add_argument(
        "--owner-key", type=arguments.secret, help=f"the owner key (default ${OWNER_KEY_ENV})"
    )
    register.add_argument("--owner", default="", help="the owner's display name")
    register.add_argument("--version", default="", help="the bot's version")
    register.add_argument(
        "--game",
        type=arguments.variant,
        action="append",
        default=[],
        help="a variant it plays, repeatable (all)",
    )
    register.add_argument("--description", default="", help="one line about the bot")
    for command in (run, register):
        _add_tls_arguments(command)
    parser.set_defaults(handler=run_bot_command)


def _add_tls_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--tls", action="store_true", help="connect over TLS (system roots)")
    parser.add_argument(
        "--tls-ca",
        type=arguments.pem_file,
        metavar="FILE",
        help="connect over TLS trusting this CA certificate (PEM)",
    )


def load_bot(spec: str, seed: int = 0) -> object:
    """An instance of the class ``MODULE:CLASS``."""
    module_name, _, class_name = spec.partition(":")
    if not module_name or not class_name:
        raise ArenaError(f"bot must be MODULE:CLASS, e.g. bots.simple:RandomBot, got {spec!r}")
    if "" not in sys.path and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        module = importlib.import_module(module_name)
    except (ImportError, TypeError, ValueError) as err:  # e.g. a relative name: '..'
        raise ArenaError(f"cannot import {module_name!r}: {err}") from None
    cls: Any = getattr(module, class_name, None)
    if not inspect.isclass(cls):
        raise ArenaError(f"{module_name!r} has no class {class_name!r}")
    if not callable(getattr(cls, "act", None)):
        raise ArenaError(f"{spec} has no act(observation) method")
    try:
        takes_seed = "seed" in inspect.signature(cls).parameters
    except (TypeError, ValueError):
        takes_seed = False
    factory: Any = cls
    try:
        bot: object = factory(seed=seed) if takes_seed else factory()
    except Exception as err:  # the author's own code failed: said in one line
        raise ArenaError(f"cannot create {spec}: {type(err).__name__}: {err}") from None
    return bot


def _roots(args: argparse.Namespace) -> bytes | None:
    if args.tls_ca is None:
        return None
    try:
        return Path(args.tls_ca).read_bytes()
    except OSError as err:
        raise ArenaError(f"cannot read --tls-ca {args.tls_ca}: {err.strerror}") from None


def run_bot_command(args: argparse.Namespace) -> int:
    if args.bot_command == "register":
        return _register(args)
    return _run(args)


def _register(args: argparse.Namespace) -> int:
    from arena.client.registry import register  # loads gRPC: only for this command

    key = arguments.secret_or_env(args.owner_key, OWNER_KEY_ENV)
    if not key:
        raise ArenaError(f"no owner key: give --owner-key or set ${OWNER_KEY_ENV}")
    done = register(
        args.server,
        key,
        args.name,
        owner=args.owner,
        version=args.version,
        games=args.game,
        description=args.description,
        tls=args.tls,
        root_certificates=_roots(args),
    )
    what = "registered" if done.created else "updated"
    print(f"{what} {done.bot_id} (token id {done.token_id})", file=sys.stderr)
    print(done.token, flush=True)
    return 0


def _run(args: argparse.Namespace) -> int:
    # gRPC loads only for this command
    from arena.client.report import reporter_for
    from arena.client.runner import run_bot

    token = arguments.secret_or_env(args.token, TOKEN_ENV)
    if not token:
        raise ArenaError(f"no token: give --token or set ${TOKEN_ENV}")
    options: dict[str, Any] = {
        "server": args.server,
        "token": token,
        "rated": not args.casual,
        "matches": args.matches,
        "tls": args.tls,
        "root_certificates": _roots(args),
        "fill_after": args.fill_after,
        "fill_bot": args.fill_bot or "",
        "give_up_after": args.give_up_after or None,
        "reporter": reporter_for(sys.stderr),
    }
    if args.bot is None:
        from arena.gateways.run import run_program  # a program as the bot

        summary = run_program(args.exec, args.botzone, args.variant, options)
    else:
        bot = load_bot(args.bot, args.seed)
        summary = run_bot(bot, variants=args.variant or ["guandan"], **options)
    print(f"{counted(summary.matches, 'match')} played", flush=True)
    return 0
