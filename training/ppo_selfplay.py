"""MaskablePPO self-play on `dune_v1`, against an opponent pool.

    python -m training.ppo_selfplay --config configs/ppo_4p.yaml [--total-timesteps 200000] ...

The recipe is its configuration and its hooks, read top to bottom; the frame they run in
(resume or start, the periodic callback, the final export, the command line) is
`training/skeleton.py`, the same for every recipe.

1. `PPOSelfPlayConfig`: the groups run, ppo, env, pool, evaluation, checkpoints, imitation,
   kickstart (`training/fields.py`, a docstring per field); loaded from YAML, any field
   overridable as `--field-name value`.
2. The environments (`build_env`): `DuneSingleAgentEnv` (one learning seat, rotating; rewards
   that arrive on other players' turns are credited to the learner) in `n_envs` processes, or
   with `envs_per_process` > 1 that many games per process as one batched vector env.  Every
   other seat draws an opponent from the pool (`training/opponent_pool.py`): a frozen snapshot
   of the learner, a built-in heuristic or the random policy, in the configured proportions,
   within a kind uniformly or by PFSP weights.
3. The model (`build_model`): MaskablePPO's MlpPolicy; the loss is PPO's, or with a
   kickstart teacher or a critic warm-up `KickstartedPPO.batch_loss` (PPO + lambda x
   cross-entropy towards the teacher; `training/kickstart.py`).
4. The warm start (`warm_start`): initial weights from a saved model, then behaviour cloning
   with DAgger rounds (`training/imitation.py`; the loss `training/cloning.py`).

Files: checkpoints (SB3 .zip, for resuming) are pickle-based, so a run loads only those under
its own run directory; snapshots, checkpoints' exports, evaluation copies and the final policy
are also written in the safe format (.safetensors + .json, see dune_env/policies/weights.py).
The run folder's layout: `training/checkpoints.py`.
"""

from __future__ import annotations

import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import gymnasium
import numpy as np

from training import skeleton
from training.config_utils import ConfigKeyError
from training.evaluate import EvaluationPlan, lineup_of
from training.fields import (
    EvaluationFields,
    ImitationFields,
    KickstartFields,
    PoolFields,
    RunFields,
    TrainingConfig,
    group,
)

# --- 1. The configuration ------------------------------------------------------------------------


@dataclass(init=False)
class PPOSelfPlayConfig(TrainingConfig):
    """Hyper-parameters of a MaskablePPO self-play run, by group (`training/fields.py`)."""

    run: RunFields = group(RunFields, config_name="ppo", out_dir="runs/ppo")
    pool: PoolFields = group(PoolFields)
    evaluation: EvaluationFields = group(EvaluationFields)
    imitation: ImitationFields = group(ImitationFields)
    kickstart: KickstartFields = group(KickstartFields)

    FIXED_ON_RESUME: ClassVar[tuple[str, ...]] = TrainingConfig.FIXED_ON_RESUME

    def __post_init__(self) -> None:
        super().__post_init__()
        players, per_process = self.run.num_players, self.env.envs_per_process
        if self.env.shaping and per_process != 1:
            raise ConfigKeyError(
                "shaping needs one environment per process: set envs_per_process: 1"
            )
        if self.kickstart.kickstart_teacher and per_process < 2:
            raise ConfigKeyError(
                "kickstart_teacher needs envs_per_process > 1: the batched environments label "
                "the learner's states"
            )
        if not 1 <= self.imitation.bc_learner_seats < players:
            raise ConfigKeyError(
                f"bc_learner_seats={self.imitation.bc_learner_seats!r} must be 1..{players - 1}"
            )
        best = self.evaluation.best_against
        if best and (
            self.evaluation.eval_mode != "lineup" or best not in self.pool.heuristic_opponents
        ):
            raise ConfigKeyError(
                f"best_against={best!r} needs eval_mode 'lineup' and a name among "
                f"heuristic_opponents {list(self.pool.heuristic_opponents)}"
            )


# --- 2. The environments -------------------------------------------------------------------------


def build_env(cfg: PPOSelfPlayConfig, pool_dir: Path, seed: int) -> Any:
    """The `n_envs` environments of a session seeded `seed`: one `DuneSingleAgentEnv` per
    process, or `envs_per_process` batched games per process (`dune_env.vector`)."""
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    from training.opponent_pool import make_pool

    venv: Any
    if cfg.env.envs_per_process != 1:
        pool = make_pool(cfg.pool, cfg.run.num_players, pool_dir)
        teacher = cfg.kickstart.kickstart_teacher or None  # labels for kickstarting
        venv = skeleton.vector_env(cfg.env, cfg.run.num_players, pool, teacher)
    else:
        fns = [make_env(cfg, pool_dir, rank, seed) for rank in range(cfg.env.n_envs)]
        venv = SubprocVecEnv(fns) if cfg.env.n_envs > 1 else DummyVecEnv(fns)
    venv.seed(seed)
    return venv


def make_env(cfg: PPOSelfPlayConfig, pool_dir: Path, rank: int, seed: int) -> Any:
    """Environment `rank` (a thunk for SB3's vector envs), first reset with seed*1000 + rank."""

    def thunk() -> Any:
        from stable_baselines3.common.monitor import Monitor

        from dune_env.single_agent import DuneSingleAgentEnv
        from training.opponent_pool import make_pool

        players = cfg.run.num_players
        pool = make_pool(cfg.pool, players, pool_dir)
        env: Any = DuneSingleAgentEnv(learner="rotate", num_players=players, opponent_sampler=pool)
        env.reset(seed=seed * 1000 + rank)
        if cfg.env.shaping:
            env = StrategicShaping(env, cfg.env.shaping, cfg.ppo.gamma)
        return Monitor(env)  # episode returns for TensorBoard (rollout/ep_rew_mean)

    return thunk


