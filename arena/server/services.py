"""Servicers of arena.v1: proto in, domain calls on the store, proto out.

Here: Registry (Register, RevokeToken), Leaderboard (GetRatings, GetRatingHistory,
GetMatchRecord) and the helpers the other services share; Play.Connect lives in
:mod:`arena.server.play`, Spectate in :mod:`arena.server.spectate`, Admin in
:mod:`arena.server.admin`.

Bot ids: a bot's id is its name (unique, stable across updates).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final, NoReturn

import grpc

from arena import games
from arena._proto.arena.v1 import arena_pb2, arena_pb2_grpc
from arena.errors import quoted
from arena.inputs import one_line
from arena.log import get_logger
from arena.plural import counted
from arena.protocol import BOT_NAME
from arena.server.auth import Authenticator, Principal, hash_secret
from arena.server.builtin import builtin_names
from arena.server.interceptor import current_principal
from arena.server.limits import RateLimit
from arena.server.remote import struct
from arena.server.results import END_REASONS, rating_change, timestamp
from arena.store import (
    BUILTIN_KIND,
    CANCELLED,
    RATING_SYSTEMS,
    Bot,
    MatchFilter,
    MatchListing,
    Rating,
    Store,
    StoredMatch,
)

__all__ = ["Failure", "LeaderboardService", "RegistryService", "Services", "free_text", "refuse"]

if TYPE_CHECKING:
    Context = grpc.aio.ServicerContext[Any, Any]

log = get_logger(__name__)

REMOTE_KIND: Final = "remote"
DEFAULT_PAGE: Final = 50
MAX_PAGE: Final = 500
MAX_OFFSET: Final = 2**62
"""The largest page token (an offset) the list takes: beyond it no token was ever given."""


REGISTRATIONS_PER_MINUTE: Final = 30.0
"""Registrations one owner may make a minute (bursts of as many)."""


@dataclass(frozen=True)
class Services:
    """What the servicers share."""

    store: Store
    auth: Authenticator
    registrations_per_minute: float = REGISTRATIONS_PER_MINUTE
    on_revoke: list[Callable[[str, str | None], int]] = field(default_factory=list)
    """Called with (bot, token id or None for every token of the bot) after a revocation;
    each returns how many connections it closed."""
    unfinished: list[Callable[[str], str | None]] = field(default_factory=list)
    """Each says whether a match not stored yet is ``"scheduled"`` or ``"running"``
    (None: it does not know the match)."""
    _registration_limits: dict[str, RateLimit] = field(default_factory=dict)

    def may_register(self, owner: str) -> bool:
        """Whether ``owner`` is within its registration rate (takes one registration)."""
        limit = self._registration_limits.get(owner)
        if limit is None:
            per_minute = self.registrations_per_minute
            limit = RateLimit(per_minute / 60.0, burst=per_minute)
            self._registration_limits[owner] = limit
        return limit.allow()


class Failure(Exception):
    """A request that fails with a status code; raised by helpers, turned into an abort.
    Its message is one line of at most :data:`~arena.inputs.MAX_MESSAGE` characters,
    whatever it quotes."""

    def __init__(self, code: grpc.StatusCode, message: str) -> None:
        message = one_line(message)
        super().__init__(message)
        self.code = code
        self.message = message


async def refuse(context: Context, code: grpc.StatusCode, message: str) -> NoReturn:
    """End the call with ``code`` and ``message`` as one bounded line: gRPC carries a
    status's message in metadata, whose size is limited (a longer one would reach the
    client as RESOURCE_EXHAUSTED instead of ``code``)."""
    await context.abort(code, one_line(message))


async def _fail(context: Context, failure: Failure) -> NoReturn:
    await refuse(context, failure.code, failure.message)


# ---------------------------------------------------------------------------
# Conversions


def rating_entries(
    ratings: list[Rating], limit: int, bots: Mapping[str, Bot]
) -> list[arena_pb2.RatingEntry]:
    """Ratings (grouped by system, best first) with their rank in their system and what
    the ``bots`` (by name) were registered with."""
    entries: list[arena_pb2.RatingEntry] = []
    rank: dict[str, int] = {}
    for rating in ratings:
        rank[rating.system] = rank.get(rating.system, 0) + 1
        if limit and rank[rating.system] > limit:
            continue
        bot = bots.get(rating.bot)
        entries.append(
            arena_pb2.RatingEntry(
                rank=rank[rating.system],
                bot=rating.bot,
                description=(bot and bot.description) or "",
                owner=(bot and bot.owner_name) or "",
                version=(bot and bot.version) or "",
                system=rating.system,
                value=rating.value,
                sigma=rating.sigma,
                matches=rating.matches,
                updated_at=timestamp(rating.updated_at),
            )
        )
    return entries


def match_summary(match: StoredMatch) -> arena_pb2.MatchSummary:
    """A stored (hence finished) match as a MatchSummary."""
    totals = match.outcome.get("totals") or []
    return _finished_summary(
        match.id,
        match.variant,
        match.options,
        match.seating,
        match.tournament_id,
        deals=match.deals,
        finished_at=match.finished_at,
        end_reason=match.end_reason,
        winner_team=match.winner_team,
        totals=[int(total) for total in totals],
    )


def listing_summary(listing: MatchListing) -> arena_pb2.MatchSummary:
    """A stored match, as the store lists it, as a MatchSummary."""
    return _finished_summary(
        listing.id,
        listing.variant,
        listing.options,
        listing.players,
        listing.tournament_id,
        deals=listing.deals,
        finished_at=listing.finished_at,
        end_reason=listing.end_reason,
        winner_team=listing.winner_team,
        totals=list(listing.totals),
    )


def _finished_summary(
    match_id: str,
    variant: str,
    options: dict[str, Any],
    players: Sequence[str],
    tournament_id: str | None,
    *,
    deals: int,
    finished_at: str | None,
    end_reason: str,
    winner_team: int | None,
    totals: list[int],
) -> arena_pb2.MatchSummary:
    return arena_pb2.MatchSummary(
        info=arena_pb2.MatchInfo(
            match_id=match_id,
            variant=variant,
            options=struct(options),
            players=list(players),
            tournament_id=tournament_id or "",
        ),
        status=arena_pb2.MATCH_STATUS_CANCELLED
        if end_reason == CANCELLED
        else arena_pb2.MATCH_STATUS_FINISHED,
        deals=deals,
        finished_at=timestamp(finished_at),
        end_reason=END_REASONS.get(end_reason, arena_pb2.END_REASON_CANCELLED),
        winner_team=winner_team,
        totals=totals,
    )


def list_matches(
    store: Store,
    request: arena_pb2.ListMatchesRequest,
    live: Sequence[arena_pb2.MatchSummary] = (),
) -> arena_pb2.ListMatchesResponse:
    """A page of matches: the ``live`` ones (running, scheduled) that pass the filters on
    the first page, then stored ones newest first; the page token is an offset."""
    statuses = set(request.statuses)
    try:
        offset = int(request.page_token) if request.page_token else 0
    except ValueError:
        offset = -1
    if not 0 <= offset <= MAX_OFFSET:
        raise Failure(
            grpc.StatusCode.INVALID_ARGUMENT, f"bad page_token {quoted(request.page_token)}"
        )
    size = min(request.page_size or DEFAULT_PAGE, MAX_PAGE)
    shown = [
        m
        for m in live
        if offset == 0
        and (not statuses or m.status in statuses)
        and (not request.variant or m.info.variant == request.variant)
        and (not request.bot or request.bot in m.info.players)
        and (not request.tournament_id or m.info.tournament_id == request.tournament_id)
    ]
    stored = statuses & {arena_pb2.MATCH_STATUS_FINISHED, arena_pb2.MATCH_STATUS_CANCELLED}
    if statuses and not stored:
        return arena_pb2.ListMatchesResponse(matches=shown)
    wanted = MatchFilter(
        variant=request.variant or None,
        tournament_id=request.tournament_id or None,
        bot=request.bot or None,
        cancelled=None
        if not statuses or len(stored) == 2
        else (arena_pb2.MATCH_STATUS_CANCELLED in stored),
    )
    page = store.match_listings(wanted, offset=offset, limit=size + 1)
    after = offset + min(len(page), size)
    return arena_pb2.ListMatchesResponse(
        matches=[*shown, *(listing_summary(listing) for listing in page[:size])],
        next_page_token=str(after) if len(page) > size else "",
    )


def revoke(
    services: Services, request: arena_pb2.RevokeTokenRequest, owner: str | None
) -> arena_pb2.RevokeTokenResponse:
    """Revoke the target's tokens; ``owner`` (None: an admin) must own the bot."""
    store = services.store
    target = request.WhichOneof("target")
    if target is None:
        raise Failure(grpc.StatusCode.INVALID_ARGUMENT, "name a token_id, a token or a bot_id")
    if target == "bot_id":
        bot_name = request.bot_id
        bot = store.bot(bot_name)
        if bot is None:
            raise Failure(grpc.StatusCode.NOT_FOUND, f"no bot {quoted(bot_name)}")
    else:
        token = (
            store.token(token_id=request.token_id)
            if target == "token_id"
            else store.token(hash=hash_secret(request.token))
        )
        if token is None:
            what = f"token {quoted(request.token_id)}" if target == "token_id" else "such token"
            raise Failure(grpc.StatusCode.NOT_FOUND, f"no {what}")
        if token.bot is None:
            if owner is not None:
                raise Failure(grpc.StatusCode.PERMISSION_DENIED, "not a token of your bots")
            revoked = store.revoke_tokens(token_id=token.token_id)
            _log_revoked(owner, None, token.token_id, revoked, 0)
            return arena_pb2.RevokeTokenResponse(revoked=revoked)
        bot_name = token.bot
        bot = store.bot(bot_name)
    if owner is not None and (bot is None or bot.owner != owner):
        raise Failure(
            grpc.StatusCode.PERMISSION_DENIED, f"bot {quoted(bot_name)} belongs to another owner"
        )
    if target == "bot_id":
        revoked = store.revoke_tokens(bot=bot_name)
        token_id = None
    else:
        assert token is not None
        revoked = store.revoke_tokens(token_id=token.token_id)
        token_id = token.token_id
    closed = sum(hook(bot_name, token_id) for hook in services.on_revoke)
    _log_revoked(owner, bot_name, token_id, revoked, closed)
    return arena_pb2.RevokeTokenResponse(revoked=revoked, connections_closed=closed)


