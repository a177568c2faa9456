"""The README and the documentation site say what the program does: the site builds with
no broken link, every command shown parses, the metrics table is the registry's, and every
figure is dated or read from the code."""

from __future__ import annotations

import argparse
import contextlib
import datetime
import inspect
import io
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
README = ROOT / "README.md"


def pages() -> list[Path]:
    """The README and every page of the site."""
    return [README, *sorted(DOCS.glob("*.md"))]


@dataclass(frozen=True)
class Block:
    """A fenced code block: its info string (``sh``, ``json arena.v1.Hello`` …), text and
    the line of the page it starts on."""

    page: Path
    line: int
    info: str
    text: str


def blocks(page: Path) -> Iterator[Block]:
    """The fenced code blocks of a page, in order."""
    lines = page.read_text(encoding="utf-8").split("\n")
    start, info, body = 0, "", list[str]()
    inside = False
    for number, line in enumerate(lines, 1):
        fence = line.strip().startswith("```")
        if fence and not inside:
            inside, start, info, body = True, number, line.strip()[3:].strip(), []
        elif fence:
            inside = False
            yield Block(page, start, info, "\n".join(body))
        elif inside:
            body.append(line)


def prose(page: Path) -> str:
    """A page without its fenced code blocks (each line kept, so line numbers hold)."""
    out, inside = [], False
    for line in page.read_text(encoding="utf-8").split("\n"):
        if line.strip().startswith("```"):
            inside = not inside
            out.append("")
        else:
            out.append("" if inside else line)
    return "\n".join(out)


SHELL_BLOCKS = {"", "sh", "shell", "bash", "console"}
"""Info strings of the code blocks whose lines are commands."""

PROGRAMS = ("arena", ".venv/bin/arena", "make")
"""The commands the pages give whose arguments the tests check."""


@dataclass(frozen=True)
class Command:
    """One command of a code block: the program and its arguments (comments, shell
    redirections and what follows a pipe left out), and where it was found."""

    page: Path
    line: int
    program: str
    argv: tuple[str, ...]

    def __str__(self) -> str:
        where = self.page.relative_to(ROOT)
        return f"{where}:{self.line}: {self.program} {shlex.join(self.argv)}"


_OPERATORS = {"|", "||", "&&", ";", ">", ">>", "<", "2>", "2>&1", "&"}
_SUBSTITUTION = re.compile(r"\$\((?P<inner>[^()]*)\)")
_ASSIGNMENT = re.compile(r"^[A-Z_][A-Z0-9_]*=")


def _logical_lines(text: str) -> Iterator[tuple[int, str]]:
    """Lines with their backslash continuations joined, with the offset of the first."""
    held, first = "", 0
    for offset, line in enumerate(text.split("\n")):
        if not held:
            first = offset
        if line.rstrip().endswith("\\"):
            held += line.rstrip()[:-1] + " "
            continue
        yield first, held + line
        held = ""
    if held:
        yield first, held


def _optional(token: str) -> list[str]:
    """``[--json]`` and ``[--limit`` ``20]``: a usage line's optional parts, given."""
    return [token.strip("[]")] if token.strip("[]") else []


def _command(page: Path, line: int, text: str) -> Command | None:
    try:
        tokens = shlex.split(text, comments=True)
    except ValueError:
        return None
    while tokens and _ASSIGNMENT.match(tokens[0]):
        tokens.pop(0)
    if not tokens or tokens[0] not in PROGRAMS:
        return None
    argv: list[str] = []
    for token in tokens[1:]:
        if token in _OPERATORS or token.startswith((">", "2>", "|")):
            break
        argv += _optional(token)
    program = "make" if tokens[0] == "make" else "arena"
    return Command(page, line, program, tuple(argv))


def commands(page: Path) -> Iterator[Command]:
    """Every ``arena`` and ``make`` command in the page's shell code blocks, those inside
    ``$( … )`` included."""
    for block in blocks(page):
        if block.info not in SHELL_BLOCKS:
            continue
        for offset, text in _logical_lines(block.text):
            line = block.line + 1 + offset
            for inner in _SUBSTITUTION.finditer(text):
                found = _command(page, line, inner.group("inner"))
                if found:
                    yield found
            found = _command(page, line, _SUBSTITUTION.sub("SUBSTITUTED", text))
            if found:
                yield found


LINK = re.compile(r"(?<!!)\[(?P<text>[^\]]*)\]\((?P<target>[^)\s]+)\)")


