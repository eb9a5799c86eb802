"""The skeleton every stable-baselines3 recipe runs in (`training.ppo_selfplay`,
`training.residual`), read top to bottom:

1. `Recipe`: what a recipe adds: its configuration (`training.fields`) and a few named hooks:
   `build_env` (the environments of a session, from its seed), `build_model` (a new model:
   `new_model` with the recipe's policy and algorithm, whose update is the recipe's loss),
   `warm_start` (imitation, initial weights), `export` (the safe format).
2. `train`: the run folder (`training.checkpoints.RunFolder`), `resume_or_start`, `learn` with
   the one periodic callback (`training.callbacks.Periodic`: checkpoints, safe exports,
   progress, evaluations, snapshots), the final model (`finish`), the session's record.
3. `main`: the command line: the configuration from YAML and flags, one line for any error (a
   missing `[train]` extra included), and at the end what was trained, where the model is and
   the command that benchmarks it; a finished run says so instead of training again.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from training.checkpoints import (
    ResumeError,
    RunFolder,
    resume_from_checkpoint,
    save_checkpoint,
    save_model_atomically,
    session_seed_of,
)
from training.config_utils import (
    ConfigKeyError,
    config_from_cli,
    flat_dict,
    sigterm_as_interrupt,
)
from training.evaluate import EvaluationPlan, lineup_of
from training.fields import EnvFields, PoolFields, PPOFields, TrainingConfig
from training.progress import Progress, duration

TRAIN_EXTRA = ("yaml", "torch", "stable_baselines3", "sb3_contrib", "tensorboard")
"""What the `[train]` extra installs that the recipes import (a `make run` venv has only the
`[ppo]` extra: no pyyaml, no tensorboard)."""


def export_safe(model: Any, stem: Path) -> Path:
    """The default safe export: the policy network as .safetensors + .json at `stem`."""
    from dune_env.policies.weights import export_policy

    return export_policy(model, stem)


# --- 1. What a recipe adds ---------------------------------------------------------------------


class Recipe:
    """A recipe: its configuration and its hooks (the module docstring).  A recipe subclasses
    it, overriding `build_env`, `build_model` and what else it has; the skeleton calls them."""

    algorithm: Any = None
    """The SB3 class the run's checkpoints load as (its `train()` is the recipe's loss)."""
    pool: PoolFields | None = None
    """The opponent pool the periodic callback snapshots into and keeps results of."""
    evaluation: EvaluationPlan | None = None
    """The periodic evaluation (None: none)."""

    def __init__(self, config: TrainingConfig) -> None:
        self.config = config

    def build_env(self, seed: int) -> Any:
        """The environments of a session (an SB3 VecEnv), from the session's seed."""
        raise NotImplementedError

    def build_model(self, venv: Any) -> Any:
        """A new model on the environments (`new_model` with the recipe's policy)."""
        raise NotImplementedError

    def warm_start(self, model: Any, progress: Progress | None) -> None:
        """What a new model goes through before PPO (initial weights, imitation)."""

    def warm_start_finished(self) -> bool:
        """False while the warm start has work left (e.g. distillation rounds not yet fitted):
        the run then goes through `warm_start` again, which resumes from its own files, rather
        than resuming a checkpoint.  True by default (a warm start that has no files)."""
        return True

    def configure(self, model: Any) -> None:
        """Settings applied to a new and to a resumed model (e.g. the kickstart schedule)."""

    def callbacks(self, periodic: Any) -> Any:
        """The callback handed to `learn`, around the periodic one (e.g. teacher labels)."""
        return periodic

    def export(self, model: Any, stem: Path) -> Path:
        """The safe export of the model at a file stem; returns the .json written."""
        return export_safe(model, stem)

    def benchmark_opponents(self) -> list[str]:
        """The other seats of the benchmark's line-up, for the closing message."""
        return lineup_of(("strategist", "economic", "aggressive"), self.config.run.num_players)


