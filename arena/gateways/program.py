"""A program as a seat's mind: started from a command line, asked one line, answers one.

:class:`Program` runs the command (no shell: the words of ``shlex.split``) in a process
group of its own, writes a line to its stdin and reads one line from its stdout, each
within a deadline. A reader task reads everything the program prints, so a program
that prints without end never blocks and is caught: a line longer than ``max_line``
bytes, or more than :data:`MAX_UNASKED` lines nobody asked for, ends it. Whatever goes
wrong is a :class:`ProgramFailed` naming what (the exit status, silence past the
deadline, too much output) and the program is then stopped: its whole process group
is killed, so nothing it started outlives it. Its stderr passes through to ours.

:class:`ProgramBot` is the SDK :class:`~arena.client.Bot` whose answers come from
such programs: the seat, token, clock, refusals and reconnections stay the runner's.
A failed program leaves the decision unanswered (the server plays it automatically
when its time is out, as for any silent bot) and is started again for the next one.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shlex
import shutil
import signal
import time
from collections.abc import Sequence
from typing import Final

from arena.client.bot import Bot, asked
from arena.errors import ArenaError
from arena.plural import counted

__all__ = ["MAX_UNASKED", "Program", "ProgramBot", "ProgramFailed", "parse_command"]

MAX_UNASKED: Final = 64
"""Lines a program may print that no question asked for before it is stopped."""
STOP_GRACE: Final = 0.5
"""Seconds a program is given to exit by itself (its stdin closed, then SIGTERM)
before its process group is killed."""
DEFAULT_TIME: Final = 10.0
"""Seconds a program is given per question when no server deadline is known (a bot
played in process)."""


class ProgramFailed(Exception):
    """The program did not answer: it exited, stayed silent past the deadline, or
    printed too much. ``kind`` is ``exited``, ``silent`` or ``too_much``."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


def parse_command(command: str) -> list[str]:
    """The words of ``command``; :class:`ArenaError` when it is empty, badly quoted, or
    its program is not found."""
    try:
        words = shlex.split(command)
    except ValueError as err:
        raise ArenaError(f"cannot read the command {command!r}: {err}") from None
    if not words:
        raise ArenaError("the command is empty")
    if shutil.which(words[0]) is None:
        raise ArenaError(f"cannot run {command!r}: {words[0]!r} is not an executable found")
    return words


def _quoted(data: bytes, limit: int = 80) -> str:
    text = data.decode("utf-8", "replace").rstrip("\r\n")
    return repr(text if len(text) <= limit else text[:limit] + "…")


