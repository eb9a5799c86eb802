"""Search distillation with DAgger (issue 35): an observation-only network trained on what a
search (`mcts-strategist-16`) chooses at the network's own decisions, in the benchmark's
setting.

    python -m training.distill --config configs/distill_4p.yaml      # rerun to resume
    dune-bench --policies runs/distill_4p_seed0/final_model.safetensors strategist economic \
        aggressive --players 4 --duplicate

Imitating the strategist stops near 88% agreement and is level with it (docs/training.md, the
agreement curve); the search on the strategist is stronger than the strategist, and its root
statistics (visits of every candidate) say more than one choice.  Here:

1. `DistillConfig`: the run, ppo (the network, and PPO after the rounds: 0 steps by default),
   env, checkpoints and `distill` groups.
2. The rounds (`distill_rounds`, the warm start): round 0's learner seats are played by the
   teacher itself (or by the student, `first_player`), each later round's by the student as the
   round before left it, greedy; every decision with a choice of a learner seat is labelled by
   the teacher (`training/search_labels.py`: the games, on disk in chunks, in `workers`
   processes; a rerun resumes after the last chunk and the last fitted round).
3. The fit (`fit_round`): the cloning loss with the search's target distribution
   (`training.cloning.distill_epoch`: its choice, and `visit_share` spread over its candidates by
   their visits) on every round's data so far (`window`: the last rounds only), epoch by epoch
   until the round's held-out cross-entropy stops falling (`patience`), the best epoch kept.
4. The learning curve (`evaluate_round`): after every round the student, exported in the safe
   format, is measured by the harness in each of `curve_lineups` (duplicate deals, the default
   balanced seatings, `curve_games` games on `curve_seed`): its paired strength minus each other
   policy, one line per round in `curves.jsonl`, with the held-out agreement.
5. PPO after the rounds (`total_timesteps` > 0; `AnchorFields`): from the distilled weights,
   against the pool (`pool`: the heuristics and the learner's own snapshots, PFSP-weighted if
   asked), with a KL anchor to the last round's student annealed from `anchor_coef_start` to
   `anchor_coef_end` (`training.kickstart.AnchoredPPO`), the periodic line-up evaluation
   (`evaluation`) and checkpoints in the safe format.
6. The hooks in the skeleton (`training/skeleton.py`): the model is sb3-contrib's MaskablePPO
   `MlpPolicy` (exported as any network of this kind: `WeightsPolicy` plays it, numpy only).
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from training import skeleton
from training.config_utils import ConfigKeyError
from training.evaluate import lineup_of
from training.fields import (
    CheckpointFields,
    EnvFields,
    EvaluationFields,
    PoolFields,
    PPOFields,
    RunFields,
    TrainingConfig,
    group,
)

FIRST_PLAYERS = ("teacher", "student")
OPPONENTS = ("strategist", "economic", "aggressive")
SOURCE = {"algorithm": "search distillation with DAgger (training/distill.py)"}

# --- 1. The configuration ------------------------------------------------------------------------


@dataclass
class DistillFields:
    """The distillation: the teacher, the rounds, the fit and the learning curve."""

    teacher: str = "mcts-strategist-16"
    """The labelling policy: a built-in engine policy or a shipped model (e.g. residual-4p); a
    search (mcts-*) labels with its root statistics, any other with its choice."""
    init_weights: str = "bc-4p"
    """The student's start: a safe-format model of the configured network ("": random)."""
    rounds: int = 6
    """DAgger rounds, round 0 included."""
    first_player: str = "teacher"
    """Who plays the learner's seats in round 0: "teacher" (its labels are then its own moves)
    or "student" (the start, `init_weights`)."""
    games_per_round: int = 1000
    """Labelled games per round."""
    heldout_games: int = 40
    """Held-out games per round (other seeds): early stopping and the agreement curve."""
    chunk_games: int = 20
    """Games per chunk file (the unit of resuming and of the workers' jobs)."""
    learner_seats: int = 1
    """Seats of the learner in each game (the benchmark has one)."""
    opponents: tuple[str, ...] = OPPONENTS
    """The policies of the other seats (in turn, shuffled per game); `student` seats one more
    learner (self-play; its decisions are labelled too)."""
    visit_share: float = 0.5
    """The target's share spread over the search's candidates by their visits (the rest on its
    choice); 0: the choice alone."""
    epochs: int = 8
    """Most passes over a round's data."""
    patience: int = 1
    """Epochs without a lower held-out cross-entropy before a round stops (best epoch kept)."""
    window: int = 0
    """Rounds of data each fit uses, the newest (0: every round so far)."""
    distill_learning_rate: float = 3e-4
    """Adam learning rate of the fit."""
    distill_batch_size: int = 512
    """Minibatch of the fit."""
    kind_weights: dict[str, float] = field(default_factory=dict)
    """Loss weight per decision kind by name (1 for the others)."""
    workers: int = 2
    """Processes that play the labelled games and the evaluations."""
    curve_games: int = 1008
    """Games per evaluation line-up after each round (rounded up to whole deals; 0: none)."""
    curve_lineups: tuple[str, ...] = (
        "strategist economic aggressive",
        "strategist economic-eps20 aggressive-eps20",
    )
    """The other policies of each evaluation line-up (the student is added first)."""
    curve_seed: int = 100
    """Seed of the evaluations (the same deals every round)."""

    def __post_init__(self) -> None:
        from dune_env.engine.decisions import DecisionKind
        from dune_env.policies.registry import BUILTIN_POLICIES, SHIPPED_MODELS
        from training.search_labels import STUDENT

        known = sorted(BUILTIN_POLICIES) + sorted(SHIPPED_MODELS)
        if self.teacher not in known:
            raise ConfigKeyError(
                f"teacher={self.teacher!r} is not a built-in policy or a shipped model; use one "
                f"of {known}"
            )
        unknown = [o for o in self.opponents if o not in (*known, STUDENT)]
        if not self.opponents or unknown:
            raise ConfigKeyError(
                f"opponents={list(self.opponents)!r}: need at least one, each a built-in policy, "
                f"a shipped model or {STUDENT!r} (unknown: {unknown})"
            )
        if self.first_player not in FIRST_PLAYERS:
            raise ConfigKeyError(
                f"first_player={self.first_player!r} is not valid; use one of {FIRST_PLAYERS}"
            )
        at_least_one = ("rounds", "games_per_round", "heldout_games", "chunk_games", "epochs",
                        "distill_batch_size", "workers")  # fmt: skip
        for name in at_least_one:
            if getattr(self, name) < 1:
                raise ConfigKeyError(f"{name}={getattr(self, name)!r} must be >= 1")
        for name in ("patience", "window", "curve_games"):
            if getattr(self, name) < 0:
                raise ConfigKeyError(f"{name}={getattr(self, name)!r} must be >= 0")
        if not self.distill_learning_rate > 0:
            raise ConfigKeyError(
                f"distill_learning_rate={self.distill_learning_rate!r} must be > 0"
            )
        for lineup in self.curve_lineups:
            unknown = [name for name in lineup.split() if name not in known]
            if not lineup.split() or unknown:
                raise ConfigKeyError(
                    f"curve_lineups: {lineup!r} needs built-in policies or shipped models "
                    f"(unknown: {unknown}); use names of {known}"
                )
        if not 0.0 <= self.visit_share <= 1.0:
            raise ConfigKeyError(f"visit_share={self.visit_share!r} must be in [0, 1]")
        kinds = [k.name for k in DecisionKind]
        unknown = [k for k in self.kind_weights if k not in kinds]
        if unknown:
            raise ConfigKeyError(f"kind_weights: unknown kinds {unknown}; kinds: {kinds}")
        negative = {k: w for k, w in self.kind_weights.items() if not w >= 0}
        if negative:
            raise ConfigKeyError(f"kind_weights: {negative} must be >= 0")