def _log_revoked(
    owner: str | None, bot: str | None, token_id: str | None, revoked: int, closed: int
) -> None:
    """One ``token_revoked`` event: whose tokens (``token_id``, or every token of ``bot``
    when None) and by whom (an owner, or the admin when None); never a token's secret."""
    log.info(
        "token_revoked",
        by="admin" if owner is None else "owner",
        owner=owner,
        bot=bot,
        token_id=token_id,
        revoked=revoked,
        connections_closed=closed,
    )


def registered_games(requested: Sequence[str]) -> tuple[str, ...] | None:
    """The variants a registration names, each once (None: every variant); a variant
    this server does not offer is INVALID_ARGUMENT."""
    offered = games.names()
    unknown = [variant for variant in requested if variant not in offered]
    if unknown:
        raise Failure(
            grpc.StatusCode.INVALID_ARGUMENT,
            f"unknown variant {quoted(unknown[0])} in games; "
            f"this server offers: {', '.join(offered)}",
        )
    return tuple(dict.fromkeys(requested)) or None


def free_text(field: str, text: str, limit: int) -> str | None:
    """A request's free text (a registration's description, a cancellation's reason):
    one printable line of at most ``limit`` characters (None when empty); anything else
    is INVALID_ARGUMENT naming the field."""
    if len(text) > limit:
        raise Failure(
            grpc.StatusCode.INVALID_ARGUMENT,
            f"{field} is {counted(len(text), 'character')} long; at most {limit}",
        )
    if not text.isprintable():
        raise Failure(
            grpc.StatusCode.INVALID_ARGUMENT,
            f"{field} {quoted(text)} must be one line of printable characters",
        )
    return text or None


