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

import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import gymnasium
import numpy as np

from dune_env.env_version import ENV_NAME
from training.config_utils import ConfigKeyError, config_from_cli, flat_dict
from training.fields import GroupedConfig, PPOFields, RunFields, group


@dataclass
class RLlibFields:
    """RLlib's own settings: the length of the run, sampling, the Ray cluster."""

    iterations: int = 20
    """Training iterations in all (each samples `train_batch_size` environment steps)."""
    train_batch_size: int = 4000
    """Agent steps per training iteration."""
    num_env_runners: int = 1
    """Sampling workers (processes, or remote actors on a cluster)."""
    address: str | None = None
    """Ray address: None starts a local instance; "auto" joins the running cluster."""
    num_cpus: int | None = 2
    """CPUs for a local Ray instance (ignored when joining a cluster)."""
    run_name: str | None = None
    """The run folder's name; defaults to {config_name}_{num_players}p_seed{seed}."""


UNUSED_PPO_FIELDS = ("total_timesteps", "n_steps", "target_kl", "device", "torch_threads")
"""PPO fields this recipe does not read (RLlib counts iterations of train_batch_size steps and
places its learners itself): a value other than the default is refused, not ignored."""


@dataclass(init=False)
class RLlibConfig(GroupedConfig):
    """Hyper-parameters of the RLlib run, by group (`training/fields.py`; the PPO group with
    RLlib's own defaults for GAE lambda and the clip)."""

    ALIASES: ClassVar[dict[str, str]] = {
        "lr": "learning_rate",
        "entropy_coeff": "ent_coef",
        "hidden": "net_arch",
        "num_epochs": "n_epochs",
        "minibatch_size": "batch_size",
    }
    """The recipe's former key names (configs written before the shared PPO group)."""

    run: RunFields = group(RunFields, config_name="rllib", out_dir="runs/rllib")
    ppo: PPOFields = group(
        PPOFields, n_epochs=4, gamma=0.995, gae_lambda=1.0, clip_range=0.3, ent_coef=0.01
    )
    rllib: RLlibFields = group(RLlibFields)

    def __post_init__(self) -> None:
        default = PPOFields()
        changed = [k for k in UNUSED_PPO_FIELDS if getattr(self.ppo, k) != getattr(default, k)]
        if changed:
            raise ConfigKeyError(
                f"{', '.join(changed)}: not used by the RLlib recipe (its run is `iterations` "
                "of `train_batch_size` agent steps); leave them out"
            )
        if self.run.trust_checkpoints:
            raise ConfigKeyError("trust_checkpoints: not used by the RLlib recipe; leave it out")

    @property
    def run_dir(self) -> Path:
        name = (
            self.rllib.run_name
            or f"{self.run.config_name}_{self.run.num_players}p_seed{self.run.seed}"
        )
        return Path(self.run.out_dir) / name


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
            env_config={"num_players": cfg.run.num_players, "illegal_action": "penalize"},
            disable_env_checking=True,  # RLlib's checker steps unmasked random actions
        )
        .env_runners(num_env_runners=cfg.rllib.num_env_runners, num_envs_per_env_runner=1)
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
                            "head_fcnet_hiddens": list(cfg.ppo.net_arch),
                            "head_fcnet_activation": "relu",
                        },
                    )
                }
            )
        )
        .training(
            train_batch_size_per_learner=cfg.rllib.train_batch_size,
            minibatch_size=cfg.ppo.batch_size,
            num_epochs=cfg.ppo.n_epochs,
            lr=cfg.ppo.learning_rate,
            gamma=cfg.ppo.gamma,
            lambda_=cfg.ppo.gae_lambda,
            clip_param=cfg.ppo.clip_range,
            entropy_coeff=cfg.ppo.ent_coef,
        )
        .debugging(seed=cfg.run.seed)
    )
    return config.build_algo()


def connect(ray: Any, cfg: RLlibConfig) -> str | None:
    """Start a local Ray instance (address None) or join the cluster at `cfg.address`; on
    failure the reason in one line (no traceback), else None."""
    address = cfg.rllib.address
    try:
        if address is None:
            ray.init(num_cpus=cfg.rllib.num_cpus, include_dashboard=False, log_to_driver=False)
        else:
            ray.init(address=address, log_to_driver=False)
    except Exception as exc:  # ConnectionError, RuntimeError, ValueError, ...
        text = str(exc).strip()
        first = text.splitlines()[0] if text else type(exc).__name__
        where = address or "a new local instance"
        hint = (
            " (start one with `ray start --head`, or leave --address out to train on a new "
            "local instance)"
            if address == "auto"
            else ""
        )
        return f"cannot connect to the Ray cluster at {where}: {first.rstrip('.')}{hint}"
    return None


def train(cfg: RLlibConfig) -> str:
    """Train (or resume) the run of `cfg` on Ray; what was trained, where the checkpoint is
    and how to benchmark it."""
    import ray

    problem = connect(ray, cfg)
    if problem is not None:
        raise ConnectionError(problem)
    out = cfg.run_dir
    out.mkdir(parents=True, exist_ok=True)
    (out / "config.json").write_text(json.dumps(flat_dict(cfg), indent=2))
    algo = build_algorithm(cfg)
    checkpoint_dir = (out / "checkpoint").resolve()
    if cfg.run.resume and (checkpoint_dir / "rllib_checkpoint.json").is_file():
        # Trusted: the checkpoint this run wrote in its own run folder (SECURITY.md).
        algo.restore_from_path(str(checkpoint_dir))
        print(f"resuming {out.name} after {algo.iteration} iterations")
    finished_before = algo.iteration >= cfg.rllib.iterations
    log = (out / "metrics.jsonl").open("a")
    start = time.perf_counter()
    try:
        while algo.iteration < cfg.rllib.iterations:
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
        if not finished_before:
            algo.save(str(checkpoint_dir))
    finally:
        log.close()
        algo.stop()
        ray.shutdown()
    head = (
        f"rllib_ppo: {out} is finished: {algo.iteration} iterations of {cfg.rllib.iterations} "
        "(raise --iterations to train on, or --resume false to start again)"
        if finished_before
        else f"rllib_ppo: trained {out.name} to {algo.iteration} iterations"
    )
    model = out / "checkpoint"
    players = cfg.run.num_players
    return (
        f"{head}\n  the model: {model} (an RLlib checkpoint: pickle-based, loaded only with "
        f"--trust-checkpoints)\n  benchmark it:\n    python -m training.evaluate {model} "
        f"--trust-checkpoints --players {players}"
    )


def main(argv: list[str] | None = None) -> int:
    from training.skeleton import command

    argv = sys.argv[1:] if argv is None else argv
    prog = "python -m training.rllib_ppo"
    return command("rllib_ppo", lambda: config_from_cli(RLlibConfig, argv, prog), train)


if __name__ == "__main__":
    raise SystemExit(main())
