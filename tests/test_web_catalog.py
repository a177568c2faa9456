"""Every catalog key the web face's code uses exists in both languages, with the fields
its text asks for: a static reading of the code (``ast`` over ``arena/web/**/*.py``, a
pattern over the templates and the scripts), not a list of keys.

A key is found where the code names it:

- ``translate(lang, KEY, …)``, a table's words (``words(KEY)``, ``self.words(KEY)``,
  ``Words.__call__``'s ``self(KEY)``: ``table.KEY``);
- a refusal (a :class:`~arena.web.i18n.Refusal` subclass: its ``PREFIX`` + the first
  argument), an unknown thing (``NotFound(message, WHAT, …)``: ``error.missing.WHAT``),
  a bad parameter (``BadQuery(message, parameter, REASON)``, ``BadParameter(name, value,
  wanted, REASON)``: ``error.bad.REASON``);
- ``t('KEY')`` in a template; ``word("KEY")`` and ``label("KEY")`` in the scripts (the
  words their page hands them).

A key is a literal, or built from literals: an f-string or ``+`` whose parts are names
bound in the function (or module) to literals, tuples of literals, loops over them or
either branch of a conditional. What stays open (a value read from data) becomes a
wildcard, which must still match keys of both catalogs. A refusal's, a ``NotFound``'s or
a ``BadQuery``'s key must not be open at all: the error pages build it from there.

What would break it: a key used but missing from a catalog (``NotFound(…, "table", …)``
with no ``error.missing.table`` was a 500 in both languages), a text with a field its
caller does not give, a key built from a value the reader cannot follow.
"""

from __future__ import annotations

import ast
import re
import string
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import product
from pathlib import Path
from typing import Final

import pytest

import arena.web
from arena.web.i18n import LANGUAGES, catalog
from arena.web.table_text import LABEL_KEYS

WEB: Final = Path(arena.web.__file__).parent
WILD: Final = "\0"
"""A part of a key the code reads from data (any text)."""

CONSTRUCTORS: Final = {
    # class name -> (prefix, index of the key's argument, its keyword, fields it gives)
    "NotFound": ("error.missing.", 1, "what", {"name"}),
    "BadQuery": ("error.bad.", 2, "reason", {"parameter"}),
    "BadParameter": ("error.bad.", 3, "reason", {"parameter", "value"}),
}
"""Errors whose key an error page builds from an argument, and the fields the page
fills from their other arguments."""


@dataclass(frozen=True)
class Use:
    """A key the code uses: its possible values (:data:`WILD` for an open part), the
    fields the call gives (None: not known, e.g. ``**fields``), and where."""

    keys: tuple[str, ...]
    fields: frozenset[str] | None
    where: str
    closed: bool = False
    """The key must be built from literals alone (an error page builds it)."""


def _module_values(tree: ast.Module) -> dict[str, list[ast.expr]]:
    return _bindings(tree.body)


def _bindings(body: list[ast.stmt]) -> dict[str, list[ast.expr]]:
    """Every name bound by assignment or a ``for`` loop in ``body`` (nested statements
    too, not nested functions) and the expressions it may hold; a loop's target holds
    its iterable's items (marked by an ``ast.Starred`` around the iterable)."""
    found: dict[str, list[ast.expr]] = {}

    def bind(target: ast.expr, value: ast.expr) -> None:
        if isinstance(target, ast.Name):
            found.setdefault(target.id, []).append(value)
        elif isinstance(target, ast.Tuple):
            for index, element in enumerate(target.elts):
                bind(element, ast.Subscript(value=value, slice=ast.Constant(index)))

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
            return
        if isinstance(node, ast.Assign):
            for target in node.targets:
                bind(target, node.value)
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            bind(node.target, node.value)
        elif isinstance(node, ast.For | ast.comprehension):
            bind(node.target, ast.Starred(value=node.iter))
        for child in ast.iter_child_nodes(node):
            visit(child)

    for statement in body:
        visit(statement)
    return found


