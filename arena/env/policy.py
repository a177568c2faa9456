"""A trained policy as a bot: ``policy:path=FILE`` wherever a bot name goes.

The file (``.npz``) holds a small network as plain arrays, so playing it needs numpy
only, whatever trained it:

* ``meta``: JSON text — ``game`` (``guandan``, ``shengji`` or ``sanfu``), ``features``
  and ``actions`` (the sizes of the game's tensor and action space it was trained on),
  ``activation`` (``tanh`` or ``relu``);
* ``w0``, ``b0``, ``w1``, ``b1``, …: dense layers, ``w`` of shape (inputs, outputs); the
  last layer gives one logit per index of the action space.

The bot reads its observation into the game's tensor (:mod:`arena.env.features`), and
takes the legal index with the highest logit (:mod:`arena.env.codecs`), index after
index in a factored action space. It is deterministic.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar, Final

import numpy as np
import numpy.typing as npt

from arena.env.codecs import ActionCodec, codec_for
from arena.env.features import EventTally, Features, View, features_for
from arena.errors import ConfigError
from arena.games import family_of, make
from arena.games.base import Action, Observation

__all__ = ["ACTIVATIONS", "PolicyBot", "PolicyNetwork"]

Array = npt.NDArray[np.float32]
ACTIVATIONS: Final = ("tanh", "relu")


class PolicyNetwork:
    """Dense layers from a game's tensor to one logit per index of its action space."""

    def __init__(
        self, game: str, layers: Sequence[tuple[Array, Array]], activation: str = "tanh"
    ) -> None:
        if activation not in ACTIVATIONS:
            raise ConfigError(f"activation {activation!r} is not one of {', '.join(ACTIVATIONS)}")
        if not layers:
            raise ConfigError("a policy needs at least one layer")
        width = layers[0][0].shape[0]
        for at, (weights, bias) in enumerate(layers):
            if weights.ndim != 2 or weights.shape[0] != width or bias.shape != (weights.shape[1],):
                raise ConfigError(
                    f"layer {at}: weights {weights.shape} and bias {bias.shape} do not take "
                    f"{width} inputs"
                )
            width = weights.shape[1]
        self.game = game
        self.layers = [(np.asarray(w, np.float32), np.asarray(b, np.float32)) for w, b in layers]
        self.activation = activation
        self.inputs = self.layers[0][0].shape[0]
        self.outputs = self.layers[-1][0].shape[1]

    def logits(self, tensor: Array) -> Array:
        values = tensor
        for at, (weights, bias) in enumerate(self.layers):
            values = values @ weights + bias
            if at < len(self.layers) - 1:
                values = np.tanh(values) if self.activation == "tanh" else np.maximum(values, 0)
        return values

    def best(self, tensor: Array, mask: npt.NDArray[np.int8]) -> int:
        """The legal index with the highest logit."""
        logits = np.where(mask.astype(bool), self.logits(tensor), -np.inf)
        return int(np.argmax(logits))

    def save(self, path: Path) -> None:
        meta = {
            "game": self.game,
            "features": self.inputs,
            "actions": self.outputs,
            "activation": self.activation,
        }
        arrays: dict[str, Any] = {"meta": np.array(json.dumps(meta))}
        for at, (weights, bias) in enumerate(self.layers):
            arrays[f"w{at}"], arrays[f"b{at}"] = weights, bias
        with path.open("wb") as out:
            np.savez(out, **arrays)

    @classmethod
    def load(cls, path: Path) -> PolicyNetwork:
        """Read a policy file; :class:`ConfigError` naming the file and what is wrong."""
        try:
            with np.load(path, allow_pickle=False) as data:
                meta = json.loads(str(data["meta"]))
                layers: list[tuple[Array, Array]] = []
                while f"w{len(layers)}" in data:
                    at = len(layers)
                    layers.append((data[f"w{at}"], data[f"b{at}"]))
        except FileNotFoundError:
            raise ConfigError(f"policy file {str(path)!r} does not exist") from None
        except (OSError, ValueError, KeyError) as err:
            raise ConfigError(f"policy file {str(path)!r} is not a policy: {err}") from None
        network = cls(meta.get("game", ""), layers, meta.get("activation", "tanh"))
        if (network.inputs, network.outputs) != (meta.get("features"), meta.get("actions")):
            raise ConfigError(f"policy file {str(path)!r}: its layers do not match its meta")
        return network


class PolicyBot:
    """Plays a :class:`PolicyNetwork` read from ``path``."""

    name: ClassVar[str] = "policy"

    def __init__(self, seed: int = 0, path: str = "") -> None:
        if not path:
            raise ConfigError("bot 'policy' needs the file of a trained policy: policy:path=FILE")
        self.network = PolicyNetwork.load(Path(path))
        self._games: dict[str, tuple[ActionCodec, Features]] = {}

    def _game(self, variant: str) -> tuple[ActionCodec, Features]:
        found = self._games.get(variant)
        if found is None:
            game = make(variant)
            family = family_of(game.name)
            if family != self.network.game:
                raise ConfigError(
                    f"this policy plays {self.network.game}, not {variant} (policy:path=…)"
                )
            codec, features = codec_for(game), features_for(family)
            if (features.size, codec.size) != (self.network.inputs, self.network.outputs):
                raise ConfigError(
                    f"this policy was trained on {self.network.inputs} features and "
                    f"{self.network.outputs} actions; {variant} has {features.size} and "
                    f"{codec.size}"
                )
            found = self._games[variant] = (codec, features)
        return found

    def act(self, observation: Observation) -> Action:
        codec, features = self._game(observation.game)
        decision = codec.decision(observation)
        tally = EventTally()  # the deal's events read once for all the decision's steps
        while True:
            tensor = features.vector(View(observation, decision.selected_cards, tally))
            action = decision.choose(self.network.best(tensor, decision.mask))
            if action is not None:
                return action