@dataclass
class AnchorFields:
    """PPO after the rounds (`total_timesteps` > 0): the pull towards the distilled student."""

    anchor_coef_start: float = 0.0
    """lambda of the KL divergence from the distilled student (the last round's, frozen) to the
    policy at PPO's first step (`training.kickstart.AnchoredPPO`); 0 with anchor_coef_end 0:
    plain PPO."""
    anchor_coef_end: float = 0.0
    """lambda after `anchor_anneal_steps` learner steps, and from then on."""
    anchor_anneal_steps: int = 1_000_000
    """Learner steps over which lambda falls linearly from start to end."""
    critic_warmup_rollouts: int = 0
    """Rollouts at PPO's start whose updates train the value network only."""
    sharpen: float = 1.0
    """The policy head's weights and bias multiplied by this before PPO: the greedy choices
    stay the student's, the sampled policy leaves them more rarely (as residual PPO starts
    sharp around the strategist).  The sharpened start is the anchor."""

    def __post_init__(self) -> None:
        if not self.sharpen > 0:
            raise ConfigKeyError(f"sharpen={self.sharpen!r} must be > 0")
        for name in ("anchor_coef_start", "anchor_coef_end", "anchor_anneal_steps"):
            if not getattr(self, name) >= 0:
                raise ConfigKeyError(f"{name}={getattr(self, name)!r} must be >= 0")

    @property
    def anchored(self) -> bool:
        """PPO needs `AnchoredPPO`: an anchor term or a critic warm-up."""
        coefs = (self.anchor_coef_start, self.anchor_coef_end, self.critic_warmup_rollouts)
        return any(c > 0 for c in coefs)


