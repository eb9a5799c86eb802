"""MaskablePPO self-play on `dune_v1`, against an opponent pool.

    python -m training.ppo_selfplay --config configs/ppo_4p.yaml [--total-timesteps 200000] ...

Read top to bottom:
1. `PPOSelfPlayConfig` (a `RunConfig`, shared with the RLlib recipe): every hyper-parameter,
   with a docstring; loaded from YAML, any field overridable as `--field-name value`.
2. `OpponentPool`: each episode, every other seat draws an opponent: a frozen snapshot of the
   learner (saved every `snapshot_interval` steps), a built-in heuristic, or the random policy,
   in the configured proportions (p_self + p_heuristic + p_random = 1); within a kind uniformly
   or by PFSP weights from the learner's pairwise results against each opponent
   (`PoolResults`, kept in the run's pool folder); in `training/opponent_pool.py`.
3. The environments: `DuneSingleAgentEnv` (one learning seat, rotating; rewards that arrive on
   other players' turns are credited to the learner) in `n_envs` processes, or with
   `envs_per_process` > 1 that many games per process as one batched vector env.
   Optionally a behaviour-cloning warm start with DAgger rounds (`training/imitation.py`), a
   start from a shipped model's weights, and kickstarting: PPO plus an annealed imitation
   term towards a teacher's choices on the learner's own states (`training/kickstart.py`).
4. Callbacks: snapshots into the pool, the results of finished games (from their final infos),
   periodic evaluation with the benchmark harness (against random and each heuristic, or the
   benchmark's line-up on duplicate deals, keeping the best model; logged to TensorBoard;
   `training/callbacks.py`, `training.evaluate`), resumable checkpoints
   (`training/checkpoints.py`).
5. The training loop itself, and the final model.

The names that moved to those modules are importable from here too.

Files: checkpoints (SB3 .zip, for resuming) are pickle-based, so a run loads only those under its
own run directory; pool snapshots, evaluation copies and the final policy are also written in
the safe format (.safetensors + .json, see dune_env/policies/weights.py).  Every file is written
atomically (a temporary file, then a rename), so a crash never leaves a partial one.

The run name is `{config_name}_seed{seed}`; everything goes under `{out_dir}/{run_name}/`.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np

from training.checkpoints import (
    CHECKPOINT_GLOB,
    ResumeError,
    checkpoint_steps,
    resume_candidates,
    resume_from_checkpoint,
    save_checkpoint,
    save_model_atomically,
    session_seed_of,
)
from training.config_utils import ConfigKeyError, RunConfig, config_from_cli, sigterm_as_interrupt
from training.dagger import LineupImitationFields
from training.evaluate import evaluate_model
from training.imitation import BC_FIXED_ON_RESUME, behaviour_clone, collect_demonstrations
from training.kickstart import (
    KickstartFields,
    algorithm_of,
    configure_algorithm,
    load_initial_weights,
    with_teacher_labels,
)
from training.opponent_pool import (
    HEURISTICS,
    OPPONENT_WEIGHTINGS,
    RESULTS_FILE,
    FrozenPolicy,
    OpponentPool,
    PoolResults,
    check_opponent_mix,
    learner_won,
    pairwise_outcomes,
    save_snapshot,
)
from training.progress import Progress

# Names that moved to the modules above, importable from here as before.
__all__ = [
    "BC_FIXED_ON_RESUME",
    "CHECKPOINT_GLOB",
    "FIXED_ON_RESUME",
    "HEURISTICS",
    "OPPONENT_WEIGHTINGS",
    "RESULTS_FILE",
    "FrozenPolicy",
    "OpponentPool",
    "PPOSelfPlayConfig",
    "PoolResults",
    "ResumeError",
    "StrategicShaping",
    "behaviour_clone",
    "build_callbacks",
    "build_envs",
    "check_resumable",
    "checkpoint_steps",
    "collect_demonstrations",
    "env_process_cpu_seconds",
    "evaluate_model",
    "learner_won",
    "main",
    "make_env",
    "make_pool",
    "make_vector_env",
    "pairwise_outcomes",
    "ppo_hyperparameters",
    "resume_candidates",
    "resume_from_checkpoint",
    "save_checkpoint",
    "save_model_atomically",
    "save_snapshot",
    "session_seed",
    "session_seed_of",
    "train",
]


EVAL_MODES = ("each", "lineup")


@dataclass
class PPOSelfPlayConfig(LineupImitationFields, KickstartFields, RunConfig):
    """Hyper-parameters of a MaskablePPO self-play run (the shared fields are `RunConfig`'s,
    the warm start and kickstart fields `KickstartFields`', the benchmark-setting imitation's
    `LineupImitationFields`')."""

    config_name: str = "ppo"
    """Name of the configuration; the run folder is {out_dir}/{config_name}_seed{seed}."""
    out_dir: str = "runs/ppo"
    """Parent folder of the run."""
    resume: bool = True
    """Resume from {run}/checkpoints/latest.zip if it exists (the opponent pool and its
    recorded results, in {run}/pool, carry over too)."""
    total_timesteps: int = 1_000_000
    """Learner decisions to train for (opponents' decisions are not counted)."""
    n_envs: int = 2
    """Parallel environments, one process each (use the available cores)."""
    envs_per_process: int = 1
    """Games per process (> 1: a batched vector env, `dune_env.vector`, in each of the n_envs
    processes, its frozen-snapshot opponents answered in batches; n_steps is then per game)."""
    n_steps: int = 1024
    """Learner steps per environment per rollout."""
    batch_size: int = 256
    """Minibatch size of the PPO update."""
    n_epochs: int = 6
    """Passes over each rollout."""
    learning_rate: float = 3e-4
    """Adam learning rate."""
    gamma: float = 0.997
    """Discount factor (a learner plays ~40 decisions per 4-player game)."""
    gae_lambda: float = 0.95
    """GAE lambda."""
    clip_range: float = 0.2
    """PPO clipping."""
    ent_coef: float = 0.01
    """Entropy bonus."""
    net_arch: tuple[int, ...] = (256, 256)
    """Hidden layers of the policy and value networks."""
    shaping: float = 0.0
    """Potential-based reward shaping weight (0: off, the pure game reward).  The potential is
    `shaping` x strategic regions the learner controls; shaping terms telescope, so a game's
    return differs from its reward only by that potential at the end (Ng et al., 1999)."""
    p_self: float = 0.4
    """Probability that an opponent seat is a frozen snapshot of the learner (a heuristic while
    the pool has none).  p_self + p_heuristic + p_random must be 1."""
    p_heuristic: float = 0.6
    """Probability that an opponent seat is a built-in heuristic (one of `heuristic_opponents`)."""
    p_random: float = 0.0
    """Probability that an opponent seat is the random policy (0: never; the benchmark's
    line-ups have no random seat, and a random seat makes games easy for everyone else)."""
    heuristic_opponents: tuple[str, ...] = ("aggressive", "economic")
    """The registered heuristics an opponent seat may be (drawn within by `opponent_weighting`);
    also the baselines of the periodic evaluation."""
    snapshot_interval: int = 50_000
    """Learner steps between snapshots added to the opponent pool."""
    max_pool: int = 10
    """Most recent snapshots kept in the pool."""
    opponent_weighting: str = "uniform"
    """How an opponent is chosen within its kind (snapshot or heuristic; the kinds keep the
    p_self / p_heuristic proportions): "uniform", or "pfsp" (prioritized fictitious self-play,
    Vinyals et al. 2019): weight (1 - w)^pfsp_exponent, w = the learner's pairwise win rate
    against that opponent (how often it finished above it), so the opponents it loses to are
    drawn more often."""
    pfsp_exponent: float = 3.0
    """Exponent of the pfsp weight (1 - win rate)^p: 0 is uniform, larger values focus harder on
    the opponents the learner loses to (3: pairwise rates 0.3 / 0.5 / 0.7 weigh 12.7 : 4.6 : 1)."""
    pfsp_prior_games: float = 4.0
    """Pseudo-pairings at the even rate 0.5 added to each opponent's record, so a new opponent
    starts there and one lucky game does not decide its weight."""
    eval_interval: int = 100_000
    """Learner steps between evaluations (0: never)."""
    eval_games: int = 40
    """Games per evaluation (rounded up to whole duplicate deals): per opponent with
    eval_mode "each", in all with "lineup"."""
    eval_mode: str = "each"
    """"each": the model in one seat against copies of random and of each heuristic, one
    duplicate run per opponent; "lineup": the benchmark's line-up, the model and
    `heuristic_opponents` (repeated in order to fill the seats) in one duplicate run, the
    model's strength paired against each of them (`training.evaluate.evaluate_lineup`)."""
    best_against: str = ""
    """With eval_mode "lineup": the line-up policy (e.g. "strategist") whose paired strength
    difference ranks the evaluations; the best one so far is kept as best_model.safetensors
    (+ .json) with best.json in the run folder ("": none kept)."""
    target_kl: float | None = None
    """Stop an update's epochs early once the approximate KL divergence from the rollout's
    policy exceeds 1.5 x target_kl (sb3's option; None: never)."""
    checkpoint_interval: int = 50_000
    """Learner steps between resumable checkpoints."""
    keep_checkpoints: int = 3
    """Most recent numbered checkpoints kept (resuming falls back to an older one when the
    newest does not load)."""
    bc_games: int = 0
    """Behaviour-cloning warm start: games of `bc_policy` demonstrations to imitate before PPO
    (0: start from scratch).  Every seat of every game is a demonstration."""
    bc_policy: str = "aggressive"
    """The demonstrating policy (a registered name or a saved model)."""
    bc_epochs: int = 4
    """Passes over the demonstrations (policy cross-entropy and value regression)."""
    bc_dagger_rounds: int = 0
    """DAgger rounds after cloning: games played by the cloned policy, every decision labelled
    with `bc_policy`'s choice, added to the data and trained on again."""
    device: str = "cpu"
    """Torch device."""
    torch_threads: int = 1
    """Torch threads of the learner's PPO update (the rollouts always use 1: the environment
    processes use the cores then, and the update runs while they wait)."""
    trust_checkpoints: bool = False
    """Allow a pickle-based `bc_policy` (an SB3 .zip or RLlib folder), which can run code when
    loaded.  The run's own checkpoints under its run directory are always trusted."""

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.opponent_weighting not in OPPONENT_WEIGHTINGS:
            raise ConfigKeyError(
                f"opponent_weighting={self.opponent_weighting!r} is not valid; use one of "
                f"{OPPONENT_WEIGHTINGS}"
            )
        for name in ("pfsp_exponent", "pfsp_prior_games"):
            if getattr(self, name) < 0:
                raise ConfigKeyError(f"{name}={getattr(self, name)!r} must be >= 0")
        if self.torch_threads < 1:
            raise ConfigKeyError(f"torch_threads={self.torch_threads!r} must be >= 1")
        try:
            check_opponent_mix(self.p_self, self.p_heuristic, self.p_random)
            self._check_kickstart(self.envs_per_process)
            self._check_imitation(self.num_players)
        except ValueError as exc:
            raise ConfigKeyError(str(exc)) from None
        self._check_evaluation()
        from dune_env.policies.registry import BUILTIN_POLICIES

        unknown = [n for n in self.heuristic_opponents if n not in BUILTIN_POLICIES]
        if not self.heuristic_opponents or unknown:
            raise ConfigKeyError(
                f"heuristic_opponents={list(self.heuristic_opponents)!r}: need at least one, "
                f"each a built-in policy (unknown: {unknown}; built-in: {sorted(BUILTIN_POLICIES)})"
            )

    def _check_evaluation(self) -> None:
        if self.eval_mode not in EVAL_MODES:
            raise ConfigKeyError(
                f"eval_mode={self.eval_mode!r} is not valid; use one of {EVAL_MODES}"
            )
        if self.best_against and (
            self.eval_mode != "lineup" or self.best_against not in self.heuristic_opponents
        ):
            raise ConfigKeyError(
                f"best_against={self.best_against!r} needs eval_mode 'lineup' and a name among "
                f"heuristic_opponents {list(self.heuristic_opponents)}"
            )
        if self.target_kl is not None and not self.target_kl > 0:
            raise ConfigKeyError(f"target_kl={self.target_kl!r} must be > 0 (or none: off)")


# --- 2. The opponent pool (training/opponent_pool.py) --------------------------------------------


def make_pool(cfg: PPOSelfPlayConfig, pool_dir: str | Path) -> OpponentPool:
    """The opponent pool of `cfg`'s run."""
    return OpponentPool(
        str(pool_dir),
        cfg.num_players,
        cfg.p_self,
        cfg.p_heuristic,
        cfg.opponent_weighting,
        cfg.pfsp_exponent,
        cfg.pfsp_prior_games,
        tuple(cfg.heuristic_opponents),
        cfg.p_random,
    )


# --- 3. Environments -----------------------------------------------------------------------------


def make_env(cfg: PPOSelfPlayConfig, pool_dir: str, rank: int, seed: int | None = None) -> Any:
    """Environment `rank`, first reset with `seed * 1000 + rank` (default: the config's seed)."""
    base = cfg.seed if seed is None else seed

    def thunk() -> Any:
        from stable_baselines3.common.monitor import Monitor

        from dune_env.environment.single_agent import DuneSingleAgentEnv

        env: Any = DuneSingleAgentEnv(
            learner="rotate",
            num_players=cfg.num_players,
            opponent_sampler=make_pool(cfg, pool_dir),
        )
        env.reset(seed=base * 1000 + rank)
        if cfg.shaping:
            env = StrategicShaping(env, cfg.shaping, cfg.gamma)
        return Monitor(env)  # episode returns for TensorBoard (rollout/ep_rew_mean)

    return thunk


def make_vector_env(cfg: PPOSelfPlayConfig, pool_dir: str) -> Any:
    """envs_per_process games in each of n_envs processes (dune_env.vector)."""
    from stable_baselines3.common.vec_env import VecMonitor

    from dune_env.vector import DuneVecEnv
    from dune_env.vector.subproc import SubprocDuneVecEnv

    if cfg.envs_per_process < 1:
        raise ValueError(f"envs_per_process must be >= 1, not {cfg.envs_per_process}")
    if cfg.shaping:
        raise ValueError("shaping needs one environment per process: set envs_per_process: 1")
    kwargs: dict[str, Any] = {
        "learner": "rotate",
        "num_players": cfg.num_players,
        "opponent_sampler": make_pool(cfg, pool_dir),
        "teacher": cfg.kickstart_teacher or None,  # labels for kickstarting
    }
    if cfg.n_envs > 1:
        venv: Any = SubprocDuneVecEnv(cfg.n_envs, cfg.envs_per_process, **kwargs)
    else:
        venv = DuneVecEnv(cfg.envs_per_process, **kwargs)
    return VecMonitor(venv)  # episode returns for TensorBoard (rollout/ep_rew_mean)


def build_envs(cfg: PPOSelfPlayConfig, pool_dir: Path, start_steps: int) -> Any:
    """The `n_envs` environments of a session starting at `start_steps`, seeded with
    `session_seed` (fresh games after a resume)."""
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    seed = session_seed(cfg, start_steps)
    venv: Any
    if cfg.envs_per_process != 1:
        venv = make_vector_env(cfg, str(pool_dir))
    else:
        fns = [make_env(cfg, str(pool_dir), rank, seed) for rank in range(cfg.n_envs)]
        venv = SubprocVecEnv(fns) if cfg.n_envs > 1 else DummyVecEnv(fns)
    venv.seed(seed)
    return venv


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


def session_seed(cfg: PPOSelfPlayConfig, start_steps: int) -> int:
    """Seed of a training session starting at `start_steps` (environments, opponents, torch):
    the config's seed for a new run; for a resumed run a fresh one derived from (seed, steps),
    so resuming continues with new games instead of replaying the first ones."""
    return session_seed_of(cfg.seed, start_steps)


# --- 3b. The behaviour-cloning warm start: training/imitation.py ---------------------------------


# --- 4. Callbacks (training/callbacks.py) and checkpoints (training/checkpoints.py) -------------


def build_callbacks(cfg: PPOSelfPlayConfig, run_dir: Path, progress: Any = None) -> Any:
    """The run's callback: snapshots, checkpoints, evaluations, the pool's results and the
    session's throughput (`callback.counts`); console progress on `progress` (a
    training.progress.Progress) if given."""
    from training.callbacks import Periodic  # needs stable-baselines3: imported when training

    return Periodic(cfg, run_dir, progress)


# --- 5. Training ---------------------------------------------------------------------------------


# Settings a resumed run cannot change: the saved model and its rollout buffer carry them.
# (learning_rate and ent_coef are re-applied on resume; the rest may change freely.)
FIXED_ON_RESUME = (
    "num_players",
    "n_envs",
    "envs_per_process",
    "n_steps",
    "batch_size",
    "n_epochs",
    "gamma",
    "gae_lambda",
    "clip_range",
    "net_arch",
    "shaping",
)


def check_resumable(cfg: PPOSelfPlayConfig, saved: Path) -> None:
    """Refuse to resume a run with settings its checkpoints cannot honour (they would be
    silently ignored)."""
    if not cfg.resume or not saved.is_file() or not resume_candidates(saved.parent):
        return  # nothing will be resumed
    try:
        before = json.loads(saved.read_text())
    except (OSError, ValueError):
        return  # no readable earlier config: nothing to compare
    now = json.loads(json.dumps(dataclasses.asdict(cfg)))  # tuples as lists, as saved
    changed = [k for k in FIXED_ON_RESUME if k in before and before[k] != now[k]]
    if changed:
        raise ResumeError(
            f"{saved.parent} was trained with other {', '.join(changed)} "
            f"({', '.join(f'{k}={before[k]!r}' for k in changed)}); a resumed run cannot change "
            "them: use the same settings, another --config-name or --seed, or --resume false"
        )


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


def ppo_hyperparameters(cfg: PPOSelfPlayConfig) -> dict[str, Any]:
    """MaskablePPO's keyword arguments that come from the config (the network and the update)."""
    return {
        "n_steps": cfg.n_steps,
        "batch_size": cfg.batch_size,
        "n_epochs": cfg.n_epochs,
        "learning_rate": cfg.learning_rate,
        "gamma": cfg.gamma,
        "gae_lambda": cfg.gae_lambda,
        "clip_range": cfg.clip_range,
        "ent_coef": cfg.ent_coef,
        "target_kl": cfg.target_kl,
        "policy_kwargs": {"net_arch": list(cfg.net_arch)},
        "seed": cfg.seed,
    }


def train(cfg: PPOSelfPlayConfig, quiet: bool = False) -> Path:
    """Train (or resume) the run of `cfg`; returns the final model's path.  `training.json` in
    the run folder records the session: steps, seconds, CPU seconds and the measured env
    agent-steps per learner step."""
    import torch

    run_dir = cfg.run_dir
    (run_dir / "pool").mkdir(parents=True, exist_ok=True)
    check_resumable(cfg, run_dir / "config.json")
    (run_dir / "config.json").write_text(json.dumps(dataclasses.asdict(cfg), indent=2))
    torch.manual_seed(cfg.seed)
    torch.set_num_threads(1)
    progress = None if quiet else Progress()
    model, venv = resume_or_start(cfg, progress, quiet)
    start_steps = model.num_timesteps
    callback = build_callbacks(cfg, run_dir, progress)
    start = time.perf_counter()
    cpu_start = time.process_time()
    learn(model, cfg, callback, progress)
    elapsed = time.perf_counter() - start
    cpu_main = time.process_time() - cpu_start
    cpu_envs = env_process_cpu_seconds(venv)
    save_checkpoint(model, run_dir / "checkpoints", cfg.keep_checkpoints)
    final = run_dir / "final_model.zip"
    save_model_atomically(model, final)  # to resume or fine-tune (pickle-based)
    from dune_env.policies.weights import export_policy

    export_policy(model, run_dir / "final_model")  # to share: final_model.safetensors + .json
    cpu_seconds = None if cpu_envs is None else cpu_main + cpu_envs
    write_session_record(cfg, model, start_steps, elapsed, cpu_seconds, callback.counts)
    venv.close()
    if not quiet:
        print(f"saved {final} after {model.num_timesteps} learner steps ({elapsed:.0f} s)")
    return final


def resume_or_start(cfg: PPOSelfPlayConfig, progress: Any, quiet: bool) -> tuple[Any, Any]:
    """(model, environments): resumed from the run's newest checkpoint that loads (with the
    configured optimisation settings), else a new model, started from `init_weights` and
    warm-started by behaviour cloning when `bc_games` is set."""
    run_dir = cfg.run_dir
    algorithm = algorithm_of(cfg)  # MaskablePPO, or KickstartedPPO

    def build_venv(start_steps: int) -> Any:
        return build_envs(cfg, run_dir / "pool", start_steps)

    resumed = (
        resume_from_checkpoint(run_dir, cfg.device, build_venv, algorithm) if cfg.resume else None
    )
    if resumed is not None:
        model, venv = resumed
        # The configured optimisation settings apply to the resumed run.
        model.learning_rate = cfg.learning_rate
        model._setup_lr_schedule()
        model.ent_coef = cfg.ent_coef
        model.target_kl = cfg.target_kl
        configure_algorithm(model, cfg)
        model.tensorboard_log = str(run_dir / "tb")
        if not quiet:
            print(f"resuming {cfg.config_name}_seed{cfg.seed} from {model.num_timesteps} steps")
        return model, venv
    venv = build_venv(0)
    model = algorithm(
        "MlpPolicy",
        venv,
        **ppo_hyperparameters(cfg),
        tensorboard_log=str(run_dir / "tb"),
        device=cfg.device,
        verbose=0,
    )
    configure_algorithm(model, cfg)
    if cfg.init_weights:
        load_initial_weights(model, cfg.init_weights)
        save_snapshot(model, run_dir / "pool", 0, cfg.max_pool)  # the start, frozen
    if cfg.bc_games:
        rounds_dir = run_dir / "behaviour_cloning_rounds"
        if not cfg.resume:
            shutil.rmtree(rounds_dir, ignore_errors=True)  # start the imitation afresh
        stats = behaviour_clone(model, cfg, rounds_dir, progress)
        (run_dir / "behaviour_cloning.json").write_text(json.dumps(stats, indent=2))
        save_snapshot(model, run_dir / "pool", 0, cfg.max_pool)  # the imitation, frozen
    return model, venv


def learn(model: Any, cfg: PPOSelfPlayConfig, callback: Any, progress: Any) -> None:
    """PPO from the model's step count up to `total_timesteps` (nothing if already there)."""
    remaining = cfg.total_timesteps - model.num_timesteps
    if remaining <= 0:
        return
    if progress is not None:
        progress.start("PPO", cfg.total_timesteps, "steps", done=model.num_timesteps)
    model.learn(
        total_timesteps=remaining,
        callback=with_teacher_labels(callback, cfg),
        reset_num_timesteps=False,
        tb_log_name=f"{cfg.config_name}_seed{cfg.seed}",
    )
    if progress is not None:
        progress.update(model.num_timesteps)
        progress.finish()


def write_session_record(
    cfg: PPOSelfPlayConfig,
    model: Any,
    start_steps: int,
    elapsed: float,
    cpu_seconds: float | None,
    counts: dict[str, int],
) -> None:
    """`training.json`: the session's steps, seconds, CPU seconds (this process and the
    environment processes) and throughput."""
    from dune_env.policies.weights import atomic_write_bytes

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
        "session_seed": session_seed(cfg, start_steps),
    }
    atomic_write_bytes(cfg.run_dir / "training.json", json.dumps(record, indent=2).encode())


def main(argv: list[str] | None = None) -> int:
    cfg = config_from_cli(
        PPOSelfPlayConfig, sys.argv[1:] if argv is None else argv, "python -m training.ppo_selfplay"
    )
    from dune_env.policies.registry import PolicyLoadError

    try:
        with sigterm_as_interrupt():  # a scheduler's stop, as Ctrl-C: one line, then resume
            train(cfg)
    except (PolicyLoadError, ResumeError) as exc:
        print(f"ppo_selfplay: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(
            f"\nppo_selfplay: interrupted; the same command resumes {cfg.out_dir}/"
            f"{cfg.config_name}_seed{cfg.seed} from its newest checkpoint (one every "
            f"{cfg.checkpoint_interval} steps)",
            file=sys.stderr,
        )
        return 130
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
