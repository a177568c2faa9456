"""Built-in strategies. ``make("random", seed=3)`` gives a policy by name.

A name may carry parameters of the bot's constructor after a colon:
``make("search:samples=16,candidates=4")`` is ``SearchBot(seed, samples=16,
candidates=4)``. Parameters are numbers (ints and floats), or text where the bot takes
text (``policy:path=trained.npz``: a trained policy's file); the full name, parameters
included, is the bot's name in matches and results.
"""

from __future__ import annotations

import inspect
import types
import typing
from collections.abc import Callable, Sequence

from arena.errors import ConfigError, quoted
from arena.inputs import shown
from arena.match import Policy
from bots.heuristic import HeuristicBot
from bots.search import SearchBot
from bots.simple import FirstBot, RandomBot

MAX_PARAMETER = 1_000_000
"""The largest size of a bot parameter (a budget beyond it would never finish a decision)."""
MAX_TEXT = 4096
"""The longest text parameter (a file's path)."""

__all__ = [
    "FirstBot",
    "HeuristicBot",
    "RandomBot",
    "SearchBot",
    "lineup",
    "make",
    "names",
    "parameters",
    "quick",
]

_FACTORIES: dict[str, Callable[[int], Policy]] = {
    "random": RandomBot,
    "first": lambda seed: FirstBot(),
    "heuristic": HeuristicBot,
    "search": SearchBot,  # its default budget: DEFAULT_SAMPLES deals × DEFAULT_CANDIDATES
    "policy": lambda seed, path="": _policy_bot(seed, path),  # type: ignore[misc]
}


def _policy_bot(seed: int, path: str) -> Policy:
    """A trained policy (``policy:path=FILE``), loaded only when asked for (numpy)."""
    from arena.env.policy import PolicyBot

    return PolicyBot(seed, path)


_QUICK = frozenset({"random", "first"})
"""Bots that decide in microseconds, whatever the deal."""


def quick(name: str) -> bool:
    """Whether the built-in bot ``name`` decides in microseconds (a caller may ask it on
    its event loop rather than in a worker thread)."""
    return name.partition(":")[0] in _QUICK


def names() -> list[str]:
    return sorted(_FACTORIES)


def parameters(name: str) -> dict[str, type]:
    """The numeric keyword parameters that the built-in bot ``name`` takes, with their type
    (``float`` for one that also takes ``None``): what ``name:key=value`` may set."""
    factory = _factory(name)
    if name.partition(":")[0] == "policy":
        return {"path": str}
    if not inspect.isclass(factory):
        return {}
    hints = typing.get_type_hints(factory.__init__)
    found: dict[str, type] = {}
    for key, parameter in inspect.signature(factory.__init__).parameters.items():
        if key in ("self", "seed") or parameter.kind in (
            inspect.Parameter.VAR_POSITIONAL,
            inspect.Parameter.VAR_KEYWORD,
        ):
            continue
        kinds = _numeric(hints.get(key))
        if kinds is not None:
            found[key] = kinds
    return found


def make(name: str, seed: int = 0) -> Policy:
    """The built-in bot called ``name`` (maybe with parameters: ``search:samples=16``),
    seeded (bots that draw at random use the seed)."""
    base, colon, spec = name.partition(":")
    factory = _factory(base)
    if not colon:
        return factory(seed)
    settings = _parse(base, spec)
    try:
        policy: Policy = factory(seed, **settings)
    except ValueError as err:
        raise ConfigError(f"bad parameters for bot {quoted(name)}: {err}") from None
    return policy


def lineup(names: Sequence[str]) -> tuple[str, str, str, str]:
    """The bot of each of the four players from ``names``: one bot for all of them, two
    for the teams (players 0 and 2, then 1 and 3) or four in the players' order; each
    bot is checked by making it (:class:`ConfigError` naming what is wrong)."""
    if len(names) not in (1, 2, 4):
        raise ConfigError(
            f"name one bot for every player, two (one per team: players 0 and 2, then 1 "
            f"and 3) or four, not {len(names)}: {', '.join(names)}"
        )
    for name in dict.fromkeys(names):
        make(name)
    if len(names) == 1:
        return names[0], names[0], names[0], names[0]
    if len(names) == 2:
        return names[0], names[1], names[0], names[1]
    return names[0], names[1], names[2], names[3]


def _factory(name: str) -> Callable[[int], Policy]:
    try:
        return _FACTORIES[name]
    except KeyError:
        raise ConfigError(
            f"unknown bot {quoted(name)}; built-in bots: {', '.join(names())}"
        ) from None


def _parse(base: str, spec: str) -> dict[str, int | float | str]:
    """``samples=16,margin=1.5`` → their values, checked against the bot's parameters."""
    known = parameters(base)
    settings: dict[str, int | float | str] = {}
    for item in spec.split(","):
        key, equals, text = (part.strip() for part in item.partition("="))
        if key not in known:
            listed = ", ".join(sorted(known)) or "none"
            raise ConfigError(
                f"unknown parameter {quoted(key)} of bot {base!r}; parameters: {listed}"
            )
        if not equals or key in settings:
            raise ConfigError(f"parameter {key!r} of bot {base!r} needs one value: {key}=VALUE")
        kind = known[key]
        if kind is str:
            if not text or len(text) > MAX_TEXT:
                raise ConfigError(
                    f"parameter {key!r} of bot {base!r} needs text of 1 to {MAX_TEXT} characters"
                )
            settings[key] = text
            continue
        try:
            if len(text) > 40:
                raise ValueError(text)
            value = int(text) if kind is int else float(text)
            if not -MAX_PARAMETER <= value <= MAX_PARAMETER:  # nan too
                raise ValueError(text)
        except ValueError:
            wanted = "an int" if kind is int else "a finite number"
            raise ConfigError(
                f"parameter {key!r} of bot {base!r} must be {wanted} within "
                f"±{MAX_PARAMETER:,}, not {shown(text)}"
            ) from None
        settings[key] = value
    return settings


def _numeric(hint: object) -> type | None:
    """``int`` or ``float`` for a hint of one of them (or of it or ``None``), else ``None``."""
    if hint is int or hint is float:
        return hint
    if isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union:
        members = [a for a in typing.get_args(hint) if a is not type(None)]
        if len(members) == 1:
            return _numeric(members[0])
    return None