@dataclass(init=False)
class DistillConfig(TrainingConfig):
    """The experiment's settings (`configs/distill_4p.yaml`), by group (`training/fields.py`)."""

    run: RunFields = group(RunFields, config_name="distill_4p")
    ppo: PPOFields = group(PPOFields, total_timesteps=0, net_arch=(256, 256))
    env: EnvFields = group(EnvFields, n_envs=1, envs_per_process=8)
    pool: PoolFields = group(PoolFields, p_self=0.0, p_heuristic=1.0, heuristic_opponents=OPPONENTS)
    evaluation: EvaluationFields = group(
        EvaluationFields, eval_interval=0, eval_mode="lineup", eval_games=1008
    )
    checkpoints: CheckpointFields = group(CheckpointFields, checkpoint_interval=500_000)
    distill: DistillFields = group(DistillFields)
    anchor: AnchorFields = group(AnchorFields)

    FIXED_ON_RESUME: ClassVar[tuple[str, ...]] = TrainingConfig.FIXED_ON_RESUME
    ROUND_SETTINGS: ClassVar[tuple[str, ...]] = (
        "num_players", "seed", "net_arch", "teacher", "init_weights", "first_player",
        "games_per_round", "heldout_games", "chunk_games", "learner_seats", "opponents",
        "visit_share", "window", "distill_learning_rate", "distill_batch_size", "kind_weights",
    )  # fmt: skip
    """What the saved rounds depend on: a rerun with other values is refused (`rounds`,
    `epochs`, `patience`, the evaluation and `workers` may change)."""

    def __post_init__(self) -> None:
        super().__post_init__()
        d, players = self.distill, self.run.num_players
        if not 1 <= d.learner_seats < players:
            raise ConfigKeyError(f"learner_seats={d.learner_seats!r} must be 1..{players - 1}")


# --- 2. The rounds -------------------------------------------------------------------------------


class RoundFiles:
    """Where the rounds live in the run folder: `data/round{r}/` (the labelled games),
    `rounds/round{r}.pt` + `.json` (the fitted weights with the optimiser, the statistics),
    `rounds/student_{r}.safetensors` + `.json` (the student after round r, in the safe
    format), `curves.jsonl` (the learning curve), `rounds/settings.json`."""

    def __init__(self, run_dir: Path) -> None:
        self.data = run_dir / "data"
        self.rounds = run_dir / "rounds"
        self.curves = run_dir / "curves.jsonl"

    def data_of(self, round_: int) -> Path:
        return self.data / f"round{round_}"

    def weights(self, round_: int) -> Path:
        return self.rounds / f"round{round_}.pt"

    def student(self, round_: int) -> Path:
        """The student after round `round_` (-1: the start) in the safe format."""
        name = "student_start" if round_ < 0 else f"student_{round_}"
        return self.rounds / f"{name}.safetensors"

    @property
    def ppo_start(self) -> Path:
        """The model PPO starts from (the last round's student, sharpened): its anchor."""
        return self.rounds / "ppo_start.safetensors"

    def fitted(self) -> int:
        """How many rounds are fitted (saved in order)."""
        count = 0
        while self.weights(count).is_file() and self.student(count).is_file():
            count += 1
        return count

    def curve(self) -> dict[int, dict[str, Any]]:
        if not self.curves.is_file():
            return {}
        lines = [json.loads(line) for line in self.curves.read_text().splitlines() if line]
        return {int(line["round"]): line for line in lines}


