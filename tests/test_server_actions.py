"""Replies to decisions on a real server (127.0.0.1, any port): whatever cannot be read as an
action of the game is MALFORMED with a message naming what is wrong; only a well-formed
action the rules refuse is ILLEGAL, naming the rule."""

from __future__ import annotations

from collections.abc import Iterator

import grpc
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from test_contract import Stream
from test_server import ServerThread, register

from arena._proto.arena.v1 import arena_pb2
from arena.errors import ParseError
from arena.games.base import MAX_DEAL_CARDS
from arena.games.guandan.state import SYNTAX
from arena.protocol import MAX_ACTION_TEXT, MAX_ATTEMPTS, action_from_proto
from arena.server.play import PlayConfig
from arena.store import Store

VARIANT = "guandan"
PYTHON_WORDS = ("<class", "Traceback", "Error:", "object at 0x")


class Seat:
    """One casual Guandan connection (the other seats filled by built-in bots):
    :meth:`answer` sends a reply to the open decision and returns its result (answering
    legally first when the decision has one attempt left, and waiting for the next
    decision after an accepted reply)."""

    def __init__(self, address: str, token: str) -> None:
        self.stream = Stream(address, token)
        self.stream.hello()
        self.stream.send(join=arena_pb2.Join(variants=[VARIANT], rated=False, fill_after_ms=1))
        self.decision = self.stream.until("decision").decision
        self.attempts_left = MAX_ATTEMPTS

    def answer(self, action: arena_pb2.Action) -> arena_pb2.ActionResult:
        if self.attempts_left <= 1:  # play on: the first legal action, then a new decision
            legal = self._reply(self.decision.observation.legal.actions[0])
            assert legal.status == arena_pb2.ACTION_STATUS_ACCEPTED
        result = self._reply(action)
        self.attempts_left = result.attempts_left
        return result

    def _reply(self, action: arena_pb2.Action) -> arena_pb2.ActionResult:
        request_id = self.decision.request_id
        self.stream.send(action=arena_pb2.ActionReply(request_id=request_id, action=action))
        while True:
            result = self.stream.until("action_result").action_result
            if result.request_id == request_id:
                break
        if result.status == arena_pb2.ACTION_STATUS_ACCEPTED:
            self.decision = self.stream.until("decision").decision
            self.attempts_left = MAX_ATTEMPTS
        return result

    def close(self) -> None:
        self.stream.close()


@pytest.fixture(scope="module")
def seat(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Seat]:
    with Store.open(tmp_path_factory.mktemp("actions") / "arena.sqlite") as store:
        server = ServerThread(store, play=PlayConfig(max_deals=1))
        with grpc.insecure_channel(server.address) as channel:
            token = register(channel, "replies").token
        seat = Seat(server.address, token)
        yield seat
        seat.close()
        server.close()


def malformed_here(action: arena_pb2.Action) -> str | None:
    """Why ``action`` is no Guandan action, or None when it is one (legal or not)."""
    try:
        SYNTAX.check(action_from_proto(action))
    except ParseError as err:
        return str(err)
    return None


WORD = st.text(st.characters(codec="utf-8"), max_size=12)
CARD = st.one_of(st.sampled_from(["3s", "10h", "Th", "SJ", "BJ", "1s", "Xh", "s3", ""]), WORD)
ACTIONS = st.one_of(
    st.builds(arena_pb2.Action, text=st.text(max_size=40)),
    st.builds(
        arena_pb2.Action,
        verb=st.one_of(st.sampled_from(["pass", "play", "tribute", "fold", "Play"]), WORD),
        cards=st.lists(CARD, max_size=6),
        tag=st.one_of(st.just(""), st.sampled_from(["pair_run", "bomb", "nonsense"]), WORD),
    ),
    st.builds(
        arena_pb2.Action,
        text=st.sampled_from(["pass", "play 3s", "fold", "play 3s as nonsense"]),
        verb=st.sampled_from(["pass", "play", "fold"]),
        cards=st.lists(st.sampled_from(["3s", "4s"]), max_size=2),
    ),
)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@example(action=arena_pb2.Action(text="fold"))
@example(action=arena_pb2.Action(verb="fold"))
@example(action=arena_pb2.Action(text="pass 3s"))
@example(action=arena_pb2.Action(text="play"))
@example(action=arena_pb2.Action(text="tribute 3s 4s"))
@example(action=arena_pb2.Action(text="play 3s as nonsense"))
@example(action=arena_pb2.Action(text="pass as bomb"))
@example(action=arena_pb2.Action(text="play 3x"))
@example(action=arena_pb2.Action())
@example(action=arena_pb2.Action(text="play " + "3s " * 400))
@example(action=arena_pb2.Action(verb="play", cards=["3s"] * (MAX_DEAL_CARDS + 1)))
@example(action=arena_pb2.Action(verb="play", cards=["3s"], tag="x" * 5000))
@example(action=arena_pb2.Action(text="play 3s", verb="play", cards=["4s"]))
@given(action=ACTIONS)
def test_whatever_is_no_action_of_the_game_is_malformed(
    seat: Seat, action: arena_pb2.Action
) -> None:
    reason = malformed_here(action)
    result = seat.answer(action)
    if reason is None:  # a Guandan action: accepted or refused by the rules, never malformed
        assert result.status in (arena_pb2.ACTION_STATUS_ACCEPTED, arena_pb2.ACTION_STATUS_ILLEGAL)
        return
    assert result.status == arena_pb2.ACTION_STATUS_MALFORMED, (action, result)
    assert result.reason == reason
    assert result.reason.startswith(("bad action", "empty action", "unknown card"))
    assert len(result.reason) < MAX_ACTION_TEXT + 200  # quotes the input, cut short
    assert not any(word in result.reason for word in PYTHON_WORDS)


@pytest.mark.parametrize("text", ["play BJ BJ BJ BJ BJ BJ BJ", "tribute BJ", "return 3s"])
def test_a_well_formed_action_the_rules_refuse_is_illegal(seat: Seat, text: str) -> None:
    result = seat.answer(arena_pb2.Action(text=text))
    assert result.status == arena_pb2.ACTION_STATUS_ILLEGAL, result
    assert result.reason.startswith(f"illegal action {text!r}")
    assert result.action.text == text
