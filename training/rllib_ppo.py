"""Ray RLlib multi-agent PPO with action masking on `dune_v1`: one policy shared by all seats.

    python -m training.rllib_ppo --config configs/rllib_ppo.yaml [--iterations 20] [--address auto]

Runs on a local Ray instance by default.  To run unchanged on a multi-node cluster, start Ray on
the nodes (`ray start --head` on one, `ray start --address=HEAD:6379` on the others) and pass
`--address auto` when running on a cluster node (or `ray://HEAD:10001` from outside, with Ray
Client), then raise `--num-env-runners` to the cores you have: sampling spreads over the nodes.
See docs/training.md.

Read top to bottom: hyper-parameters, the environment adapter (RLlib wants the observation key
"observations" next to "action_mask"), the algorithm configuration, the training loop.
"""

from __future__ import annotations

import dataclasses
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np

from dune_env.env_version import ENV_NAME
from training.config_utils import RunConfig, config_from_cli


@dataclass
class RLlibConfig(RunConfig):
    """Hyper-parameters of the RLlib run (the shared fields are `RunConfig`'s)."""

    config_name: str = "rllib"
    """Name of the configuration; the run folder is
    {out_dir}/{config_name}_{num_players}p_seed{seed} (unless `run_name` is set)."""
    out_dir: str = "runs/rllib"
    """Where checkpoints and the metrics log go; the run name is appended."""
    resume: bool = True
    """Continue from the run's checkpoint if it has one (the iterations already trained count
    towards `iterations`); false starts the run again."""
    iterations: int = 20
    """Training iterations in all (each samples `train_batch_size` environment steps)."""
    train_batch_size: int = 4000
    """Agent steps per training iteration."""
    minibatch_size: int = 256
    """SGD minibatch size."""
    num_epochs: int = 4
    """Passes over each training batch."""
    lr: float = 3e-4
    """Adam learning rate."""
    gamma: float = 0.995
    """Discount factor (games last a few hundred agent steps)."""
    entropy_coeff: float = 0.01
    """Entropy bonus."""
    hidden: tuple[int, ...] = (256, 256)
    """Hidden layer sizes of the policy and value heads."""
    num_env_runners: int = 1
    """Sampling workers (processes, or remote actors on a cluster)."""
    address: str | None = None
    """Ray address: None starts a local instance; "auto" joins the running cluster."""
    num_cpus: int | None = 2
    """CPUs for a local Ray instance (ignored when joining a cluster)."""
    run_name: str | None = None
    """The run folder's name; defaults to {config_name}_{num_players}p_seed{seed}."""

    @property
    def run_dir(self) -> Path:
        name = self.run_name or f"{self.config_name}_{self.num_players}p_seed{self.seed}"
        return Path(self.out_dir) / name


# --- The environment, as RLlib's multi-agent API wants it --------------------------------------


def make_multi_agent_env(env_config: dict[str, Any]) -> Any:
    """Build the RLlib view of `dune_v1` (imported lazily so workers import Ray themselves)."""
    from ray.rllib.env.multi_agent_env import MultiAgentEnv

    from dune_env.environment.aec import raw_env

    class DuneRLlibEnv(MultiAgentEnv):
        """Turn-based: each step returns the observation of the agent to act next only.

        When the game ends every agent gets its final observation, its reward and
        terminated=True, so the end-of-game reward reaches every seat's trajectory."""

        def __init__(self, config: dict[str, Any]) -> None:
            super().__init__()
            self.env = raw_env(**config)
            names: list[str] = list(self.env.possible_agents)
            self.agents = self.possible_agents = list(names)
            inner: Any = self.env.observation_space(names[0])
            n_actions = int(self.env.action_space(names[0]).n)  # type: ignore[attr-defined]
            space = gymnasium.spaces.Dict(
                {
                    "observations": inner["observation"],
                    "action_mask": gymnasium.spaces.Box(0.0, 1.0, (n_actions,), np.float32),
                }
            )
            self.observation_spaces = {a: space for a in names}
            self.action_spaces = {a: self.env.action_space(a) for a in names}
            self.names = names

        def _obs(self, agent: str) -> dict[str, np.ndarray]:
            raw = self.env.observe(agent)
            return {
                "observations": raw["observation"],
                "action_mask": raw["action_mask"].astype(np.float32),
            }

        def reset(self, *, seed: int | None = None, options: dict | None = None) -> Any:
            self.env.reset(seed=seed)
            agent = self.env.agent_selection
            return {agent: self._obs(agent)}, {}

        def step(self, action_dict: dict[Any, Any]) -> Any:
            agent = self.env.agent_selection
            self.env.step(int(action_dict[agent]))
            if all(self.env.terminations.values()):
                obs = {a: self._obs(a) for a in self.names}
                rewards = {a: float(self.env._cumulative_rewards[a]) for a in self.names}
                done = {a: True for a in self.names}
                return obs, rewards, {**done, "__all__": True}, {"__all__": False}, {}
            nxt = self.env.agent_selection
            return {nxt: self._obs(nxt)}, {nxt: 0.0}, {"__all__": False}, {"__all__": False}, {}

    return DuneRLlibEnv(env_config)


