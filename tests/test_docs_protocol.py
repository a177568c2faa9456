"""docs/protocol.md's example sessions are the server's: every message shown parses as the
type its block names, and shows only fields the server sends in that protocol version
(and every field it always sends), compared with sessions recorded on a real server in
both versions; the command it gives for generating stubs works.

The recorded sessions play one deal of casual Guandan on 127.0.0.1 (any port), with
built-in bots filling the other seats."""

from __future__ import annotations

import re
import subprocess
import sys
from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest
from google.protobuf import json_format
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message
from test_docs import DOCS, ROOT, Block, blocks
from test_server_seats import Raw, arena, run

from arena._proto.arena.v1 import arena_pb2
from arena.store import Store

PROTOCOL = DOCS / "protocol.md"

LEAVES = {"google.protobuf.Struct", "google.protobuf.Timestamp", "google.protobuf.Value"}
"""Messages whose inside is data, not the contract's fields."""


def paths(message: Message, prefix: str = "") -> set[str]:
    """The fields a message sets, as dotted paths (a repeated message's fields merged)."""
    found = set()
    for field, value in message.ListFields():
        path = f"{prefix}{field.name}"
        found.add(path)
        if field.message_type is None or field.message_type.full_name in LEAVES:
            continue
        if field.message_type.GetOptions().map_entry:
            continue
        items = value if field.is_repeated else [value]
        for item in items:
            found |= paths(item, f"{path}.")
    return found


@dataclass(frozen=True)
class Shown:
    """A message of the page's example: its type, the body it carries, the fields it
    sets, the protocol version of the section it is in and where it is."""

    block: Block
    message: Message
    protocol: int

    @property
    def body(self) -> str:
        oneofs = self.message.DESCRIPTOR.oneofs_by_name
        return (self.message.WhichOneof("body") or "") if "body" in oneofs else ""

    def __str__(self) -> str:
        return f"protocol.md:{self.block.line} ({self.block.info}, protocol {self.protocol})"


def section_protocols(page: Path) -> list[tuple[int, int]]:
    """(line, version) from each heading on: a session's heading (``### … in protocol
    N``) sets the version of its section, a subsection's (``#### … in protocol N``) of
    that subsection alone; elsewhere 0."""
    found, session = [], 0
    for number, line in enumerate(page.read_text(encoding="utf-8").split("\n"), 1):
        heading = re.match(r"(#+) ", line)
        if not heading:
            continue
        version = re.search(r"\bin protocol (\d)\b", line)
        level = len(heading.group(1))
        if level <= 3:
            session = int(version.group(1)) if version and level == 3 else 0
            found.append((number, session))
        else:
            found.append((number, int(version.group(1)) if version else session))
    return found


def shown(page: Path = PROTOCOL) -> Iterator[Shown]:
    """Every ``json arena.v1.TYPE`` block of the page, parsed as its type."""
    sections = section_protocols(page)
    for block in blocks(page):
        typed = re.fullmatch(r"json arena\.v1\.(\w+)", block.info)
        if not typed:
            continue
        kind = getattr(arena_pb2, typed.group(1))
        message = json_format.Parse(block.text, kind())
        versions = [version for line, version in sections if line < block.line]
        yield Shown(block, message, versions[-1] if versions else 0)


def test_every_message_shown_parses_as_its_type() -> None:
    """An unknown field, enum value or type in an example fails here."""
    found = list(shown())
    assert len(found) > 30
    assert {s.block.info for s in found} >= {
        "json arena.v1.ClientMessage",
        "json arena.v1.ServerMessage",
        "json arena.v1.RegisterRequest",
    }


def test_a_wrong_field_in_an_example_fails(tmp_path: Path) -> None:
    page = tmp_path / "protocol.md"
    page.write_text('```json arena.v1.ClientMessage\n{"hello": {"protocl": 2}}\n```\n')
    with pytest.raises(json_format.ParseError, match="protocl"):
        list(shown(page))


