"""``arena bot run --exec``: a program reading a JSON line per decision plays as a seat on
a real server, its mistakes refused and counted as any bot's, its processes cleaned up."""

from __future__ import annotations

import json
import shlex
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from gateway_programs import gone, held_by, play_one, write_program
from test_server_seats import Arena, clock

from arena.cards import parse_cards
from arena.errors import ArenaError
from arena.games.base import Action
from arena.gateways.exec_bot import ExecBot, answer_of
from arena.gateways.program import parse_command
from arena.server.play import PlayConfig
from arena.store import Store

ROOT = Path(__file__).resolve().parent.parent
NODE = shutil.which("node")

FIRST = """
    import json, sys
    log = open(sys.argv[0] + ".log", "a")
    for line in sys.stdin:
        log.write(line); log.flush()
        print(0, flush=True)
"""


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store.open(tmp_path / "arena.sqlite")


def test_a_python_program_plays_a_shengji_deal_and_sees_only_its_cards(
    store: Store, tmp_path: Path
) -> None:
    """C-5: every line names only the seat's own cards outside the public events."""
    words = write_program(tmp_path, "first.py", FIRST)
    played = play_one(store, ExecBot(words), "shengji-2")
    assert played.match.deals == 1
    lines = [json.loads(x) for x in Path(words[1] + ".log").read_text().splitlines()]
    assert lines and all(x["deal"] == 1 and x["seat"] == played.player() for x in lines)
    held = held_by(played, "shengji-2")[0]
    for line in lines:
        own = Counter(parse_cards(line["hand"]))
        for text in line["legal_actions"]:
            own |= Counter(Action.from_str(text).cards)
        own |= Counter(parse_cards(line["private"].get("buried", "")))
        assert not own - held, line
        assert line["time_left_ms"] > 0
    assert played.conduct["malformed"][played.player()] == 0


@pytest.mark.skipif(NODE is None, reason="node (Node.js) is not installed")
def test_the_node_example_plays_a_guandan_deal(store: Store) -> None:
    played = play_one(
        store, ExecBot([str(NODE), str(ROOT / "examples" / "exec_bot.js")]), "guandan"
    )
    player = played.player()
    assert played.match.deals == 1
    assert played.conduct["malformed"][player] == played.conduct["timeouts"][player] == 0


def test_garbage_and_an_index_out_of_range_are_refused_and_counted(
    store: Store, tmp_path: Path
) -> None:
    """Refused answers reach the program in the next line's ``refused``; the server counts
    them as MALFORMED, as for a gRPC bot."""
    words = write_program(
        tmp_path,
        "careless.py",
        """
        import json, sys
        wrong = 0
        for line in sys.stdin:
            seen = json.loads(line)
            if "refused" in seen:
                print(0, flush=True)
            elif wrong < 2:
                wrong += 1
                print("999" if wrong == 1 else "what?", flush=True)
            else:
                print(0, flush=True)
        """,
    )
    played = play_one(store, ExecBot(words), "guandan")
    assert played.conduct["malformed"][played.player()] == 2, played.conduct
    assert played.conduct["timeouts"][played.player()] == 0


@pytest.mark.parametrize(
    ("kind", "body"),
    [
        ("crash", "if asked == 3: sys.exit(3)"),
        (
            "hang",  # and a child of its own, killed with it
            "if asked == 3: print(subprocess.Popen(['sleep', '600']).pid, file=pids, flush=True)"
            "; time.sleep(600)",
        ),
        ("long line", "if asked == 3: print('x' * 300000, flush=True)"),
        ("endless output", "if asked == 3: [print('more', flush=True) for _ in iter(int, 1)]"),
    ],
)
def test_a_failing_program_is_stopped_its_decision_played_automatically(
    store: Store, tmp_path: Path, kind: str, body: str
) -> None:
    """A crash, silence or too much output: the program (its whole process group) is
    killed, the decision times out to automatic play, a new program plays on."""
    program = (
        "import os, subprocess, sys, time\n"
        "pids = open(sys.argv[0] + '.pids', 'a')\n"
        "pids.write(f'{os.getpid()}\\n'); pids.flush()\n"
        "asked = 0\n"
        "for line in sys.stdin:\n"
        "    asked += 1\n"
        f"    {body}\n"
        "    print(0, flush=True)\n"
    )
    words = write_program(tmp_path, "failing.py", program)
    bot = ExecBot(words)
    played = play_one(store, bot, "guandan", decision=1.0)
    player = played.player()
    assert played.conduct["timeouts"][player] >= 1, kind
    pids = [int(x) for x in Path(words[1] + ".pids").read_text().split()]
    assert len(pids) >= 2  # started again after the failure
    assert all(gone(pid) for pid in pids)
    assert not bot.programs


def test_answers_read_from_a_line() -> None:
    legal = [Action("pass"), Action.from_str("play 3s")]
    assert answer_of(" 1 ", legal) == legal[1]
    assert answer_of("2", legal) == "2"  # out of range: the server refuses it
    assert answer_of('"play 3s"', legal) == "play 3s"
    assert answer_of("play 3s", legal) == "play 3s"
    assert answer_of('"x', legal) == '"x'


def test_a_command_that_cannot_run_is_one_line() -> None:
    with pytest.raises(ArenaError, match="is not an executable found"):
        parse_command("no-such-program-here --x")
    with pytest.raises(ArenaError, match="cannot read the command"):
        parse_command("python 'unclosed")


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT])
def test_arena_bot_run_stopped_by_a_signal_leaves_no_program_behind(
    store: Store, tmp_path: Path, stop: signal.Signals
) -> None:
    """The command's run ends by a stop signal while its program thinks: the program and
    the child it started are killed, and the command says it was interrupted."""
    words = write_program(
        tmp_path,
        "thinker.py",
        """
        import os, subprocess, sys, time
        pids = open(sys.argv[0] + ".pids", "a")
        print(os.getpid(), file=pids, flush=True)
        for line in sys.stdin:
            child = subprocess.Popen(["sleep", "600"])
            print(child.pid, file=pids, flush=True)
            time.sleep(600)
        """,
    )
    pids = Path(words[1] + ".pids")
    server = Arena(store, PlayConfig(clock=clock(decision=60.0)))
    try:
        (token,) = server.tokens("thinker")
        command = [
            str(Path(sys.executable).with_name("arena")), "bot", "run", "--exec", shlex.join(words),
            "--server", server.address, "--token", token, "--casual",
            "--fill-after", "0.05", "--fill-bot", "first", "--variant", "guandan",
        ]  # fmt: skip
        with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as run:
            started = time.monotonic()
            while not pids.exists() or len(pids.read_text().split()) < 2:
                assert run.poll() is None, run.communicate()
                assert time.monotonic() - started < 120, "the program was never asked"
                time.sleep(0.05)
            run.send_signal(stop)
            _, err = run.communicate(timeout=60)
        assert run.returncode == 128 + stop, err
        assert b"interrupted" in err
        program, child = (int(pid) for pid in pids.read_text().split())
        assert gone(program) and gone(child)
    finally:
        server.close()