def links(page: Path) -> Iterator[tuple[int, str]]:
    """The targets of the page's Markdown links (in prose), with their lines."""
    for number, line in enumerate(prose(page).split("\n"), 1):
        for link in LINK.finditer(re.sub(r"`[^`]*`", "", line)):
            yield number, link.group("target")


def anchors(page: Path) -> set[str]:
    """The anchors of a page's headings, as GitHub and MkDocs' ``toc`` both make them."""
    found = set()
    for line in prose(page).split("\n"):
        heading = re.match(r"#{1,6} (.*)", line)
        if heading:
            text = re.sub(r"[`*]", "", heading.group(1)).strip().lower()
            slug = re.sub(r"[^\w\- ]", "", text).replace(" ", "-")
            found.add(slug)
    return found


# --- the site ------------------------------------------------------------------------


def build_site(root: Path, out: Path) -> subprocess.CompletedProcess[str]:
    """``mkdocs build --strict`` of the site whose ``mkdocs.yml`` is in ``root``."""
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", "mkdocs.yml", "-d", str(out)],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_the_site_builds_in_strict_mode(tmp_path: Path) -> None:
    built = build_site(ROOT, tmp_path / "site")
    assert built.returncode == 0, built.stderr
    for page in DOCS.glob("*.md"):
        name = "" if page.stem == "index" else f"{page.stem}/"
        assert (tmp_path / "site" / name / "index.html").is_file(), page.name


def test_the_site_fetches_nothing_from_elsewhere(tmp_path: Path) -> None:
    """The pages load no script or style from another site (the theme's highlighting
    comes from a CDN unless it is turned off)."""
    assert build_site(ROOT, tmp_path / "site").returncode == 0
    for html in (tmp_path / "site").rglob("*.html"):
        text = html.read_text(encoding="utf-8")
        assert not re.search(r"<(script|link)[^>]+(src|href)=\"https?://", text), html


@pytest.mark.parametrize(
    ("fault", "why"),
    [
        ("[a page](no-such-page.md)", "a link to a missing page"),
        ("[an anchor](cli.md#no-such-heading)", "a link to a missing heading"),
        ("ORPHAN", "a page the navigation leaves out"),
    ],
)
def test_the_strict_build_fails_on(tmp_path: Path, fault: str, why: str) -> None:
    """What would break the build test: each fault planted in a copy of the site."""
    copy = tmp_path / "copy"
    shutil.copytree(DOCS, copy / "docs")
    shutil.copy(ROOT / "mkdocs.yml", copy / "mkdocs.yml")
    if fault == "ORPHAN":
        (copy / "docs" / "orphan.md").write_text("# Orphan\n", encoding="utf-8")
    else:
        with (copy / "docs" / "index.md").open("a", encoding="utf-8") as index:
            index.write(f"\n{fault}\n")
    built = build_site(copy, tmp_path / "site")
    assert built.returncode != 0, why


def test_every_page_is_in_the_navigation() -> None:
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    listed = set(re.findall(r":\s*([\w.-]+\.md)\s*$", nav, re.MULTILINE))
    assert listed == {page.name for page in DOCS.glob("*.md")}


def _resolve(page: Path, target: str) -> str | None:
    """What is wrong with a link of ``page`` to ``target`` (None: nothing)."""
    if re.match(r"[a-z]+:", target):
        return None  # another site, or mailto:
    path, _, anchor = target.partition("#")
    file = (page.parent / path).resolve() if path else page
    if not file.exists():
        return f"no such file: {target}"
    if anchor and file.suffix == ".md" and anchor not in anchors(file):
        return f"no heading #{anchor} in {file.name}"
    return None


def test_the_readmes_links_lead_to_files_and_headings() -> None:
    found = list(links(README))
    assert len(found) >= 10  # the README is mostly links into the site
    broken = [f"README.md:{line}: {why}" for line, t in found if (why := _resolve(README, t))]
    assert not broken, "\n".join(broken)
    assert all(t.startswith(("docs/", "http")) for _, t in found)


def test_a_broken_readme_link_is_found(tmp_path: Path) -> None:
    """What would break the README's link test: a missing file, a missing heading."""
    page = tmp_path / "README.md"
    page.write_text("[x](docs/nope.md) [y](#nowhere) [z](#here)\n# Here\n", encoding="utf-8")
    assert [_resolve(page, target) for _, target in links(page)] == [
        "no such file: docs/nope.md",
        "no heading #nowhere in README.md",
        None,
    ]


