"""What a person's seat is told, in the page's language and in player words.

The engine and the server explain a refused answer in English for bots and logs ("illegal
action 'play 3c 6c': must play 2 cards of c: you hold 3 (SJ-19)"); they stay so. At the
web edge a person reads instead :func:`refusal_text`: the reason recognised by its
shape and said with the catalog's ``tables.refusal.*`` texts, else the rule it cites
(``tables.rule.*``), else a plain "not allowed here". An action played for them when
their time ran out is named as the page draws it (:func:`action_text`: ``♣3 ♣6``, the
verb of the phase: a pass while declaring is "Don't declare"). :func:`in_person_words`
rewrites a seat's event stream so.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Callable
from typing import Any, Final

from arena.errors import ParseError
from arena.web.i18n import catalog, translate
from arena.web.table_text import Words

__all__ = [
    "action_text",
    "combination_text",
    "in_person_words",
    "pass_key",
    "problem_text",
    "refusal_text",
]

PREFIX: Final = re.compile(r"^(?:illegal|bad) action (?:'[^']*'|\"[^\"]*\"|\S+): ")
"""The engine's opening, which quotes the action: the person knows what they sent."""
RULE: Final = re.compile(r"\b(?:GD|SJ|SF)-\d+\b")

Fields = Callable[[re.Match[str]], dict[str, str]]


def _none(found: re.Match[str]) -> dict[str, str]:
    return {}


def _groups(*names: str) -> Fields:
    return lambda found: dict(zip(names, found.groups(), strict=True))


_held = _groups("n", "suit", "held")
_suited = _groups("suit")

REASONS: Final[tuple[tuple[re.Pattern[str], str, Fields], ...]] = tuple(
    (re.compile(pattern), key, fields)
    for pattern, key, fields in (
        (r"the leader must play", "leader_must_play", _none),
        (r"^no combination|\(SF-8\)$", "no_combination", _none),
        (r"does not beat", "does_not_beat", _none),
        (r"^must play (\d+) cards?, like the lead", "follow_count", _groups("n")),
        (r"^must follow with a card of (\w+)", "follow_suit", _groups("suit")),
        (r"^must play all (\d+) cards? of (\w+)", "follow_all", _groups("n", "suit")),
        (r"^must play (\d+) cards? of (\w+): you hold (\d+)", "follow_held", _held),
        (r"^must follow the shape of the lead .* in (\w+) as far", "follow_shape", _suited),
        (r"a lead is of one suit", "one_suit", _none),
        (r"throws are not allowed", "no_throws", _none),
        (r"not a declaration stronger", "declare_weaker", _none),
        (r"not (?:\(all\) |\(or not that many\) )?in (?:your|the) hand", "not_held", _none),
        (r"GD-13: tribute", "tribute_highest", _none),
        (r"GD-13: a return", "return_low", _none),
        (r"exactly (?:one|1) card\b", "one_card", _none),
        (r"must answer .* phase|must \w+ now", "not_now", _none),
        (r"ambiguous, add|these cards are played as", "ambiguous", _none),
        (r"the deal is (?:already )?over", "deal_over", _none),
        (r"request id|is already closed|replies to request", "stale", _none),
        (r"^expected |is not a verb|is not a card|malformed|takes ", "malformed", _none),
    )
)
"""A reason's shape → its ``tables.refusal`` key and the fields it fills."""


COMBINATIONS: Final = tuple(
    (re.compile(pattern), key)
    for pattern, key in (
        (r"^jokers combine", "jokers"),
        (r"^two cards", "pair"),
        (r"^three cards", "triple"),
        (r"^four cards", "four"),
        (r"^five cards", "five"),
        (r"^six cards", "six"),
        (r"more than 10 cards", "too_many"),
        (r"^(\d+) cards? are a combination only as a bomb", "bomb_only"),
        (r"^no cards", "none"),
    )
)
"""Why Guandan cards make no combination (the engine's words, GD-8) → ``tables.why``."""


def combination_text(lang: str, reason: str) -> str:
    """Why selected cards make no Guandan combination, the engine's ``reason`` said in
    ``lang``."""
    for pattern, key in COMBINATIONS:
        found = pattern.search(reason)
        if found is not None:
            fields = {"n": found.group(1)} if found.groups() else {}
            return translate(lang, f"tables.why.{key}", **fields)
    return translate(lang, "tables.refusal.no_combination")


