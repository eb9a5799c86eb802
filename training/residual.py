"""Residual PPO on the strategist (issue 23): does reinforcement improve on the teacher when it
starts *at* the teacher rather than 10 points of agreement below it?

The policy's logits are `beta * onehot(strategist's action) + correction(observation)`, the
correction a 2x256 tanh MLP (bc-4p's hidden layers) with a zero-initialised output layer: at the
start the greedy policy *is* the strategist (the paired strength difference is exactly 0) and
the sampled policy departs from it rarely (with beta 6, in ~0.2% of two-option decisions, up to
~24% of the 127-subset dice decisions).  PPO then learns where departing pays.  The strategist's
action reaches the network as one more observation column (`TeacherInObservation`, from the
batched environments' `teacher_action`; the network: `training/residual_policy.py`); exported,
the model is played by `dune_env.policies.residual.ResidualWeightsPolicy`, which asks the
strategist itself.  Opponents are the benchmark's heuristics (strategist, economic,
aggressive), no snapshots, no random seats.

    python -m training.residual --config configs/residual_4p.yaml      # rerun to resume
    dune-bench --policies runs/residual_4p_seed0/final_model.safetensors strategist \
        economic aggressive --players 4 --duplicate
    python -m training.residual --export CHECKPOINT.zip [DESTINATION]   # done at every checkpoint

The recipe is its configuration and its hooks, read top to bottom; the frame (resume or start,
checkpoints and their safe exports, the final model, the command line) is
`training/skeleton.py`, the run folder's layout `training/checkpoints.py`.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from training import skeleton
from training.config_utils import ConfigKeyError
from training.evaluate import lineup_of
from training.fields import CheckpointFields, EnvFields, PPOFields, RunFields, TrainingConfig, group

OPPONENTS = ("strategist", "economic", "aggressive")
"""The heuristics of the other seats: the benchmark's."""
SOURCE = {"algorithm": "residual PPO on the strategist (training/residual.py)"}

# --- 1. The configuration ------------------------------------------------------------------------


@dataclass
class ResidualFields:
    """The residual policy: the teacher's bonus and where its weights start."""

    beta: float = 6.0
    """The strategist's logit bonus: how rarely the sampled policy leaves it at the start."""
    init_weights: str = "bc-4p"
    """Hidden layers and critic copied from this shipped model (the correction's output is 0)."""
    init_from: str = ""
    """Instead: every weight from a network on the strategist: a shipped name (residual-4p), its
    `.safetensors`, or a checkpoint `.zip` of this recipe (e.g. the 4-player model to start a
    5-player run; the observation fits 3-8 players; a .zip needs trust_checkpoints)."""


@dataclass(init=False)
class ResidualConfig(TrainingConfig):
    """The experiment's settings (`configs/residual_4p.yaml`), by group (`training/fields.py`)."""

    run: RunFields = group(RunFields, config_name="residual_4p")
    ppo: PPOFields = group(
        PPOFields,
        total_timesteps=3_000_000,
        learning_rate=1e-4,
        n_steps=64,
        batch_size=512,
        n_epochs=4,
        clip_range=0.1,
        target_kl=0.02,
        gamma=1.0,  # the reward comes at the end; no discount within a six-round game
        ent_coef=0.0,
    )
    env: EnvFields = group(EnvFields, n_envs=2, envs_per_process=32)
    checkpoints: CheckpointFields = group(CheckpointFields, checkpoint_interval=500_000)
    residual: ResidualFields = group(ResidualFields)

    FIXED_ON_RESUME: ClassVar[tuple[str, ...]] = (*TrainingConfig.FIXED_ON_RESUME, "beta")

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.env.shaping:
            raise ConfigKeyError("shaping is not used by the residual recipe: leave it 0")
        start = self.residual.init_from
        if start.endswith(".zip") and not self.run.trust_checkpoints:
            raise ConfigKeyError(
                f"init_from={start!r} is a pickle-based .zip (loading it can run code): pass "
                "--trust-checkpoints true if this recipe wrote it, or start from its .safetensors"
            )


# --- 2. The environments -------------------------------------------------------------------------


def build_env(cfg: ResidualConfig, seed: int) -> Any:
    """`n_envs` processes of `envs_per_process` games (one process: in this one), the learner
    rotating over the seats among the benchmark's three heuristics, the strategist's action
    appended to every observation."""
    from training.opponent_pool import OpponentPool
    from training.residual_policy import TeacherInObservation

    pool = OpponentPool(
        str(cfg.run_dir / "pool"), cfg.run.num_players, p_self=0.0, p_heuristic=1.0,
        heuristics=OPPONENTS,
    )  # fmt: skip
    venv = skeleton.vector_env(cfg.env, cfg.run.num_players, pool, "strategist")
    venv.seed(seed)
    return TeacherInObservation(venv)


# --- 3. The model ------------------------------------------------------------------------------


def algorithm() -> Any:
    """The algorithm, whose update is the recipe's loss: PPO's (sb3-contrib's MaskablePPO)."""
    from sb3_contrib import MaskablePPO

    return MaskablePPO