# --- commands ------------------------------------------------------------------------

FILESYSTEM_CHECKS = {"readable_file", "pem_file", "existing_directory", "output_file", "database"}
"""Argument types that look at this machine's files: a page's example names files the
reader has, so these are left out of the check (every other type and choice is kept)."""


def _parser() -> argparse.ArgumentParser:
    """The ``arena`` command's own parser, its file checks taken out."""
    from arena.cli import build_parser

    parser = build_parser()
    todo = [parser]
    while todo:
        current = todo.pop()
        for action in current._actions:
            if getattr(action.type, "__name__", "") in FILESYSTEM_CHECKS:
                action.type = str
            if isinstance(action, argparse._SubParsersAction):
                todo += action.choices.values()
    return parser


PLACEHOLDERS = {"HOST:PORT": "arena.example.org:50051", "V": "guandan"}
"""Words the pages write for a value the reader fills in, and a value of that kind."""


def refusal(argv: Sequence[str]) -> str | None:
    """What the ``arena`` command's parser says against ``argv`` (None: it parses)."""
    said = io.StringIO()
    try:
        with contextlib.redirect_stderr(said), contextlib.redirect_stdout(io.StringIO()):
            _parser().parse_args([PLACEHOLDERS.get(arg, arg) for arg in argv])
    except SystemExit as stop:
        return None if stop.code == 0 else said.getvalue().strip().splitlines()[-1]
    return None


def make_targets() -> set[str]:
    text = (ROOT / "Makefile").read_text(encoding="utf-8")
    return set(re.findall(r"^([a-z][\w-]*):", text, re.MULTILINE))


def all_commands() -> list[Command]:
    return [command for page in pages() for command in commands(page)]


def test_the_pages_show_commands_of_every_kind() -> None:
    found = all_commands()
    assert {c.program for c in found} == {"arena", "make"}
    shown = {c.argv[0] for c in found if c.program == "arena" and c.argv}
    assert {"play", "tournament", "serve", "bot", "admin", "balance", "bench", "web"} <= shown


@pytest.mark.parametrize("command", all_commands(), ids=str)
def test_a_command_shown_parses(command: Command) -> None:
    """Each ``arena`` command in a code block is one the parser accepts (subcommand,
    options, their values); each ``make`` target exists."""
    if command.program == "make":
        assert set(command.argv) <= make_targets(), f"{command}: no such make target"
    else:
        assert refusal(command.argv) is None, f"{command}: {refusal(command.argv)}"


@pytest.mark.parametrize(
    "text",
    [
        "arena tournament --bots random,first --matchez 20",
        "arena leaderbord --variant guandan",
        "arena play guandan --seed seven",
        "arena serve --port 99999",
    ],
)
def test_a_wrong_command_is_refused(tmp_path: Path, text: str) -> None:
    """What would break the command test: an unknown option or command, a bad value."""
    page = tmp_path / "page.md"
    page.write_text(f"```sh\n{text}   # a comment\n```\n", encoding="utf-8")
    [command] = commands(page)
    assert refusal(command.argv) is not None


def test_commands_are_read_as_the_shell_reads_them(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "```sh\n"
        'TOKEN=$(arena bot register b --server h:1 --owner-key "$K")   # once\n'
        "ARENA_ENGINES=python arena bench guandan\n"
        "arena leaderboard --variant guandan [--json] | head\n"
        "arena tournament league.toml \\\n    --address auto\n"
        "make demo\n"
        "```\n",
        encoding="utf-8",
    )
    assert [(c.program, c.argv) for c in commands(page)] == [
        ("arena", ("bot", "register", "b", "--server", "h:1", "--owner-key", "$K")),
        ("arena", ("bench", "guandan")),
        ("arena", ("leaderboard", "--variant", "guandan", "--json")),
        ("arena", ("tournament", "league.toml", "--address", "auto")),
        ("make", ("demo",)),
    ]


# --- metrics -------------------------------------------------------------------------