def register(
    services: Services, request: arena_pb2.RegisterRequest, owner: str
) -> arena_pb2.RegisterResponse:
    """Register (or update) one of ``owner``'s bots and issue a token for it."""
    name = request.name
    if not BOT_NAME.fullmatch(name):
        raise Failure(
            grpc.StatusCode.INVALID_ARGUMENT,
            f"bad bot name {quoted(name)}: 1..40 letters, digits, '-', '_' or '.'",
        )
    if name in builtin_names():
        raise Failure(grpc.StatusCode.ALREADY_EXISTS, f"{quoted(name)} is a built-in bot's name")
    games = registered_games(request.games)
    if not services.may_register(owner):
        raise Failure(
            grpc.StatusCode.RESOURCE_EXHAUSTED,
            f"owner {quoted(owner)} registers more than "
            f"{counted(services.registrations_per_minute, 'bot')} a minute: try again later",
        )
    store = services.store
    version = free_text("version", request.version, 64)
    description = free_text("description", request.description, 200)
    owner_name = free_text("owner", request.owner, 64)
    existing = store.bot(name)
    if existing is not None and existing.kind == BUILTIN_KIND:
        raise Failure(grpc.StatusCode.ALREADY_EXISTS, f"{quoted(name)} is a built-in bot's name")
    if existing is not None and (existing.kind != REMOTE_KIND or existing.owner != owner):
        raise Failure(
            grpc.StatusCode.ALREADY_EXISTS, f"bot {quoted(name)} belongs to another owner"
        )
    created = existing is None and store.add_bot(name, REMOTE_KIND, owner=owner, version=version)
    profile = {"version": version, "description": description, "owner_name": owner_name}
    if existing is None or any(getattr(existing, key) != value for key, value in profile.items()):
        store.set_bot_profile(name, **profile)
    if (None if existing is None else existing.games) != games:
        store.set_bot_games(name, games)
    secret, token_id = services.auth.issue_bot_token(name)
    log.info(
        "bot_registered",
        bot=name,
        owner=owner,
        created=created,
        games=list(games or ()) or "all",
        token_id=token_id,
    )
    return arena_pb2.RegisterResponse(
        bot_id=name, name=name, token=secret, token_id=token_id, created=created
    )