def build_model(cfg: ResidualConfig, env: Any) -> Any:
    """A new model of `algorithm()` with the residual policy."""
    from training.checkpoints import RunFolder
    from training.residual_policy import ResidualPolicy

    return skeleton.new_model(
        algorithm(), ResidualPolicy, env, cfg.ppo, cfg.run.seed, RunFolder(cfg.run_dir),
        beta=cfg.residual.beta,
    )  # fmt: skip


def start_weights(cfg: ResidualConfig, model: Any) -> None:
    """bc-4p's layers and a zero correction (or every weight from `init_from`)."""
    from sb3_contrib import MaskablePPO

    from training.residual_policy import copy_initial_weights, copy_residual_weights

    start = cfg.residual.init_from
    if start.endswith(".zip"):  # a checkpoint of this recipe, trusted (__post_init__)
        model.policy.load_state_dict(MaskablePPO.load(start, device="cpu").policy.state_dict())
    elif start:
        copy_residual_weights(model, start)
    else:
        copy_initial_weights(model, cfg.residual.init_weights)


def new_model(cfg: ResidualConfig, env: Any) -> Any:
    """A new model as a run starts it: `build_model`, then `start_weights`."""
    model = build_model(cfg, env)
    start_weights(cfg, model)
    return model


# --- 4. The safe format ------------------------------------------------------------------------


def export(model: Any, stem: Path) -> Path:
    """The model as a network on the strategist (`ResidualWeightsPolicy`) at `stem`.  A
    checkpoint just written (`stem`.zip) is exported from its file, as this recipe always did:
    `MaskablePPO.load` re-seeds the process's generators with the run's seed, and the shipped
    residual models were trained so; exporting from memory would train other weights after
    the first checkpoint."""
    from dune_env.policies.weights import export_policy

    if stem.with_suffix(".zip").is_file():
        return export_checkpoint(stem.with_suffix(".zip"))
    return export_policy(model, stem, SOURCE, teacher=("strategist", float(model.policy.beta)))


def export_checkpoint(checkpoint: str | Path, destination: str | Path | None = None) -> Path:
    """Export a checkpoint this recipe wrote (a `.zip` it trusts as its own) in the safe format
    beside it (or at `destination`): a network on the strategist
    (`dune_env.policies.residual.ResidualWeightsPolicy`), loadable by path in the harness."""
    from sb3_contrib import MaskablePPO

    from dune_env.policies.weights import export_policy

    if not Path(checkpoint).is_file():
        raise FileNotFoundError(
            f"--export {checkpoint}: no such checkpoint (a .zip this recipe wrote, e.g. "
            "runs/residual_4p_seed0/checkpoints/latest.zip)"
        )
    model = MaskablePPO.load(str(checkpoint), device="cpu")
    stem = Path(destination) if destination is not None else Path(checkpoint).with_suffix("")
    policy: Any = model.policy  # a ResidualPolicy
    return export_policy(model, stem, SOURCE, teacher=("strategist", float(policy.beta)))


# --- The recipe: the configuration and its hooks in the skeleton -------------------------------


class Residual(skeleton.Recipe):
    """The hooks above in the skeleton (`training/skeleton.py`)."""

    config: ResidualConfig

    def __init__(self, config: ResidualConfig) -> None:
        super().__init__(config)
        self.algorithm = algorithm()

    def build_env(self, seed: int) -> Any:
        return build_env(self.config, seed)

    def build_model(self, venv: Any) -> Any:
        return build_model(self.config, venv)

    def warm_start(self, model: Any, progress: Any) -> None:
        start_weights(self.config, model)

    def export(self, model: Any, stem: Path) -> Path:
        return export(model, stem)

    def benchmark_opponents(self) -> list[str]:
        return lineup_of(OPPONENTS, self.config.run.num_players)


def train(cfg: ResidualConfig, quiet: bool = False) -> Path:
    """Train (or resume) the run of `cfg`; the final model's .zip (its safe export beside it)."""
    return skeleton.train(Residual(cfg), quiet)


EXPORT_USAGE = "--export CHECKPOINT.zip [DESTINATION]"


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["--export"]:
        if len(argv) not in (2, 3):
            print(f"residual: usage: python -m training.residual {EXPORT_USAGE}", file=sys.stderr)
            return 2
        try:
            print(export_checkpoint(*argv[1:]))
        except (OSError, ValueError) as exc:
            print(f"residual: {exc}", file=sys.stderr)
            return 2
        return 0
    commands = {
        EXPORT_USAGE: "export a checkpoint of this recipe in the safe format (beside it, or at "
        "DESTINATION); training exports every checkpoint and the final model itself"
    }
    return skeleton.main(Residual, ResidualConfig, train, "residual", argv, commands)


def __getattr__(name: str) -> Any:
    """The network's classes, where checkpoints of the former layout name them."""
    import training.residual_policy

    return getattr(training.residual_policy, name)


if __name__ == "__main__":
    raise SystemExit(main())
