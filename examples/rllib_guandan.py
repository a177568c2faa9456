"""Train a small Guandan policy with Ray RLlib, export it, and play it against ``random``.

The four players share one policy, trained by PPO through RLlib's multi-agent API on the
PettingZoo environment (``arena.env.aec``, wrapped by RLlib's ``PettingZooEnv``). The
network is a plain dense one over the ``observation`` tensor whose logits are masked by
the ``action_mask`` (an illegal index gets a large negative logit). Its layers are
exactly those of a policy file (``arena.env.policy.PolicyNetwork``): the script exports
them, checks that the exported network gives the trained module's logits, saves the
file, and runs ``arena compare`` with it against ``random``.

    pip install -e '.[rl]'
    python examples/rllib_guandan.py --minutes 3 --out guandan-policy.npz
    python examples/rllib_guandan.py --smoke          # two tiny iterations

Each training iteration prints one line: the time, the environment steps and deals
played so far, the mean episode return (the four players' sum: Guandan is zero-sum, so
it stays at 0 in self-play), the mean deal length in decisions, the policy's entropy,
and the greedy policy's mean score against random players over a few quick deals
(levels per deal, for the policy's team).
"""

from __future__ import annotations

import argparse
import logging
import os
import re
import shutil
import subprocess
import sys
import time
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

RL_EXTRA = "install the rl extra: pip install -e '.[rl]'"
GAME = "guandan"
ENV_NAME = "arena_guandan"
POLICY_ID = "shared"
ACTIVATION = "tanh"
MASKED = -1e9
"""The logit of an illegal index: far below any legal one, yet finite (no NaN)."""
TOLERANCE = 1e-4
"""How far the exported network's logits may be from the trained module's."""
FILE_NAME = re.compile(r"[A-Za-z0-9._=,+-]{1,75}")
"""A policy file's name that a bot's parameters can carry (``policy:path=NAME``)."""