# ---------------------------------------------------------------------------
# Servicers


class RegistryService(arena_pb2_grpc.RegistryServicer):
    def __init__(self, services: Services) -> None:
        self._s = services

    async def Register(
        self, request: arena_pb2.RegisterRequest, context: Context
    ) -> arena_pb2.RegisterResponse:
        try:
            return register(self._s, request, _owner(current_principal()))
        except Failure as failure:
            await _fail(context, failure)

    async def RevokeToken(
        self, request: arena_pb2.RevokeTokenRequest, context: Context
    ) -> arena_pb2.RevokeTokenResponse:
        try:
            return revoke(self._s, request, _owner(current_principal()))
        except Failure as failure:
            await _fail(context, failure)


def _owner(principal: Principal) -> str:
    assert principal.kind == "owner"
    return principal.name


class LeaderboardService(arena_pb2_grpc.LeaderboardServicer):
    def __init__(self, services: Services) -> None:
        self._s = services

    async def GetRatings(
        self, request: arena_pb2.GetRatingsRequest, context: Context
    ) -> arena_pb2.GetRatingsResponse:
        if not request.variant:
            await refuse(context, grpc.StatusCode.INVALID_ARGUMENT, "variant is required")
        if request.system and request.system not in RATING_SYSTEMS:
            await refuse(
                context,
                grpc.StatusCode.INVALID_ARGUMENT,
                f"unknown system {quoted(request.system)} "
                f"(expected one of {', '.join(RATING_SYSTEMS)})",
            )
        store = self._s.store
        ratings = store.ratings(request.variant, request.system or None)
        bots = {bot.name: bot for bot in store.bots()}
        return arena_pb2.GetRatingsResponse(
            variant=request.variant, ratings=rating_entries(ratings, request.limit, bots)
        )

    async def GetRatingHistory(
        self, request: arena_pb2.GetRatingHistoryRequest, context: Context
    ) -> arena_pb2.GetRatingHistoryResponse:
        missing = [f for f in ("bot", "variant", "system") if not getattr(request, f)]
        if missing:
            required = ", ".join(missing)
            await refuse(context, grpc.StatusCode.INVALID_ARGUMENT, f"required: {required}")
        if request.system not in RATING_SYSTEMS:
            await refuse(
                context,
                grpc.StatusCode.INVALID_ARGUMENT,
                f"unknown system {quoted(request.system)} "
                f"(expected one of {', '.join(RATING_SYSTEMS)})",
            )
        changes = self._s.store.rating_history(request.bot, request.variant, request.system)
        return arena_pb2.GetRatingHistoryResponse(changes=[rating_change(c) for c in changes])

    async def GetMatchRecord(
        self, request: arena_pb2.GetMatchRecordRequest, context: Context
    ) -> arena_pb2.GetMatchRecordResponse:
        if not request.match_id:
            await refuse(context, grpc.StatusCode.INVALID_ARGUMENT, "match_id is required")
        match = self._s.store.match(request.match_id)
        if match is None:
            states = (state(request.match_id) for state in self._s.unfinished)
            unfinished = next((state for state in states if state is not None), None)
            if unfinished is not None:
                await refuse(
                    context,
                    grpc.StatusCode.FAILED_PRECONDITION,
                    f"match {quoted(request.match_id)} is {unfinished}: "
                    "its record is there once it has finished",
                )
            await refuse(context, grpc.StatusCode.NOT_FOUND, f"no match {quoted(request.match_id)}")
        return arena_pb2.GetMatchRecordResponse(
            summary=match_summary(match),
            record_json=json.dumps(match.record, ensure_ascii=False, separators=(",", ":")),
        )
