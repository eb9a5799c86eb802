"""Residual PPO on the strategist (issue 23): does reinforcement improve on the teacher when it
starts *at* the teacher rather than 10 points of agreement below it?

The policy's logits are `beta * onehot(strategist's action) + correction(observation)`, the
correction a 2x256 tanh MLP (bc-4p's hidden layers) with a zero-initialised output layer: at the
start the greedy policy *is* the strategist (the paired strength difference is exactly 0) and
the sampled policy departs from it rarely (with beta 6, in ~0.2% of two-option decisions, up to
~24% of the 127-subset dice decisions).  PPO then learns where departing pays.  The strategist's
action reaches the network as one more observation column (`TeacherInObservation`, from the
batched environments' `teacher_action`); exported (`--export`), the model is played by
`dune_env.policies.residual.ResidualWeightsPolicy`, which asks the strategist itself.
Opponents are the benchmark's heuristics (strategist, economic, aggressive), no snapshots, no
random seats.

    python -m training.residual --config configs/residual_4p.yaml
    python -m training.residual --export runs/residual_4p_seed0/checkpoint_2000000.zip
    dune-bench --policies runs/residual_4p_seed0/checkpoint_2000000.safetensors strategist \
        economic aggressive --players 4 --games 2016 --duplicate --seatings permutations

The same command resumes a run from `latest.zip` in its folder (written after every rollout);
its checkpoints are SB3 `.zip` files this script wrote (pickle-based, trusted as its own), each
exported beside it in the safe format.
"""

from __future__ import annotations

import dataclasses
import json
import sys
import time
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.torch_layers import MlpExtractor
from stable_baselines3.common.vec_env import VecEnvWrapper
from torch import nn

from dune_env.environment.action_table import NUM_ACTIONS
from training.checkpoints import save_model_atomically, session_seed_of
from training.config_utils import RunConfig, config_from_cli, sigterm_as_interrupt


@dataclasses.dataclass
class ResidualConfig(RunConfig):
    """The experiment's settings (`configs/residual_4p.yaml`); the run folder is
    {out_dir}/{config_name}_seed{seed}."""

    config_name: str = "residual_4p"
    """Name of the configuration (the run folder's stem)."""
    total_timesteps: int = 3_000_000
    """Learner steps in all (a resumed run continues to this)."""
    beta: float = 6.0
    """The strategist's logit bonus: how rarely the sampled policy leaves it at the start."""
    learning_rate: float = 1e-4
    """Adam's step size for the correction, the hidden layers and the critic."""
    n_envs: int = 2
    """Environment processes (1: the games run in the learner's own process)."""
    envs_per_process: int = 32
    """Games stepped together in each process."""
    n_steps: int = 64
    """Steps per game per rollout (a rollout is n_envs x envs_per_process x n_steps steps)."""
    batch_size: int = 512
    """Minibatch size of the PPO update."""
    n_epochs: int = 4
    """Passes over each rollout (fewer when target_kl stops them)."""
    clip_range: float = 0.1
    """PPO's ratio clip."""
    target_kl: float = 0.02
    """An update's epochs stop once the approximate KL passes 1.5 x this."""
    gamma: float = 1.0
    """The reward comes at the end of the game; no discount within a six-round game."""
    gae_lambda: float = 0.95
    """GAE's lambda."""
    checkpoint_interval: int = 500_000
    """Learner steps between checkpoints (each exported in the safe format beside it)."""
    init_weights: str = "bc-4p"
    """Hidden layers and critic copied from this shipped model (the correction's output is 0)."""
    init_from: str = ""
    """Instead: every weight from a network on the strategist: a shipped name (residual-4p), its
    `.safetensors`, or a checkpoint `.zip` of this script (e.g. the 4-player model to start a
    5-player run; the observation fits 3-8 players)."""


# --- the teacher's action as an observation column ------------------------------------------


class TeacherInObservation(VecEnvWrapper):
    """Appends each observation's `teacher_action` (an action id, -1 when none) as one column."""

    def __init__(self, venv: Any) -> None:
        space = venv.observation_space
        low = np.append(space.low, -1.0).astype(np.float32)
        high = np.append(space.high, float(NUM_ACTIONS)).astype(np.float32)
        super().__init__(venv, observation_space=gymnasium.spaces.Box(low, high, dtype=np.float32))

    def reset(self) -> np.ndarray:
        obs = self.venv.reset()
        # the wrappers between keep their own (empty) reset_infos: read the base env's
        return self._with_teacher(np.asarray(obs), self.unwrapped.reset_infos)

    def step_wait(self) -> Any:
        obs, rewards, dones, infos = self.venv.step_wait()
        for info in infos:
            if "terminal_observation" in info:
                info["terminal_observation"] = np.append(info["terminal_observation"], -1.0)
        return self._with_teacher(np.asarray(obs), infos), rewards, dones, infos

    @staticmethod
    def _with_teacher(obs: np.ndarray, infos: list[dict[str, Any]]) -> np.ndarray:
        teacher = np.array([info.get("teacher_action", -1) for info in infos], dtype=np.float32)
        return np.concatenate([obs, teacher[:, None]], axis=1).astype(np.float32)