def check_round_settings(cfg: DistillConfig, files: RoundFiles) -> None:
    """Record the settings the saved rounds depend on, or refuse to continue with others."""
    from dune_env.policies.weights import atomic_write_bytes
    from training.checkpoints import ResumeError
    from training.config_utils import flat_dict

    flat = json.loads(json.dumps(flat_dict(cfg)))
    now = {k: flat[k] for k in cfg.ROUND_SETTINGS}
    path = files.rounds / "settings.json"
    if path.is_file():
        before = json.loads(path.read_text())
        changed = [k for k in now if before.get(k) != now[k]]
        if changed:
            raise ResumeError(
                f"{files.rounds} holds rounds made with other "
                f"{', '.join(f'{k}={before.get(k)!r}' for k in changed)}; use the same settings, "
                "another --config-name or --seed, or --resume false"
            )
        return
    files.rounds.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(path, json.dumps(now, indent=2).encode())


def distill_rounds(cfg: DistillConfig, model: Any, progress: Any = None) -> None:
    """The rounds (the module docstring), resumed after the last fitted one."""
    import shutil

    from training.search_labels import Chunk, collect_round, round_cpu_seconds

    d, files = cfg.distill, RoundFiles(cfg.run_dir)
    if not cfg.run.resume:
        for folder in (files.data, files.rounds):
            shutil.rmtree(folder, ignore_errors=True)
        files.curves.unlink(missing_ok=True)
    check_round_settings(cfg, files)
    fitted = files.fitted()
    if fitted:
        load_round(model, files, fitted - 1)
        print(f"distill: rounds 0-{fitted - 1} fitted in an earlier session, loaded")
    elif not files.student(-1).is_file():
        export(model, files.student(-1).with_suffix(""))
    for round_ in range(fitted, d.rounds):
        started, cpu = time.perf_counter(), time.process_time()
        teacher_plays = round_ == 0 and d.first_player == "teacher"
        chunk = Chunk(
            num_players=cfg.run.num_players,
            teacher=d.teacher,
            student="" if teacher_plays else str(files.student(round_ - 1)),
            opponents=tuple(d.opponents),
            learner_seats=d.learner_seats,
            run_seed=cfg.run.seed,
            round_=round_,
            games=(),
            heldout=False,
        )
        collect_round(
            files.data_of(round_), chunk, d.games_per_round, d.heldout_games, d.chunk_games,
            d.workers, progress,
        )  # fmt: skip
        collected = time.perf_counter() - started
        stats = fit_round(cfg, model, files, round_)
        stats |= {"collect_seconds": collected, "seconds": time.perf_counter() - started}
        stats["main_cpu_seconds"] = time.process_time() - cpu  # the fit and this process
        stats["label_cpu_seconds"] = round_cpu_seconds(files.data_of(round_))  # the games
        save_round(model, files, round_, stats)
        export(model, files.student(round_).with_suffix(""))
        evaluate_round(cfg, files, round_)
    measured = files.curve()
    for round_ in range(min(fitted, d.rounds)):  # fitted earlier, not yet measured
        if round_ not in measured:
            evaluate_round(cfg, files, round_)


def save_round(model: Any, files: RoundFiles, round_: int, stats: dict[str, Any]) -> None:
    """The policy's and its optimiser's tensors after `round_` (read back with
    `weights_only=True`), then its statistics; each written atomically."""
    import io

    import torch

    from dune_env.policies.weights import atomic_write_bytes

    files.rounds.mkdir(parents=True, exist_ok=True)
    buffer = io.BytesIO()
    torch.save(
        {"policy": model.policy.state_dict(), "optimizer": optimiser(model).state_dict()}, buffer
    )
    atomic_write_bytes(
        files.weights(round_).with_suffix(".json"), json.dumps(stats, indent=2).encode()
    )
    atomic_write_bytes(files.weights(round_), buffer.getvalue())


def load_round(model: Any, files: RoundFiles, round_: int) -> None:
    import torch

    state = torch.load(files.weights(round_), map_location="cpu", weights_only=True)
    model.policy.load_state_dict(state["policy"])
    optimiser(model).load_state_dict(state["optimizer"])


