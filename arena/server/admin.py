"""Admin: fixtures and tournaments played on the server, matches listed and cancelled,
tokens revoked. Every call needs the admin token (checked by the interceptor).

A fixture or tournament is stored as a tournament; its matches are scheduled on the
Play service and start as soon as each registered bot in them has a connection waiting
(built-in bots are always there). Their seeds derive from the given seed, so a fixture
is reproducible.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import secrets
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Final, TypeVar

import grpc
from google.protobuf import json_format

from arena import games
from arena._proto.arena.v1 import arena_pb2, arena_pb2_grpc
from arena.chance import derive_seed
from arena.errors import ConfigError, quoted
from arena.games.base import NUM_SEATS
from arena.inputs import GameOptions, Name, parse_toml, validate
from arena.server.builtin import builtin_names, builtin_problem, is_builtin
from arena.server.play import ClockConfig, MatchPlan, PlayService
from arena.server.services import (
    Failure,
    Services,
    free_text,
    list_matches,
    match_summary,
    refuse,
    revoke,
)
from arena.server.session import plan_summary
from arena.sim.tournament import TournamentConfig, plan
from arena.store import BUILTIN_KIND, CANCELLED, StoreError

__all__ = ["AdminService"]

if TYPE_CHECKING:
    Context = grpc.aio.ServicerContext[Any, Any]

Request = TypeVar("Request")
Reply = TypeVar("Reply")

MAX_FIXTURE_MATCHES: Final = 10_000
CANCEL_WAIT_SECONDS: Final = 10.0
MAX_REASON: Final = 200
"""Characters of an operator's reason for cancelling (told to the seats, stored)."""


def _options(message: Any) -> dict[str, Any]:
    options = json_format.MessageToDict(message)
    # JSON numbers arrive as floats: whole ones are the integers the games expect.
    return {k: int(v) if isinstance(v, float) and v.is_integer() else v for k, v in options.items()}


def _clock(settings: arena_pb2.ClockSettings, has: bool) -> ClockConfig | None:
    if not has:
        return None
    default = ClockConfig()
    return ClockConfig(
        decision_seconds=settings.decision_ms / 1000 or default.decision_seconds,
        time_bank_seconds=settings.time_bank_ms / 1000,
        grace_seconds=settings.grace_ms / 1000 or default.grace_seconds,
    )


