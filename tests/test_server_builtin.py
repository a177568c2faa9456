"""Built-in bots wherever a bot's name goes, on a real server: the seats a Join asks to
fill and the players of fixtures, rated and casual, on a fresh store and on stores an
older arena left; ``search:samples=2`` is a bot of its own, rated under that name."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from test_server import ADMIN, bearer, code_of
from test_server_admin import admin, wait_stored
from test_server_seats import WAIT, Arena, Raw, clock, run
from test_store import old_store
from waiting import wait_for_tournament

from arena._proto.arena.v1 import arena_pb2
from arena.client.runner import run_bot_async
from arena.server.play import PlayConfig
from arena.store import BUILTIN_KIND, RATING_SYSTEMS, SCHEMA_VERSION, Store
from arena.store.legacy import MIGRATIONS
from bots.simple import FirstBot

STORES = ["fresh", *(f"schema-{v}" for v in range(1, SCHEMA_VERSION))]
"""A store made by this arena, and one left by an arena of each older schema version."""


@contextlib.contextmanager
def served(tmp_path: Path, kind: str) -> Iterator[tuple[Store, Arena]]:
    """A server on a store of ``kind`` (one deal a match, so matches are quick)."""
    path = tmp_path / "arena.sqlite"
    if kind != "fresh":
        old_store(path, int(kind.removeprefix("schema-")))
    with Store.open(path) as store:
        arena = Arena(store, PlayConfig(clock=clock(decision=20.0), max_deals=1))
        try:
            yield store, arena
        finally:
            arena.close()


def rated_in(store: Store, match_id: str, variant: str) -> set[str]:
    """The bots whose rating the match changed, in every rating system."""
    match = store.match(match_id)
    assert match is not None
    return {
        bot
        for bot in set(match.seating)
        if all(
            any(c.match_id == match_id for c in store.rating_history(bot, variant, system))
            for system in RATING_SYSTEMS
            if system != "room"
        )
    }


def test_migrations_cover_every_older_schema() -> None:
    assert sorted(MIGRATIONS) == list(range(1, SCHEMA_VERSION + 1))


@pytest.mark.parametrize("kind", STORES)
@pytest.mark.parametrize("rated", [True, False], ids=["rated", "casual"])
def test_an_sdk_bot_plays_out_a_match_with_fill_bots(
    tmp_path: Path, kind: str, rated: bool
) -> None:
    with served(tmp_path, kind) as (store, arena):
        (token,) = arena.tokens("mine")
        summary = run(
            run_bot_async(
                FirstBot(),
                arena.address,
                token,
                ["guandan"],
                rated=rated,
                matches=1,
                inline=True,
                fill_after=0.05,
            )
        )
        [played] = summary.results
        result = played.result
        assert result.reason in (arena_pb2.END_REASON_COMPLETE, arena_pb2.END_REASON_DEAL_LIMIT)
        wait_stored(store, [result.match_id])
        stored = store.match(result.match_id)
        assert stored is not None and sorted(stored.seating) == ["mine", *["random"] * 3]
        random = store.bot("random")
        assert random is not None and random.kind == BUILTIN_KIND and random.owner is None
        assert store.tokens("random") == []
        assert result.rated is rated
        if rated:
            assert rated_in(store, result.match_id, "guandan") == {"mine", "random"}
            assert {c.bot for c in result.rating_changes} == {"mine", "random"}
        else:
            assert rated_in(store, result.match_id, "guandan") == set()


def test_fill_bots_with_parameters_are_rated_under_their_whole_name(tmp_path: Path) -> None:
    with served(tmp_path, "fresh") as (store, arena):
        mine, other = arena.tokens("mine", "other")
        names = ["search:samples=2,candidates=2", "first"]

        async def main() -> list[arena_pb2.MatchResult]:
            played = []
            for token, fill_bot in zip([mine, other], names, strict=True):
                summary = await run_bot_async(
                    FirstBot(),
                    arena.address,
                    token,
                    ["guandan"],
                    rated=True,
                    matches=1,
                    inline=True,
                    fill_after=0.05,
                    fill_bot=fill_bot,
                )
                played.append(summary.results[0].result)
            return played

        for result, name in zip(run(main()), names, strict=True):
            wait_stored(store, [result.match_id])
            assert name in rated_in(store, result.match_id, "guandan")
        assert {b.name for b in store.bots() if b.kind == BUILTIN_KIND} == set(names)


def test_a_join_asking_for_an_unknown_fill_bot_is_refused(tmp_path: Path) -> None:
    with served(tmp_path, "fresh") as (_, arena):
        (token,) = arena.tokens("mine")

        async def main() -> list[arena_pb2.Error]:
            bot = Raw(arena.address, token)
            await bot.hello()
            errors = []
            for fill_bot in ("nobody", "search:bogus=1", "random:x=1"):
                await bot.join(fill_after_ms=10, fill_bot=fill_bot)
                errors.append((await bot.until("error")).error)
            await bot.close()
            return errors

        unknown, bad_parameter, no_parameters = run(main())
        assert unknown.code == "INVALID_ARGUMENT" and "'nobody'" in unknown.message
        assert "'bogus'" in bad_parameter.message and "samples" in bad_parameter.message
        assert "'x'" in no_parameters.message


@pytest.mark.parametrize("kind", ["fresh", "schema-1"])
@pytest.mark.parametrize("rated", [True, False], ids=["rated", "casual"])
def test_fixtures_seat_built_in_bots_with_and_without_parameters(
    tmp_path: Path, kind: str, rated: bool
) -> None:
    players = ["search:samples=2,candidates=2", "random", "first", "random"]
    with served(tmp_path, kind) as (store, arena):
        channel, stub = admin(arena)
        with channel:
            created = stub.CreateFixture(
                arena_pb2.CreateFixtureRequest(
                    name="house", variant="guandan", players=players, deals=1, rated=rated, seed=3
                ),
                metadata=bearer(ADMIN),
            )
            [match_id] = created.match_ids
            wait_stored(store, [match_id], WAIT)
            assert rated_in(store, match_id, "guandan") == (set(players) if rated else set())
            for bad, named in (("search:bogus=1", "'bogus'"), ("nobody", "'nobody'")):
                code, details = code_of(
                    lambda bad=bad: stub.CreateFixture(
                        arena_pb2.CreateFixtureRequest(
                            name="bad", variant="guandan", players=[bad, *players[1:]]
                        ),
                        metadata=bearer(ADMIN),
                    )
                )
                assert code == grpc.StatusCode.INVALID_ARGUMENT and named in details


def test_a_tournament_of_built_in_bots_with_parameters_is_played(tmp_path: Path) -> None:
    with served(tmp_path, "fresh") as (store, arena):
        channel, stub = admin(arena)
        definition = arena_pb2.TournamentDefinition(
            name="params",
            variant="guandan",
            teams=[
                arena_pb2.Team(bots=["first", "search:samples=2,candidates=2"]),
                arena_pb2.Team(bots=["random", "random"]),
            ],
            matches=1,
            deals=1,
            rated=True,
        )
        with channel:
            created = stub.CreateTournament(
                arena_pb2.CreateTournamentRequest(definition=definition), metadata=bearer(ADMIN)
            )

        wait_for_tournament(store, created.tournament_id, created.matches, WAIT)
        [match] = store.matches(tournament_id=created.tournament_id)
        assert "search:samples=2,candidates=2" in rated_in(store, match.id, "guandan")


def test_fill_bots_fill_every_match_a_join_asks_for(tmp_path: Path) -> None:
    """The wait before built-in bots fill the seats starts again after each match: a
    connection is never left waiting for a match that will not come."""
    with served(tmp_path, "fresh") as (store, arena):
        (token,) = arena.tokens("mine")

        async def main() -> list[arena_pb2.MatchResult]:
            bot = Raw(arena.address, token)
            await bot.hello()
            await bot.join(rated=True, matches=3, fill_after_ms=1)
            results = [await bot.play_out() for _ in range(3)]
            await bot.close()
            return results

        results = run(main())
        assert len({r.match_id for r in results}) == 3
        wait_stored(store, [r.match_id for r in results])