def new_model(
    algorithm: Any,
    policy: Any,
    venv: Any,
    ppo: PPOFields,
    seed: int,
    folder: RunFolder,
    **policy_kwargs: Any,
) -> Any:
    """A new (Maskable)PPO of `algorithm` with `policy` on `venv`: the update of `ppo`, the
    network `ppo.net_arch` (plus the recipe's `policy_kwargs`), TensorBoard in the run folder."""
    return algorithm(
        policy,
        venv,
        **ppo.hyperparameters(seed),
        policy_kwargs={"net_arch": list(ppo.net_arch), **policy_kwargs},
        tensorboard_log=str(folder.tensorboard),
        device=ppo.device,
        verbose=0,
    )


def vector_env(env: EnvFields, num_players: int, sampler: Any, teacher: str | None) -> Any:
    """`envs_per_process` batched games (`dune_env.vector`) in each of `n_envs` processes (in
    this one when n_envs is 1), the learner's seat rotating, the other seats drawn by
    `sampler` (an opponent pool), `teacher`'s action in the infos if given; with episode
    statistics (VecMonitor)."""
    from stable_baselines3.common.vec_env import VecMonitor

    from dune_env.vector import DuneVecEnv
    from dune_env.vector.subproc import SubprocDuneVecEnv

    kwargs: dict[str, Any] = {
        "learner": "rotate",
        "num_players": num_players,
        "opponent_sampler": sampler,
        "teacher": teacher,
    }
    venv: Any
    if env.n_envs > 1:
        venv = SubprocDuneVecEnv(env.n_envs, env.envs_per_process, **kwargs)
    else:
        venv = DuneVecEnv(env.envs_per_process, **kwargs)
    return VecMonitor(venv)  # episode returns for TensorBoard (rollout/ep_rew_mean)


# --- 2. Training -------------------------------------------------------------------------------


def train(recipe: Recipe, quiet: bool = False) -> Path:
    """Train (or resume) the run of `recipe.config`; returns the final model's .zip (its safe
    export is beside it).  `training.json` in the run folder records the session: steps,
    seconds, CPU seconds and the measured env agent-steps per learner step."""
    import torch

    cfg = recipe.config
    folder = RunFolder(cfg.run_dir)
    folder.root.mkdir(parents=True, exist_ok=True)
    if recipe.pool is not None:
        folder.pool.mkdir(exist_ok=True)
    if cfg.run.resume:
        folder.check_resumable(flat_dict(cfg), cfg.FIXED_ON_RESUME)
    folder.config.write_text(json.dumps(flat_dict(cfg), indent=2))
    torch.manual_seed(cfg.run.seed)
    torch.set_num_threads(1)
    progress = None if quiet else Progress()
    model, venv = resume_or_start(recipe, folder, progress, quiet)
    start_steps = model.num_timesteps
    from training.callbacks import Periodic  # needs stable-baselines3: imported when training

    periodic = Periodic(
        folder,
        cfg.checkpoints,
        recipe.export,
        cfg.ppo.torch_threads,
        progress,
        recipe.pool,
        recipe.evaluation,
    )
    start, cpu_start = time.perf_counter(), time.process_time()
    try:
        learn(model, recipe, recipe.callbacks(periodic), progress)
        elapsed, cpu_main = time.perf_counter() - start, time.process_time() - cpu_start
        cpu_envs = env_process_cpu_seconds(venv)
        finish(model, recipe, folder)
    finally:
        venv.close()
    cpu_seconds = None if cpu_envs is None else cpu_main + cpu_envs
    write_session_record(folder, cfg.run.seed, model, start_steps, elapsed, cpu_seconds, periodic)
    return folder.final


