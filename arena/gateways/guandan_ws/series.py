"""The platform's local series, on an arena of its own: four seats, N games.

As the platform's local server does, :func:`run_series` offers the four seat addresses
``/game/client0`` … ``/game/client3`` (seats 0 and 2 one team, 1 and 3 the other) and
plays a series of N games (matches, from level 2 until a team passes A, or ``deals``
deals) between the bots that connect there; every seat gets ``gameOver`` after each game
(``curTimes`` of ``settingTimes``) and ``gameResult`` after the last (each seat's
victories and draws). Beyond the platform, any seat may be given to one of ours
instead: a built-in bot (``heuristic``, ``search:samples=16`` …) that the server plays,
or ``grpc``, a seat a gRPC bot takes with the token the series prints.

Everything else is the arena's own: an arena server in this process on a store of its
own (a SQLite file by default), a fixture match per game (ids ``<series>-1`` …) with
its seats fixed in order, the WebSocket gateway (:mod:`.server`) in front of it, the
clock, automatic play and resumption of every seat as on any server; the games are
stored, rated when rated, replayable and shown on the web face like any others. The
result is team 0's score (1 a game won, ½ drawn) with its 95% Wilson interval, the Elo
difference with its interval and the likelihood of superiority, as ``arena compare``
gives them (:mod:`arena.rating.stats`).
"""

from __future__ import annotations

import asyncio
import math
import secrets
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from arena.client.registry import register
from arena.games.base import NUM_SEATS
from arena.gateways.guandan_ws.messages import game_result
from arena.gateways.guandan_ws.server import (
    DEFAULT_WS_PORT,
    GatewayConfig,
    GuandanWsGateway,
    serving,
)
from arena.plural import counted
from arena.rating import elo_interval, likelihood_of_superiority, wilson_interval
from arena.server.session import (
    DEFAULT_DECISION_SECONDS,
    DEFAULT_GRACE_SECONDS,
    DEFAULT_TIME_BANK_SECONDS,
)
from arena.store import Store

__all__ = [
    "GRPC_SEAT",
    "SeriesConfig",
    "SeriesResult",
    "platform_name",
    "run_series",
]

GRPC_SEAT: Final = "grpc"
"""A seat given to a gRPC bot (it connects with the token the series prints)."""
OWNER: Final = "guandan-ws-series"
"""The owner of the series' own bots."""
VARIANT: Final = "guandan"
POLL_SECONDS: Final = 0.2
FAREWELL_SECONDS: Final = 5.0
"""Seconds the platform's seats get to hear ``gameResult`` and close after the last game."""


def platform_name(seat: int) -> str:
    """The address name of a platform seat: ``client0`` … ``client3``."""
    return f"client{seat}"


@dataclass(frozen=True)
class SeriesConfig:
    """A series: its games, who sits where (None: a platform bot at ``/game/client<n>``;
    ``grpc``; or a built-in bot's name), where it listens, and how games are played."""

    games: int
    seats: tuple[str | None, ...] = (None, None, None, None)
    host: str = "127.0.0.1"
    port: int = DEFAULT_WS_PORT
    grpc_port: int = 0
    deals: int | None = None
    decision_seconds: float = DEFAULT_DECISION_SECONDS
    time_bank: float = DEFAULT_TIME_BANK_SECONDS
    grace: float = DEFAULT_GRACE_SECONDS
    rated: bool = True
    web_port: int | None = None
    """The web face of the series' store and live games on 127.0.0.1 (None: none)."""
    series_id: str = field(default_factory=lambda: f"series-{secrets.token_hex(4)}")

    def __post_init__(self) -> None:
        if len(self.seats) != NUM_SEATS:
            raise ValueError(f"a series has {NUM_SEATS} seats, got {len(self.seats)}")
        if self.games < 1:
            raise ValueError(f"a series has at least one game, got {self.games}")

    def names(self) -> tuple[str, ...]:
        """Each seat's player name: the platform's and gRPC seats' own bots, or the
        built-in bot."""
        return tuple(
            platform_name(n) if who is None else f"grpc{n}" if who == GRPC_SEAT else who
            for n, who in enumerate(self.seats)
        )

    def match_ids(self) -> list[str]:
        return [f"{self.series_id}-{n}" for n in range(1, self.games + 1)]