def optimiser(model: Any) -> Any:
    """The fit's Adam (the policy's own optimiser; its learning rate set by `fit_round`)."""
    return model.policy.optimizer


# --- 3. The fit ----------------------------------------------------------------------------------


def fit_round(cfg: DistillConfig, model: Any, files: RoundFiles, round_: int) -> dict[str, Any]:
    """Fit the student on the data of the rounds in the window, epoch by epoch until round
    `round_`'s held-out cross-entropy stops falling; the best epoch's weights are kept.  The
    statistics: samples, each epoch's training and held-out figures, the best."""

    from training.cloning import (
        distill_epoch,
        distill_fit,
        kind_weights,
        train_with_early_stopping,
    )
    from training.search_labels import Labels
    from training.search_labels import load_round as load_labels

    d = cfg.distill
    first = 0 if d.window <= 0 else max(0, round_ - d.window + 1)
    data = Labels.join(
        [load_labels(files.data_of(r), heldout=False) for r in range(first, round_ + 1)]
    )
    heldout = load_labels(files.data_of(round_), heldout=True)
    for group_ in optimiser(model).param_groups:
        group_["lr"] = d.distill_learning_rate
    rng = np.random.default_rng([cfg.run.seed, round_])
    weights = kind_weights(data.kinds, d.kind_weights) if d.kind_weights else None
    best = distill_fit(model.policy, heldout, d.visit_share)
    stats: dict[str, Any] = {"samples": data.size, "rounds": [first, round_], "start": best}
    print(
        f"distill round {round_}: {data.size:,} decisions; held-out before: cross-entropy "
        f"{best['cross_entropy']:.3f}, agreement {best['agreement']:.1%} with the teacher"
    )
    rows = np.arange(data.size)

    def one_epoch(epoch: int) -> tuple[dict[str, Any], dict[str, Any]]:
        ce, mse = distill_epoch(
            model.policy, data, rows, d.distill_batch_size, rng, d.visit_share, weights
        )
        fit = distill_fit(model.policy, heldout, d.visit_share)
        print(
            f"distill round {round_} epoch {epoch}: train {ce:.3f}, held-out cross-entropy "
            f"{fit['cross_entropy']:.3f}, agreement {fit['agreement']:.1%} with the teacher, "
            f"{fit['agreement_with_strategist']:.1%} with the strategist"
        )
        return {"train_cross_entropy": ce, "train_value_mse": mse}, fit

    return train_with_early_stopping(
        model.policy, d.epochs, d.patience, best, "cross_entropy", one_epoch, stats
    )


# --- 4. The learning curve -----------------------------------------------------------------------


def evaluate_round(cfg: DistillConfig, files: RoundFiles, round_: int) -> dict[str, Any]:
    """The student after `round_` in each evaluation line-up (paired strength minus each other
    policy), appended to curves.jsonl with the round's held-out agreement."""
    from training.evaluate import evaluate_lineup, paired_record

    d = cfg.distill
    student = str(files.student(round_))
    stats = json.loads(files.weights(round_).with_suffix(".json").read_text())
    line: dict[str, Any] = {
        "round": round_,
        "decisions": stats["samples"],
        "heldout_agreement": stats["best"]["agreement"],
        "heldout_agreement_with_strategist": stats["best"]["agreement_with_strategist"],
        "lineups": {},
    }
    if d.curve_games:
        for lineup in d.curve_lineups:
            others = lineup.split()
            summary = evaluate_lineup(
                student, others, cfg.run.num_players, d.curve_games, d.curve_seed, d.workers
            )
            line["lineups"][lineup] = {o: paired_record(summary, student, o) for o in others}
            shown = ", ".join(
                f"{o} {r['strength_diff']:+.2f}" if r["strength_diff"] is not None else f"{o} ?"
                for o, r in line["lineups"][lineup].items()
            )
            print(f"distill round {round_}: minus {shown} ({lineup})")
    with files.curves.open("a") as log:
        log.write(json.dumps(line) + "\n")
    return line


# --- 5. The environments, the model, the export: the hooks in the skeleton ----------------------


def build_env(cfg: DistillConfig, seed: int) -> Any:
    """The environments of PPO after the rounds (and the model's spaces): batched games, the
    learner rotating, the other seats drawn from the pool (`training/opponent_pool.py`)."""
    from training.opponent_pool import make_pool

    pool = make_pool(cfg.pool, cfg.run.num_players, cfg.run_dir / "pool")
    venv = skeleton.vector_env(cfg.env, cfg.run.num_players, pool, None)
    venv.seed(seed)
    return venv


