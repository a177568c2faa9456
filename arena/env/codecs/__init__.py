"""The action codecs of the RL environments: each game's fixed action space.

* Guandan: flat, one index per pass, tribute or return card, and play by kind, rank and
  wild cards used (:class:`~arena.env.codecs.guandan.GuandanCodec`);
* sanfu: flat, one index per pass and play by its reading
  (:class:`~arena.env.codecs.sanfu.SanfuCodec`);
* Shengji: factored, an action spelled out one card at a time
  (:class:`~arena.env.codecs.cards.CardByCardCodec`).
"""

from __future__ import annotations

from arena.env.codecs.base import ActionCodec, CodecError, Decision, Mask
from arena.env.codecs.cards import CardByCardCodec
from arena.env.codecs.guandan import GuandanCodec
from arena.env.codecs.sanfu import SanfuCodec
from arena.games import family_of
from arena.games.base import Game

__all__ = [
    "ActionCodec",
    "CardByCardCodec",
    "CodecError",
    "Decision",
    "GuandanCodec",
    "Mask",
    "SanfuCodec",
    "codec_for",
]

CODECS: dict[str, type[ActionCodec]] = {
    "guandan": GuandanCodec,
    "sanfu": SanfuCodec,
    "shengji": CardByCardCodec,
}


def codec_for(game: Game) -> ActionCodec:
    """The fixed action space of ``game``'s rules."""
    family = family_of(game.name)
    try:
        return CODECS[family](game)
    except KeyError:
        raise ValueError(
            f"no action codec for {game.name!r} (games: {', '.join(CODECS)})"
        ) from None
