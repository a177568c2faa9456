"""The README and the documentation site say what the program does: the site builds with
no broken link, every command shown parses, the metrics table is the registry's, and every
figure is dated or read from the code."""

from __future__ import annotations

import argparse
import contextlib
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