def metrics_table(page: Path) -> dict[str, frozenset[str]]:
    """The metrics table of a page: each metric's sample name (a histogram: its family's
    name) and the label names its row gives ("—": none)."""
    table: dict[str, frozenset[str]] = {}
    for line in prose(page).split("\n"):
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) < 3 or not cells[0].startswith("`arena_"):
            continue
        labels = re.sub(r"\([^)]*\)", "", cells[1])
        names = frozenset(n.strip() for n in labels.split(",") if n.strip() not in ("", "—"))
        for name in re.findall(r"`(arena_\w+)`", cells[0]):
            assert name not in table, f"{name} has two rows"
            table[name] = names
    return table


def registered() -> dict[str, frozenset[str]]:
    """Every arena metric as the docs name it (a histogram: its family's name), with the
    label names ``arena/metrics.py`` registers it with."""
    from arena.metrics import EXPORTED

    histograms = {name.removesuffix("_bucket") for name in EXPORTED if name.endswith("_bucket")}
    found = {family: EXPORTED[f"{family}_sum"] for family in histograms}
    parts = {f"{h}{end}" for h in histograms for end in ("_bucket", "_sum", "_count")}
    found |= {name: labels for name, labels in EXPORTED.items() if name not in parts}
    return found


def test_the_metrics_table_is_the_registry() -> None:
    """Each metric of arena/metrics.py has a row giving exactly its labels (the table once
    gave ``arena_sim_workers`` a ``variant`` label it does not have)."""
    assert metrics_table(DOCS / "metrics.md") == registered()


def test_the_outcomes_the_table_lists_are_the_registered_ones() -> None:
    from arena.metrics import DEAL_OUTCOMES, MATCH_OUTCOMES

    text = prose(DOCS / "metrics.md")
    for metric, outcomes in (("deals", DEAL_OUTCOMES), ("matches", MATCH_OUTCOMES)):
        row = next(line for line in text.split("\n") if f"`arena_{metric}_finished_total`" in line)
        listed = re.search(r"outcome \(([^)]*)\)", row)
        assert listed, row
        assert tuple(re.findall(r"`(\w+)`", listed.group(1))) == outcomes


def test_every_metric_the_pages_name_exists() -> None:
    from arena.metrics import EXPORTED

    known = set(EXPORTED) | set(registered())
    for page in pages():
        for name in re.findall(r"\barena_[a-z][a-z0-9_]*(?!\w)", prose(page)):
            if not name.startswith("arena_pb2"):
                assert name in known, f"{page.name}: no metric {name}"


def test_a_wrong_label_in_the_table_is_found(tmp_path: Path) -> None:
    """What would break the metrics test: a label the registry does not give."""
    page = tmp_path / "metrics.md"
    text = (DOCS / "metrics.md").read_text(encoding="utf-8")
    row = "| `arena_sim_workers` |"
    page.write_text(text.replace(f"{row} — |", f"{row} variant |"), encoding="utf-8")
    assert metrics_table(page) != registered()
    assert metrics_table(page)["arena_sim_workers"] == {"variant"}


# --- figures -------------------------------------------------------------------------

_NUMBER = r"(?<![\w.\-/#=:])\d[\d,]*(?:\.\d+)?"
_UNIT = (
    r"(?:[\s-]?(?:ms|µs|s|min|minutes?|seconds?|hours?|MB|kB|MiB|KiB|GB|bytes)(?![\w/])"
    r"|\s?(?:×|x)(?![\w\d]|\s\d)|%|\s?[a-z]*/s(?!\w))"
)
_SPELLED = (
    r"\b(?:half an?|one|two|three|four|five|ten|a few|several) "
    r"(?:minutes?|seconds?|hours?)\b|\b\d+ times as\b"
)
FIGURE = re.compile(f"{_NUMBER}{_UNIT}|{_SPELLED}")
"""A number with a unit of time, size, ratio or rate: ``23 s``, ``4.7 ms``, ``2.7×``,
``95%``, ``161,235/s``, ``1 MiB``, ``half a minute``, ``3 times as`` (a tensor's shape,
``4 × 58``, is none)."""

MEASURED = re.compile(r"measured on (\d{4}-\d{2}-\d{2})", re.IGNORECASE)
"""How a figure is marked as measured: the date it was measured on."""

TARGET = re.compile(r"(?:≤|≥|target|at most|up to)\s*$")
"""What precedes a target or a bound (``≤ 100 ms``): a goal, not a measurement."""


@dataclass(frozen=True)
class Paragraph:
    """A paragraph, a list or a table of a page (lines between blank lines), on one line."""

    page: Path
    line: int
    text: str

    @property
    def table(self) -> bool:
        return self.text.startswith("|")


