"""Every count the program prints or serves takes its noun's number: "1 match", "0
matches", "2 matches" (arena/plural.py), in code and in the web's catalogs."""

from __future__ import annotations

import ast
import io
import itertools
import re
import tokenize
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.plural import count_of, counted, fill, noun
from arena.web.i18n import catalog

if TYPE_CHECKING:
    from browser import Pages, WebThread

WORDS = [("match", "matches"), ("deal", "deals"), ("batch", "batches"), ("entry", "entries")]


@pytest.mark.parametrize(("singular", "plural"), WORDS)
def test_a_count_of_one_takes_the_singular_and_every_other_the_plural(
    singular: str, plural: str
) -> None:
    given_plural = None if singular + "s" == plural or singular + "es" == plural else plural
    said = [counted(n, singular, given_plural) for n in (0, 1, 2)]
    assert said == [f"0 {plural}", f"1 {singular}", f"2 {plural}"]
    assert counted(-1, singular, given_plural) == f"-1 {singular}"
    assert counted(1.5, singular, given_plural) == f"1.5 {plural}"


def test_a_count_is_written_as_asked() -> None:
    assert counted(1200, "deal") == "1200 deals"
    assert counted(1200, "deal", spec=",") == "1,200 deals"
    assert counted(1, "deal", spec=">3") == "  1 deal"


@given(st.integers(min_value=-(10**6), max_value=10**6))
def test_the_word_is_chosen_by_the_count_alone(n: int) -> None:
    assert noun(n, "match") == ("match" if abs(n) == 1 else "matches")
    assert fill("{n} {n:match|matches}", n=n) == f"{n} {noun(n, 'match')}"


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0, "0 matches"),
        (1, "1 match"),
        (2, "2 matches"),
        ("1", "1 match"),
        ("1,000", "1,000 matches"),
        ("—", "— matches"),
    ],
)
def test_a_catalog_text_chooses_its_word_by_its_field(value: object, text: str) -> None:
    """A count the page has written out already (``1,000``) or none (``—``) too."""
    assert fill("{n} {n:match|matches}", n=value) == text
    assert fill("{n}", n=value) == str(value)


def test_a_written_count_is_read_as_a_number() -> None:
    assert count_of("1,000") == 1000
    assert count_of(1) == 1
    assert count_of("—") != count_of("—")  # NaN: never one


TEXTS = ["{n} {n:match|matches}", "+{n} {n:level|levels}", "{n} of {m} {m:deal|deals}", "{n}"]
COUNTS: list[object] = [0, 1, 2, -1, "1", "1,000", "—"]


def test_the_pages_choose_the_words_as_the_server_does(pages: Pages, site: WebThread) -> None:
    """static/words.js, which table.js, seat.js and site.js fill the catalogs' texts
    with, writes each text as :func:`arena.plural.fill` does, on every page."""
    page = pages.open()
    page.goto(f"{site.url}/leaderboard")
    cases = [(text, {"n": n, "m": n}) for text in TEXTS for n in COUNTS]
    written = page.evaluate(
        "(cases) => cases.map(([text, fields]) => window.arenaWords.fill(text, fields))", cases
    )
    assert written == [fill(text, **fields) for text, fields in cases]
    assert page.evaluate("() => window.arenaWords.fill('{n} {n:match|matches}', {})") == (
        "{n} {n:match|matches}"
    ), "a field not given is left as written"


# -- the class: no count is written beside a noun without choosing its number ------------

ROOT = Path(__file__).resolve().parent.parent
SINGULAR = {
    "matches": "match", "deals": "deal", "bots": "bot", "pairs": "pair", "games": "game",
    "teams": "team", "rounds": "round", "players": "player", "tokens": "token",
    "decisions": "decision", "events": "event", "runs": "run", "tournaments": "tournament",
    "errors": "error", "moves": "move", "cards": "card", "workers": "worker",
    "fixtures": "fixture", "times": "time", "entries": "entry", "files": "file",
    "connections": "connection", "rows": "row", "tables": "table", "iterations": "iteration",
    "steps": "step", "tricks": "trick", "attempts": "attempt", "definitions": "definition",
    "ratings": "rating", "records": "record", "levels": "level", "points": "point",
    "seats": "seat", "batches": "batch", "tries": "try", "seconds": "second",
    "minutes": "minute", "hours": "hour", "characters": "character", "opponents": "opponent",
    "reports": "report", "bytes": "byte", "pts": "pt",
}  # fmt: skip
"""The nouns a count of the program's output may stand before."""
NOUNS = "|".join(sorted(SINGULAR, key=len, reverse=True))
NOUN = re.compile(rf"^ ?(?:{NOUNS})(?![/\w])")
NOT_COUNTS = {
    ("arena/commands/balance_report.py", "bot"): "a bot's name: 'random bots'",
    ("arena/commands/bench_scale.py", "players"): "a bot's name: 'random bots'",
    ("arena/compiled.py", "odd"): "a module's name: 'runs' is the verb",
    ("arena/env/codecs/cards.py", "name"): "a suit's name: 'matches' is the verb",
}
"""Fields written before such a noun that are no counts, and why."""
NOT_COUNT_TEXTS = {
    "balance.bots.all": "a bot's name: 'random bots'",
    "table.moment.trump_flipped": "a player's name: 'deals' is the verb",
}
"""The same in the catalogs, by key."""