class Reader:
    """The values an expression of a module may take, as far as literals go."""

    def __init__(self, module: dict[str, list[ast.expr]]) -> None:
        self.module = module
        self.local: dict[str, list[ast.expr]] = {}

    def values(self, node: ast.expr, depth: int = 0) -> list[str]:
        """Each text ``node`` may be (:data:`WILD` where it is read from data)."""
        if depth > 12:
            return [WILD]
        step = depth + 1
        if isinstance(node, ast.Constant):
            return [str(node.value)]
        if isinstance(node, ast.JoinedStr):
            parts = [self._part(value, step) for value in node.values]
            return ["".join(choice) for choice in product(*parts)]
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            left, right = self.values(node.left, step), self.values(node.right, step)
            return [a + b for a, b in product(left, right)]
        if isinstance(node, ast.IfExp):
            return self.values(node.body, step) + self.values(node.orelse, step)
        if isinstance(node, ast.Name):
            bound = self.local.get(node.id) or self.module.get(node.id)
            if not bound:
                return [WILD]
            return [text for value in bound for text in self.values(value, step)]
        if isinstance(node, ast.Starred):  # a loop over an iterable: its items
            return self._items(node.value, step)
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
            return self._element(node.value, node.slice.value, step)
        return [WILD]

    def _part(self, value: ast.expr, depth: int) -> list[str]:
        if isinstance(value, ast.FormattedValue):
            return self.values(value.value, depth) if value.format_spec is None else [WILD]
        return self.values(value, depth)

    def _items(self, node: ast.expr, depth: int) -> list[str]:
        if isinstance(node, ast.Tuple | ast.List | ast.Set):
            return [text for item in node.elts for text in self.values(item, depth)]
        if isinstance(node, ast.Name):
            bound = self.local.get(node.id) or self.module.get(node.id)
            if bound:
                return [text for value in bound for text in self._items(value, depth)]
        return [WILD]

    def _element(self, node: ast.expr, index: object, depth: int) -> list[str]:
        if isinstance(node, ast.Tuple) and isinstance(index, int) and index < len(node.elts):
            return self.values(node.elts[index], depth)
        if isinstance(node, ast.IfExp):
            return self._element(node.body, index, depth) + self._element(node.orelse, index, depth)
        return [WILD]


def _name(func: ast.expr) -> str:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return ""


def _fields(call: ast.Call, implied: set[str]) -> frozenset[str] | None:
    """The fields a call fills: its keywords and ``implied``; None when not known
    (``**fields``) or when it fills none (the text is then shown as it is)."""
    if any(keyword.arg is None for keyword in call.keywords):
        return None
    given = {str(keyword.arg) for keyword in call.keywords} - {"what", "reason"}
    return frozenset(given | implied) if given or implied else None


def _argument(call: ast.Call, index: int, keyword: str) -> ast.expr | None:
    for given in call.keywords:
        if given.arg == keyword:
            return given.value
    return call.args[index] if len(call.args) > index else None


def refusal_prefixes(trees: dict[Path, ast.Module]) -> dict[str, str]:
    """Each Refusal class of the web face and the prefix of its keys."""
    prefixes = {"Refusal": ""}
    grew = True
    while grew:
        grew = False
        for tree in trees.values():
            for node in ast.walk(tree):
                if not isinstance(node, ast.ClassDef) or node.name in prefixes:
                    continue
                if not any(_name(base) in prefixes for base in node.bases):
                    continue
                prefix = next(
                    (
                        statement.value.value
                        for statement in node.body
                        if isinstance(statement, ast.Assign)
                        and any(_name(t) == "PREFIX" for t in statement.targets)
                        and isinstance(statement.value, ast.Constant)
                    ),
                    "",
                )
                prefixes[node.name] = str(prefix)
                grew = True
    return prefixes


def _functions(tree: ast.Module) -> Iterator[tuple[ast.AST, list[ast.stmt] | None]]:
    """The module's top level, then every function, with the statements that bind its
    local names."""
    yield tree, None
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            yield node, node.body


def _calls(scope: ast.AST) -> Iterator[ast.Call]:
    """The calls of ``scope`` itself (not of the functions within it)."""
    stack = list(ast.iter_child_nodes(scope))
    while stack:
        node = stack.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        if isinstance(node, ast.Call):
            yield node
        stack.extend(ast.iter_child_nodes(node))


def python_uses() -> list[Use]:
    trees = {path: ast.parse(path.read_text(), str(path)) for path in sorted(WEB.rglob("*.py"))}
    refusals = refusal_prefixes(trees)
    uses: list[Use] = []
    for path, tree in trees.items():
        reader = Reader(_module_values(tree))
        in_words = path.name == "table_text.py"
        for scope, body in _functions(tree):
            reader.local = _bindings(body) if body is not None else {}
            for call in _calls(scope):
                where = f"{path.relative_to(WEB.parent.parent)}:{call.lineno}"
                name = _name(call.func)
                found = _use(call, name, refusals, in_words)
                if found is None:
                    continue
                prefix, node, closed = found
                keys = tuple(prefix + value for value in reader.values(node))
                implied = CONSTRUCTORS[name][3] if name in CONSTRUCTORS else set()
                uses.append(Use(keys, _fields(call, implied), where, closed))
    return uses


