"""The configuration field groups of the training recipes, each declared once.

A recipe's configuration is a dataclass of groups (`GroupedConfig`): `run` (name, seed,
players, folder), `ppo` (the update), `env` (the environments), `pool` (the opponents),
`evaluation`, `checkpoints`, `imitation` (the behaviour-cloning warm start), `kickstart` (the
imitation term and warm-start weights).  A recipe keeps the groups it reads and sets its own
defaults (`group(PPOFields, n_steps=64)`); each helper takes the group it reads, never the
whole configuration.  Keys stay flat in YAML files and on the command line (`n_steps`,
`--n-steps`; `training.config_utils`), and a configuration is built from flat keys too:
`PPOSelfPlayConfig(seed=1, n_steps=64)`.  A group checks its own fields when it is built; a
recipe checks what spans groups in its `__post_init__`.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from training.config_utils import ConfigKeyError, flat_fields

OPPONENT_WEIGHTINGS = ("uniform", "pfsp")
EVAL_MODES = ("each", "lineup")
BC_SETTINGS = ("selfplay", "lineup")
HEURISTICS = ("aggressive", "economic")
"""The default `heuristic_opponents`."""


def check_opponent_mix(p_self: float, p_heuristic: float, p_random: float) -> None:
    """Raise ValueError unless the three shares of opponent seats (a snapshot of the learner, a
    heuristic, the random policy) are each in [0, 1] and sum to 1."""
    shares = {"p_self": p_self, "p_heuristic": p_heuristic, "p_random": p_random}
    for name, value in shares.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
            raise ValueError(f"{name}={value!r} must be a probability in [0, 1]")
    total = p_self + p_heuristic + p_random
    if abs(total - 1.0) > 1e-6:
        raise ValueError(
            "the opponent mix p_self + p_heuristic + p_random must sum to 1 (the chances that "
            f"a seat is a snapshot of the learner, a heuristic, the random policy); got "
            f"{p_self} + {p_heuristic} + {p_random} = {total:g}"
        )


def _at_least(group: Any, minimum: float, *names: str) -> None:
    for name in names:
        value = getattr(group, name)
        if not value >= minimum:
            raise ConfigKeyError(f"{name}={value!r} must be >= {minimum:g}")


def _builtin(name: str, value: str) -> None:
    from dune_env.policies.registry import BUILTIN_POLICIES

    if value not in BUILTIN_POLICIES:
        raise ConfigKeyError(
            f"{name}={value!r} is not a built-in policy; use one of {sorted(BUILTIN_POLICIES)}"
        )


@dataclass
class RunFields:
    """The run: its name, seed, players and folder."""

    config_name: str = "run"
    """Name of the configuration; the run folder is {out_dir}/{config_name}_seed{seed}."""
    seed: int = 0
    """Seed of everything: environments, opponents, network initialisation."""
    num_players: int = 4
    """Players per game (3-8)."""
    out_dir: str = "runs"
    """Parent folder of the run folder (checkpoints, logs, the final model)."""
    resume: bool = True
    """Continue the run from the newest checkpoint in its run folder, if there is one (rerun
    the same command to continue a run across sessions); false starts it again."""
    trust_checkpoints: bool = False
    """Allow a pickle-based model named by this configuration (an SB3 .zip or RLlib folder as
    `bc_policy` or `init_from`), which can run code when loaded.  The run's own checkpoints
    under its run folder are always trusted."""

    def __post_init__(self) -> None:
        if isinstance(self.num_players, bool) or not 3 <= self.num_players <= 8:
            raise ConfigKeyError(f"num_players={self.num_players!r} is not valid; use 3..8")


@dataclass
class PPOFields:
    """PPO: the length of the run and the update."""

    total_timesteps: int = 1_000_000
    """Learner decisions to train for (opponents' decisions are not counted; a resumed run
    continues to this)."""
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
    target_kl: float | None = None
    """Stop an update's epochs early once the approximate KL divergence from the rollout's
    policy exceeds 1.5 x target_kl (sb3's option; None: never)."""
    net_arch: tuple[int, ...] = (256, 256)
    """Hidden layers of the policy and value networks (tanh)."""
    device: str = "cpu"
    """Torch device."""
    torch_threads: int = 1
    """Torch threads of the learner's PPO update (the rollouts always use 1: the environment
    processes use the cores then, and the update runs while they wait)."""

    def __post_init__(self) -> None:
        _at_least(self, 1, "torch_threads")
        _at_least(self, 0, "total_timesteps")
        if self.target_kl is not None and not self.target_kl > 0:
            raise ConfigKeyError(f"target_kl={self.target_kl!r} must be > 0 (or none: off)")

    def hyperparameters(self, seed: int) -> dict[str, Any]:
        """The keyword arguments of sb3's (Maskable)PPO that come from this group."""
        return {
            "n_steps": self.n_steps,
            "batch_size": self.batch_size,
            "n_epochs": self.n_epochs,
            "learning_rate": self.learning_rate,
            "gamma": self.gamma,
            "gae_lambda": self.gae_lambda,
            "clip_range": self.clip_range,
            "ent_coef": self.ent_coef,
            "target_kl": self.target_kl,
            "seed": seed,
        }


@dataclass
class EnvFields:
    """The environments: processes, games per process, reward shaping."""

    n_envs: int = 2
    """Parallel environments, one process each (use the available cores)."""
    envs_per_process: int = 1
    """Games per process (> 1: a batched vector env, `dune_env.vector`, in each of the n_envs
    processes, its frozen-snapshot opponents answered in batches; n_steps is then per game)."""
    shaping: float = 0.0
    """Potential-based reward shaping weight (0: off, the pure game reward).  The potential is
    `shaping` x strategic regions the learner controls; shaping terms telescope, so a game's
    return differs from its reward only by that potential at the end (Ng et al., 1999)."""


@dataclass
class PoolFields:
    """The opponent pool: who sits in the other seats."""

    p_self: float = 0.4
    """Probability that an opponent seat is a frozen snapshot of the learner (a heuristic while
    the pool has none).  p_self + p_heuristic + p_random must be 1."""
    p_heuristic: float = 0.6
    """Probability that an opponent seat is a built-in heuristic (one of `heuristic_opponents`)."""
    p_random: float = 0.0
    """Probability that an opponent seat is the random policy (0: never; the benchmark's
    line-ups have no random seat, and a random seat makes games easy for everyone else)."""
    heuristic_opponents: tuple[str, ...] = HEURISTICS
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

    def __post_init__(self) -> None:
        from dune_env.policies.registry import BUILTIN_POLICIES

        if self.opponent_weighting not in OPPONENT_WEIGHTINGS:
            raise ConfigKeyError(
                f"opponent_weighting={self.opponent_weighting!r} is not valid; use one of "
                f"{OPPONENT_WEIGHTINGS}"
            )
        _at_least(self, 0, "pfsp_exponent", "pfsp_prior_games")
        try:
            check_opponent_mix(self.p_self, self.p_heuristic, self.p_random)
        except ValueError as exc:
            raise ConfigKeyError(str(exc)) from None
        unknown = [n for n in self.heuristic_opponents if n not in BUILTIN_POLICIES]
        if not self.heuristic_opponents or unknown:
            raise ConfigKeyError(
                f"heuristic_opponents={list(self.heuristic_opponents)!r}: need at least one, "
                f"each a built-in policy (unknown: {unknown}; built-in: {sorted(BUILTIN_POLICIES)})"
            )


@dataclass
class EvaluationFields:
    """The periodic evaluation with the benchmark harness, and the best model kept."""

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

    def __post_init__(self) -> None:
        if self.eval_mode not in EVAL_MODES:
            raise ConfigKeyError(
                f"eval_mode={self.eval_mode!r} is not valid; use one of {EVAL_MODES}"
            )


@dataclass
class CheckpointFields:
    """Checkpoints: the resumable .zip files and their safe exports."""

    checkpoint_interval: int = 50_000
    """Learner steps between numbered checkpoints (each exported beside it in the safe format;
    latest.zip, the point a rerun resumes from, is written after every rollout)."""
    keep_checkpoints: int = 3
    """Most recent numbered checkpoint .zip files kept (resuming falls back to an older one
    when the newest does not load); their safe exports are all kept."""

    def __post_init__(self) -> None:
        _at_least(self, 1, "checkpoint_interval", "keep_checkpoints")


@dataclass
class ImitationFields:
    """Behaviour cloning (and DAgger) before PPO: training/imitation.py, training/dagger.py."""

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
    bc_setting: str = "selfplay"
    """Where the imitation's data comes from: "selfplay" (bc_policy in every seat, then the
    clone in every seat; bc-4p's recipe) or "lineup" (the benchmark's setting, with a held-out
    set, early stopping and fine-tuning across rounds: training/dagger.py)."""
    bc_learner_seats: int = 1
    """lineup: the clone's seats in each DAgger game (the others are heuristic_opponents)."""
    bc_heldout_games: int = 20
    """lineup: held-out games per round, for the NLL and agreement logged after each epoch."""
    bc_patience: int = 1
    """lineup: epochs without a lower held-out NLL before a round stops (its best epoch kept)."""
    bc_replay: float = 1.0
    """lineup: each round trains on its new data plus this many times as many samples drawn
    from the earlier rounds' data."""
    bc_kind_weights: dict[str, float] = field(default_factory=dict)
    """lineup: loss weight of each decision kind by name (e.g. {FIX_DICE: 2.0, BID: 2.0}); 1
    for the kinds not named."""

    def __post_init__(self) -> None:
        from dune_env.engine.decisions import DecisionKind

        if self.bc_setting not in BC_SETTINGS:
            raise ConfigKeyError(
                f"bc_setting={self.bc_setting!r} is not valid; use one of {BC_SETTINGS}"
            )
        if self.bc_setting == "lineup" and self.bc_heldout_games < 1:
            raise ConfigKeyError("bc_setting lineup needs bc_heldout_games >= 1 (early stopping)")
        _at_least(self, 0, "bc_patience", "bc_replay")
        kinds = [k.name for k in DecisionKind]
        unknown = [k for k in self.bc_kind_weights if k not in kinds]
        bad = [k for k, w in self.bc_kind_weights.items() if not float(w) >= 0]
        if unknown or bad:
            raise ConfigKeyError(
                f"bc_kind_weights: unknown kinds {unknown} or negative weights {bad}; "
                f"kinds: {kinds}"
            )


@dataclass
class KickstartFields:
    """Kickstarting (training/kickstart.py) and the warm start from a saved model's weights."""

    init_weights: str = ""
    """A safe-format model (a shipped name such as bc-4p, or a .safetensors / .json path) whose
    policy and value weights start a new run; its network must be `net_arch` (tanh) on today's
    observation.  Ignored when the run resumes from a checkpoint ("": random initialisation)."""
    kickstart_teacher: str = ""
    """A built-in engine policy (e.g. strategist) whose choice at each of the learner's own
    decisions the policy is pulled towards: loss = PPO + lambda x cross-entropy(teacher's
    action).  Needs envs_per_process > 1 (the batched envs label the states).  "": plain PPO."""
    kickstart_coef_start: float = 1.0
    """lambda at learner step 0."""
    kickstart_coef_end: float = 0.1
    """lambda after `kickstart_anneal_steps` learner steps, and from then on."""
    kickstart_anneal_steps: int = 1_000_000
    """Learner steps over which lambda falls linearly from start to end (counted from the
    run's step 0, so a resumed run continues the schedule; 0: the end value throughout)."""
    critic_warmup_rollouts: int = 0
    """Rollouts at the start of the run whose updates train the value network only (no policy,
    entropy or imitation term), so that the first policy updates use advantages from a critic
    fitted to the learner's own games rather than to the imitation data's."""

    def __post_init__(self) -> None:
        if self.kickstart_teacher:
            _builtin("kickstart_teacher", self.kickstart_teacher)
        _at_least(self, 0, "kickstart_coef_start", "kickstart_coef_end")
        _at_least(self, 0, "kickstart_anneal_steps", "critic_warmup_rollouts")

    @property
    def uses_kickstart_ppo(self) -> bool:
        """Whether the run needs `KickstartedPPO` (an imitation term or a critic warm-up)."""
        return bool(self.kickstart_teacher) or self.critic_warmup_rollouts > 0


def group(kind: type, **defaults: Any) -> Any:
    """A group field of a recipe's configuration, with the recipe's defaults."""
    return field(default_factory=lambda: kind(**defaults))


@dataclass(init=False)
class GroupedConfig:
    """A configuration of field groups, built from flat keys: `Config(seed=1, n_steps=64)`
    (or whole groups: `Config(run=RunFields(seed=1))`); each flat key goes to its group, which
    checks it, then `__post_init__` checks across groups.  `ALIASES`: former key names."""

    ALIASES: ClassVar[dict[str, str]] = {}

    run: RunFields = group(RunFields)

    def __init__(self, **values: Any) -> None:
        owners = flat_fields(type(self))
        changes: dict[str, dict[str, Any]] = defaultdict(dict)
        for f in dataclasses.fields(self):
            given = values.pop(f.name, None)
            default: Any = f.default_factory
            setattr(self, f.name, given if given is not None else default())
        for key, value in values.items():
            key = self.ALIASES.get(key, key)
            if key not in owners:
                raise ConfigKeyError(
                    f"{type(self).__name__} has no field {key!r}; known: {list(owners)}"
                )
            owner, _ = owners[key]
            changes[owner or ""][key] = value
        for owner, group_changes in changes.items():
            setattr(self, owner, dataclasses.replace(getattr(self, owner), **group_changes))
        self.__post_init__()

    def __post_init__(self) -> None:
        """Checks that span groups (a recipe adds its own)."""

    @property
    def run_dir(self) -> Path:
        """The run folder: checkpoints, logs and outputs of every session of the run."""
        return Path(self.run.out_dir) / f"{self.run.config_name}_seed{self.run.seed}"


@dataclass(init=False)
class TrainingConfig(GroupedConfig):
    """The groups of every stable-baselines3 recipe (the skeleton, training/skeleton.py,
    reads these); a recipe adds its own groups."""

    ppo: PPOFields = group(PPOFields)
    env: EnvFields = group(EnvFields)
    checkpoints: CheckpointFields = group(CheckpointFields)

    FIXED_ON_RESUME: ClassVar[tuple[str, ...]] = (
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
    """Settings a resumed run cannot change: the saved model and its rollout buffer carry them.
    (learning_rate, ent_coef and target_kl are re-applied on resume; the rest may change.)"""

    def __post_init__(self) -> None:
        _at_least(self.env, 1, "n_envs", "envs_per_process")