def build_algorithm(cfg: RLlibConfig) -> Any:
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.tune.registry import register_env

    from dune_env.policies.rllib_module import ActionMaskingTorchRLModule

    register_env(f"{ENV_NAME}_rllib", make_multi_agent_env)
    config = (
        PPOConfig()
        .environment(
            f"{ENV_NAME}_rllib",
            # Masked sampling never plays an illegal action; "penalize" is the safety net.
            env_config={"num_players": cfg.num_players, "illegal_action": "penalize"},
            disable_env_checking=True,  # RLlib's checker steps unmasked random actions
        )
        .env_runners(num_env_runners=cfg.num_env_runners, num_envs_per_env_runner=1)
        .multi_agent(
            policies={"shared"},
            policy_mapping_fn=lambda agent_id, episode, **kw: "shared",
        )
        .rl_module(
            rl_module_spec=MultiRLModuleSpec(
                rl_module_specs={
                    "shared": RLModuleSpec(
                        module_class=ActionMaskingTorchRLModule,
                        model_config={
                            "head_fcnet_hiddens": list(cfg.hidden),
                            "head_fcnet_activation": "relu",
                        },
                    )
                }
            )
        )
        .training(
            train_batch_size_per_learner=cfg.train_batch_size,
            minibatch_size=cfg.minibatch_size,
            num_epochs=cfg.num_epochs,
            lr=cfg.lr,
            gamma=cfg.gamma,
            entropy_coeff=cfg.entropy_coeff,
        )
        .debugging(seed=cfg.seed)
    )
    return config.build_algo()


def connect(ray: Any, cfg: RLlibConfig) -> str | None:
    """Start a local Ray instance (address None) or join the cluster at `cfg.address`; on
    failure the reason in one line (no traceback), else None."""
    try:
        if cfg.address is None:
            ray.init(num_cpus=cfg.num_cpus, include_dashboard=False, log_to_driver=False)
        else:
            ray.init(address=cfg.address, log_to_driver=False)
    except Exception as exc:  # ConnectionError, RuntimeError, ValueError, ...
        text = str(exc).strip()
        first = text.splitlines()[0] if text else type(exc).__name__
        where = cfg.address or "a new local instance"
        hint = (
            " (start one with `ray start --head`, or leave --address out to train on a new "
            "local instance)"
            if cfg.address == "auto"
            else ""
        )
        return f"cannot connect to the Ray cluster at {where}: {first.rstrip('.')}{hint}"
    return None


def main(argv: list[str] | None = None) -> int:
    cfg = config_from_cli(
        RLlibConfig, sys.argv[1:] if argv is None else argv, "python -m training.rllib_ppo"
    )
    import ray

    problem = connect(ray, cfg)
    if problem is not None:
        print(f"rllib_ppo: {problem}", file=sys.stderr)
        return 2
    out = cfg.run_dir
    out.mkdir(parents=True, exist_ok=True)
    (out / "config.json").write_text(json.dumps(dataclasses.asdict(cfg), indent=2))
    algo = build_algorithm(cfg)
    checkpoint_dir = (out / "checkpoint").resolve()
    if cfg.resume and (checkpoint_dir / "rllib_checkpoint.json").is_file():
        # Trusted: the checkpoint this run wrote in its own run folder (SECURITY.md).
        algo.restore_from_path(str(checkpoint_dir))
        print(f"resuming {out.name} after {algo.iteration} iterations")
    log = (out / "metrics.jsonl").open("a")
    start = time.perf_counter()
    try:
        while algo.iteration < cfg.iterations:
            result = algo.train()
            iteration = algo.iteration
            runners = result.get("env_runners", {})
            row = {
                "iteration": iteration,
                "env_steps": result.get("num_env_steps_sampled_lifetime"),
                "episodes": runners.get("num_episodes_lifetime"),
                "episode_len_mean": runners.get("episode_len_mean"),
                "seconds": time.perf_counter() - start,
            }
            log.write(json.dumps(row) + "\n")
            log.flush()
            print(json.dumps(row))
        checkpoint = algo.save(str(checkpoint_dir))
        print(f"checkpoint: {getattr(checkpoint, 'checkpoint', checkpoint)}")
    finally:
        log.close()
        algo.stop()
        ray.shutdown()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