def test_both_protocols_have_an_example_session() -> None:
    versions = {s.protocol for s in shown() if s.block.info.endswith("ClientMessage")}
    assert versions == {1, 2}
    for s in shown():
        if s.body == "hello":
            assert s.message.hello.protocol == s.protocol, s


# --- the sessions recorded -----------------------------------------------------------


@dataclass
class Recording:
    """What a bot received in one session: each body's fields, and every message."""

    received: dict[str, list[set[str]]]
    messages: list[tuple[str, Message]]
    """Every message in order: ``("sent", ClientMessage)`` or ``("received", …)``."""


def record(store: Store, protocol: int) -> Recording:
    """One deal of casual Guandan as the page's example plays it, with the server's
    default clock: a join with a typo, a join filled by built-in bots, the first legal
    action until a decision of a few choices, there a reply by an index beyond the list,
    an illegal play and the last listed action, then the first legal action each time."""
    received: dict[str, list[set[str]]] = defaultdict(list)
    messages: list[tuple[str, Message]] = []
    with arena(store, max_deals=1) as server:
        [token] = server.tokens("my-bot")

        async def main() -> None:
            bot = Raw(server.address, token)
            original = bot.send

            def flush() -> None:
                messages.extend(("received", m) for m in bot.seen[len(flushed) :])
                flushed[:] = bot.seen

            async def send(**body: Message) -> None:
                flush()
                for name, value in body.items():
                    message = arena_pb2.ClientMessage(**{name: value})
                    messages.append(("sent", message))
                await original(**body)

            flushed: list[arena_pb2.ServerMessage] = []
            bot.send = send  # type: ignore[method-assign]
            await bot.hello(protocol=protocol)
            await bot.join(variant="gandan", rated=False)
            await bot.until("error")
            await bot.join(rated=False, fill_after_ms=1, fill_bot="random")
            while True:  # the first legal action, up to a decision of a few choices
                request = (await bot.until("decision")).decision
                legal = request.observation.legal
                listed = list(legal.texts) or [action.text for action in legal.actions]
                if 2 <= len(listed) <= 6:
                    break
                await bot.answer(request)
            rid = request.request_id
            await bot.send(action=arena_pb2.ActionReply(request_id=rid, index=len(listed)))
            await bot.until("action_result")
            await bot.send(
                action=arena_pb2.ActionReply(
                    request_id=rid, action=arena_pb2.Action(text="play BJ BJ BJ BJ")
                )
            )
            await bot.until("action_result")
            await bot.send(action=arena_pb2.ActionReply(request_id=rid, index=len(listed) - 1))
            await bot.play_out()
            flush()
            await bot.close()
            for message in bot.seen:
                body = message.WhichOneof("body") or ""
                received[body].append(paths(message))

        run(main())
    return Recording(dict(received), messages)


@pytest.fixture(scope="module")
def recordings(tmp_path_factory: pytest.TempPathFactory) -> dict[int, Recording]:
    found = {}
    for protocol in (1, 2):
        path = tmp_path_factory.mktemp(f"p{protocol}") / "arena.sqlite"
        with Store.open(path) as store:
            found[protocol] = record(store, protocol)
    return found


NOT_RECORDED = {"resume"}
"""Bodies the page shows that the recorded sessions do not provoke."""
NOT_REACHED = {"match_result.winner_team"}
"""Fields the page shows that only an outcome the recorded sessions do not reach sets
(their match ends at its deal limit; the page's protocol 1 match is won)."""


def field_at(path: str) -> FieldDescriptor:
    """The field a dotted path of :func:`paths` names, from ``ServerMessage``."""
    descriptor, field = arena_pb2.ServerMessage.DESCRIPTOR, None
    for name in path.split("."):
        field = descriptor.fields_by_name[name]
        descriptor = field.message_type
    assert field is not None
    return field