class Program:
    """One run of a command: lines in, lines out (see the module's docstring)."""

    def __init__(self, words: Sequence[str], *, max_line: int = 1 << 16) -> None:
        self.words = list(words)
        self.max_line = max_line
        self._process: asyncio.subprocess.Process | None = None
        self._lines: asyncio.Queue[bytes | ProgramFailed] = asyncio.Queue()
        self._reader: asyncio.Task[None] | None = None
        self._asking = False
        self._unasked = 0
        self.dropped = 0
        """Lines printed when no question was asked, thrown away."""

    @property
    def pid(self) -> int | None:
        return None if self._process is None else self._process.pid

    @property
    def running(self) -> bool:
        process = self._process
        return process is not None and process.returncode is None

    async def start(self) -> None:
        try:
            self._process = await asyncio.create_subprocess_exec(
                *self.words,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                start_new_session=True,  # its own process group: killed as a whole
                limit=self.max_line + 2,
            )
        except OSError as err:
            raise ProgramFailed("exited", f"cannot start {shlex.join(self.words)}: {err}") from None
        self._reader = asyncio.create_task(self._read_all())

    async def _read_all(self) -> None:
        """Each line the program prints into the queue; the end (or too long a line,
        or too many lines nobody asked for) as a :class:`ProgramFailed`, after which
        whatever it prints until it is stopped is read and thrown away."""
        process = self._process
        assert process is not None and process.stdout is not None
        stdout = process.stdout
        while True:
            try:
                line = await stdout.readline()
            except (ValueError, asyncio.LimitOverrunError):
                failure = self._too_long()
                break
            if not line:
                status = await process.wait()
                self._lines.put_nowait(ProgramFailed("exited", _exit_text(status)))
                return
            if not self._asking:
                self._unasked += 1
                if self._unasked > MAX_UNASKED:
                    failure = ProgramFailed(
                        "too_much", f"printed over {MAX_UNASKED} lines nobody asked for"
                    )
                    break
            self._lines.put_nowait(line)
        self._lines.put_nowait(failure)
        while await stdout.read(1 << 16):
            pass

    async def ask(self, line: str, deadline: float) -> str:
        """Write ``line`` and read the answer (one line, without its end), by
        ``deadline`` (``time.monotonic()``). Lines printed since the last answer are
        thrown away first. :class:`ProgramFailed` if no answer comes."""
        if not self.running:
            await self.start()
        self._drop_unasked()
        await self.send(line, deadline)
        return await self.read_line(deadline)

    async def send(self, line: str, deadline: float) -> None:
        process = self._process
        assert process is not None and process.stdin is not None
        self._asking = True
        try:
            process.stdin.write(line.encode() + b"\n")
            async with asyncio.timeout_at(_loop_time(deadline)):
                await process.stdin.drain()
        except TimeoutError:
            raise ProgramFailed("silent", "read nothing of its input in time") from None
        except (BrokenPipeError, ConnectionResetError):
            pass  # it has exited: reading says how

    async def read_line(self, deadline: float) -> str:
        """The next line the program prints, by ``deadline``."""
        self._asking = True
        try:
            async with asyncio.timeout_at(_loop_time(deadline)):
                item = await self._lines.get()
        except TimeoutError:
            raise ProgramFailed("silent", "no answer in time") from None
        finally:
            self._asking = False
        if isinstance(item, ProgramFailed):
            raise item
        if len(item) > self.max_line:
            raise self._too_long()
        self._unasked = 0
        return item.decode("utf-8", "replace").rstrip("\r\n")

    def _too_long(self) -> ProgramFailed:
        return ProgramFailed("too_much", f"printed a line over {counted(self.max_line, 'byte')}")

    def _drop_unasked(self) -> None:
        while not self._lines.empty():
            item = self._lines.get_nowait()
            if isinstance(item, ProgramFailed):
                self._lines.put_nowait(item)  # the end stays for the next read
                return
            self.dropped += 1
        self._unasked = 0

    async def stop(self, grace: float = STOP_GRACE) -> int | None:
        """End the program: stdin closed, a moment to exit, then SIGTERM and SIGKILL to
        its whole process group. Its exit status (``None`` if it never started)."""
        process = self._process
        if process is None:
            return None
        if process.stdin is not None:
            process.stdin.close()
        if process.returncode is None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(process.wait(), grace)
        self.kill_group(signal.SIGTERM if process.returncode is None else signal.SIGKILL)
        if process.returncode is None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(process.wait(), grace)
        self.kill_group(signal.SIGKILL)
        status = await process.wait()
        reader = self._reader
        if reader is not None:  # its pipe's end comes with the group's
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(reader), grace)
            reader.cancel()
            await asyncio.gather(reader, return_exceptions=True)
        return status

    def kill_group(self, signum: int = signal.SIGKILL) -> None:
        """Send ``signum`` to the program's process group (whatever it started too)."""
        pid = self.pid
        if pid is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pid, signum)


def _exit_text(status: int) -> str:
    if status < 0:
        return f"was killed by {signal.Signals(-status).name}"
    return f"exited with status {status}"


def _loop_time(deadline: float) -> float:
    """A ``time.monotonic()`` deadline on the running loop's clock."""
    loop = asyncio.get_running_loop()
    return loop.time() + (deadline - time.monotonic())


class ProgramBot(Bot):
    """A bot whose answers come from programs; subclasses say how a decision is asked.

    :meth:`deadline` is the decision's (the server's) or :data:`DEFAULT_TIME` from
    now; :meth:`failed` says what went wrong and stops the program; :meth:`aclose`
    stops every program still running (call it when the run is over).
    """

    def __init__(self, words: Sequence[str], *, max_line: int = 1 << 16) -> None:
        self.words = list(words)
        self.max_line = max_line
        self.programs: list[Program] = []
        """The programs started and not yet stopped."""
        self.failures = 0
        """Decisions in a row the programs failed to answer."""
        self.started = 0
        """Programs started so far (each a turn of Botzone's simple mode, or a long run)."""

    def deadline(self) -> float:
        decision = asked()
        return decision.deadline if decision is not None else time.monotonic() + DEFAULT_TIME

    def program(self) -> Program:
        """A new program of the bot's command (started when first asked)."""
        program = Program(self.words, max_line=self.max_line)
        self.programs.append(program)
        self.started += 1
        return program

    async def retire(self, program: Program) -> None:
        """Stop ``program`` and forget it."""
        try:
            await program.stop()
        finally:
            with contextlib.suppress(ValueError):
                self.programs.remove(program)

    async def failed(self, program: Program, failure: ProgramFailed) -> ProgramFailed:
        """Stop the program that failed; the failure, to raise (the decision stays open
        for automatic play)."""
        self.failures += 1
        await self.retire(program)
        return failure

    async def aclose(self) -> None:
        """Stop every program still running."""
        for program in list(self.programs):
            await self.retire(program)

    def kill_all(self) -> None:
        """Kill every program's process group at once (outside any event loop)."""
        for program in self.programs:
            program.kill_group(signal.SIGKILL)