@dataclass
class SeriesResult:
    """The games' winners (team 0 or 1, None: drawn) in order, and what they add up to."""

    series_id: str
    names: tuple[str, ...]
    winners: list[int | None] = field(default_factory=list)
    match_ids: list[str] = field(default_factory=list)

    def seat_counts(self) -> tuple[list[int], list[int]]:
        """``gameResult``'s fields: per seat, the games its team won and those drawn."""
        wins = [sum(1 for w in self.winners if w == seat % 2) for seat in range(NUM_SEATS)]
        draws = [sum(1 for w in self.winners if w is None)] * NUM_SEATS
        return wins, draws

    def summary(self) -> dict[str, Any]:
        """Team 0's score against team 1: wins, draws, the score rate and its Wilson
        interval, the Elo difference with its interval, the likelihood of superiority."""
        games = len(self.winners)
        wins = sum(1 for w in self.winners if w == 0)
        losses = sum(1 for w in self.winners if w == 1)
        draws = games - wins - losses
        scores = [1.0 if w == 0 else 0.0 if w == 1 else 0.5 for w in self.winners]
        elo: float | None = None
        low, high = -math.inf, math.inf
        if games >= 2:
            elo, low, high = elo_interval(scores)
        rate_low, rate_high = wilson_interval(wins + draws / 2, games)
        return {
            "series": self.series_id,
            "team_0": [self.names[0], self.names[2]],
            "team_1": [self.names[1], self.names[3]],
            "games": games,
            "wins": wins,
            "losses": losses,
            "draws": draws,
            "score": (wins + draws / 2) / games if games else None,
            "score_95": [rate_low, rate_high],
            "elo": elo,
            "elo_95": [low, high],
            "los": likelihood_of_superiority(wins, losses),
            "matches": list(self.match_ids),
        }


async def run_series(
    store: Store,
    config: SeriesConfig,
    announce: Callable[[str], None] = print,
    on_game: Callable[[SeriesResult], None] | None = None,
) -> SeriesResult:
    """Serve the series until its last game is over (or the task is cancelled: the
    server and the gateway stop, the games played stay stored)."""
    from arena.server.app import start_server
    from arena.server.auth import hash_secret
    from arena.server.builtin import builtin_problem
    from arena.server.play import ClockConfig, PlayConfig
    from arena.server.session import MatchPlan

    for who in config.seats:
        problem = None if who in (None, GRPC_SEAT) else builtin_problem(who)
        if problem is not None:
            raise ValueError(f"seat bot {problem}")
    owner_key = f"series-{secrets.token_urlsafe(24)}"
    clock = ClockConfig(
        decision_seconds=config.decision_seconds,
        time_bank_seconds=config.time_bank,
        grace_seconds=config.grace,
    )
    running = await start_server(
        store,
        host="127.0.0.1",
        port=config.grpc_port,
        owner_keys={hash_secret(owner_key): OWNER},
        play=PlayConfig(clock=clock, max_deals=config.deals),
        web_port=config.web_port,
    )
    address = f"127.0.0.1:{running.port}"
    names = config.names()
    result = SeriesResult(config.series_id, names)
    try:
        tokens = await _register(address, owner_key, config)
        plans = [
            MatchPlan(
                variant=VARIANT,
                players=names,
                rated=config.rated,
                match_id=match_id,
                max_deals=config.deals,
            )
            for match_id in config.match_ids()
        ]
        running.play.schedule(plans)
        platform = {
            platform_name(n): tokens[n] for n, who in enumerate(config.seats) if who is None
        }
        gateway_config = GatewayConfig(
            server=address,
            answer_seconds=config.decision_seconds + config.time_bank,
            tokens=platform,
            rated=config.rated,
            matches=lambda name: max(config.games - len(result.winners), 1),
            series=lambda: config.games,
            games_played=lambda: len(result.winners),
            farewell=lambda: _farewell(store, config),
        )
        async with serving(gateway_config, config.host, config.port) as gateway:
            _announce_seats(announce, config, gateway.port, address, tokens)
            if running.web is not None:
                announce(f"  the games live and stored: {running.web.url}")
            await _follow(store, config, result, on_game)
            await _let_go(gateway)
    finally:
        await running.stop(0, drain=0)
    return result