def teacher_onehot(features: torch.Tensor) -> torch.Tensor:
    teacher = features[:, -1].long()
    onehot = torch.zeros(features.shape[0], NUM_ACTIONS, device=features.device)
    has = teacher >= 0
    onehot[has, teacher[has]] = 1.0
    return onehot


class ResidualExtractor(MlpExtractor):
    """SB3's MLP extractor on the observation without its teacher column; the actor's latent
    carries the teacher's one-hot on to the head."""

    def __init__(self, feature_dim: int, net_arch: Any, activation_fn: Any, device: Any) -> None:
        super().__init__(feature_dim - 1, net_arch, activation_fn, device)
        self.latent_dim_pi += NUM_ACTIONS

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        hidden = self.policy_net(features[:, :-1])
        return torch.cat([hidden, teacher_onehot(features)], dim=1)

    def forward_critic(self, features: torch.Tensor) -> torch.Tensor:
        return self.value_net(features[:, :-1])


class ResidualHead(nn.Module):
    """logits = beta * teacher one-hot + a linear correction of the hidden layer (starts at 0)."""

    def __init__(self, hidden: int, beta: float) -> None:
        super().__init__()
        self.hidden = hidden
        self.beta = beta
        self.correction = nn.Linear(hidden, NUM_ACTIONS)
        nn.init.zeros_(self.correction.weight)
        nn.init.zeros_(self.correction.bias)

    def forward(self, latent: torch.Tensor) -> torch.Tensor:
        return self.correction(latent[:, : self.hidden]) + self.beta * latent[:, self.hidden :]


class ResidualPolicy(MaskableActorCriticPolicy):
    def __init__(self, *args: Any, beta: float = 6.0, **kwargs: Any) -> None:
        self.beta = beta
        super().__init__(*args, **kwargs)

    def _build_mlp_extractor(self) -> None:
        self.mlp_extractor = ResidualExtractor(
            self.features_dim, self.net_arch, self.activation_fn, self.device
        )

    def _build(self, lr_schedule: Any) -> None:
        super()._build(lr_schedule)
        self.action_net = ResidualHead(self.mlp_extractor.latent_dim_pi - NUM_ACTIONS, self.beta)
        self.optimizer = self.optimizer_class(  # type: ignore[call-arg]
            self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs
        )


def copy_initial_weights(model: Any, spec: str) -> None:
    """bc-4p's hidden layers (policy and value) and value head; the correction stays 0."""
    from safetensors.torch import load as load_tensors

    from training.kickstart import shipped_or_path

    state = load_tensors(shipped_or_path(spec).read_bytes())
    kept = {k: v for k, v in state.items() if not k.startswith("action_net.")}
    missing, unexpected = model.policy.load_state_dict(kept, strict=False)
    if unexpected or set(missing) != {"action_net.correction.weight", "action_net.correction.bias"}:
        raise ValueError(f"init_weights={spec!r} does not fit: {missing=}, {unexpected=}")


def copy_residual_weights(model: Any, spec: str) -> None:
    """Every tensor of a safe-format network on the strategist (checked as any loaded model)."""
    from safetensors.torch import load as load_tensors

    from dune_env.policies.registry import PolicyLoadError
    from dune_env.policies.weights import WeightsPolicy
    from training.kickstart import shipped_or_path

    path = shipped_or_path(spec)
    checked = WeightsPolicy(path, on_heuristic=True)  # description, SHA-256, layout
    if checked.teacher != ("strategist", float(model.policy.beta)):
        raise PolicyLoadError(
            f"init_from={spec!r} is not a network on the strategist with beta {model.policy.beta}"
        )
    state = load_tensors(path.read_bytes())
    renamed = {k.replace("action_net.", "action_net.correction."): v for k, v in state.items()}
    model.policy.load_state_dict(renamed)


# --- training --------------------------------------------------------------------------------


