"""The web face's words in Chinese and English: one catalog per language.

Each language is a folder of TOML files under ``arena/web/messages/<lang>/`` (``site.toml``
for the pages, ``table.toml`` for the card table and the games' moments); the files of a
language are merged into one flat table of keys. Dotted TOML tables flatten to dotted
keys: ``[table] pass = "pass"`` is the key ``table.pass``. A text may hold ``{name}``
fields, filled by :func:`translate`'s keyword arguments.

Both catalogs hold the same keys (a test checks it); a key missing from a catalog is a
programming error and raises ``KeyError`` naming the key and the language.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from functools import cache
from importlib import resources
from typing import Any, ClassVar, Final

from arena.plural import fill

__all__ = [
    "DEFAULT_LANGUAGE",
    "LANGUAGES",
    "Refusal",
    "catalog",
    "choose_language",
    "translate",
    "variant_name",
]

LANGUAGES: Final = ("zh", "en")
"""The languages of the web face, the first the default."""
DEFAULT_LANGUAGE: Final = LANGUAGES[0]


def _flatten(table: Mapping[str, Any], prefix: str, into: dict[str, str]) -> None:
    for key, value in table.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            _flatten(value, f"{name}.", into)
        else:
            into[name] = str(value)


@cache
def catalog(language: str) -> Mapping[str, str]:
    """Every key of ``language``'s catalog and its text."""
    if language not in LANGUAGES:
        raise KeyError(f"no catalog for language {language!r} (have {', '.join(LANGUAGES)})")
    folder = resources.files("arena.web").joinpath("messages", language)
    texts: dict[str, str] = {}
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".toml"):
            _flatten(tomllib.loads(entry.read_text(encoding="utf-8")), "", texts)
    return texts


def translate(language: str, key: str, /, **fields: object) -> str:
    """The text of ``key`` in ``language``, its ``{fields}`` filled."""
    texts = catalog(language)
    try:
        text = texts[key]
    except KeyError:
        raise KeyError(f"no text {key!r} in the {language!r} catalog") from None
    return fill(text, **fields) if fields else text


def variant_name(language: str, variant: str) -> str:
    """A variant as people name it in ``language`` (``掼蛋``, ``Shengji, 2 decks``): the
    catalog's ``variant.<id>``; a balance report's variant with options named so, its
    options as given (``掼蛋 a_fail_limit=2``); the text itself when the catalogs know no
    variant of it (a variant stored by another version)."""
    head, space, options = variant.partition(" ")
    named = catalog(language).get(f"variant.{head}", head)
    return f"{named}{space}{options}"


def choose_language(asked: str | None, cookie: str | None, accept: str | None) -> str:
    """The page's language: asked in the query, else the cookie's, else the browser's
    first known language (``Accept-Language``), else the default."""
    for value in (asked, cookie):
        if value in LANGUAGES:
            return value
    for part in (accept or "").split(","):
        tag = part.split(";")[0].strip().lower()
        primary = tag.split("-")[0]
        if primary in LANGUAGES:
            return primary
    return DEFAULT_LANGUAGE


class Refusal(ValueError):
    """Why something a person asked was refused: a text of the catalogs (:attr:`PREFIX`
    and ``key``) with its fields, shown in the person's language (:meth:`text`); in
    English as a string (logs, the command line)."""

    PREFIX: ClassVar[str] = ""

    def __init__(self, key: str, /, **fields: object) -> None:
        self.key, self.fields = self.PREFIX + key, fields
        super().__init__(self.text("en"))

    def text(self, language: str) -> str:
        return translate(language, self.key, **self.fields)
