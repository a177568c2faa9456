"""Refused answers and timed-out decisions on a real server (127.0.0.1, any port): each
player's illegal and malformed answers and timed-out decisions are kept with the stored
match, rated or not, and the bot page (served beside the gRPC port) shows them; a match
stored without them counts as unknown, not as zero."""

from __future__ import annotations

import asyncio
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import pytest
from stores import execute, new_store_target
from test_server_seats import Arena, Raw, clock, run

import bots
from arena import games
from arena._proto.arena.v1 import arena_pb2
from arena.client.runner import run_bot_async
from arena.match import play_match
from arena.server.play import PlayConfig
from arena.sim.jobs import MatchJob, MatchReport
from arena.store import ConductTotals, Store
from arena.web.app import create_app
from arena.web.serving import WebServer
from arena.web.viewer import Viewer
from bots.simple import FirstBot

ILLEGAL = arena_pb2.Action(text="play BJ BJ BJ BJ BJ BJ BJ")
"""Seven big jokers: a well-formed play no hand holds."""
MALFORMED = (arena_pb2.Action(text="play 3x"), arena_pb2.Action(text="fold"))
"""A card that does not exist (refused as it arrives), a verb Guandan does not have
(refused by the match driver)."""
REFUSED = {
    "illegal": arena_pb2.ACTION_STATUS_ILLEGAL,
    "malformed": arena_pb2.ACTION_STATUS_MALFORMED,
}
NAMES = ("rough", "calm-1", "calm-2", "calm-3")


def fillers(server: Arena, tokens: list[str], *, rated: bool) -> asyncio.Future[Any]:
    """SDK bots that play the first legal action, one match each."""
    return asyncio.gather(
        *(
            run_bot_async(
                FirstBot(), server.address, token, ["guandan"], rated=rated, matches=1, inline=True
            )
            for token in tokens
        )
    )


async def refuse_then_idle(bot: Raw, illegal: int, malformed: int) -> arena_pb2.MatchResult:
    """Answer the first decision ``illegal`` times illegally and ``malformed`` times
    malformed (each refused), then legally; let the next decision run out and answer it
    late (stale: neither refused nor timed out again); then play out the match."""
    request = (await bot.until("decision")).decision
    replies = [("illegal", ILLEGAL)] * illegal
    replies += [("malformed", MALFORMED[i % len(MALFORMED)]) for i in range(malformed)]
    for kind, action in replies:
        await bot.send(action=arena_pb2.ActionReply(request_id=request.request_id, action=action))
        result = (await bot.until("action_result")).action_result
        assert result.status == REFUSED[kind], (kind, action, result)
    await bot.answer(request)
    accepted = (await bot.until("action_result")).action_result
    assert accepted.status == arena_pb2.ACTION_STATUS_ACCEPTED
    late = (await bot.until("decision")).decision
    timed_out = (await bot.until("action_result")).action_result
    assert timed_out.status == arena_pb2.ACTION_STATUS_TIMED_OUT
    await bot.answer(late)
    while True:  # the match goes on meanwhile: answer its decisions
        message = await bot.until("action_result", "decision")
        if message.HasField("decision"):
            await bot.answer(message.decision)
        elif message.action_result.request_id == late.request_id:
            assert message.action_result.status == arena_pb2.ACTION_STATUS_STALE
            return await bot.play_out()


def incident(page: str, name: str) -> int:
    found = re.search(rf'<dd data-incident="{name}">(\d+)</dd>', page)
    assert found is not None, f"no {name} on the bot page"
    return int(found.group(1))