def _use(
    call: ast.Call, name: str, refusals: dict[str, str], in_words: bool
) -> tuple[str, ast.expr, bool] | None:
    """The prefix and the key's expression of a call that names a key, and whether the
    key must be closed; None for any other call."""
    if name == "translate" and len(call.args) >= 2:
        return "", call.args[1], False
    words = name == "words" or (in_words and isinstance(call.func, ast.Name) and name == "self")
    if words and call.args:
        return "table.", call.args[0], False
    if name in refusals and call.args:
        return refusals[name], call.args[0], True
    if name in CONSTRUCTORS:
        prefix, index, keyword, _ = CONSTRUCTORS[name]
        node = _argument(call, index, keyword)
        if node is None or (isinstance(node, ast.Constant) and node.value == ""):
            return None  # says no key: the page shows its message
        return prefix, node, True
    return None


TEMPLATE_KEY: Final = re.compile(r"""\bt\(\s*(['"])([^'"]*)\1\s*(\)|,|~|\+)""")
SCRIPT_WORD: Final = re.compile(r"""\bword\(\s*"([^"]*)\"""")
SCRIPT_LABEL: Final = re.compile(r"""\blabel\(\s*"([^"]*)\"""")
SEAT_WORD: Final = re.compile(r"""'(\w+)':\s*t\(""")


def template_uses() -> list[Use]:
    uses = []
    for path in sorted((WEB / "templates").glob("*.html")):
        text = path.read_text()
        for found in TEMPLATE_KEY.finditer(text):
            line = text.count("\n", 0, found.start()) + 1
            open_end = found.group(3) in ("~", "+")
            key = found.group(2) + (WILD if open_end else "")
            uses.append(Use((key,), None, f"{path.relative_to(WEB.parent.parent)}:{line}"))
    return uses


def _matches(key: str, keys: set[str]) -> bool:
    if WILD not in key:
        return key in keys
    pattern = re.compile(".+".join(re.escape(part) for part in key.split(WILD)))
    return any(pattern.fullmatch(known) for known in keys)


def _asked(text: str) -> set[str]:
    return {field for _, field, _, _ in string.Formatter().parse(text) if field}


def problems(uses: list[Use]) -> list[str]:
    found = []
    for use in uses:
        for key in use.keys:
            shown = key.replace(WILD, "*")
            if use.closed and WILD in key:
                found.append(f"{use.where}: key {shown!r} is read from data (make it literal)")
                continue
            for lang in LANGUAGES:
                texts = catalog(lang)
                if not _matches(key, set(texts)):
                    found.append(f"{use.where}: no text {shown!r} in the {lang!r} catalog")
                elif WILD not in key and use.fields is not None:
                    missing = _asked(texts[key]) - use.fields
                    if missing:
                        found.append(f"{use.where}: {shown!r} ({lang}) asks for {missing}")
    return found


def test_the_reader_finds_the_keys_it_must() -> None:
    """The reading itself: it sees each way the code names a key (an empty reading
    would pass every check below)."""
    keys = {key for use in python_uses() for key in use.keys}
    for expected in (
        "error.missing.table",  # NotFound(…, "table", …)
        "error.missing.deal",  # NotFound(…, "deal", …)
        "error.bad.choice",  # BadParameter(…, "choice", …)
        "tables.cannot.full",  # TableProblem("full")
        "account.problem.wrong",  # AccountProblem("wrong")
        "tables.verb.play",  # f"tables.verb.{verb}" for verb in VERBS
        "table.event.pass",  # self.words("event.pass")
        "error.other.title",  # key = … else "error.other"; f"{key}.title"
    ):
        assert expected in keys, expected
    closed = [use for use in python_uses() if use.closed]
    assert closed and all(WILD not in key for use in closed for key in use.keys)
    assert any(use.keys == ("board.title",) for use in template_uses())


def test_every_key_the_code_uses_is_in_both_catalogs() -> None:
    assert problems(python_uses()) == []


def test_every_key_a_template_uses_is_in_both_catalogs() -> None:
    assert problems(template_uses()) == []


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_catalog_text_asks_only_for_fields_its_keys_get(lang: str) -> None:
    """The check of fields itself: a text asking a field its caller does not give is
    found (here, a made-up caller of ``error.bad.number`` giving none)."""
    use = Use(("error.bad.number",), frozenset(), "made up")
    assert any("asks for" in problem for problem in problems([use]))


def test_every_word_a_script_uses_is_handed_to_it() -> None:
    """``seat.js``'s ``word(KEY)``: the words seat.html hands it; ``table.js``'s and
    ``seat.js``'s ``label(KEY)``: the table's labels (``table.label.*``)."""
    seat_words = set(SEAT_WORD.findall((WEB / "templates" / "seat.html").read_text()))
    assert "your_turn" in seat_words
    for script in ("seat.js", "table.js"):
        text = (WEB / "static" / script).read_text()
        for key in SCRIPT_WORD.findall(text) if script == "seat.js" else []:
            assert key in seat_words, (script, key)
        for key in SCRIPT_LABEL.findall(text):
            assert key in LABEL_KEYS or key.startswith("place."), (script, key)