def paragraphs(page: Path) -> list[Paragraph]:
    text = re.sub(r"`[^`]*`", lambda code: re.sub(r"\S", " ", code.group()), prose(page))
    found, held, start = [], list[str](), 0
    for number, line in enumerate([*text.split("\n"), ""], 1):
        if line.strip():
            start = start if held else number
            held.append(line.strip())
        elif held:
            joiner = "\n" if held[0].startswith("|") else " "
            found.append(Paragraph(page, start, joiner.join(held)))
            held = []
    return found


def _seconds(value: float) -> str:
    return f"{value:g} s"


def _percent(value: float) -> str:
    return f"{value * 100:g}%"


def _alert(name: str, what: str) -> str:
    """A figure of an alerting rule in deploy/alerts.yml: its range, its ``for`` or the
    threshold its expression compares with."""
    rules = yaml.safe_load((ROOT / "deploy" / "alerts.yml").read_text(encoding="utf-8"))
    [rule] = [r for g in rules["groups"] for r in g["rules"] if r["alert"] == name]
    if what == "threshold":
        return _percent(float(re.findall(r">\s*([\d.]+)", rule["expr"])[-1]))
    minutes = re.search(r"(\d+)m", rule["for"] if what == "for" else rule["expr"])
    assert minutes, rule
    return f"{minutes.group(1)} minutes"


def constants() -> list[tuple[str, str]]:
    """Figures that are the program's settings, not measurements: a pattern of the phrase
    in a page (code spans blanked), its ``figure`` group the figure, and the figure as the
    code has it."""
    from arena import games
    from arena.commands import balance
    from arena.games import sanfu
    from arena.gateways import exec_bot
    from arena.gateways.botzone import bot as botzone
    from arena.gateways.guandan_ws import server as guandan_ws
    from arena.rating import stats
    from arena.server import app, session
    from arena.sim import differences
    from arena.web import accounts, host

    confidence = inspect.signature(stats.wilson_interval).parameters["confidence"].default
    people = host.PEOPLE_CLOCK
    sanfu_time = games.make("sanfu").options["time_limit"]
    family = _percent(differences.FAMILY_ERROR)
    grace = _seconds(session.DEFAULT_GRACE_SECONDS)
    return [
        (r"(?P<figure>95%)", _percent(confidence)),
        (r"(?P<figure>5%) (?:family-wise |error|divided|evenly|or less)", family),
        (
            r"decision time per variant \((?P<figure>\d+ s)",
            _seconds(session.DEFAULT_DECISION_SECONDS),
        ),
        (r"decision \(default (?P<figure>\d+ s)", _seconds(session.DEFAULT_DECISION_SECONDS)),
        (r"sanfu (?P<figure>\d+ s), SF-12", _seconds(sanfu_time)),
        (r"time bank per seat \((?P<figure>\d+ s)", _seconds(session.DEFAULT_TIME_BANK_SECONDS)),
        (
            r"bank for the match \(default (?P<figure>\d+ s)",
            _seconds(session.DEFAULT_TIME_BANK_SECONDS),
        ),
        (r"waits (?P<figure>\d+ s) for its bot", grace),
        (r"waits for its bot \(default (?P<figure>\d+ s)", grace),
        (r"a new connection within (?P<figure>\d+ s)", grace),
        (
            r"\((?P<figure>\d+ MiB)\) — the largest message the server accepts",
            f"{app.MAX_RECEIVE_BYTES >> 20} MiB",
        ),
        (
            r"\((?P<figure>\d+ MiB)\) — the largest message the server sends",
            f"{app.MAX_SEND_BYTES >> 20} MiB",
        ),
        (r"deadline \(default (?P<figure>\d+ s)", _seconds(app.DRAIN_SECONDS)),
        (r"Each decision has (?P<figure>\d+ s)", _seconds(people.decision_seconds)),
        (r"and a (?P<figure>\d+-minute) bank", f"{people.time_bank_seconds / 60:g}-minute"),
        (r"seat back within (?P<figure>\d+ s)", _seconds(people.grace_seconds)),
        (r"then one each (?P<figure>\d+ s)", _seconds(1 / accounts.TRIES_PER_SECOND)),
        (r"about (?P<figure>\d+ s) of play each", _seconds(balance.BATCH_SECONDS)),
        (r"fleeing player pays (?P<figure>\d+×)", f"{sanfu.scoring.FLEE_STAKE}×"),
        (r"no deal finished for (?P<figure>\d+ minutes)", _alert("ArenaNoDealsFinished", "expr")),
        (
            r"timeout rate above (?P<figure>\d+%)",
            _alert("ArenaDecisionTimeoutRateHigh", "threshold"),
        ),
        (
            r"timeout rate above \d+% for (?P<figure>\d+ minutes)",
            _alert("ArenaDecisionTimeoutRateHigh", "for"),
        ),
        (
            r"more than (?P<figure>\d+%) of its requests",
            _alert("ArenaWebServerErrors", "threshold"),
        ),
        (r"with a 5xx for (?P<figure>\d+ minutes)", _alert("ArenaWebServerErrors", "for")),
        (r"server unreachable for (?P<figure>\d+ s)", _seconds(guandan_ws.GIVE_UP_AFTER)),
        (r"for the grace period \(\s*, (?P<figure>\d+ s)\)", grace),
        (r"writes a line over (?P<figure>\d+ KiB)", f"{exec_bot.MAX_ANSWER >> 10} KiB"),
        (r"too much output \(a line over (?P<figure>\d+ MiB)", f"{botzone.MAX_OUTPUT >> 20} MiB"),
    ]


