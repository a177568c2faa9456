"""Which numbered rules a finished deal used: :func:`rules_applied`, per game family.

Each family's module (``arena.games.<family>.usage``) reads a finished deal's events,
setup and outcome — after the deal, at no cost to the engine — and returns the ids of
``rules/<family>.md`` that applied (``SJ-17``, ``GD-15``, ``SF-16`` …) and finer *uses*
of a rule written ``ID/what`` (``SJ-17/failed``: a failed throw). The family modules'
docstrings say what each id means. :data:`OPTION_USES` names, for every option of a
game's ``make(...)``, the use that says the option came into play in a deal: an option
whose use a deal never shows did not change that deal (a balance run reports it as
not exercised).
"""

from __future__ import annotations

from typing import Final

from arena.errors import ConfigError
from arena.games.base import Outcome, State
from arena.games.guandan.state import GuandanState
from arena.games.guandan.usage import OPTION_USES as GUANDAN_OPTION_USES
from arena.games.guandan.usage import rules_applied as guandan_rules
from arena.games.sanfu.state import SanfuState
from arena.games.sanfu.usage import OPTION_USES as SANFU_OPTION_USES
from arena.games.sanfu.usage import rules_applied as sanfu_rules
from arena.games.shengji.state import ShengjiState
from arena.games.shengji.usage import OPTION_USES as SHENGJI_OPTION_USES
from arena.games.shengji.usage import rules_applied as shengji_rules

__all__ = ["OPTION_USES", "PREFIXES", "rule_key", "rules_applied"]

OPTION_USES: Final[dict[str, dict[str, str]]] = {
    "shengji": dict(SHENGJI_OPTION_USES),
    "guandan": dict(GUANDAN_OPTION_USES),
    "sanfu": dict(SANFU_OPTION_USES),
}
"""Game family → option of its ``make(...)`` → the use id saying it came into play."""
PREFIXES: Final = {"shengji": "SJ", "guandan": "GD", "sanfu": "SF"}
"""Each family's rule id prefix (rules/<family>.md)."""


def rules_applied(state: State, outcome: Outcome | None = None) -> frozenset[str]:
    """The rule ids and uses of its game's rules that a finished deal used; ``outcome``
    is the deal's (``state.outcome()`` when not given: it is worked out again).

    Raises ``ValueError`` for a deal still being played and ``ConfigError`` for a
    game without rule ids."""
    if isinstance(state, ShengjiState):
        return shengji_rules(state, outcome)
    if isinstance(state, GuandanState):
        return guandan_rules(state, outcome)
    if isinstance(state, SanfuState):
        return sanfu_rules(state, outcome)
    raise ConfigError(f"no rule usage for a {type(state).__name__}")


def rule_key(rule: str) -> tuple[str, int, str]:
    """A sort key putting ids in rule order: ``SJ-2`` before ``SJ-10``, a rule before its
    uses (``SJ-17``, ``SJ-17/failed``)."""
    head, _, use = rule.partition("/")
    prefix, _, number = head.partition("-")
    return (prefix, int(number) if number.isdigit() else 0, use)