class AdminService(arena_pb2_grpc.AdminServicer):
    def __init__(self, services: Services, play: PlayService) -> None:
        self._s = services
        self._play = play

    def _known_bot(self, name: str) -> bool:
        return self._s.store.bot(name) is not None or is_builtin(name)

    def _check_variant(self, variant: str, options: Mapping[str, Any]) -> None:
        try:
            games.make(variant, **validate(GameOptions, dict(options), "options"))
        except (ConfigError, TypeError) as err:
            raise Failure(grpc.StatusCode.INVALID_ARGUMENT, str(err)) from None

    def _check_bots(self, names: Iterable[str], variant: str) -> None:
        """Every bot can play ``variant``: a registered bot that registered for it, or a
        built-in bot (maybe with parameters); else INVALID_ARGUMENT naming it."""
        for name in sorted(set(names)):
            bot = self._s.store.bot(name)
            if bot is not None and bot.kind != BUILTIN_KIND:
                if bot.games is not None and variant not in bot.games:
                    raise Failure(
                        grpc.StatusCode.INVALID_ARGUMENT,
                        f"bot {quoted(name)} did not register for variant {quoted(variant)}; "
                        f"it registered for: {', '.join(bot.games)}",
                    )
                continue
            problem = builtin_problem(name)
            if problem is not None:
                raise Failure(
                    grpc.StatusCode.INVALID_ARGUMENT,
                    problem
                    if ":" in name
                    else f"unknown bot {quoted(name)}: neither registered nor built-in "
                    f"({', '.join(builtin_names())}, each maybe with parameters "
                    "such as search:samples=16)",
                )

    def _store_tournament(
        self, name: str, variant: str, options: Mapping[str, Any], config: dict[str, Any]
    ) -> str:
        digest = hashlib.blake2b(
            json.dumps(config, sort_keys=True).encode(), digest_size=4
        ).hexdigest()
        tournament_id = f"{name}-{digest}"
        self._add_tournament(tournament_id, name, variant, options, config)
        return tournament_id

    def _add_tournament(
        self,
        tournament_id: str,
        name: str,
        variant: str,
        options: Mapping[str, Any],
        config: dict[str, Any],
    ) -> None:
        try:
            added = self._s.store.add_tournament(
                tournament_id, name, variant, dict(options), config, status="running"
            )
        except StoreError as err:
            raise Failure(grpc.StatusCode.ALREADY_EXISTS, str(err)) from None
        if not added:
            raise Failure(
                grpc.StatusCode.ALREADY_EXISTS,
                f"{quoted(tournament_id)} exists already: its matches are scheduled or played",
            )

    def create_fixture(
        self, request: arena_pb2.CreateFixtureRequest
    ) -> arena_pb2.CreateFixtureResponse:
        if not request.name or not request.variant:
            raise Failure(grpc.StatusCode.INVALID_ARGUMENT, "name and variant are required")
        try:
            validate(Name, request.name, "name")
        except ConfigError as err:
            raise Failure(grpc.StatusCode.INVALID_ARGUMENT, str(err)) from None
        if len(request.players) != NUM_SEATS:
            raise Failure(
                grpc.StatusCode.INVALID_ARGUMENT,
                f"a fixture names {NUM_SEATS} players, got {len(request.players)}",
            )
        matches = request.matches or 1
        if matches > MAX_FIXTURE_MATCHES:
            raise Failure(
                grpc.StatusCode.INVALID_ARGUMENT,
                f"at most {MAX_FIXTURE_MATCHES} matches a fixture, got {matches}",
            )
        options = _options(request.options)
        self._check_variant(request.variant, options)
        self._check_bots(request.players, request.variant)
        seed = request.seed if request.HasField("seed") else secrets.randbits(62)
        config = {
            "fixture": True,
            "players": list(request.players),
            "matches": matches,
            "deals": request.deals,
            "seed": seed,
            "paired": request.paired,
            "rated": request.rated,
        }
        tournament_id = self._store_tournament(request.name, request.variant, options, config)
        clock = _clock(request.clock, request.HasField("clock"))
        a, b, c, d = request.players
        plans = []
        for m in range(matches):
            match_seed = derive_seed(seed, "fixture", m)
            sides = [("", (a, b, c, d))]
            if request.paired:
                sides = [(":a", (a, b, c, d)), (":b", (b, a, d, c))]
            for suffix, players in sides:
                plans.append(
                    MatchPlan(
                        variant=request.variant,
                        players=players,
                        rated=request.rated,
                        options=options,
                        match_id=f"{tournament_id}:p0:m{m}{suffix}",
                        seed=match_seed,
                        tournament_id=tournament_id,
                        max_deals=request.deals or None,
                        clock=clock,
                    )
                )
        self._play.schedule(plans)
        return arena_pb2.CreateFixtureResponse(
            tournament_id=tournament_id, match_ids=[p.match_id or "" for p in plans]
        )

    def create_tournament(
        self, request: arena_pb2.CreateTournamentRequest
    ) -> arena_pb2.CreateTournamentResponse:
        source = request.WhichOneof("source")
        rated, clock = False, None
        try:
            if source == "toml":
                data = parse_toml(request.toml)
            elif source == "definition":
                d = request.definition
                data = {
                    "name": d.name or "tournament",
                    "variant": d.variant or "guandan",
                    "options": _options(d.options),
                    "teams": [list(t.bots) for t in d.teams],
                    "format": d.format or "round_robin",
                    "matches": d.matches or 10,
                    "seed": d.seed,
                    "paired": d.paired,
                }
                if d.HasField("reference"):
                    data["reference"] = list(d.reference.bots)
                if d.deals:
                    data["deals"] = d.deals
                rated = d.rated
                clock = _clock(d.clock, d.HasField("clock"))
            else:
                raise Failure(
                    grpc.StatusCode.INVALID_ARGUMENT, "a definition or a TOML text is required"
                )
            config = TournamentConfig.from_mapping(data, known_bot=self._known_bot)
            if config.format == "rated":
                raise ConfigError(
                    "the server plays round_robin and gauntlet tournaments; "
                    "run a rated tournament with `arena tournament`"
                )
            self._check_bots(
                [*(bot for team in config.teams for bot in team), *(config.reference or ())],
                config.variant,
            )
            jobs = plan(config)
        except (ConfigError, ValueError, TypeError) as err:
            raise Failure(grpc.StatusCode.INVALID_ARGUMENT, str(err)) from None
        if len(jobs) > MAX_FIXTURE_MATCHES:
            raise Failure(
                grpc.StatusCode.INVALID_ARGUMENT,
                f"at most {MAX_FIXTURE_MATCHES} matches a tournament, got {len(jobs)}",
            )
        self._add_tournament(config.id, config.name, config.variant, config.options, data)
        self._play.schedule(
            [
                MatchPlan(
                    variant=job.variant,
                    players=job.players,
                    rated=rated,
                    options=dict(job.options),
                    match_id=job.id,
                    seed=job.seed,
                    tournament_id=config.id,
                    max_deals=job.max_deals,
                    clock=clock,
                )
                for job in jobs
            ]
        )
        return arena_pb2.CreateTournamentResponse(tournament_id=config.id, matches=len(jobs))

    async def cancel_match(
        self, request: arena_pb2.CancelMatchRequest
    ) -> arena_pb2.CancelMatchResponse:
        if not request.match_id:
            raise Failure(grpc.StatusCode.INVALID_ARGUMENT, "match_id is required")
        free_text("reason", request.reason, MAX_REASON)
        stored = self._s.store.match(request.match_id)
        if stored is not None:
            was = "cancelled" if stored.end_reason == CANCELLED else "over"
            raise Failure(
                grpc.StatusCode.FAILED_PRECONDITION,
                f"match {quoted(request.match_id)} is {was} already",
            )
        plan_ = next((p for p in self._play.scheduled if p.match_id == request.match_id), None)
        session = self._play.sessions.get(request.match_id)
        try:
            was = self._play.cancel(request.match_id, request.reason)
        except KeyError:
            raise Failure(
                grpc.StatusCode.NOT_FOUND, f"no match {quoted(request.match_id)}"
            ) from None
        if was == "running" and session is not None:
            if session.task is not None:
                await asyncio.wait({session.task}, timeout=CANCEL_WAIT_SECONDS)
            summary = session.summary()
            stored = self._s.store.match(request.match_id)
            if stored is not None:
                if stored.outcome.get("aborted") is None:  # its last decision came first
                    raise Failure(
                        grpc.StatusCode.FAILED_PRECONDITION,
                        f"match {quoted(request.match_id)} finished its play before the "
                        "cancellation reached it: it is stored as played",
                    )
                summary = match_summary(stored)
        else:
            assert plan_ is not None
            stored = self._s.store.match(request.match_id)
            summary = match_summary(stored) if stored is not None else plan_summary(plan_)
        summary.status = arena_pb2.MATCH_STATUS_CANCELLED
        summary.end_reason = arena_pb2.END_REASON_CANCELLED
        return arena_pb2.CancelMatchResponse(match=summary)

    def list_all(self, request: arena_pb2.ListMatchesRequest) -> arena_pb2.ListMatchesResponse:
        """Scheduled and running matches (on the first page), then the stored ones."""
        live = [s.summary() for s in list(self._play.sessions.values())]
        live += [plan_summary(p) for p in list(self._play.scheduled)]
        return list_matches(self._s.store, request, live)

    # -- the RPCs ----------------------------------------------------------------------

    async def CreateFixture(
        self, request: arena_pb2.CreateFixtureRequest, context: Context
    ) -> arena_pb2.CreateFixtureResponse:
        return await _answer(context, self.create_fixture, request)

    async def CreateTournament(
        self, request: arena_pb2.CreateTournamentRequest, context: Context
    ) -> arena_pb2.CreateTournamentResponse:
        return await _answer(context, self.create_tournament, request)

    async def CancelMatch(
        self, request: arena_pb2.CancelMatchRequest, context: Context
    ) -> arena_pb2.CancelMatchResponse:
        try:
            return await self.cancel_match(request)
        except Failure as failure:
            await refuse(context, failure.code, failure.message)

    async def ListMatches(
        self, request: arena_pb2.ListMatchesRequest, context: Context
    ) -> arena_pb2.ListMatchesResponse:
        return await _answer(context, self.list_all, request)

    async def RevokeToken(
        self, request: arena_pb2.RevokeTokenRequest, context: Context
    ) -> arena_pb2.RevokeTokenResponse:
        return await _answer(context, lambda r: revoke(self._s, r, None), request)


async def _answer(context: Context, handle: Callable[[Request], Reply], request: Request) -> Reply:
    """``handle(request)``, a :class:`Failure` turned into the call's status."""
    try:
        return handle(request)
    except Failure as failure:
        await refuse(context, failure.code, failure.message)