def _fixed(node: ast.expr) -> bool:
    """A constant (``MAX_CARDS``, ``4``) or a joined text (``41/41/40/40``): never one."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return node.func.attr == "join"
    name = node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")
    return bool(name) and name.isupper()


def bare_counts(path: Path, where: str) -> list[str]:
    """Each ``{count} nouns`` of an f-string in a module."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.JoinedStr):
            continue
        for value, after in itertools.pairwise(node.values):
            if not (isinstance(value, ast.FormattedValue) and isinstance(after, ast.Constant)):
                continue
            said = ast.unparse(value.value)
            if not NOUN.match(str(after.value)) or _fixed(value.value):
                continue
            if (where, said) not in NOT_COUNTS:
                found.append(f"{where}:{node.lineno}: {{{said}}}{after.value[:20]!r}")
    return found


def bare_catalog_counts(texts: dict[str, str]) -> list[str]:
    """Each ``{field} nouns`` of a catalog's texts whose word is not chosen by the field."""
    found = []
    for key, text in texts.items():
        for match in re.finditer(r"\{(\w+)\}(?= ?\w)", text):
            rest = text[match.end() :]
            if NOUN.match(rest) and key not in NOT_COUNT_TEXTS:
                found.append(f"{key}: {text!r}")
    return found


def test_no_count_in_the_code_is_written_beside_a_noun_without_its_number() -> None:
    """Every line the command line, the server, the engines and the web print with a
    count names its noun through :func:`arena.plural.counted` ("1 deals" fails here)."""
    modules = sorted((ROOT / "arena").rglob("*.py"))
    found = [
        problem
        for path in modules
        if "_proto" not in path.parts
        for problem in bare_counts(path, path.relative_to(ROOT).as_posix())
    ]
    assert not found, "\n".join(found)
    assert len(modules) > 100


def test_no_count_in_the_english_pages_is_written_beside_a_noun_without_its_number() -> None:
    """The English catalogs choose each counted noun's word by its field."""
    assert not bare_catalog_counts(catalog("en"))


def test_a_bare_count_is_found(tmp_path: Path) -> None:
    """What would break the two checks above: a count written beside its noun."""
    module = tmp_path / "m.py"
    module.write_text(
        'def said(n, m, MOST):\n    return f"{n} matches played, {MOST} cards, {m}"\n',
        encoding="utf-8",
    )
    assert bare_counts(module, "m.py") == ["m.py:2: {n}' matches played, '"]
    texts = {"a": "{total} matches", "b": "{n} {n:deal|deals}", "c": "deal {n}"}
    assert bare_catalog_counts(texts) == ["a: '{total} matches'"]


ADHOC_TEXT = re.compile(r"[a-z]\(s\)")
"""A plural made by hand in a text: ``card(s)``."""
ADHOC_CODE = re.compile(r"""["']s["'] if """)
"""A plural made by hand in code: ``{'s' if n != 1 else ''}``, ``("s" if n > 1 …)``."""


def adhoc_plurals(source: str) -> list[int]:
    """The lines of a module that make a plural by hand: ``(s)`` in a string's text (an
    f-string's fields left out; a docstring is no output), or an ``'s' if`` anywhere."""
    found = set()
    statement_start = (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.NL)
    before = tokenize.NEWLINE
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        docstring = token.type == tokenize.STRING and before in statement_start
        if token.type not in (tokenize.COMMENT, tokenize.NL):
            before = token.type
        if token.type == tokenize.STRING and not docstring:
            text = token.string
            while re.search(r"\{[^{}]*\}", text):
                text = re.sub(r"\{[^{}]*\}", "", text)
            if ADHOC_TEXT.search(text):
                found.add(token.start[0])
        if token.type != tokenize.COMMENT and ADHOC_CODE.search(token.line):
            found.add(token.start[0])
    return sorted(found)


def test_no_plural_is_made_by_hand() -> None:
    """The nouns' number is chosen in one place (:mod:`arena.plural`): no ``card(s)`` in
    the English pages or the code's texts, no ``'s' if`` of its own."""
    found = [f"{key}: {text!r}" for key, text in catalog("en").items() if ADHOC_TEXT.search(text)]
    for path in sorted((ROOT / "arena").rglob("*.py")):
        if "_proto" not in path.parts:
            lines = adhoc_plurals(path.read_text(encoding="utf-8"))
            found += [f"{path.relative_to(ROOT)}:{line}" for line in lines]
    assert not found, "\n".join(found)


def test_a_plural_made_by_hand_is_found() -> None:
    """What would break the check above; a call on ``s`` is no plural."""
    source = (
        "a = f\"{n} worker{'s' if n != 1 else ''}\"\n"
        'b = f"{n} card(s) of {suit_name(s)}"\n'
        "c = 'card' + ('s' if n > 1 else '')\n"
        "d = [rng(s) for s in seeds]\n"
        'e = f"{name(s)} plays"\n'
    )
    assert adhoc_plurals(source) == [1, 2, 3]