def parse(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Train a Guandan policy with RLlib's PPO (one policy for the four "
        "players), save it as a policy file and compare it with random."
    )
    parser.add_argument(
        "--minutes", type=float, default=3.0, help="training time in minutes (default 3)"
    )
    parser.add_argument(
        "--smoke", action="store_true", help="a tiny run: two small iterations, no time budget"
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=Path("guandan-policy.npz"),
        help="the policy file to write (default guandan-policy.npz)",
    )
    parser.add_argument(
        "--pairs", type=int, default=50, help="most pairs of matches in the compare (default 50)"
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of training and compare")
    parser.add_argument(
        "--hidden",
        type=int,
        nargs="+",
        default=[128],
        metavar="WIDTH",
        help="widths of the hidden layers (default 128)",
    )
    args = parser.parse_args(argv)
    if args.minutes <= 0:
        parser.error("--minutes must be positive")
    if args.pairs < 1:
        parser.error("--pairs must be at least 1")
    if any(width < 1 for width in args.hidden):
        parser.error("--hidden widths must be at least 1")
    if not FILE_NAME.fullmatch(args.out.name):
        parser.error(
            f"--out: the file's name {args.out.name!r} must be 1 to 75 letters, digits or "
            "'._=,+-' (arena compare takes it as policy:path=NAME)"
        )
    return args


def missing_rl() -> str | None:
    """The name of a missing package of the rl extra, or None when all import."""
    try:
        import torch  # noqa: F401
        from ray.rllib.algorithms.ppo import PPOConfig  # noqa: F401
    except ImportError as err:
        return err.name or str(err)
    return None


# --------------------------------------------------------------------- the network


def module_class() -> type:
    """The RLModule: a policy MLP and a value MLP over ``observation``, the policy's
    logits masked by ``action_mask``. Made on demand, once torch is known to import."""
    import torch
    from ray.rllib.core.columns import Columns
    from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
    from ray.rllib.core.rl_module.torch import TorchRLModule

    def mlp(inputs: int, hidden: Sequence[int], outputs: int, activation: str) -> Any:
        kind = torch.nn.Tanh if activation == "tanh" else torch.nn.ReLU
        layers: list[torch.nn.Module] = []
        width = inputs
        for size in hidden:
            layers += [torch.nn.Linear(width, size), kind()]
            width = size
        layers.append(torch.nn.Linear(width, outputs))
        return torch.nn.Sequential(*layers)

    class MaskedMLPModule(TorchRLModule, ValueFunctionAPI):
        def setup(self) -> None:
            observations: Any = self.observation_space
            actions: Any = self.action_space
            config: Any = self.model_config
            hidden = list(config.get("hidden", [128]))
            activation = config.get("activation", ACTIVATION)
            features = observations["observation"].shape[0]
            self.policy_net = mlp(features, hidden, int(actions.n), activation)
            self.value_net = mlp(features, hidden, 1, activation)
            last = self.policy_net[-1]
            torch.nn.init.normal_(last.weight, std=0.01)  # a near-uniform first policy
            torch.nn.init.zeros_(last.bias)

        def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
            obs = batch[Columns.OBS]
            logits = self.policy_net(obs["observation"])
            legal = obs["action_mask"] > 0
            # a deal's final observation has an empty mask and is never acted on
            legal = legal | ~legal.any(dim=-1, keepdim=True)
            masked = torch.where(legal, logits, torch.full_like(logits, MASKED))
            return {Columns.ACTION_DIST_INPUTS: masked}

        def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> Any:
            return self.value_net(batch[Columns.OBS]["observation"]).squeeze(-1)

    return MaskedMLPModule


def export(module: Any) -> Any:
    """The module's policy layers as a :class:`PolicyNetwork`, weights as (inputs,
    outputs)."""
    import torch

    from arena.env.policy import PolicyNetwork

    layers = [
        (
            layer.weight.detach().cpu().numpy().T.astype(np.float32),
            layer.bias.detach().cpu().numpy().astype(np.float32),
        )
        for layer in module.policy_net
        if isinstance(layer, torch.nn.Linear)
    ]
    return PolicyNetwork(GAME, layers, ACTIVATION)


def sample_decisions(count: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Tensors and masks of ``count`` decisions met in random play."""
    from arena.env.vector import VectorEnv

    tables = VectorEnv(GAME, 8, seed=seed)
    rng = np.random.default_rng(seed)
    tensors: list[np.ndarray] = []
    masks: list[np.ndarray] = []
    while len(tensors) < count:
        tensors.extend(tables.observations.copy())
        masks.extend(tables.masks.copy())
        for _ in range(int(rng.integers(5, 30))):
            tables.step((rng.random(tables.masks.shape) * tables.masks).argmax(axis=1))
    return np.stack(tensors[:count]), np.stack(masks[:count])


def check_export(module: Any, network: Any, seed: int) -> float:
    """The largest difference between the module's and the network's logits over
    sampled decisions. Fails (AssertionError) beyond :data:`TOLERANCE`, or if the two
    choose different indices."""
    import torch
    from ray.rllib.core.columns import Columns

    tensors, masks = sample_decisions(32, seed)
    obs = {"observation": torch.from_numpy(tensors), "action_mask": torch.from_numpy(masks)}
    with torch.no_grad():
        raw = module.policy_net(obs["observation"]).numpy()
        masked = module.forward_inference({Columns.OBS: obs})[Columns.ACTION_DIST_INPUTS]
    worst = float(np.abs(raw - network.logits(tensors)).max())
    assert worst <= TOLERANCE, f"the exported logits differ from the module's by {worst:g}"
    ours = [network.best(tensor, mask) for tensor, mask in zip(tensors, masks, strict=True)]
    assert ours == masked.numpy().argmax(axis=1).tolist(), "the exported policy chooses otherwise"
    return worst


def score_vs_random(network: Any, deals: int, seed: int) -> float:
    """The greedy network's mean score per deal (levels, for its team) against random
    players: one deal at each of ``deals`` tables, the network playing players 0 and 2
    at even tables and 1 and 3 at odd ones."""
    from arena.env.vector import VectorEnv

    tables = VectorEnv(GAME, deals, seed=seed)
    rng = np.random.default_rng(seed)
    parity = np.arange(deals) % 2  # the network's players at each table: 0/2 or 1/3
    scores = np.full(deals, np.nan)
    while np.isnan(scores).any():
        logits = np.where(tables.masks > 0, network.logits(tables.observations), -np.inf)
        randoms = (rng.random(tables.masks.shape) * tables.masks).argmax(axis=1)
        mine = tables.players % 2 == parity
        step = tables.step(np.where(mine, logits.argmax(axis=1), randoms))
        for row in np.flatnonzero(step.done & np.isnan(scores)):
            scores[row] = step.rewards[row, parity[row]]
    return float(scores.mean())


# --------------------------------------------------------------------- training


def build_algorithm(args: argparse.Namespace) -> Any:
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
    from ray.tune.registry import register_env

    from arena.env.aec import env as arena_env

    register_env(ENV_NAME, lambda _config: PettingZooEnv(arena_env(GAME)))
    if args.smoke:
        tables, batch, minibatch, epochs = 2, 256, 128, 1
    else:
        tables, batch, minibatch, epochs = 8, 4000, 500, 4
    config = (
        PPOConfig()
        # RLlib's env check steps with an unmasked random index, which the env refuses
        .environment(ENV_NAME, disable_env_checking=True)
        .framework("torch")
        .env_runners(
            num_env_runners=0,  # sample in this process, then learn: one core at a time
            num_envs_per_env_runner=tables,
            rollout_fragment_length="auto",
        )
        .learners(num_learners=0)
        .multi_agent(
            policies={POLICY_ID},
            policy_mapping_fn=lambda agent_id, episode, **kwargs: POLICY_ID,
        )
        .rl_module(
            rl_module_spec=MultiRLModuleSpec(
                rl_module_specs={
                    POLICY_ID: RLModuleSpec(
                        module_class=module_class(),
                        model_config={"hidden": list(args.hidden), "activation": ACTIVATION},
                    )
                }
            )
        )
        .training(
            train_batch_size_per_learner=batch,
            minibatch_size=minibatch,
            num_epochs=epochs,
            lr=3e-4,
            gamma=0.995,
            lambda_=0.95,
            entropy_coeff=0.01,
            vf_loss_coeff=0.5,
            clip_param=0.2,
        )
        .debugging(seed=args.seed, log_level="ERROR")
    )
    return config.build_algo()


def progress_line(result: dict[str, Any], seconds: float, score: float) -> str:
    runners = result.get("env_runners", {})
    learner = result.get("learners", {}).get(POLICY_ID, {})
    steps = result.get("num_env_steps_sampled_lifetime") or runners.get(
        "num_env_steps_sampled_lifetime", 0
    )

    def number(value: Any, spec: str) -> str:
        return format(float(value), spec) if isinstance(value, int | float) else "-"

    return (
        f"iter {result.get('training_iteration', 0):3d}  {seconds:6.1f}s"
        f"  steps {int(steps):7,d}"
        f"  deals {int(runners.get('num_episodes_lifetime', 0)):5,d}"
        f"  return {number(runners.get('episode_return_mean'), '+.2f')}"
        f"  length {number(runners.get('episode_len_mean'), '.0f')}"
        f"  entropy {number(learner.get('entropy'), '.2f')}"
        f"  vs random {score:+.2f}/deal"
    )


def train(args: argparse.Namespace) -> Any:
    """Train until the budget is spent; the exported network, checked."""
    import torch

    from arena.sim import RayOptions, Runner

    # one thread: tiny batches gain nothing from more, and lose much on a busy machine
    torch.set_num_threads(1)
    budget = args.minutes * 60.0
    probe = 8 if args.smoke else 32
    with Runner(RayOptions(num_cpus=2)):
        for name in ("ray", "ray.rllib", "ray.tune"):  # RLlib's own deprecation notes
            logging.getLogger(name).setLevel(logging.ERROR)
        algo = build_algorithm(args)
        try:
            print(f"training PPO on {GAME}: one policy for the four players", flush=True)
            started = time.monotonic()
            while True:
                begun = time.monotonic()
                result = algo.train()
                network = export(algo.get_module(POLICY_ID))
                score = score_vs_random(network, probe, args.seed + 1000)
                now = time.monotonic()
                last = now - begun
                print(progress_line(result, now - started, score), flush=True)
                if args.smoke:
                    if result.get("training_iteration", 0) >= 2:
                        break
                elif now - started + last > budget:  # the next one would overrun
                    break
            module = algo.get_module(POLICY_ID)
            network = export(module)
            worst = check_export(module, network, args.seed)
            print(f"exported: its logits match the trained module's (within {worst:.1e})")
        finally:
            algo.stop()
    return network


# --------------------------------------------------------------------- the compare


def arena_command() -> list[str]:
    """The ``arena`` command of this interpreter's environment."""
    found = shutil.which("arena", path=str(Path(sys.executable).parent))
    if found:
        return [found]
    return [sys.executable, "-m", "arena.cli"]


def run_compare(path: Path, pairs: int, seed: int) -> int:
    """``arena compare`` of the policy against random, run in the policy file's folder,
    where the file goes by its name alone (the shortest bot name, with no characters a
    bot's parameters refuse)."""
    arguments = [
        "compare",
        "--variant",
        GAME,
        f"policy:path={path.name}",
        "random",
        "--max-pairs",
        str(pairs),
        "--deals",
        "1",
        "--seed",
        str(seed),
    ]
    print(f"$ cd {path.parent} && arena {' '.join(arguments)}", flush=True)
    completed = subprocess.run(
        [*arena_command(), *arguments],
        cwd=path.parent,
        capture_output=True,
        text=True,
        check=False,
    )
    print(completed.stdout.rstrip(), flush=True)
    if completed.returncode != 0:
        print(completed.stderr.rstrip(), file=sys.stderr, flush=True)
    return completed.returncode


def main(argv: Sequence[str] | None = None) -> int:
    args = parse(argv)
    missing = missing_rl()
    if missing is not None:
        print(f"rllib_guandan: {missing} is missing; {RL_EXTRA}", file=sys.stderr)
        return 2
    warnings.filterwarnings("ignore", category=DeprecationWarning)

    from arena import log
    from arena.env.policy import PolicyNetwork

    log.configure(level=os.environ.get(log.LEVEL_ENV) or "warning")
    out = args.out.resolve()
    network = train(args)
    out.parent.mkdir(parents=True, exist_ok=True)
    network.save(out)
    loaded = PolicyNetwork.load(out)
    print(f"saved {out}: {loaded.inputs} features, {loaded.outputs} actions", flush=True)
    status = run_compare(out, args.pairs, args.seed)
    if status != 0:
        print(f"rllib_guandan: arena compare failed (exit {status})", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