def _suit(lang: str, name: str) -> str:
    """A suit as the engine names it in a reason (``s h d c``, ``red``, ``black``,
    ``trump``), in ``lang``."""
    if name == "trump":
        return translate(lang, "tables.refusal.trumps")
    key = f"table.suit.{name}"
    return catalog(lang).get(key, name)


def refusal_text(lang: str, reason: str) -> str:
    """Why a person's answer was refused, in ``lang``: the engine's or the server's
    English ``reason`` said in player words with the ids of the rules it cites (a reason
    of no known shape: the text of the rule it cites, else "not allowed")."""
    said = PREFIX.sub("", reason.strip())
    for pattern, key, fields in REASONS:
        found = pattern.search(said)
        if found is not None:
            filled = fields(found)
            if "suit" in filled:
                filled["suit"] = _suit(lang, filled["suit"])
            text = translate(lang, f"tables.refusal.{key}", **filled)
            cited = list(dict.fromkeys(RULE.findall(said)))
            if cited:  # the seat panel says each cited rule in the page's language
                text += translate(lang, "tables.refusal.cites", rules=", ".join(cited))
            return text
    for rule in RULE.findall(said):
        words = catalog(lang).get(f"tables.rule.{rule}")
        if words is not None:
            return translate(lang, "tables.refusal.rule", rule=words)
    return translate(lang, "tables.refusal.other")


PROBLEMS: Final = tuple(
    (re.compile(pattern), key)
    for pattern, key in (
        (r"stopping|shutting down|shut down", "stopping"),
        (r"did not start|could not start", "not_started"),
    )
)
"""A problem of the table the server tells a seat (English) → ``tables.trouble``."""


def problem_text(lang: str, message: str) -> str:
    """A problem of the table (the server stops, the match did not start…) in ``lang``;
    one the catalogs do not know by its shape asks the person to reload the page."""
    for pattern, key in PROBLEMS:
        if pattern.search(message):
            return translate(lang, f"tables.trouble.{key}")
    return translate(lang, "tables.trouble.other")


def pass_key(phase: str) -> str:
    """The catalog key of a pass in ``phase``: not declaring is not passing a trick."""
    return "tables.verb.pass_declare" if phase == "declare" else "tables.verb.pass"


def action_text(lang: str, action: str, family: str, phase: str = "") -> str:
    """An action's text (``play 3c 6c``, ``pass``, ``play 5s 5h as pair``) as a person
    reads it in ``lang``: its verb (none for a play of cards), its cards as the page
    draws them (``♣3 ♣6``), the kind it is played as."""
    verb, *rest = action.split() or [""]
    tag = ""
    if "as" in rest:
        at = rest.index("as")
        rest, tag = rest[:at], " ".join(rest[at + 1 :])
    words = Words(lang)
    try:
        cards = [words.card(code) for code in rest]
    except ParseError:
        return action
    parts = []
    if verb == "pass":
        parts.append(translate(lang, pass_key(phase)))
    elif verb != "play" or not cards:
        parts.append(catalog(lang).get(f"tables.verb.{verb}", verb))
    parts.extend(cards)
    if tag:
        parts.append("· " + catalog(lang).get(f"table.kind.{family}.{tag}", tag))
    return " ".join(parts)


async def in_person_words(
    events: AsyncIterator[tuple[str, dict[str, Any]]], lang: str, family: str
) -> AsyncIterator[tuple[str, dict[str, Any]]]:
    """A seat's events with what a person reads in ``lang``: a refusal's ``reason`` (the
    engine's kept as ``engine_reason``), the ``action`` played when time ran out, a
    problem's ``message`` (the server's kept as ``engine_message``)."""
    phase = ""
    async for name, data in events:
        if name == "decision":
            phase = str(data.get("phase", ""))
        elif name == "refused" and data.get("reason"):
            said = refusal_text(lang, data["reason"])
            data = {**data, "reason": said, "engine_reason": data["reason"]}
        elif name == "problem":
            said = problem_text(lang, str(data.get("message", "")))
            data = {**data, "message": said, "engine_message": data.get("message", "")}
        elif name == "timed_out" and data.get("action"):
            data = {**data, "action": action_text(lang, data["action"], family, phase)}
        yield name, data
