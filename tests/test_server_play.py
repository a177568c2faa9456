"""Play.Connect: four remote bots over real streams play a match that is stored and rated."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from test_server import OTHER_KEY, ServerThread, bearer, register

from arena._proto.arena.v1 import arena_pb2, arena_pb2_grpc
from arena.cards import parse_cards
from arena.games import Action, make
from arena.match import AUTO_MARK, FLED_MARK
from arena.server.matchmaker import Waiting, seating
from arena.server.play import PlayConfig, decision_seconds
from arena.store import RATING_SYSTEMS, Store

STALE_ID = "r-no-such-request"
ILLEGAL = "play BJ BJ BJ BJ BJ BJ BJ"


class PlayServer(ServerThread):
    """A server whose matches last two deals."""

    def __init__(self, store: Store) -> None:
        super().__init__(store, play=PlayConfig(max_deals=2))


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Store, int]]:
    with Store.open(tmp_path_factory.mktemp("play") / "arena.sqlite") as store:
        running = PlayServer(store)
        yield store, running.running.port
        running.close()


async def play_bot(
    port: int, token: str, variant: str, *, tricks: bool = False
) -> list[arena_pb2.ServerMessage]:
    """Answer every decision with the first legal action; with ``tricks``, first send a
    stale reply and an illegal one at the first decision."""
    received: list[arena_pb2.ServerMessage] = []
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        call = arena_pb2_grpc.PlayStub(channel).Connect(metadata=bearer(token))
        await call.write(arena_pb2.ClientMessage(hello=arena_pb2.Hello(protocol=1)))
        await call.write(
            arena_pb2.ClientMessage(join=arena_pb2.Join(variants=[variant], rated=True))
        )
        pending: list[arena_pb2.ActionReply] = []
        while True:
            message = await call.read()
            assert message is not grpc.aio.EOF
            received.append(message)
            body = message.WhichOneof("body")
            if body == "decision":
                request = message.decision
                first = request.observation.legal.actions[0]
                reply = arena_pb2.ActionReply(request_id=request.request_id, action=first)
                if tricks:
                    tricks = False
                    pending = [reply]
                    await call.write(
                        arena_pb2.ClientMessage(
                            action=arena_pb2.ActionReply(request_id=STALE_ID, action=first)
                        )
                    )
                    continue
                await call.write(arena_pb2.ClientMessage(action=reply))
            elif body == "action_result" and pending:
                result = message.action_result
                if result.request_id == STALE_ID:  # now an illegal one, then the right one
                    bad = arena_pb2.Action(text=ILLEGAL)
                    illegal = arena_pb2.ActionReply(request_id=pending[0].request_id, action=bad)
                    await call.write(arena_pb2.ClientMessage(action=illegal))
                elif result.status == arena_pb2.ACTION_STATUS_ILLEGAL:
                    await call.write(arena_pb2.ClientMessage(action=pending.pop()))
            elif body == "match_result":
                await call.done_writing()
                break
        return received


async def play_four(port: int, tokens: list[str], variant: str) -> list[list[Any]]:
    return list(
        await asyncio.gather(
            *(play_bot(port, t, variant, tricks=i == 0) for i, t in enumerate(tokens))
        )
    )


def held_cards(record: dict[str, Any], variant: str) -> list[list[Counter[int]]]:
    """Per deal, per seat: every card the seat held at some moment (replaying the record)."""
    game = make(variant, **record["options"])
    deals = []
    for deal in record["deals"]:
        state = game.new_deal(game.setup_from_dict(deal["setup"]), seed=deal["seed"])
        held = [Counter(state.hand(s)) for s in range(4)]
        for text in deal["actions"]:
            if text.startswith(FLED_MARK):
                break
            if text == AUTO_MARK:
                state.note_automatic(state.to_act)
                continue
            state.apply(Action.from_str(text))
            for seat in range(4):
                held[seat] |= Counter(state.hand(seat))
        deals.append(held)
    return deals


def test_four_remote_bots_play_a_rated_match(server: tuple[Store, int]) -> None:
    store, port = server
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        tokens = [
            register(channel, "p-ada-1").token,
            register(channel, "p-grace-1", OTHER_KEY).token,
            register(channel, "p-ada-2").token,
            register(channel, "p-grace-2", OTHER_KEY).token,
        ]
        variant = "shengji-1"
        streams = asyncio.run(asyncio.wait_for(play_four(port, tokens, variant), 120))

        kinds = [[m.WhichOneof("body") for m in stream] for stream in streams]
        for stream_kinds in kinds:
            assert stream_kinds[:3] == ["welcome", "joined", "seat_assigned"]
            assert stream_kinds[-1] == "match_result"
            assert stream_kinds.count("deal_started") == 2
            assert stream_kinds.count("deal_result") == 2
        result = streams[0][-1].match_result
        assert result.deals == 2 and result.rated and result.rating_changes
        match_id = result.match_id

        # rated: bots of one owner are partners, never opponents
        info = streams[0][2].seat_assigned.match
        owners = [name.split("-")[1] for name in info.players]
        assert owners[0] == owners[2] and owners[1] == owners[3] and owners[0] != owners[1]

        # stored and rated
        stored = store.match(match_id)
        assert stored is not None and stored.deals == 2
        ratings = arena_pb2_grpc.LeaderboardStub(channel).GetRatings(
            arena_pb2.GetRatingsRequest(variant=variant)
        )
        assert {e.bot for e in ratings.ratings} >= set(info.players)

    # every seat is told the result stored: its winner, totals and each rating change as
    # the store's history holds it for this match (not merely that some were made)
    assert all(stream[-1].match_result == result for stream in streams)
    winner = result.winner_team if result.HasField("winner_team") else None
    assert winner == stored.outcome["winner"]
    assert list(result.totals) == stored.outcome["totals"]
    kept = sorted(
        (change.bot, change.system, change.before, change.after)
        for bot in set(info.players)
        for system in RATING_SYSTEMS
        for change in store.rating_history(bot, variant, system)
        if change.match_id == match_id
    )
    told = sorted(
        (c.bot, c.system, c.before if c.HasField("before") else None, c.after)
        for c in result.rating_changes
    )
    assert told == kept and {bot for bot, *_ in kept} == set(info.players)

    # the same events, in order, without gaps, for every seat
    event_lists = [
        [(e.seq, e.kind, e.seat) for m in s if m.HasField("events") for e in m.events.events]
        for s in streams
    ]
    assert all(lst == event_lists[0] for lst in event_lists)
    assert [seq for seq, _, _ in event_lists[0]] == list(range(1, len(event_lists[0]) + 1))

    # the stale reply was refused and changed nothing; the illegal one got its reason
    results = [m.action_result for m in streams[0] if m.HasField("action_result")]
    stale = [r for r in results if r.request_id == STALE_ID]
    assert len(stale) == 1 and stale[0].status == arena_pb2.ACTION_STATUS_STALE
    assert STALE_ID in stale[0].reason
    illegal = [r for r in results if r.status == arena_pb2.ACTION_STATUS_ILLEGAL]
    assert len(illegal) == 1 and "illegal" in illegal[0].reason.lower()
    assert illegal[0].attempts_left > 0
    first_request = next(m.decision for m in streams[0] if m.HasField("decision"))
    closing = [r for r in results if r.request_id == first_request.request_id]
    assert [r.status for r in closing] == [
        arena_pb2.ACTION_STATUS_ILLEGAL,
        arena_pb2.ACTION_STATUS_ACCEPTED,
    ]
    assert closing[-1].action.text in stored.record["deals"][0]["actions"]
    assert AUTO_MARK not in stored.record["deals"][0]["actions"]

    # no seat ever sees a card of another seat's hand
    held = held_cards(stored.record, variant)
    for player, stream in enumerate(streams):
        deal = 0
        seat = player
        for message in stream:
            body = message.WhichOneof("body")
            hands: list[list[str]] = []
            if body == "deal_started":
                deal = message.deal_started.deal
                seat = message.deal_started.seat
                hands.append(list(message.deal_started.hand))
            elif body == "decision":
                observation = message.decision.observation
                assert observation.seat == seat and not observation.events
                hands.append(list(observation.hand))
            for hand in hands:
                cards = Counter(parse_cards(" ".join(hand)))
                assert not cards - held[deal - 1][seat], (player, deal, hand)


def test_hello_is_required_and_the_token_checked(server: tuple[Store, int]) -> None:
    _, port = server

    async def first_message(token: str, message: arena_pb2.ClientMessage) -> grpc.StatusCode:
        code, _ = await first_status(token, message)
        return code

    async def first_status(
        token: str, message: arena_pb2.ClientMessage
    ) -> tuple[grpc.StatusCode, str]:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            call = arena_pb2_grpc.PlayStub(channel).Connect(metadata=bearer(token))
            try:  # the server may end the call before the write is done
                await call.write(message)
                await call.read()
            except grpc.aio.AioRpcError:
                pass
            code: grpc.StatusCode = await call.code()
            return code, await call.details() or ""

    join = arena_pb2.ClientMessage(join=arena_pb2.Join())
    assert asyncio.run(first_message("nope", join)) == grpc.StatusCode.UNAUTHENTICATED
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        token = register(channel, "p-lonely").token
    assert asyncio.run(first_message(token, join)) == grpc.StatusCode.INVALID_ARGUMENT
    for unknown in (0, 3):  # 0: a Hello that names no version
        hello = arena_pb2.ClientMessage(hello=arena_pb2.Hello(protocol=unknown))
        code, details = asyncio.run(first_status(token, hello))
        assert code == grpc.StatusCode.FAILED_PRECONDITION
        assert details == (
            f"protocol {unknown} is not supported; this server speaks 1 and 2 (Hello.protocol)"
        )


def test_rated_seating_keeps_owners_together() -> None:
    def w(bot: str, owner: str | None) -> Waiting:
        return Waiting(bot, owner, ("guandan",), True)

    group = [w("a1", "a"), w("a2", "a"), w("b1", "b"), w("b2", "b")]
    seated = seating(group, rated=True)
    assert seated is not None and [x.bot for x in seated] == ["a1", "b1", "a2", "b2"]
    assert seating([w("a1", "a"), w("a2", "a"), w("a3", "a"), w("b", "b")], True) is None
    assert seating([w("a1", "a"), w("a2", "a"), w("a3", "a"), w("b", "b")], False) is not None
    assert decision_seconds(make("sanfu")) == 30.0
    assert decision_seconds(make("guandan")) == 10.0