def resume_or_start(
    recipe: Recipe, folder: RunFolder, progress: Progress | None, quiet: bool
) -> tuple[Any, Any]:
    """(model, environments): resumed from the run's newest checkpoint that loads (with the
    configured optimisation settings), else a new model through the recipe's warm start."""
    cfg = recipe.config
    seed = cfg.run.seed

    def build_venv(start_steps: int) -> Any:
        # A resumed session plays new games: its seed derives from (seed, steps).
        return recipe.build_env(session_seed_of(seed, start_steps))

    resumed = (
        resume_from_checkpoint(folder.root, cfg.ppo.device, build_venv, recipe.algorithm)
        if cfg.run.resume and recipe.warm_start_finished()
        else None
    )
    if resumed is not None:
        model, venv = resumed
        # The configured optimisation settings apply to the resumed run.
        model.learning_rate = cfg.ppo.learning_rate
        model._setup_lr_schedule()
        model.ent_coef = cfg.ppo.ent_coef
        model.target_kl = cfg.ppo.target_kl
        model.tensorboard_log = str(folder.tensorboard)
        recipe.configure(model)
        if not quiet:
            print(f"resuming {folder.root.name} from {model.num_timesteps:,} learner steps")
        return model, venv
    venv = build_venv(0)
    model = recipe.build_model(venv)
    recipe.configure(model)
    recipe.warm_start(model, progress)
    return model, venv


def learn(model: Any, recipe: Recipe, callback: Any, progress: Progress | None) -> None:
    """PPO from the model's step count up to `total_timesteps` (nothing if already there)."""
    total = recipe.config.ppo.total_timesteps
    remaining = total - model.num_timesteps
    if remaining <= 0:
        return
    if progress is not None:
        progress.start("PPO", total, "steps", done=model.num_timesteps)
    model.learn(
        total_timesteps=remaining,
        callback=callback,
        reset_num_timesteps=False,
        tb_log_name=recipe.config.run_dir.name,
    )
    if progress is not None:
        progress.update(model.num_timesteps)
        progress.finish()


def finish(model: Any, recipe: Recipe, folder: RunFolder) -> None:
    """The final model: a last checkpoint, final_model.zip (to resume or fine-tune;
    pickle-based) and its safe export final_model.safetensors + .json (to share, benchmark)."""
    save_checkpoint(model, folder.checkpoints, recipe.config.checkpoints.keep_checkpoints)
    save_model_atomically(model, folder.final)
    recipe.export(model, folder.final.with_suffix(""))


