"""Protocol 2 of Play.Connect (docs/protocol.md): one server message per decision, the
acceptance named in the seat's next request, compact observations, replies by index —
and protocol 1 still served as it was.

Each server test plays a real match on 127.0.0.1 (any port) beside SDK bots."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from test_server_seats import Raw, arena, clock, fillers, run

from arena._proto.arena.v1 import arena_pb2
from arena.client.wire import JsonFacts, LegalTexts, facts_from_struct, observation_from_proto
from arena.games import make, names
from arena.games.base import Observation
from arena.match import play_match
from arena.server.remote import observation_to_proto
from arena.store import Store
from bots.simple import RandomBot


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(tmp_path / "arena.sqlite") as store:
        yield store


def test_a_protocol_2_seat_gets_one_message_per_decision(store: Store) -> None:
    """Between two of the seat's requests no other message comes (within a deal); no
    ActionResult comes at all for answers that are accepted, and each request names the
    seat's previous one as accepted; the events come inside the requests, in order,
    without gap; the facts are JSON, the legal actions texts."""
    with arena(store, clock=clock(decision=20.0), max_deals=2) as server:
        mine, *others = server.tokens("p2-me", "p2-1", "p2-2", "p2-3")

        async def main() -> list[arena_pb2.ServerMessage]:
            bot = Raw(server.address, mine)
            welcome = await bot.hello(protocol=2)
            assert welcome.protocol == 2
            await bot.join(rated=False)
            fill = fillers(server, others)
            while True:
                message = await bot.until("decision", "match_result")
                if message.HasField("match_result"):
                    break
                request = message.decision
                await bot.send(action=arena_pb2.ActionReply(request_id=request.request_id, index=0))
            await fill
            await bot.close()
            return bot.seen

        seen = run(main())
    bodies = [m.WhichOneof("body") for m in seen]
    assert "action_result" not in bodies, "an accepted answer is told by the next request"
    requests = [m.decision for m in seen if m.HasField("decision")]
    assert len(requests) > 10
    deal_of = 0
    previous = ""
    seq = 0
    for message in seen:
        body = message.WhichOneof("body")
        if body == "deal_started":
            deal_of = message.deal_started.deal
        if body in ("decision", "events"):
            events = (
                message.decision.observation.events if body == "decision" else message.events.events
            )
            for event in events:
                assert event.seq == seq + 1 and event.deal == deal_of
                seq = event.seq
        if body == "decision":
            request = message.decision
            assert request.accepted == previous
            previous = request.request_id
            observation = request.observation
            assert observation.seq == seq
            assert json.loads(observation.public_json) and observation.private_json
            assert not observation.HasField("public_facts")
            assert list(observation.legal.texts) and not observation.legal.actions
    between = [
        bodies[i + 1 : j]
        for i, j in zip(
            [k for k, b in enumerate(bodies) if b == "decision"],
            [k for k, b in enumerate(bodies) if b == "decision"][1:],
            strict=False,
        )
    ]
    inside_a_deal = [b for b in between if "deal_result" not in b]
    assert inside_a_deal and all(b == [] for b in inside_a_deal), Counter(map(tuple, between))
    assert bodies.count("events") == bodies.count("deal_result") == 2  # each deal's last


@pytest.mark.parametrize("protocol", [1, 2])
def test_a_reply_by_index_is_checked_against_the_listed_actions(
    store: Store, protocol: int
) -> None:
    """An index beyond the list, or an index beside an action, is MALFORMED and the request
    stays open; an index in the list is the action it names (both protocols)."""
    with arena(store, clock=clock(decision=20.0), max_deals=1) as server:
        mine, *others = server.tokens("ix-me", "ix-1", "ix-2", "ix-3")

        async def main() -> tuple[list[arena_pb2.ActionResult], str]:
            bot = Raw(server.address, mine)
            await bot.hello(protocol=protocol)
            await bot.join(rated=False)
            fill = fillers(server, others)
            request = (await bot.until("decision")).decision
            legal = request.observation.legal
            listed = list(legal.texts) if protocol == 2 else [a.text for a in legal.actions]
            rid = request.request_id
            replies = [
                arena_pb2.ActionReply(request_id=rid, index=len(listed)),
                arena_pb2.ActionReply(
                    request_id=rid, index=0, action=arena_pb2.Action(text=listed[0])
                ),
            ]
            results = []
            for reply in replies:
                await bot.send(action=reply)
                results.append((await bot.until("action_result")).action_result)
            last = len(listed) - 1
            await bot.send(action=arena_pb2.ActionReply(request_id=rid, index=last))
            while True:  # the rest of the match, each decision answered by index 0
                message = await bot.until("decision", "action_result", "match_result")
                if message.HasField("match_result"):
                    break
                if message.HasField("action_result"):
                    results.append(message.action_result)
                    continue
                if message.decision.accepted:
                    results.append(arena_pb2.ActionResult(request_id=message.decision.accepted))
                again = arena_pb2.ActionReply(request_id=message.decision.request_id, index=0)
                await bot.send(action=again)
            await bot.close()
            await fill
            return results, listed[last]

        results, chosen = run(main())
    beyond, both, told, *_ = results
    for refused in (beyond, both):
        assert refused.status == arena_pb2.ACTION_STATUS_MALFORMED
        assert refused.attempts_left > 0 and refused.decision_ms > 0
    assert "names no legal action of the request" in beyond.reason
    assert both.reason == "bad reply: give either an action or an index, not both"
    assert told.request_id == beyond.request_id  # the request answered by index
    if protocol == 1:  # an ActionResult accepts it, naming the action the index named
        assert told.status == arena_pb2.ACTION_STATUS_ACCEPTED and told.action.text == chosen
    else:  # the next request names it (the stand-in result has no status)
        assert told.status == arena_pb2.ACTION_STATUS_UNSPECIFIED
        assert all(r.status == arena_pb2.ACTION_STATUS_UNSPECIFIED for r in results[2:])


def played_observations(variant: str, seed: int) -> list[Observation]:
    observations: list[Observation] = []

    class Keeping:
        def __init__(self, seat: int) -> None:
            self.bot = RandomBot(seed * 4 + seat)

        def act(self, observation: Observation) -> Any:
            observations.append(observation)
            return self.bot.act(observation)

    play_match(make(variant), [Keeping(s) for s in range(4)], seed=seed, max_deals=1)
    return observations


def shaped(value: Any) -> Any:
    """The engine's facts in the shape both protocols give a bot: keys as text, lists and
    tuples as tuples."""
    if isinstance(value, Mapping):
        return {str(key): shaped(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return tuple(shaped(item) for item in value)
    return value


@pytest.mark.parametrize("variant", names())
def test_a_compact_observation_is_the_engines_on_the_bots_side(variant: str) -> None:
    """Every decision of a deal, sent in protocol 2's form and read by the SDK, is the
    engine's observation: the same hand, facts (lists as tuples) and legal actions, in
    order; protocol 1's form gives the same facts (so the JSON holds no more than the
    Structs, whose hidden-information tests cover it)."""
    for observation in played_observations(variant, seed=5):
        wire = observation_to_proto(observation, 1, compact=True)
        read = observation_from_proto(arena_pb2.Observation.FromString(wire.SerializeToString()))
        assert isinstance(read.legal_actions, LegalTexts)
        assert isinstance(read.public, JsonFacts)
        assert read.hand == observation.hand
        assert read.legal_actions == tuple(observation.legal_actions)
        assert len(read.legal_actions) == len(observation.legal_actions)
        assert read.public == shaped(observation.public)
        assert read.private == shaped(observation.private)
        assert read.legal_complete == observation.legal_complete
        old = observation_to_proto(observation, 1)
        assert facts_from_struct(old.public_facts) == read.public
        for index in (0, len(observation.legal_actions) - 1):
            action = observation.legal_actions[index]
            assert read.legal_actions.position(action) == index
            assert action in read.legal_actions


@pytest.mark.parametrize(("first", "then"), [(2, 1), (1, 2)])
def test_a_seat_taken_back_in_the_other_protocol_gets_the_open_request_in_its_form(
    store: Store, first: int, then: int
) -> None:
    """The bot's connection breaks at its decision; the bot comes back speaking the other
    protocol: the open request comes again, its observation in the new form, and an
    answer to it is taken as that protocol takes answers."""
    with arena(store, clock=clock(decision=20.0, grace=20.0), max_deals=1) as server:
        mine, *others = server.tokens("px-me", "px-1", "px-2", "px-3")

        async def main() -> tuple[arena_pb2.DecisionRequest, arena_pb2.DecisionRequest, str]:
            bot = Raw(server.address, mine)
            await bot.hello(protocol=first)
            await bot.join(rated=False)
            fill = fillers(server, others)
            assigned = (await bot.until("seat_assigned")).seat_assigned
            request = (await bot.until("decision")).decision
            await bot.close()
            again = Raw(server.address, mine)
            await again.hello(resume=assigned.match.match_id, protocol=then)
            await again.until("resume")
            resent = (await again.until("decision")).decision
            await again.answer(resent)
            message = await again.until("action_result", "decision", "deal_result")
            told = message.WhichOneof("body") or ""
            if told == "action_result":
                told = arena_pb2.ActionStatus.Name(message.action_result.status)
            if told == "decision":
                assert message.decision.accepted == resent.request_id
                await again.answer(message.decision)
            await again.play_out()
            await again.close()
            await fill
            return request, resent, told

        request, resent, told = run(main())
    assert resent.request_id == request.request_id
    assert resent.observation.hand == request.observation.hand
    if then == 2:
        assert resent.observation.public_json and resent.observation.legal.texts
        assert not resent.observation.legal.actions
        assert told in ("decision", "deal_result")  # accepted: no result of its own
    else:
        assert resent.observation.HasField("public_facts") and resent.observation.legal.actions
        assert not resent.observation.public_json and not resent.observation.legal.texts
        assert told == "ACTION_STATUS_ACCEPTED"