class Checkpoints(BaseCallback):
    def __init__(self, cfg: ResidualConfig, out: Path) -> None:
        super().__init__()
        self.cfg, self.out = cfg, out
        self.next_save = 0
        self.started = time.time()

    def _on_training_start(self) -> None:
        interval = self.cfg.checkpoint_interval
        self.next_save = (self.model.num_timesteps // interval + 1) * interval

    def _on_step(self) -> bool:
        if self.model.num_timesteps >= self.next_save:
            checkpoint = self.out / f"checkpoint_{self.next_save}.zip"
            save_model_atomically(self.model, checkpoint)
            export_checkpoint(checkpoint)  # the safe copy the harness plays
            self.next_save += self.cfg.checkpoint_interval
        return True

    def _on_rollout_end(self) -> None:
        save_model_atomically(self.model, self.out / "latest.zip")
        logs = {k: float(v) for k, v in self.model.logger.name_to_value.items()}
        record = {"steps": self.model.num_timesteps, "seconds": time.time() - self.started, **logs}
        with open(self.out / "progress.jsonl", "a") as f:
            f.write(json.dumps(record) + "\n")


def build_env(cfg: ResidualConfig, seed: int) -> Any:
    """`n_envs` processes of `envs_per_process` games (one process: in this one), the learner
    rotating over the seats among the benchmark's three heuristics, the strategist's action
    appended to every observation."""
    from stable_baselines3.common.vec_env import VecMonitor

    from dune_env.vector import DuneVecEnv
    from dune_env.vector.subproc import SubprocDuneVecEnv
    from training.opponent_pool import OpponentPool

    pool = OpponentPool(
        str(cfg.run_dir / "pool"),
        cfg.num_players,
        p_self=0.0,
        p_heuristic=1.0,
        heuristics=("strategist", "economic", "aggressive"),
    )
    kwargs: dict[str, Any] = {
        "learner": "rotate",
        "num_players": cfg.num_players,
        "opponent_sampler": pool,
        "teacher": "strategist",
    }
    venv: Any
    if cfg.n_envs > 1:
        venv = SubprocDuneVecEnv(cfg.n_envs, cfg.envs_per_process, **kwargs)
    else:
        venv = DuneVecEnv(cfg.envs_per_process, **kwargs)
    venv.seed(seed)
    return TeacherInObservation(VecMonitor(venv))


def new_model(cfg: ResidualConfig, env: Any) -> Any:
    """A MaskablePPO with the residual policy, bc-4p's layers and a zero correction."""
    from sb3_contrib import MaskablePPO

    model = MaskablePPO(
        ResidualPolicy,
        env,
        learning_rate=cfg.learning_rate,
        n_steps=cfg.n_steps,
        batch_size=cfg.batch_size,
        n_epochs=cfg.n_epochs,
        clip_range=cfg.clip_range,
        target_kl=cfg.target_kl,
        gamma=cfg.gamma,
        gae_lambda=cfg.gae_lambda,
        ent_coef=0.0,
        policy_kwargs={"net_arch": [256, 256], "beta": cfg.beta, "activation_fn": nn.Tanh},
        seed=cfg.seed,
        device="cpu",
        verbose=0,
    )
    if cfg.init_from.endswith(".zip"):
        start = MaskablePPO.load(cfg.init_from, device="cpu")  # a checkpoint this script wrote
        model.policy.load_state_dict(start.policy.state_dict())
    elif cfg.init_from:
        copy_residual_weights(model, cfg.init_from)
    else:
        copy_initial_weights(model, cfg.init_weights)
    return model


def train(cfg: ResidualConfig) -> None:
    from sb3_contrib import MaskablePPO

    torch.set_num_threads(1)
    out = cfg.run_dir
    out.mkdir(parents=True, exist_ok=True)
    latest = out / "latest.zip"
    model = MaskablePPO.load(str(latest), device="cpu") if cfg.resume and latest.exists() else None
    steps = model.num_timesteps if model is not None else 0
    env = build_env(cfg, session_seed_of(cfg.seed, steps))  # a resumed session plays new games
    if model is not None:
        model.set_env(env)
    else:
        model = new_model(cfg, env)
        (out / "config.json").write_text(json.dumps(dataclasses.asdict(cfg), indent=1))
    try:
        model.learn(
            cfg.total_timesteps - model.num_timesteps,
            callback=Checkpoints(cfg, out),
            reset_num_timesteps=False,
        )
        save_model_atomically(model, out / "final.zip")
        export_checkpoint(out / "final.zip")
    finally:
        env.close()


# --- the safe format ----------------------------------------------------------------------------


def export_checkpoint(checkpoint: str | Path, destination: str | Path | None = None) -> Path:
    """Export a checkpoint this script wrote (a `.zip` it trusts as its own) in the safe format
    beside it (or at `destination`): a network on the strategist
    (`dune_env.policies.residual.ResidualWeightsPolicy`), loadable by path in the harness."""
    from sb3_contrib import MaskablePPO

    from dune_env.policies.weights import export_policy

    model = MaskablePPO.load(str(checkpoint), device="cpu")
    source = {"algorithm": "residual PPO on the strategist (training/residual.py)"}
    stem = Path(destination) if destination is not None else Path(checkpoint).with_suffix("")
    policy: Any = model.policy  # a ResidualPolicy
    beta = float(policy.beta)
    return export_policy(model, stem, source, teacher=("strategist", beta))


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["--export"]:
        if len(argv) != 2:
            print("residual: --export takes one checkpoint .zip", file=sys.stderr)
            return 2
        print(export_checkpoint(argv[1]))
        return 0
    cfg = config_from_cli(ResidualConfig, argv, "python -m training.residual")
    try:
        with sigterm_as_interrupt():  # a scheduler's stop, as Ctrl-C: one line, then resume
            train(cfg)
    except KeyboardInterrupt:
        print(
            f"\nresidual: interrupted; the same command resumes {cfg.run_dir} from its latest "
            "rollout",
            file=sys.stderr,
        )
        return 130
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