def unaccounted(paragraphs_: Sequence[Paragraph]) -> list[str]:
    """Each figure neither dated nor a target nor one of :func:`constants`."""
    rules = [(re.compile(pattern), figure) for pattern, figure in constants()]
    wrong, previous = [], None
    for paragraph in paragraphs_:
        marked = bool(MEASURED.search(paragraph.text)) or (
            paragraph.table and previous is not None and bool(MEASURED.search(previous.text))
        )
        known, where = set[int](), f"{paragraph.page.name}:{paragraph.line}"
        for rule, figure in rules:
            for found in rule.finditer(paragraph.text):
                if found.group("figure") != figure:
                    wrong.append(f"{where}: {found.group()!r}: the code has {figure}")
                known |= set(range(*found.span("figure")))
        for found in FIGURE.finditer(paragraph.text):
            goal = TARGET.search(paragraph.text[: found.start()]) or paragraph.text[
                found.end() :
            ].startswith(" target")
            if marked or found.start() in known or goal:
                continue
            context = paragraph.text[max(0, found.start() - 60) : found.end() + 20]
            wrong.append(f"{where}: {found.group()!r} in: {context!r}")
        previous = paragraph
    return wrong


def all_paragraphs() -> list[Paragraph]:
    return [paragraph for page in pages() for paragraph in paragraphs(page)]


def test_every_figure_is_dated_or_read_from_the_code() -> None:
    """A time, size, ratio or rate in the prose or a table is marked "measured on
    YYYY-MM-DD" (in its paragraph, or a table's caption), is a target (``≤ 100 ms``), or
    is a setting of the program that matches the code."""
    wrong = unaccounted(all_paragraphs())
    assert not wrong, "\n".join(wrong)


def test_every_setting_the_figures_cite_is_on_a_page() -> None:
    """Each pattern of :func:`constants` finds its phrase, so none is left stale."""
    text = "\n".join(paragraph.text for paragraph in all_paragraphs())
    missing = [pattern for pattern, _ in constants() if not re.search(pattern, text)]
    assert not missing


def test_the_dates_of_measurements_are_real_days_gone_by() -> None:
    dates = [day for p in all_paragraphs() for day in MEASURED.findall(p.text)]
    assert dates
    for day in dates:
        assert datetime.date.fromisoformat(day) <= datetime.date.today()


@pytest.mark.parametrize(
    "text",
    [
        "A smoke run takes under half a minute.",
        "A smoke run takes 79 s.",
        "The page answers in 4.7 ms, 2.7× the baseline, at 161,235/s.",
        "Each decision has 31 s and a 3-minute bank.",
        "A seat whose connection broke waits 29 s for its bot.",
    ],
)
def test_an_undated_figure_is_found(tmp_path: Path, text: str) -> None:
    """What would break the figures test: a figure neither dated nor the code's."""
    page = tmp_path / "page.md"
    page.write_text(f"# A page\n\n{text}\n", encoding="utf-8")
    assert unaccounted(paragraphs(page))
    page.write_text(f"# A page\n\n{text} (measured on 2026-12-07)\n", encoding="utf-8")
    assert not [w for w in unaccounted(paragraphs(page)) if "the code has" not in w]