def env_process_cpu_seconds(venv: Any) -> float | None:
    """CPU seconds used so far by the environment worker processes of `venv` (read from
    /proc, Linux only; None elsewhere), 0 when the environments run in this process."""
    inner = venv
    while hasattr(inner, "venv"):  # VecMonitor and other VecEnv wrappers
        inner = inner.venv
    total = 0.0
    for process in getattr(inner, "processes", []):
        try:
            fields = Path(f"/proc/{process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return None
        total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def write_session_record(
    folder: RunFolder,
    seed: int,
    model: Any,
    start_steps: int,
    elapsed: float,
    cpu_seconds: float | None,
    periodic: Any,
) -> None:
    """`training.json`: the session's steps, seconds, CPU seconds (this process and the
    environment processes) and throughput."""
    from dune_env.policies.weights import atomic_write_bytes

    counts = periodic.counts
    trained = model.num_timesteps - start_steps
    ratio = counts["decisions"] / counts["learner_decisions"] if counts["games"] else None
    record = {
        "num_timesteps": model.num_timesteps,
        "learner_steps_this_session": trained,
        "seconds_this_session": elapsed,
        "learner_steps_per_second": trained / elapsed if elapsed else 0.0,
        # Decisions of every seat per learner decision, over the session's games.
        "agent_steps_per_learner_step": ratio,
        "agent_steps_per_second": trained * ratio / elapsed if ratio and elapsed else None,
        "cpu_seconds_this_session": cpu_seconds,
        "games_this_session": counts["games"],
        "session_seed": session_seed_of(seed, start_steps),
    }
    atomic_write_bytes(folder.session, json.dumps(record, indent=2).encode())


# --- 3. The command line -----------------------------------------------------------------------


def benchmark_commands(model: Path, players: int, opponents: list[str]) -> list[str]:
    """The commands that measure a trained model: against each heuristic
    (`training.evaluate`), and in the benchmark's line-up (`dune-bench`)."""
    lineup = " ".join(opponents)
    return [
        f"python -m training.evaluate {model} --players {players}",
        f"dune-bench --policies {model} {lineup} --players {players} --duplicate",
    ]


def report(name: str, cfg: TrainingConfig, opponents: list[str], finished_before: bool) -> str:
    """The closing lines of a recipe: what was trained (or that the run was finished before),
    where the model is, and how to benchmark it."""
    folder = RunFolder(cfg.run_dir)
    steps = folder.trained_steps() or 0
    total = cfg.ppo.total_timesteps
    if finished_before:
        head = (
            f"{name}: {folder.root} is finished: {steps:,} learner steps of total_timesteps "
            f"{total:,} (raise --total-timesteps to train on, or --resume false to start again)"
        )
    else:
        head = f"{name}: trained {folder.root.name} to {steps:,} learner steps"
    model = folder.final_export
    lines = [
        head,
        f"  the model: {model} (the safe format; final_model.zip beside it resumes the run)",
        "  benchmark it:",
        *(f"    {c}" for c in benchmark_commands(model, cfg.run.num_players, opponents)),
    ]
    return "\n".join(lines)


def is_finished(cfg: TrainingConfig) -> bool:
    """The run was trained to `total_timesteps` and exported in an earlier session."""
    folder = RunFolder(cfg.run_dir)
    if not cfg.run.resume or not folder.final_export.is_file():
        return False
    steps = folder.trained_steps()
    return steps is not None and steps >= cfg.ppo.total_timesteps


def missing_extra(exc: ImportError) -> bool:
    """`exc` says a module of the `[train]` extra is not installed."""
    root = (getattr(exc, "name", None) or "").split(".")[0]
    return root in TRAIN_EXTRA or "tensorboard is not installed" in str(exc)


INSTALL_HINT = (
    "the training recipes need the [train] extra: from the clone, pip install -e '.[train]' "
    "(make test sets it up)"
)


def main(
    recipe_class: type[Recipe],
    config_class: type[Any],
    train_config: Callable[[Any], Any],
    name: str,
    argv: list[str],
    commands: dict[str, str] | None = None,
) -> int:
    """`python -m training.NAME`: the configuration from `--config` and flags, then
    `train_config(cfg)` (a finished run is not trained again), then the closing lines of
    `report` (the benchmark's line-up from `recipe_class`); errors as `command` reports them.
    `commands`: the recipe's other commands, for --help."""

    def run(cfg: Any) -> str:
        recipe = recipe_class(cfg)
        opponents = recipe.benchmark_opponents()
        if is_finished(cfg) and recipe.warm_start_finished():
            return report(name, cfg, opponents, finished_before=True)
        started = time.perf_counter()
        train_config(cfg)
        took = f"{name}: done in {duration(time.perf_counter() - started)}\n"
        return took + report(name, cfg, opponents, finished_before=False)

    prog = f"python -m training.{name}"
    return command(name, lambda: config_from_cli(config_class, argv, prog, commands), run)


def command(name: str, load: Callable[[], Any], run: Callable[[Any], str]) -> int:
    """A recipe's command line: `load()` the configuration, `run(cfg)` it (SIGTERM stops it as
    Ctrl-C does), print the text it returns; exit 0.  Any error is one line on stderr (exit
    2): a wrong value or file, a model that does not load, a run that cannot resume, a missing
    `[train]` extra (with the command that installs it); an interruption is one line saying
    that the same command resumes the run (exit 130)."""
    from dune_env.policies.registry import PolicyLoadError

    cfg = None
    try:
        cfg = load()
        with sigterm_as_interrupt():  # a scheduler's stop, as Ctrl-C: one line, then resume
            text = run(cfg)
        print(text, flush=True)
    except ImportError as exc:
        if not missing_extra(exc):
            raise
        print(f"{name}: {INSTALL_HINT} ({exc})", file=sys.stderr)
        return 2
    except (ConfigKeyError, PolicyLoadError, ResumeError, ValueError, OSError) as exc:
        print(f"{name}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        where = cfg.run_dir if cfg is not None else "the run"
        print(
            f"\n{name}: interrupted; the same command resumes {where} from its newest checkpoint",
            file=sys.stderr,
        )
        return 130
    return 0