async def _register(address: str, owner_key: str, config: SeriesConfig) -> dict[int, str]:
    """A token for each platform and gRPC seat (registered again: a new token)."""
    tokens = {}
    for n, who in enumerate(config.seats):
        if who is None or who == GRPC_SEAT:
            done = await asyncio.to_thread(
                register, address, owner_key, config.names()[n], owner=OWNER, games=[VARIANT]
            )
            tokens[n] = done.token
    return tokens


def _announce_seats(
    announce: Callable[[str], None],
    config: SeriesConfig,
    port: int,
    address: str,
    tokens: Mapping[int, str],
) -> None:
    shown = f"[{config.host}]" if ":" in config.host else config.host
    games = counted(config.games, "game")
    announce(f"series {config.series_id}: {games}; seats 0 and 2 against 1 and 3")
    for n, who in enumerate(config.seats):
        if who is None:
            where = f"a platform bot at ws://{shown}:{port}/game/{platform_name(n)}"
        elif who == GRPC_SEAT:
            where = (
                f"a gRPC bot: arena bot run MODULE:CLASS --server {address} "
                f"--token {tokens[n]} --matches {config.games}"
            )
        else:
            where = f"the built-in bot {who}"
        announce(f"  seat {n}: {where}")


async def _follow(
    store: Store,
    config: SeriesConfig,
    result: SeriesResult,
    on_game: Callable[[SeriesResult], None] | None,
) -> None:
    """Wait for each game to be stored, in order, and take its winner."""
    for match_id in config.match_ids():
        while (stored := await asyncio.to_thread(store.match, match_id)) is None:
            await asyncio.sleep(POLL_SECONDS)
        result.winners.append(winner_of(stored.outcome))
        result.match_ids.append(match_id)
        if on_game is not None:
            on_game(result)


def winner_of(outcome: Mapping[str, Any]) -> int | None:
    """The team that won a stored game (None: drawn). A game stopped after its deals
    without a winner goes to the team with more points, as ``arena compare`` scores it
    (the outcome's ``team_score``, team 0's)."""
    score = outcome.get("team_score")
    if score is None:
        winner = outcome.get("winner")
        return winner if isinstance(winner, int) else None
    return 0 if score == 1.0 else 1 if score == 0.0 else None


def _farewell(store: Store, config: SeriesConfig) -> dict[str, Any] | None:
    """``gameResult`` once every game of the series is stored (each is stored before
    its seats hear that it is over)."""
    result = SeriesResult(config.series_id, config.names())
    for match_id in config.match_ids():
        stored = store.match(match_id)
        if stored is None:
            return None
        result.winners.append(winner_of(stored.outcome))
    wins, draws = result.seat_counts()
    return game_result(wins, draws)


async def _let_go(gateway: GuandanWsGateway) -> None:
    """Give the platform's seats a moment to hear the series' end and close."""
    loop = asyncio.get_running_loop()
    end = loop.time() + FAREWELL_SECONDS
    while gateway.seats and loop.time() < end:
        await asyncio.sleep(POLL_SECONDS)


def seats_of(pairs: Sequence[tuple[int, str]]) -> tuple[str | None, ...]:
    """The four seats from ``(seat, who)`` pairs (unnamed seats: platform bots)."""
    seats: list[str | None] = [None] * NUM_SEATS
    for seat, who in pairs:
        seats[seat] = who
    return tuple(seats)
