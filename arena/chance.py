"""Chance: every random draw of the project comes from here, from an explicit seed.

Engines never draw random numbers (rules/common.md C-4): a deal's shuffle and any
random choice named by the rules are computed here from the deal's seed, and a
match derives one seed per deal from its own seed.
"""

from __future__ import annotations

import hashlib
import random

from arena.cards import Card, deck


def derive_seed(*parts: object) -> int:
    """A 63-bit seed derived from ``parts`` (stable across machines and runs)."""
    text = "\x1f".join(str(p) for p in parts).encode()
    return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "big") >> 1


def shuffled_deck(copies: int, seed: int) -> list[Card]:
    """``copies`` decks shuffled by the seed (Fisher-Yates of a seeded Mersenne Twister)."""
    cards = deck(copies)
    random.Random(seed).shuffle(cards)
    return cards


def draw_index(seed: int, purpose: str, n: int) -> int:
    """An index in ``range(n)`` drawn from the seed for a named purpose."""
    return random.Random(derive_seed(seed, purpose)).randrange(n)


def draw_sample(seed: int, purpose: str, n: int, k: int) -> list[int]:
    """``k`` distinct indices of ``range(n)`` drawn from the seed for a named purpose."""
    return random.Random(derive_seed(seed, purpose)).sample(range(n), k)