class StrategicShaping(gymnasium.Wrapper):
    """Adds gamma * phi(s') - phi(s) to each learner reward, phi = weight x strategic regions
    the learner controls (DEF-6); phi is 0 at the end of the game, so the shaped return of a
    game is its reward minus phi at the learner's first decision."""

    def __init__(self, env: Any, weight: float, gamma: float) -> None:
        super().__init__(env)
        self.weight = weight
        self.gamma = gamma
        self.last_phi = 0.0

    def _phi(self) -> float:
        # The environment's public query (0 once the game is over).
        return self.weight * self.env.get_wrapper_attr("strategic_regions_held")()

    def reset(self, **kwargs: Any) -> Any:
        obs, info = self.env.reset(**kwargs)
        self.last_phi = self._phi()
        return obs, info

    def step(self, action: Any) -> Any:
        obs, reward, terminated, truncated, info = self.env.step(action)
        phi = self._phi()
        shaped = float(reward) + self.gamma * phi - self.last_phi
        self.last_phi = phi
        return obs, shaped, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        return np.asarray(self.env.get_wrapper_attr("action_masks")())


# --- 3. The model and its loss -------------------------------------------------------------------


def build_model(cfg: PPOSelfPlayConfig, venv: Any) -> Any:
    """MaskablePPO's MlpPolicy, or `KickstartedPPO` (its loss with the teacher's term)."""
    from training.checkpoints import RunFolder
    from training.kickstart import algorithm_of

    algorithm = algorithm_of(cfg.kickstart)
    return skeleton.new_model(
        algorithm, "MlpPolicy", venv, cfg.ppo, cfg.run.seed, RunFolder(cfg.run_dir)
    )


# --- 4. The warm start ---------------------------------------------------------------------------


def warm_start(cfg: PPOSelfPlayConfig, model: Any, progress: Any) -> None:
    """A new model starts from `init_weights`, then imitates `bc_policy` (when `bc_games`);
    each start is frozen into the pool as its first snapshot."""
    import json

    from training.imitation import behaviour_clone
    from training.initial_weights import load_initial_weights
    from training.opponent_pool import save_snapshot

    run_dir, max_pool = cfg.run_dir, cfg.pool.max_pool
    if cfg.kickstart.init_weights:
        load_initial_weights(model, cfg.kickstart.init_weights)
        save_snapshot(model, run_dir / "pool", 0, max_pool)  # the start, frozen
    if cfg.imitation.bc_games:
        rounds_dir = run_dir / "behaviour_cloning_rounds"
        if not cfg.run.resume:
            shutil.rmtree(rounds_dir, ignore_errors=True)  # start the imitation afresh
        stats = behaviour_clone(model, imitation_of(cfg), rounds_dir, progress)
        (run_dir / "behaviour_cloning.json").write_text(json.dumps(stats, indent=2))
        save_snapshot(model, run_dir / "pool", 0, max_pool)  # the imitation, frozen


def imitation_of(cfg: PPOSelfPlayConfig) -> Any:
    """What the imitation reads of the configuration (`training.imitation.Imitation`)."""
    from training.imitation import Imitation

    return Imitation(cfg.imitation, cfg.run, cfg.ppo, cfg.pool.heuristic_opponents)


# --- The recipe: the configuration and its hooks in the skeleton -------------------------------


class SelfPlay(skeleton.Recipe):
    """The hooks above in the skeleton (`training/skeleton.py`)."""

    config: PPOSelfPlayConfig

    def __init__(self, config: PPOSelfPlayConfig) -> None:
        from training.kickstart import algorithm_of

        super().__init__(config)
        self.algorithm = algorithm_of(config.kickstart)
        self.pool = config.pool
        players, seed = config.run.num_players, config.run.seed
        self.evaluation = EvaluationPlan(
            config.evaluation, config.pool.heuristic_opponents, players, seed
        )

    def build_env(self, seed: int) -> Any:
        return build_env(self.config, self.config.run_dir / "pool", seed)

    def build_model(self, venv: Any) -> Any:
        return build_model(self.config, venv)

    def warm_start(self, model: Any, progress: Any) -> None:
        warm_start(self.config, model, progress)

    def configure(self, model: Any) -> None:
        from training.kickstart import configure_algorithm

        configure_algorithm(model, self.config.kickstart)

    def callbacks(self, periodic: Any) -> Any:
        from training.kickstart import with_teacher_labels

        return with_teacher_labels(periodic, self.config.kickstart)

    def export(self, model: Any, stem: Path) -> Path:
        return skeleton.export_safe(model, stem)

    def benchmark_opponents(self) -> list[str]:
        """The benchmark's line-up around the model: the pool's heuristics."""
        return lineup_of(self.config.pool.heuristic_opponents, self.config.run.num_players)


def train(cfg: PPOSelfPlayConfig, quiet: bool = False) -> Path:
    """Train (or resume) the run of `cfg`; the final model's .zip (its safe export beside it)."""
    return skeleton.train(SelfPlay(cfg), quiet)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    return skeleton.main(SelfPlay, PPOSelfPlayConfig, train, "ppo_selfplay", argv)


if __name__ == "__main__":
    raise SystemExit(main())
