"""The PPO update alone: seconds of MaskablePPO's `train()` per rollout of the shipped config.

    python benchmarks/bench_ppo_update.py [--config configs/ppo_4p.yaml] [--threads 1 2]
                                          [--rounds 2] [--agent-steps-per-learner-step 6.04]

A MaskablePPO of the config's network, batch size and epochs, on `dune_v1`'s observation size
and action count, is given a full rollout buffer of the config's size (n_envs x envs_per_process
x n_steps learner steps; random observations, advantages and returns, masks with about 5% of
the actions legal) and updated, `--rounds` times per torch thread count, the thread counts
alternating; the best round of each is printed.  No game is played: this is the floor that the
update puts under a training step, however fast the games.  Printed per thread count: seconds
per update, the learner steps per second that the update alone allows, and those as env
agent-steps/s (x the decisions per learner decision that `bench_training.py` measures: 6.04 for
4 players against the shipped pool).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from builds import require  # noqa: E402

require("bench_ppo_update.py", "yaml", "sb3_contrib")

from training.config_utils import load_config  # noqa: E402
from training.ppo_selfplay import PPOSelfPlayConfig  # noqa: E402


def build_model(cfg: PPOSelfPlayConfig, rollout: int) -> Any:
    import gymnasium
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.logger import configure

    from dune_env.environment import NUM_ACTIONS
    from dune_env.environment.observer import OBS_SIZE

    class Placeholder(gymnasium.Env[np.ndarray, int]):
        """Only the spaces: the update never steps it."""

        observation_space = gymnasium.spaces.Box(-1.0, 1.0, (OBS_SIZE,), np.float32)
        action_space = gymnasium.spaces.Discrete(NUM_ACTIONS)

        def action_masks(self) -> np.ndarray:
            return np.ones(NUM_ACTIONS, bool)

    hyperparameters = cfg.ppo.hyperparameters(cfg.run.seed) | {
        "n_steps": rollout,  # one env: the whole rollout
        "policy_kwargs": {"net_arch": list(cfg.ppo.net_arch)},
    }
    model = MaskablePPO("MlpPolicy", Placeholder(), **hyperparameters, device="cpu")
    model.set_logger(configure(None, [""]))
    return model


def fill(model: Any, seed: int) -> None:
    """A full rollout buffer of random data (about 5% of the actions legal, action 0 always)."""
    buffer = model.rollout_buffer
    buffer.reset()
    rng = np.random.default_rng(seed)
    buffer.observations[:] = rng.standard_normal(buffer.observations.shape).astype(np.float32)
    masks = rng.random(buffer.action_masks.shape) < 0.05
    masks[..., 0] = True
    buffer.action_masks[:] = masks
    buffer.actions[:] = 0
    buffer.advantages[:] = rng.standard_normal(buffer.advantages.shape)
    buffer.returns[:] = rng.standard_normal(buffer.returns.shape)
    buffer.log_probs[:] = -2.0
    buffer.full = True


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--config", default="configs/ppo_4p.yaml")
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--agent-steps-per-learner-step", type=float, default=6.04)
    args = parser.parse_args(argv)

    import torch

    cfg = load_config(PPOSelfPlayConfig, args.config, [])
    rollout = cfg.env.n_envs * cfg.env.envs_per_process * cfg.ppo.n_steps
    model = build_model(cfg, rollout)
    print(
        f"config {args.config}: rollout {rollout} learner steps, batch {cfg.ppo.batch_size}, "
        f"{cfg.ppo.n_epochs} epochs, net {list(cfg.ppo.net_arch)}"
    )
    best = {threads: float("inf") for threads in args.threads}
    for round_ in range(args.rounds):
        for threads in args.threads:
            torch.set_num_threads(threads)
            fill(model, round_)
            start = time.perf_counter()
            model.train()
            best[threads] = min(best[threads], time.perf_counter() - start)
    for threads, seconds in best.items():
        steps = rollout / seconds
        print(
            f"torch threads {threads}: {seconds:.2f} s per update, the update alone allows "
            f"{steps:,.0f} learner steps/s = {steps * args.agent_steps_per_learner_step:,.0f} "
            "agent-steps/s"
        )


if __name__ == "__main__":
    main()