def algorithm(cfg: DistillConfig) -> Any:
    """PPO's algorithm: sb3-contrib's MaskablePPO, or with an anchor `AnchoredPPO` (PPO plus
    lambda x KL from the distilled student)."""
    from sb3_contrib import MaskablePPO

    from training.kickstart import AnchoredPPO

    return AnchoredPPO if cfg.anchor.anchored else MaskablePPO


def build_model(cfg: DistillConfig, venv: Any) -> Any:
    """The algorithm with the MlpPolicy of `net_arch` (tanh)."""
    from training.checkpoints import RunFolder

    return skeleton.new_model(
        algorithm(cfg), "MlpPolicy", venv, cfg.ppo, cfg.run.seed, RunFolder(cfg.run_dir)
    )


def configure(cfg: DistillConfig, model: Any) -> None:
    """The anchor and its schedule (new and resumed models): PPO's start."""
    if not hasattr(model, "set_anchor"):
        return
    a = cfg.anchor
    model.set_anchor(str(RoundFiles(cfg.run_dir).ppo_start))
    model.kick_start, model.kick_end = a.anchor_coef_start, a.anchor_coef_end
    model.kick_anneal_steps = a.anchor_anneal_steps
    model.critic_warmup_steps = a.critic_warmup_rollouts * model.n_steps * model.n_envs


def warm_start(cfg: DistillConfig, model: Any, progress: Any) -> None:
    """`init_weights`, then the rounds, then (with PPO to follow) the head sharpened and the
    start exported: PPO's anchor."""
    import torch

    from training.initial_weights import load_initial_weights

    if cfg.distill.init_weights:
        load_initial_weights(model, cfg.distill.init_weights)
    distill_rounds(cfg, model, progress)
    if cfg.ppo.total_timesteps > 0:
        with torch.no_grad():
            model.policy.action_net.weight.mul_(cfg.anchor.sharpen)
            model.policy.action_net.bias.mul_(cfg.anchor.sharpen)
        export(model, RoundFiles(cfg.run_dir).ppo_start.with_suffix(""))


def export(model: Any, stem: Path) -> Path:
    """The policy network in the safe format (an observation-only `WeightsPolicy`)."""
    from dune_env.policies.weights import export_policy

    return export_policy(model, stem, SOURCE)


class Distill(skeleton.Recipe):
    """The hooks above in the skeleton (`training/skeleton.py`)."""

    config: DistillConfig

    def __init__(self, config: DistillConfig) -> None:
        from training.evaluate import EvaluationPlan
        from training.search_labels import STUDENT

        super().__init__(config)
        self.algorithm = algorithm(config)
        self.pool = config.pool
        heuristics = tuple(o for o in config.distill.opponents if o != STUDENT)
        self.evaluation = EvaluationPlan(
            config.evaluation, heuristics, config.run.num_players, config.run.seed
        )

    def configure(self, model: Any) -> None:
        configure(self.config, model)

    def build_env(self, seed: int) -> Any:
        return build_env(self.config, seed)

    def build_model(self, venv: Any) -> Any:
        return build_model(self.config, venv)

    def warm_start(self, model: Any, progress: Any) -> None:
        warm_start(self.config, model, progress)

    def warm_start_finished(self) -> bool:
        """Every round fitted and on the learning curve (more rounds configured: not)."""
        d, files = self.config.distill, RoundFiles(self.config.run_dir)
        curve = files.curve() if d.curve_games else {}
        return files.fitted() >= d.rounds and (
            not d.curve_games or all(r in curve for r in range(d.rounds))
        )

    def export(self, model: Any, stem: Path) -> Path:
        return export(model, stem)

    def benchmark_opponents(self) -> list[str]:
        return lineup_of(tuple(self.config.distill.opponents), self.config.run.num_players)


def train(cfg: DistillConfig, quiet: bool = False) -> Path:
    """Train (or resume) the run of `cfg`; the final model's .zip (its safe export beside it)."""
    return skeleton.train(Distill(cfg), quiet)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    return skeleton.main(Distill, DistillConfig, train, "distill", argv)


if __name__ == "__main__":
    raise SystemExit(main())
