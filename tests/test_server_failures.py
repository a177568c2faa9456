"""No failure is silent: a match the server fails to start, play, store or rate ends for
every seat (END_REASON_ERROR, or an Error when it never started), is logged once and
counted once as ``failed``, and is not played again."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from test_server_seats import Arena, Raw, clock, run

from arena import match
from arena._proto.arena.v1 import arena_pb2
from arena.errors import ConfigError
from arena.metrics import REGISTRY
from arena.server import session
from arena.server.play import PlayConfig
from arena.store import Store, StoreError

FAILED = ("arena_matches_finished_total", {"variant": "guandan", "outcome": "failed"})


def failed_matches() -> float:
    return REGISTRY.get_sample_value(*FAILED) or 0.0


def boom(*args: Any, **kwargs: Any) -> Any:
    raise StoreError("store arena.sqlite: disk I/O error")


def fail_mid_match(monkeypatch: pytest.MonkeyPatch, store: Store) -> None:
    """The match's coroutine raises in the middle of the first deal."""

    async def play_match(*args: Any, on_event: Callable[..., None], **kwargs: Any) -> Any:
        seen = []

        def event(*event_args: Any) -> None:
            seen.append(event_args)
            if len(seen) == 10:
                raise RuntimeError("an engine bug")
            on_event(*event_args)

        return await match.play_match_async(*args, on_event=event, **kwargs)

    monkeypatch.setattr(session, "play_match_async", play_match)


def fail_storing(monkeypatch: pytest.MonkeyPatch, store: Store) -> None:
    monkeypatch.setattr(store, "add_match", boom)


def fail_rating(monkeypatch: pytest.MonkeyPatch, store: Store) -> None:
    monkeypatch.setattr(session.League, "add", boom)


def fail_registering_builtin_bots(monkeypatch: pytest.MonkeyPatch, store: Store) -> None:
    monkeypatch.setattr(store, "add_builtin_bots", boom)


STAGES = [
    pytest.param(fail_mid_match, False, "playing the match", id="match-coroutine"),
    pytest.param(fail_storing, False, "storing the match", id="store-write"),
    pytest.param(fail_rating, True, "rating and storing the match", id="rating"),
    pytest.param(fail_registering_builtin_bots, True, "storing the match", id="builtin-bots"),
]
"""How to make a match fail, whether it is rated, and what the server was doing."""


@contextlib.contextmanager
def served(tmp_path: Path) -> Iterator[tuple[Store, Arena]]:
    with Store.open(tmp_path / "arena.sqlite") as store:
        arena = Arena(store, PlayConfig(clock=clock(decision=20.0), max_deals=1))
        try:
            yield store, arena
        finally:
            arena.close()


async def two_seats(arena: Arena, tokens: list[str], rated: bool) -> list[Raw]:
    """Two raw bots that joined one match each; the second asks for fill bots at once."""
    bots = [Raw(arena.address, token) for token in tokens]
    for n, bot in enumerate(bots):
        await bot.hello()
        await bot.join(rated=rated, matches=1, fill_after_ms=1 if n else 0)
    return bots


def events(caplog: pytest.LogCaptureFixture, name: str) -> list[logging.LogRecord]:
    return [r for r in caplog.records if name in r.getMessage()]


@pytest.mark.parametrize(("make_it_fail", "rated", "stage"), STAGES)
def test_a_failed_match_ends_for_every_seat_once(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    make_it_fail: Callable[[pytest.MonkeyPatch, Store], None],
    rated: bool,
    stage: str,
) -> None:
    with served(tmp_path) as (store, arena):
        tokens = arena.tokens("one", "two")
        make_it_fail(monkeypatch, store)
        before = failed_matches()

        async def main() -> list[arena_pb2.MatchResult]:
            bots = await two_seats(arena, tokens, rated)
            results = list(await asyncio.gather(*(bot.play_out() for bot in bots)))
            for bot in bots:
                await bot.close()
            while arena.running.play.sessions:  # the match's end goes on after its result
                await asyncio.sleep(0.01)
            return results

        results = run(main())
        assert failed_matches() == before + 1
        assert len({r.match_id for r in results}) == 1
        for result in results:
            assert result.reason == arena_pb2.END_REASON_ERROR
            assert not result.rated and not result.rating_changes
            assert f"the server failed while {stage} after" in result.summary
            assert "disk I/O" not in result.summary  # details stay in the server's log
        assert store.match(results[0].match_id) is None
        assert len(events(caplog, "match_failed")) == 1
        assert arena.running.play.matchmaker.waiting() == 0  # not played again


def test_a_match_that_cannot_start_tells_its_waiting_bots(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def make(variant: str, **options: Any) -> Any:
        raise ConfigError(f"cannot make {variant!r}")

    with served(tmp_path) as (_, arena):
        tokens = arena.tokens("one", "two")
        monkeypatch.setattr(session.games, "make", make)
        before = failed_matches()

        async def main() -> list[arena_pb2.Error]:
            bots = await two_seats(arena, tokens, rated=False)
            errors = [(await bot.until("error", "seat_assigned")).error for bot in bots]
            for bot in bots:
                await bot.close()
            return errors

        for error in run(main()):
            assert error.code == "INTERNAL"
            assert "could not start a guandan match" in error.message
            assert "Join again" in error.message
        assert failed_matches() == before + 1
        assert len(events(caplog, "match_not_started")) == 1
        assert arena.running.play.matchmaker.waiting() == 0


def test_after_a_failure_the_server_plays_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with served(tmp_path) as (store, arena):
        tokens = arena.tokens("one", "two")
        fail_storing(monkeypatch, store)

        async def main() -> list[arena_pb2.MatchResult]:
            bots = await two_seats(arena, tokens, rated=False)
            failed, _ = await asyncio.gather(*(bot.play_out() for bot in bots))
            monkeypatch.undo()
            for bot in bots:  # the same connections, a new Join each
                await bot.join(rated=True, matches=1, fill_after_ms=1)
            played = list(await asyncio.gather(*(bot.play_out() for bot in bots)))
            for bot in bots:
                await bot.close()
            return [failed, *played]

        failed, *played = run(main())
        assert failed.reason == arena_pb2.END_REASON_ERROR
        for result in played:
            assert result.reason != arena_pb2.END_REASON_ERROR and result.rated
            assert store.match(result.match_id) is not None