def always_shown(path: str) -> bool:
    """Whether a message that leaves the field out differs from every real one that sets
    it: a field without presence (a plain scalar of proto3) is left out when it holds
    its default, which a real message may hold too."""
    return field_at(path).has_presence


def _compare(example: Sequence[Shown], recordings: dict[int, Recording]) -> list[str]:
    wrong = []
    for s in example:
        if s.protocol not in recordings or s.body in NOT_RECORDED:
            continue
        recording = recordings[s.protocol]
        fields = paths(s.message)
        real = recording.received.get(s.body)
        if not real:
            wrong.append(f"{s}: no {s.body} in a real session of protocol {s.protocol}")
            continue
        extra = fields - set().union(*real) - NOT_REACHED
        missing = {f for f in set.intersection(*real) - fields if always_shown(f)}
        if extra:
            wrong.append(f"{s}: a real {s.body} never has {sorted(extra)}")
        if missing:
            wrong.append(f"{s}: a real {s.body} always has {sorted(missing)}")
    return wrong


def test_the_examples_show_what_the_server_sends(recordings: dict[int, Recording]) -> None:
    """Each example message has the fields of the real messages of its kind in its
    protocol version: none the server never sets there, none left out that it always
    sets (a protocol 1 decision shown in the protocol 2 session fails here)."""
    server = [s for s in shown() if s.block.info.endswith("ServerMessage")]
    assert {s.protocol for s in server} == {1, 2}
    wrong = _compare(server, recordings)
    assert not wrong, "\n".join(wrong)


def test_a_decision_of_the_other_protocol_is_found(recordings: dict[int, Recording]) -> None:
    """What would break the comparison: protocol 1's decision shown as protocol 2's."""
    decisions = [s for s in shown() if s.body == "decision"]
    ones = [s for s in decisions if s.protocol == 1]
    assert ones
    moved = [Shown(s.block, s.message, 2) for s in ones]
    assert _compare(moved, recordings)


# --- stubs ---------------------------------------------------------------------------


def protoc_command() -> list[str]:
    """The page's command that generates Python stubs from the contract."""
    found = [
        line
        for block in blocks(PROTOCOL)
        for line in block.text.split("\n")
        if "grpc_tools.protoc" in line
    ]
    assert len(found) == 1, found
    return found[0].split()


IMPORT_STUBS = """
from arena.v1 import arena_pb2, arena_pb2_grpc
hello = arena_pb2.ClientMessage(hello=arena_pb2.Hello(protocol=2))
assert arena_pb2.ClientMessage.FromString(hello.SerializeToString()) == hello
assert callable(arena_pb2_grpc.PlayStub) and callable(arena_pb2_grpc.RegistryStub)
print(arena_pb2.__file__)
"""
"""What a bot's code does with the stubs: import them, build and read a message."""


def test_the_stub_command_generates_importable_stubs(tmp_path: Path) -> None:
    """The page's ``grpc_tools.protoc`` command, run as written (into a folder of the
    test's), writes stubs that a bot imports by the names the page gives."""
    argv = protoc_command()
    assert argv[:3] == ["python", "-m", "grpc_tools.protoc"]
    out = tmp_path / "stubs"
    out.mkdir()
    argv = [sys.executable, *argv[1:]]
    argv = [re.sub(r"^(--(?:python|grpc_python|pyi)_out=).*", rf"\g<1>{out}", a) for a in argv]
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    generated = {p.relative_to(out).as_posix() for p in out.rglob("*.py*")}
    assert generated == {
        "arena/v1/arena_pb2.py",
        "arena/v1/arena_pb2.pyi",
        "arena/v1/arena_pb2_grpc.py",
    }
    imported = subprocess.run(  # from the stubs' folder: not this repository's ``arena``
        [sys.executable, "-c", IMPORT_STUBS],
        cwd=out,
        capture_output=True,
        text=True,
        check=False,
    )
    assert imported.returncode == 0, imported.stderr
    assert Path(imported.stdout.strip()) == out / "arena" / "v1" / "arena_pb2.py"
