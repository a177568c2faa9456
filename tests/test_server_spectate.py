"""Spectate on a real server: stored matches re-played as public messages only."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from google.protobuf.json_format import MessageToDict
from test_server import ServerThread, code_of

import bots
from arena import games
from arena._proto.arena.v1 import arena_pb2, arena_pb2_grpc
from arena.cards import format_cards
from arena.games.base import NUM_SEATS, Event, State
from arena.match import play_match
from arena.replay import MatchRecord, start_deal
from arena.server.remote import event_to_proto
from arena.server.services import Failure
from arena.server.spectate import stored_messages, stored_watch
from arena.store import Store, StoredMatch

MATCHES = {"watch-guandan": ("guandan", 11), "watch-sanfu": ("sanfu", 12)}


def _play(store: Store, match_id: str, variant: str, seed: int) -> list[list[arena_pb2.Event]]:
    """Play and store a match; the public events the engine published, per deal."""
    game = games.make(variant)
    players = ["random", "first", "random", "first"]
    per_deal: list[list[arena_pb2.Event]] = []
    states: list[State] = []

    def on_event(state: State, event: Event) -> None:
        if not states or states[-1] is not state:
            states.append(state)
            per_deal.append([])
        seq = sum(len(d) for d in per_deal) + 1
        description = game.describe_event(event, state)
        per_deal[-1].append(event_to_proto(event, seq, len(states), description))

    policies = [bots.make(name, seed=seed + i) for i, name in enumerate(players)]
    result = play_match(game, policies, seed=seed, players=players, max_deals=2, on_event=on_event)
    store.add_match(
        StoredMatch(
            id=match_id,
            tournament_id=None,
            variant=variant,
            options=dict(game.options),
            seed=seed,
            seating=tuple(players),
            outcome={"winner": result.winner, "totals": list(result.totals), "team_score": 0.5},
            record=result.record.to_dict(),
            deals=len(result.outcomes),
            decisions=result.decisions,
        )
    )
    return per_deal


@pytest.fixture(scope="module")
def served(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[Store, grpc.Channel, dict[str, list[list[arena_pb2.Event]]]]]:
    with Store.open(tmp_path_factory.mktemp("spectate") / "arena.sqlite") as store:
        expected = {
            mid: _play(store, mid, variant, seed) for mid, (variant, seed) in MATCHES.items()
        }
        server = ServerThread(store)
        try:
            with grpc.insecure_channel(f"127.0.0.1:{server.running.port}") as channel:
                yield store, channel, expected
        finally:
            server.close()


def _watch(
    channel: grpc.Channel, match_id: str, after_seq: int = 0
) -> list[arena_pb2.WatchMessage]:
    stub = arena_pb2_grpc.SpectateStub(channel)
    return list(stub.Watch(arena_pb2.WatchRequest(match_id=match_id, after_seq=after_seq)))


@pytest.mark.parametrize("match_id", sorted(MATCHES))
def test_watch_stored_match_sends_the_engine_public_events(
    served: tuple[Store, grpc.Channel, dict[str, list[list[arena_pb2.Event]]]], match_id: str
) -> None:
    store, channel, expected = served
    messages = _watch(channel, match_id)
    bodies = [m.WhichOneof("body") for m in messages]
    assert not any(m.live for m in messages)
    assert bodies[0] == "match" and bodies[-1] == "match_result"
    assert messages[0].match.match_id == match_id
    assert messages[0].match.players == ["random", "first", "random", "first"]

    deals: list[list[arena_pb2.Event]] = []
    results = turns = 0
    for message in messages[1:-1]:
        body = message.WhichOneof("body")
        if body == "deal_started":
            assert message.deal_started.deal == len(deals) + 1
            deals.append([])
        elif body == "events":
            assert message.events.match_id == match_id and message.events.events
            deals[-1].extend(message.events.events)
        elif body == "turn":  # whose decision brings the next batch: never the last word
            turn = message.turn
            assert turn.deal == len(deals) and 0 <= turn.seat < 4 and turn.phase
            assert turn.after_seq == deals[-1][-1].seq and not turn.HasField("deadline")
            turns += 1
        else:
            assert body == "deal_result"
            results += 1
            assert message.deal_result.deal == len(deals)
    assert results == len(deals) == len(expected[match_id]) == 2
    assert turns > 0 and all(  # a turn follows an events batch, and a batch follows it
        bodies[k - 1] == "events" and bodies[k + 1] == "events"
        for k, body in enumerate(bodies)
        if body == "turn"
    )
    assert deals == expected[match_id]
    seqs = [e.seq for deal in deals for e in deal]
    assert seqs == list(range(1, len(seqs) + 1))

    stored = store.match(match_id)
    assert stored is not None
    final = messages[-1].match_result
    assert final.deals == 2 and list(final.totals) == stored.outcome["totals"]
    assert not final.rated


@pytest.mark.parametrize("match_id", sorted(MATCHES))
def test_deal_started_shows_no_card_of_any_hand(
    served: tuple[Store, grpc.Channel, dict[str, list[list[arena_pb2.Event]]]], match_id: str
) -> None:
    store, channel, _ = served
    stored = store.match(match_id)
    assert stored is not None
    record = MatchRecord.from_dict(stored.record)
    game = games.make(record.game, **record.options)
    started = [m.deal_started for m in _watch(channel, match_id) if m.HasField("deal_started")]
    assert len(started) == len(record.deals)
    for deal, message in zip(record.deals, started, strict=True):
        state = start_deal(game, deal)
        cards = {
            card
            for seat in range(NUM_SEATS)
            for card in format_cards(state.observe(seat).hand).split()
        }
        assert not message.hand and not message.HasField("seat")
        assert len(message.seating) == NUM_SEATS
        assert not cards & set(_strings(MessageToDict(message)))


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def test_watch_after_seq_skips_earlier_events(
    served: tuple[Store, grpc.Channel, dict[str, list[list[arena_pb2.Event]]]],
) -> None:
    _, channel, expected = served
    first, second = expected["watch-guandan"]
    after = first[-1].seq + 1
    messages = _watch(channel, "watch-guandan", after_seq=after)
    bodies = [m.WhichOneof("body") for m in messages]
    assert bodies.count("deal_started") == 1 and bodies.count("deal_result") == 1
    assert messages[1].deal_started.deal == 2
    events = [e for m in messages if m.HasField("events") for e in m.events.events]
    assert events == second[1:]


@pytest.mark.parametrize("match_id", sorted(MATCHES))
def test_one_deal_alone_is_that_deal_of_the_watch_stream(
    served: tuple[Store, grpc.Channel, dict[str, list[list[arena_pb2.Event]]]], match_id: str
) -> None:
    """``stored_messages(deal=N)``: the MatchInfo, deal N's messages exactly as Watch
    sends them (the same event numbers), the MatchResult; re-played with the match's
    outline known (deal N alone), the same again; a deal the match lacks is NOT_FOUND."""
    store, channel, _ = served
    whole = _watch(channel, match_id)
    per_deal: list[list[arena_pb2.WatchMessage]] = []
    for message in whole[1:-1]:
        if message.WhichOneof("body") == "deal_started":
            per_deal.append([])
        per_deal[-1].append(message)
    first = stored_watch(store, match_id, deal=1)
    assert len(first.outline) == len(per_deal) == 2
    for number, messages in enumerate(per_deal, start=1):
        alone = stored_messages(store, match_id, deal=number)
        assert alone == [whole[0], *messages, whole[-1]]
        known = stored_watch(store, match_id, deal=number, outline=first.outline)
        assert known.messages == alone and known.outline == first.outline
        seqs = [e.seq for m in messages if m.HasField("events") for e in m.events.events]
        assert first.outline[number - 1].events_before == seqs[0] - 1
    for missing in (0, 3):
        with pytest.raises(Failure) as failure:
            stored_messages(store, match_id, deal=missing)
        assert failure.value.code == grpc.StatusCode.NOT_FOUND
        assert f"no deal {missing}" in failure.value.message


def test_watch_unknown_match_is_not_found(
    served: tuple[Store, grpc.Channel, dict[str, list[list[arena_pb2.Event]]]],
) -> None:
    _, channel, _ = served
    code, details = code_of(lambda: _watch(channel, "no-such-match"))
    assert code == grpc.StatusCode.NOT_FOUND
    assert "no-such-match" in details
    code, _ = code_of(lambda: _watch(channel, ""))
    assert code == grpc.StatusCode.INVALID_ARGUMENT


def test_list_matches_newest_first_with_filters(
    served: tuple[Store, grpc.Channel, dict[str, list[list[arena_pb2.Event]]]],
) -> None:
    _, channel, _ = served
    stub = arena_pb2_grpc.SpectateStub(channel)
    response = stub.ListMatches(arena_pb2.ListMatchesRequest())
    assert [m.info.match_id for m in response.matches] == ["watch-sanfu", "watch-guandan"]
    response = stub.ListMatches(arena_pb2.ListMatchesRequest(variant="guandan"))
    assert [m.info.match_id for m in response.matches] == ["watch-guandan"]
    response = stub.ListMatches(arena_pb2.ListMatchesRequest(bot="nobody"))
    assert not response.matches


def test_a_listed_stored_match_says_why_it_ended_as_watching_it_does(
    served: tuple[Store, grpc.Channel, dict[str, list[list[arena_pb2.Event]]]],
) -> None:
    _, channel, _ = served
    stub = arena_pb2_grpc.SpectateStub(channel)
    for summary in stub.ListMatches(arena_pb2.ListMatchesRequest()).matches:
        assert summary.end_reason == arena_pb2.END_REASON_DEAL_LIMIT  # two deals of a match
        watched = _watch(channel, summary.info.match_id)
        [ended] = [m.match_result for m in watched if m.HasField("match_result")]
        assert (ended.reason, ended.deals) == (summary.end_reason, summary.deals)
        assert ended.HasField("winner_team") == summary.HasField("winner_team")
