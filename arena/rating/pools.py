"""Rating pools: the ratings that are kept together.

A variant's bots are rated in the variant's own pool (its name: ``guandan``). People
are rated apart, in the variant's people's pool (``people:guandan``): their rated
tables, with the bots that sat there, change only that pool, so a bot's standing in
its league never moves because a person played it, and a person's never mixes with
the bots' league. People play under ``person:NAME``, a name no bot can have (a bot's
name has no ``:``).
"""

from __future__ import annotations

from typing import Final

__all__ = ["PEOPLE_POOL", "PERSON_PREFIX", "is_person", "people_pool", "pool_variant"]

PERSON_PREFIX: Final = "person:"
"""A person's player name in a match: ``person:NAME``."""
PEOPLE_POOL: Final = "people:"
"""The prefix of a people's pool: ``people:VARIANT``."""


def people_pool(variant: str) -> str:
    """The pool where people's rated tables of ``variant`` are rated."""
    return PEOPLE_POOL + variant


def pool_variant(pool: str) -> str:
    """The variant a pool rates (a variant's own pool is its name)."""
    return pool.removeprefix(PEOPLE_POOL)


def is_person(player: str) -> bool:
    """Whether a player name is a person's, not a bot's."""
    return player.startswith(PERSON_PREFIX)