@pytest.mark.parametrize(
    ("illegal", "malformed", "rated", "backend"),
    [
        pytest.param(3, 2, False, "sqlite", id="casual-with-remote-bots-sqlite"),
        pytest.param(1, 4, True, "sqlite", id="rated-with-built-in-bots-sqlite"),
        pytest.param(1, 4, True, "postgresql", id="rated-with-built-in-bots-postgresql"),
    ],
)
def test_refused_answers_and_timeouts_are_stored_per_player_and_shown_on_the_bot_page(
    request: pytest.FixtureRequest,
    tmp_path: Path,
    illegal: int,
    malformed: int,
    rated: bool,
    backend: str,
) -> None:
    with Store.open(new_store_target(request, backend, tmp_path)) as store:
        server = Arena(store, PlayConfig(clock=clock(decision=1.5), max_deals=1), web_port=0)
        try:
            rough, *calm = server.tokens(*NAMES)

            async def main() -> str:
                bot = Raw(server.address, rough)
                await bot.hello()
                if rated:  # built-in bots fill the other seats at once
                    await bot.join(rated=True, fill_after_ms=1)
                    result = await refuse_then_idle(bot, illegal, malformed)
                else:
                    await bot.join(rated=False)
                    fill = fillers(server, calm, rated=False)
                    result = await refuse_then_idle(bot, illegal, malformed)
                    await fill
                await bot.close()
                return result.match_id

            stored = store.match(run(main()))
            assert stored is not None
            web = f"http://127.0.0.1:{server.running.web_port}"
            names = sorted(set(stored.seating))
            pages = {name: httpx.get(f"{web}/bots/{name}", timeout=60).text for name in names}
        finally:
            server.close()
        assert bool(store.rating_history("rough", "guandan", "elo")) == rated
    player = stored.seating.index("rough")
    expected: dict[str, list[int]] = {"illegal": [0] * 4, "malformed": [0] * 4, "timeouts": [0] * 4}
    expected["illegal"][player] = illegal
    expected["malformed"][player] = malformed
    expected["timeouts"][player] = 1
    assert stored.outcome["conduct"] == expected
    assert incident(pages["rough"], "illegal") == illegal
    assert incident(pages["rough"], "malformed") == malformed
    assert incident(pages["rough"], "automatic_plays") == 1  # the timeout, counted once
    assert f'href="/matches/{stored.id}"' in pages["rough"].split("refused-in", 1)[1]
    for name in set(names) - {"rough"}:
        assert incident(pages[name], "illegal") == incident(pages[name], "malformed") == 0
        assert incident(pages[name], "automatic_plays") == 0
        assert "refused-in" not in pages[name]
    assert not any("data-conduct-unknown" in page for page in pages.values())


def played(id: str, players: tuple[str, str, str, str]) -> MatchReport:
    job = MatchJob(id=id, variant="guandan", options={}, seed=7, players=players, max_deals=1)
    policies = [bots.make("first", 0) for _ in players]
    result = play_match(games.make("guandan"), policies, seed=7, players=players, max_deals=1)
    return MatchReport.of(job, result)


async def bot_page(store: Store, name: str) -> str:
    site = WebServer(create_app(Viewer(store)))
    port = await site.start()
    try:
        async with httpx.AsyncClient() as client:
            response = await client.get(f"http://127.0.0.1:{port}/bots/{name}?lang=en")
            return response.text
    finally:
        await site.stop()


def test_a_match_stored_without_conduct_counts_as_unknown_not_as_zero(store_target: str) -> None:
    players = ("old", "new", "old", "new")
    with Store.open(store_target) as store:
        store.add_match(played("kept", players).stored(None))
        older = played("older", players).stored(None)
        outcome = {key: value for key, value in older.outcome.items() if key != "conduct"}
        store.add_match(replace(older, outcome=outcome))
        assert store.conduct_totals("old") == ConductTotals(unknown=1)
        assert store.conduct_totals("nobody") == ConductTotals()
        assert store.refused_match_ids("old") == []
        page = asyncio.run(bot_page(store, "old"))
    assert 'data-conduct-unknown="1"' in page
    assert "1 of its matches were stored before refused answers were kept" in page


@pytest.mark.parametrize(
    "outcome",
    ["not json", '{"conduct": "none"}', '{"conduct": {"illegal": "x", "malformed": [null]}}'],
)
def test_an_outcome_changed_by_hand_is_unknown_or_zero_never_an_error(
    store_target: str, outcome: str
) -> None:
    with Store.open(store_target) as store:
        store.add_match(played("hand", ("old", "new", "old", "new")).stored(None))
    execute(store_target, "UPDATE matches SET outcome_json = :outcome", [{"outcome": outcome}])
    with Store.open(store_target) as store:
        totals = store.conduct_totals("old")
        assert (totals.illegal, totals.malformed, totals.timeouts) == (0, 0, 0)
        assert totals.unknown == (0 if outcome.startswith('{"conduct": {') else 1)
        assert store.refused_match_ids("old") == []
