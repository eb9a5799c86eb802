"""MaskablePPO self-play on `dune_v1`, against an opponent pool.

    python -m training.ppo_selfplay --config configs/ppo_4p.yaml [--total-timesteps 200000] ...

Read top to bottom:
1. `PPOSelfPlayConfig` (a `RunConfig`, shared with the RLlib recipe): every hyper-parameter,
   with a docstring; loaded from YAML, any field overridable as `--field-name value`.
2. `OpponentPool`: each episode, every other seat draws an opponent: a frozen snapshot of the
   learner (saved every `snapshot_interval` steps), a built-in heuristic, or the random policy,
   in the configured proportions; within a kind uniformly or by PFSP weights from the learner's
   results against each opponent (`PoolResults`, kept in the run's pool folder).
3. The environments: `DuneSingleAgentEnv` (one learning seat, rotating; rewards that arrive on
   other players' turns are credited to the learner) in `n_envs` processes, or with
   `envs_per_process` > 1 that many games per process as one batched vector env.
4. Callbacks: snapshots into the pool, the results of finished games (from their final infos),
   periodic evaluation with the benchmark harness (win rates against random and the
   heuristics, logged to TensorBoard), resumable checkpoints.
5. The training loop itself, and the final model.

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
from functools import lru_cache
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np

from training.config_utils import ConfigKeyError, RunConfig, config_from_cli
from training.progress import Progress


@dataclass
class PPOSelfPlayConfig(RunConfig):
    """Hyper-parameters of a MaskablePPO self-play run (the shared fields are `RunConfig`'s)."""

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
    """Probability that an opponent seat is a frozen snapshot of the learner (when any)."""
    p_heuristic: float = 0.3
    """Probability that an opponent seat is a built-in heuristic (one of `heuristic_opponents`)."""
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
    Vinyals et al. 2019): weight (1 - w)^pfsp_exponent, w = the learner's recorded win rate
    against that opponent, so the opponents it loses to are drawn more often."""
    pfsp_exponent: float = 2.0
    """Exponent of the pfsp weight (1 - win rate)^p: 0 is uniform, larger values focus harder on
    the opponents the learner loses to."""
    pfsp_prior_games: float = 4.0
    """Pseudo-games at the uniform win rate 1/num_players added to each opponent's record, so
    a new opponent starts at that rate and one lucky game does not decide its weight."""
    eval_interval: int = 100_000
    """Learner steps between evaluations (0: never)."""
    eval_games: int = 40
    """Games per evaluation opponent (seats rotated by the harness)."""
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
        from dune_env.policies.registry import BUILTIN_POLICIES

        unknown = [n for n in self.heuristic_opponents if n not in BUILTIN_POLICIES]
        if not self.heuristic_opponents or unknown:
            raise ConfigKeyError(
                f"heuristic_opponents={list(self.heuristic_opponents)!r}: need at least one, "
                f"each a built-in policy (unknown: {unknown}; built-in: {sorted(BUILTIN_POLICIES)})"
            )


OPPONENT_WEIGHTINGS = ("uniform", "pfsp")


# --- 2. The opponent pool ------------------------------------------------------------------------

HEURISTICS = ("aggressive", "economic")
"""The default `heuristic_opponents`."""


@lru_cache(maxsize=16)
def _frozen(path: str) -> Any:
    import torch

    from dune_env.policies.weights import WeightsPolicy

    # Snapshots play in the environment processes, one per core: a thread pool per process
    # would only compete for the cores (and spin while waiting, on a busy machine).  In the
    # training process the callbacks set the threads of each phase again.
    torch.set_num_threads(1)
    return WeightsPolicy(path)


class FrozenPolicy:
    """An observation policy playing a pool snapshot (safe format) greedily: the legal action
    with the highest logit.  The weights are read when the snapshot is drawn, so the pool may
    delete the file during the episode.  `name` (the snapshot's file stem) identifies it in the
    pool's recorded results."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.name = Path(path).with_suffix("").name
        self.network = _frozen(path)

    def __call__(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return int(self.act_batch(observation[None], np.asarray(action_mask)[None])[0])

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """One forward pass for all the games of a vector env waiting on this snapshot (no
        probability distribution is built: the greedy action is the masked argmax)."""
        logits = self.network.logits(observations).numpy()
        legal = np.asarray(masks, dtype=bool).reshape(logits.shape)
        return np.where(legal, logits, -np.inf).argmax(axis=1)


RESULTS_FILE = "results.json"


def learner_won(final_rewards: list[float], seat: int) -> bool:
    """The learner won the game: its final reward is the game's highest and not everyone's
    (so it holds whatever rewards END-7's configuration gives)."""
    best = max(final_rewards)
    return final_rewards[seat] == best and min(final_rewards) < best


class PoolResults:
    """The learner's record (games, wins) against each opponent of the pool, by name
    ("snapshot_000050000", "aggressive", "random", ...), kept in `{pool_dir}/results.json` so that
    a resumed run keeps it.  The training process records results and saves the file after each
    rollout; the environment processes read it (again when it changed) to weight their draws.
    """

    def __init__(self, pool_dir: str | Path) -> None:
        self.path = Path(pool_dir) / RESULTS_FILE
        self.records: dict[str, list[int]] = {}
        self._signature: tuple[int, ...] = ()
        self._dirty = False

    def record(self, opponents: list[str | None], won: bool) -> None:
        """One finished game against the named opponents (each distinct name counted once)."""
        for name in {n for n in opponents if n is not None}:
            games_wins = self.records.setdefault(name, [0, 0])
            games_wins[0] += 1
            games_wins[1] += int(won)
        self._dirty = True

    def win_rate(self, name: str, prior_rate: float, prior_games: float) -> float:
        """The learner's win rate against `name`, with `prior_games` pseudo-games at
        `prior_rate` (that rate for an opponent never played)."""
        games, wins = self.records.get(name, (0, 0))
        if games + prior_games == 0:
            return prior_rate
        return (wins + prior_rate * prior_games) / (games + prior_games)

    def weights(
        self, names: list[str], exponent: float, prior_rate: float, prior_games: float
    ) -> np.ndarray:
        """PFSP sampling probabilities of `names`: proportional to (1 - win rate)^exponent
        (uniform if every opponent is always beaten)."""
        raw = np.array(
            [(1.0 - self.win_rate(n, prior_rate, prior_games)) ** exponent for n in names]
        )
        total = raw.sum()
        return raw / total if total > 0 else np.full(len(names), 1.0 / len(names))

    def forget_missing(self, keep: set[str]) -> None:
        """Drop the records of snapshots no longer in the pool."""
        for name in [n for n in self.records if n.startswith("snapshot_") and n not in keep]:
            del self.records[name]
            self._dirty = True

    def save(self) -> None:
        """Write the records (atomically) if they changed since the last save."""
        if not self._dirty:
            return
        from dune_env.policies.weights import atomic_write_bytes

        data = {
            "version": 1,
            "opponents": {
                n: dict(zip(("games", "wins"), r, strict=True))
                for n, r in sorted(self.records.items())
            },
        }
        atomic_write_bytes(self.path, json.dumps(data, indent=1).encode())
        self._dirty = False

    def load(self) -> None:
        """Read the records from the file (none if there is no file)."""
        self.records = {}
        if self.path.is_file():
            data = json.loads(self.path.read_text())
            if not isinstance(data, dict) or data.get("version") != 1:
                raise ValueError(f"{self.path}: not a version-1 pool results file")
            for name, rec in data["opponents"].items():
                games, wins = int(rec["games"]), int(rec["wins"])
                if not 0 <= wins <= games:
                    raise ValueError(f"{self.path}: {name} has {wins} wins in {games} games")
                self.records[str(name)] = [games, wins]
        self._dirty = False

    def refresh(self) -> None:
        """Load the file again if it changed since it was last read."""
        try:
            stat = self.path.stat()
            signature: tuple[int, ...] = (stat.st_mtime_ns, stat.st_size, stat.st_ino)
        except FileNotFoundError:
            signature = ()
        if signature != self._signature:
            self.load()
            self._signature = signature


class OpponentPool:
    """Draws every other seat's opponent at each episode start (called by the wrapper's reset
    with its seeded generator, so the draws are reproducible).  Each seat is a frozen snapshot
    with probability p_self (when the pool has any), a heuristic with p_heuristic, else random;
    within a kind, the opponent is drawn uniformly or, with weighting="pfsp", by the weights of
    `PoolResults.weights` from the results recorded in the pool folder."""

    def __init__(
        self,
        pool_dir: str,
        num_players: int,
        p_self: float,
        p_heuristic: float,
        weighting: str = "uniform",
        pfsp_exponent: float = 2.0,
        pfsp_prior_games: float = 4.0,
        heuristics: tuple[str, ...] = HEURISTICS,
    ) -> None:
        if p_self < 0 or p_heuristic < 0 or p_self + p_heuristic > 1:
            raise ValueError("need p_self >= 0, p_heuristic >= 0 and p_self + p_heuristic <= 1")
        if weighting not in OPPONENT_WEIGHTINGS:
            raise ValueError(f"weighting={weighting!r}; use one of {OPPONENT_WEIGHTINGS}")
        self.pool_dir = Path(pool_dir)
        self.num_players = num_players
        self.p_self = p_self
        self.p_heuristic = p_heuristic
        self.weighting = weighting
        self.pfsp_exponent = pfsp_exponent
        self.pfsp_prior_games = pfsp_prior_games
        self.heuristics = tuple(heuristics)
        self.results = PoolResults(pool_dir)
        self._frozen_policies: dict[str, FrozenPolicy] = {}  # one per snapshot: batched calls

    def snapshots(self) -> list[str]:
        # The .json description is written last, so each one listed names complete tensors.
        return sorted(str(p) for p in self.pool_dir.glob("snapshot_*.json"))

    def probabilities(self, names: list[str]) -> np.ndarray:
        """The drawing probabilities of `names` (opponents of one kind) under the weighting."""
        if self.weighting == "uniform":
            return np.full(len(names), 1.0 / len(names))
        self.results.refresh()
        return self.results.weights(
            names, self.pfsp_exponent, 1.0 / self.num_players, self.pfsp_prior_games
        )

    def _pick(self, rng: np.random.Generator, names: list[str]) -> int:
        if self.weighting == "uniform":
            return int(rng.integers(len(names)))
        return int(rng.choice(len(names), p=self.probabilities(names)))

    def __call__(self, rng: np.random.Generator) -> list[Any]:
        from dune_env.policies.registry import PolicyLoadError, load_policy

        snaps = self.snapshots()
        # Forget snapshots the pool has deleted (episodes still playing them keep their copy).
        self._frozen_policies = {p: f for p, f in self._frozen_policies.items() if p in snaps}
        snap_names = [Path(p).with_suffix("").name for p in snaps]
        seats: list[Any] = []
        for _ in range(self.num_players):
            u = rng.random()
            if snaps and u < self.p_self:
                path = snaps[self._pick(rng, snap_names)]
                if path not in self._frozen_policies:
                    try:
                        self._frozen_policies[path] = FrozenPolicy(path)
                    except PolicyLoadError:  # deleted by the pool since it was listed
                        seats.append(None)
                        continue
                seats.append(self._frozen_policies[path])
            elif u < self.p_self + self.p_heuristic:
                name = self.heuristics[self._pick(rng, list(self.heuristics))]
                seats.append(load_policy(name, seed=int(rng.integers(2**31))))
            else:
                seats.append(None)  # the wrapper's seeded uniform random policy
        return seats


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


# --- 3b. Behaviour-cloning warm start -----------------------------------------------------------


def collect_demonstrations(
    cfg: PPOSelfPlayConfig, learner: Any = None, first_game: int = 0, progress: Any = None
) -> tuple[np.ndarray, ...]:
    """(observations, masks, actions, returns) of every decision of `bc_games` games in which
    `bc_policy` plays every seat; the return is the deciding seat's final reward.  With a
    `learner` model (DAgger), the learner's action is played but the demonstrator's recorded."""
    from dune_env import dune_v1
    from dune_env.policies.registry import load_policy

    env = dune_v1.raw_env(num_players=cfg.num_players)
    policies = [
        load_policy(cfg.bc_policy, seed=cfg.seed * 100 + s, trust=cfg.trust_checkpoints)
        for s in range(8)
    ]
    obs: list[np.ndarray] = []
    masks: list[np.ndarray] = []
    actions: list[int] = []
    returns: list[float] = []
    for g in range(first_game, first_game + cfg.bc_games):
        if progress is not None:
            progress.update(g - first_game)
        env.reset(seed=cfg.seed * 1_000_003 + g)
        seats: list[int] = []
        final = [0.0] * cfg.num_players
        for agent in env.agent_iter():
            observation, reward, terminated, truncated, _ = env.last()
            seat = env.agent_name_mapping[agent]
            if terminated or truncated:
                final[seat] = float(reward)  # the game's reward of this seat
                env.step(None)
                continue
            mask = observation["action_mask"].astype(bool)
            action = env.policy_action(policies[seat])  # the demonstrator's choice
            obs.append(observation["observation"])
            masks.append(mask)
            actions.append(action)
            seats.append(seat)
            if learner is not None:
                chosen, _ = learner.predict(
                    observation["observation"], action_masks=mask, deterministic=True
                )
                action = int(chosen)
            env.step(action)
        returns.extend(final[s] for s in seats)
    if progress is not None:
        progress.update(cfg.bc_games)
        progress.finish()
    return (
        np.asarray(obs, np.float32),
        np.asarray(masks),
        np.asarray(actions, np.int64),
        np.asarray(returns, np.float32),
    )


def behaviour_clone(
    model: Any, cfg: PPOSelfPlayConfig, rounds_dir: Path | None = None, progress: Any = None
) -> dict[str, float]:
    """Fit the policy to the demonstrations (masked cross-entropy) and the value head to the
    demonstrators' final rewards, with the model's own optimiser: round 0 on the demonstrator's
    games, then `bc_dagger_rounds` DAgger rounds on all the data so far.

    With `rounds_dir`, each fitted round is saved there (weights, optimiser state, statistics)
    and a rerun resumes after the last saved round: the earlier rounds' games are played again
    (their data is a function of the seeds and of the saved models, cheaper to regenerate than
    to store) but not fitted again, so an interrupted run ends with the same weights as one that
    was not interrupted.  `progress` (a training.progress.Progress) shows the games played."""
    total = cfg.bc_dagger_rounds + 1
    if rounds_dir is not None:
        _check_bc_settings(cfg, rounds_dir)
    fitted = 0
    while rounds_dir is not None and fitted < total and _bc_round_path(rounds_dir, fitted).exists():
        fitted += 1
    stats: dict[str, float] = {}
    if rounds_dir is not None and fitted == total:  # all done: no game to play again
        return _load_bc_round(model, rounds_dir, total - 1, stats)
    data = []
    for round_ in range(total):
        # Round r's games are played by the model as round r - 1 left it (DAgger).
        learner = model if round_ else None
        if progress is not None:
            who = "the model, labelled by " if learner is not None else ""
            progress.start(
                f"behaviour cloning round {round_ + 1}/{total}: games of {who}{cfg.bc_policy}",
                cfg.bc_games,
                "games",
            )
        data.append(
            collect_demonstrations(
                cfg, learner, first_game=round_ * cfg.bc_games, progress=progress
            )
        )
        if round_ < fitted:
            assert rounds_dir is not None
            _load_bc_round(model, rounds_dir, round_, stats)
            print(f"behaviour cloning round {round_}: fitted in an earlier session, loaded")
            continue
        obs, masks, actions, returns = (np.concatenate(parts) for parts in zip(*data, strict=True))
        fit = _fit(model, cfg, obs, masks, actions, returns)
        round_stats = {f"round{round_}_{k}": v for k, v in fit.items()}
        stats.update(round_stats)
        if rounds_dir is not None:
            _save_bc_round(model, rounds_dir, round_, round_stats)
    return stats


# What the saved imitation rounds depend on (bc_dagger_rounds may change: rounds are added).
BC_FIXED_ON_RESUME = (
    "num_players",
    "seed",
    "bc_policy",
    "bc_games",
    "bc_epochs",
    "batch_size",
    "learning_rate",
    "net_arch",
)


def _check_bc_settings(cfg: PPOSelfPlayConfig, rounds_dir: Path) -> None:
    """Record the settings of the saved rounds, or refuse to continue them with others."""
    now = json.loads(json.dumps({k: getattr(cfg, k) for k in BC_FIXED_ON_RESUME}))
    path = rounds_dir / "settings.json"
    if path.is_file():
        before = json.loads(path.read_text())
        changed = [k for k in BC_FIXED_ON_RESUME if before.get(k) != now[k]]
        if changed:
            raise ResumeError(
                f"{rounds_dir} holds behaviour-cloning rounds made with other "
                f"{', '.join(f'{k}={before.get(k)!r}' for k in changed)}; use the same settings, "
                "another --config-name or --seed, or --resume false"
            )
        return
    from dune_env.policies.weights import atomic_write_bytes

    atomic_write_bytes(path, json.dumps(now, indent=2).encode())


def _bc_round_path(rounds_dir: Path, round_: int) -> Path:
    return rounds_dir / f"round{round_}.pt"


def _save_bc_round(model: Any, rounds_dir: Path, round_: int, stats: dict[str, float]) -> None:
    """The policy's weights and its optimiser's state after `round_` (tensors only, read back
    with `weights_only=True`), then its statistics; each file written atomically."""
    import io

    import torch

    from dune_env.policies.weights import atomic_write_bytes

    rounds_dir.mkdir(parents=True, exist_ok=True)
    state = {"policy": model.policy.state_dict(), "optimizer": model.policy.optimizer.state_dict()}
    buffer = io.BytesIO()
    torch.save(state, buffer)
    atomic_write_bytes(rounds_dir / f"round{round_}.json", json.dumps(stats, indent=2).encode())
    atomic_write_bytes(_bc_round_path(rounds_dir, round_), buffer.getvalue())


def _load_bc_round(
    model: Any, rounds_dir: Path, round_: int, stats: dict[str, float]
) -> dict[str, float]:
    """Restore the model as `round_` left it; add that round's statistics to `stats`."""
    import torch

    path = _bc_round_path(rounds_dir, round_)
    state = torch.load(path, map_location=model.device, weights_only=True)
    model.policy.load_state_dict(state["policy"])
    model.policy.optimizer.load_state_dict(state["optimizer"])
    stats.update(json.loads((rounds_dir / f"round{round_}.json").read_text()))
    return stats


def _fit(
    model: Any,
    cfg: PPOSelfPlayConfig,
    obs: np.ndarray,
    masks: np.ndarray,
    actions: np.ndarray,
    returns: np.ndarray,
) -> dict[str, float]:
    import torch

    policy = model.policy
    rng = np.random.default_rng(cfg.seed)
    n = len(actions)
    stats: dict[str, float] = {"bc_samples": float(n)}
    for epoch in range(cfg.bc_epochs):
        order = rng.permutation(n)
        total_nll = total_mse = 0.0
        for start in range(0, n, cfg.batch_size):
            idx = order[start : start + cfg.batch_size]
            o = torch.as_tensor(obs[idx])
            a = torch.as_tensor(actions[idx])
            values, log_prob, _ = policy.evaluate_actions(o, a, action_masks=masks[idx])
            nll = -log_prob.mean()
            mse = torch.nn.functional.mse_loss(values.flatten(), torch.as_tensor(returns[idx]))
            loss = nll + 0.5 * mse
            policy.optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 0.5)
            policy.optimizer.step()
            total_nll += nll.item() * len(idx)
            total_mse += mse.item() * len(idx)
        stats[f"bc_nll_epoch{epoch}"] = total_nll / n
        stats[f"bc_value_mse_epoch{epoch}"] = total_mse / n
        print(f"behaviour cloning epoch {epoch}: nll {total_nll / n:.3f} mse {total_mse / n:.3f}")
    return stats


# --- 4. Callbacks --------------------------------------------------------------------------------


def build_callbacks(cfg: PPOSelfPlayConfig, run_dir: Path, progress: Any = None) -> Any:
    """The run's callback: snapshots, checkpoints, evaluations, the pool's results and the
    session's throughput (`callback.counts`); console progress on `progress` (a
    training.progress.Progress) if given."""
    from stable_baselines3.common.callbacks import BaseCallback

    pool_dir = run_dir / "pool"
    ckpt_dir = run_dir / "checkpoints"

    class Periodic(BaseCallback):
        """Snapshots, checkpoints and evaluations, each on its own interval of learner steps;
        every finished game's result credited to the opponents it was played against."""

        def __init__(self) -> None:
            super().__init__()
            self.next = {"snap": 0, "ckpt": 0, "eval": 0}
            self.results = PoolResults(pool_dir)
            self.results.load()  # a resumed run continues its record
            # Finished games this session: their decisions (all seats) and learner decisions.
            self.counts = {"games": 0, "decisions": 0, "learner_decisions": 0}

        def _on_training_start(self) -> None:
            t = self.num_timesteps
            self.next["snap"] = t + cfg.snapshot_interval
            self.next["ckpt"] = t + cfg.checkpoint_interval
            self.next["eval"] = t + cfg.eval_interval if cfg.eval_interval else -1
            self.started = time.perf_counter()
            self.start_steps = t

        def _on_rollout_start(self) -> None:
            import torch

            torch.set_num_threads(1)  # the environment processes use the cores now

        def _on_rollout_end(self) -> None:
            import torch

            self.results.save()  # the environment processes read it at their next draws
            torch.set_num_threads(cfg.torch_threads)  # for the update that follows

        def _record_games(self) -> None:
            for done, info in zip(self.locals["dones"], self.locals["infos"], strict=True):
                if not done or "final_rewards" not in info:
                    continue
                if "opponents" in info:
                    self.results.record(
                        info["opponents"], learner_won(info["final_rewards"], info["seat"])
                    )
                if "decisions" in info and "episode" in info:
                    self.counts["games"] += 1
                    self.counts["decisions"] += int(info["decisions"])
                    self.counts["learner_decisions"] += int(info["episode"]["l"])

        def _on_step(self) -> bool:
            self._record_games()
            t = self.num_timesteps
            if progress is not None:
                progress.update(t)
            if t >= self.next["snap"]:
                save_snapshot(self.model, pool_dir, t, cfg.max_pool)
                self.results.forget_missing(
                    {p.with_suffix("").name for p in pool_dir.glob("snapshot_*.json")}
                )
                self.next["snap"] += cfg.snapshot_interval
            if t >= self.next["ckpt"]:
                save_checkpoint(self.model, ckpt_dir, cfg.keep_checkpoints)
                self.results.save()
                self.next["ckpt"] += cfg.checkpoint_interval
            if self.next["eval"] >= 0 and t >= self.next["eval"]:
                records = evaluate_model(self.model, cfg, run_dir)
                for name, record in records.items():
                    self.logger.record(f"eval/win_rate_vs_{name}", record["win_rate"])
                    if record["judgement"] in ("above", "below", "level"):
                        self.logger.record(f"eval/strength_vs_{name}", record["strength"])
                if progress is not None:
                    progress.evaluated(t, records)
                self.next["eval"] += cfg.eval_interval
            elapsed = time.perf_counter() - self.started
            if elapsed > 0:
                self.logger.record(
                    "time/learner_steps_per_second", (t - self.start_steps) / elapsed
                )
            return True

        def _on_training_end(self) -> None:
            self.results.save()

    return Periodic()


def save_model_atomically(model: Any, path: Path) -> None:
    """`model.save(path)` through a temporary file and a rename: readers (and a resume after a
    crash) see the previous file or the complete new one, never a partial one."""
    from dune_env.policies.weights import temporary_path

    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = temporary_path(path)
    try:
        model.save(tmp)
        with tmp.open("rb") as handle:
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def save_snapshot(model: Any, pool_dir: Path, step: int, max_pool: int) -> None:
    """Add the learner to the opponent pool (safe format) and drop the oldest snapshots."""
    from dune_env.policies.weights import export_policy, weight_paths

    export_policy(model, pool_dir / f"snapshot_{step:09d}")
    for old in sorted(pool_dir.glob("snapshot_*.json"))[:-max_pool]:
        tensors, description = weight_paths(old)
        description.unlink()  # first: the pool lists descriptions
        tensors.unlink(missing_ok=True)


CHECKPOINT_GLOB = "checkpoint_*.zip"


def save_checkpoint(model: Any, ckpt_dir: Path, keep: int = 3) -> None:
    """Write checkpoint_{steps}.zip and latest.zip, each atomically, keep the `keep` newest
    numbered checkpoints, and record the step count in latest.json."""
    from dune_env.policies.weights import atomic_write_bytes

    numbered = ckpt_dir / f"checkpoint_{model.num_timesteps:09d}.zip"
    save_model_atomically(model, numbered)
    atomic_write_bytes(ckpt_dir / "latest.zip", numbered.read_bytes())
    info = {"num_timesteps": model.num_timesteps, "checkpoint": numbered.name}
    atomic_write_bytes(ckpt_dir / "latest.json", json.dumps(info).encode())
    for old in sorted(ckpt_dir.glob(CHECKPOINT_GLOB))[: -max(keep, 1)]:
        old.unlink()


class ResumeError(RuntimeError):
    """The run cannot be resumed: none of its checkpoints loads, or its settings changed."""


def resume_candidates(run_dir: Path) -> list[Path]:
    """The run's checkpoints, newest first: latest.zip, then the numbered ones.  Only regular
    files inside the run directory qualify: the run trusts what it wrote itself, not a link to
    a file elsewhere."""
    ckpt_dir = run_dir / "checkpoints"
    found = [ckpt_dir / "latest.zip", *sorted(ckpt_dir.glob(CHECKPOINT_GLOB), reverse=True)]
    root = run_dir.resolve()
    return [
        p for p in found if p.is_file() and not p.is_symlink() and p.resolve().is_relative_to(root)
    ]


def checkpoint_steps(path: Path) -> int:
    """Learner steps of an SB3 checkpoint, read from its JSON `data` entry (nothing unpickled);
    raises on a truncated or foreign file."""
    import zipfile

    with zipfile.ZipFile(path) as archive:
        steps = json.loads(archive.read("data"))["num_timesteps"]
    if type(steps) is not int or steps < 0:
        raise ValueError(f"num_timesteps is {steps!r}")
    return steps


def resume_from_checkpoint(run_dir: Path, device: str, build_venv: Any) -> tuple[Any, Any] | None:
    """(model, environments) from the newest checkpoint of the run that loads, or None when
    the run has none.  A truncated or corrupt checkpoint (a crash, a full disk) is reported and
    the next older one tried.  `build_venv(start_steps)` makes the environments, seeded for a
    session starting at that step count."""
    from sb3_contrib import MaskablePPO

    candidates = resume_candidates(run_dir)
    problems = []
    for path in candidates:
        venv = None
        try:
            venv = build_venv(checkpoint_steps(path))
            # Trusted: a checkpoint this run wrote under its own run directory (SECURITY.md).
            # force_reset discards the saved rollout state (_last_obs), which belongs to the
            # previous session's environments, not to these freshly reset ones.
            model = MaskablePPO.load(path, env=venv, device=device, force_reset=True)
            # load() re-seeds everything (the environments too) with the run's first seed,
            # which would replay the first games: seed this session afresh.
            model.set_random_seed(session_seed_of(model.seed or 0, model.num_timesteps))
            return model, venv
        except Exception as exc:  # zipfile, json, torch and pickle errors alike
            if venv is not None:
                venv.close()
            problems.append(f"{path.name}: {type(exc).__name__}: {exc}")
            print(f"checkpoint {path} does not load ({type(exc).__name__}); trying an older one")
    if candidates:
        raise ResumeError(
            f"no checkpoint of {run_dir} loads: {'; '.join(problems)}; remove its checkpoints "
            "folder to start over, or pass --resume false"
        )
    return None


def session_seed(cfg: PPOSelfPlayConfig, start_steps: int) -> int:
    """Seed of a training session starting at `start_steps` (environments, opponents, torch):
    the config's seed for a new run; for a resumed run a fresh one derived from (seed, steps),
    so resuming continues with new games instead of replaying the first ones."""
    return session_seed_of(cfg.seed, start_steps)


def session_seed_of(seed: int, start_steps: int) -> int:
    if start_steps == 0:
        return seed
    return int(np.random.SeedSequence([seed, start_steps]).generate_state(1)[0] % 1_000_000_000)


def evaluate_model(model: Any, cfg: PPOSelfPlayConfig, run_dir: Path) -> dict[str, dict[str, Any]]:
    """The current model in one seat against copies of each baseline, on duplicate deals via
    the harness: per opponent, training.evaluate's record (win rate, chance level, strength
    against the opponent with its interval, judgement), appended to evaluations.jsonl."""
    from dune_env.policies.weights import export_policy, weight_paths
    from training.evaluate import evaluate_against, evaluation_record

    export_policy(model, run_dir / f"eval_model_{model.num_timesteps:09d}")
    tensors, description = weight_paths(run_dir / f"eval_model_{model.num_timesteps:09d}")
    records = {}
    for opponent in ("random", *cfg.heuristic_opponents):
        summary = evaluate_against(
            str(tensors), opponent, cfg.num_players, cfg.eval_games, seed=cfg.seed
        )
        records[opponent] = evaluation_record(summary, str(tensors))
    with (run_dir / "evaluations.jsonl").open("a") as log:
        log.write(json.dumps({"num_timesteps": model.num_timesteps, **records}) + "\n")
    description.unlink()
    tensors.unlink()
    return records


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
        "policy_kwargs": {"net_arch": list(cfg.net_arch)},
        "seed": cfg.seed,
    }


def train(cfg: PPOSelfPlayConfig, quiet: bool = False) -> Path:
    """Train (or resume) the run of `cfg`; returns the final model's path.  `training.json` in
    the run folder records the session: steps, seconds, CPU seconds and the measured env
    agent-steps per learner step."""
    import torch
    from sb3_contrib import MaskablePPO

    run_name = f"{cfg.config_name}_seed{cfg.seed}"
    run_dir = cfg.run_dir
    (run_dir / "pool").mkdir(parents=True, exist_ok=True)
    check_resumable(cfg, run_dir / "config.json")
    (run_dir / "config.json").write_text(json.dumps(dataclasses.asdict(cfg), indent=2))
    torch.manual_seed(cfg.seed)
    torch.set_num_threads(1)
    progress = None if quiet else Progress()

    def build_venv(start_steps: int) -> Any:
        return build_envs(cfg, run_dir / "pool", start_steps)

    resumed = resume_from_checkpoint(run_dir, cfg.device, build_venv) if cfg.resume else None
    if resumed is not None:
        model, venv = resumed
        # The configured optimisation settings apply to the resumed run.
        model.learning_rate = cfg.learning_rate
        model._setup_lr_schedule()
        model.ent_coef = cfg.ent_coef
        model.tensorboard_log = str(run_dir / "tb")
        if not quiet:
            print(f"resuming {run_name} from {model.num_timesteps} steps")
    else:
        venv = build_venv(0)
        model = MaskablePPO(
            "MlpPolicy",
            venv,
            **ppo_hyperparameters(cfg),
            tensorboard_log=str(run_dir / "tb"),
            device=cfg.device,
            verbose=0,
        )
        if cfg.bc_games:
            rounds_dir = run_dir / "behaviour_cloning_rounds"
            if not cfg.resume:
                shutil.rmtree(rounds_dir, ignore_errors=True)  # start the imitation afresh
            stats = behaviour_clone(model, cfg, rounds_dir, progress)
            (run_dir / "behaviour_cloning.json").write_text(json.dumps(stats, indent=2))
            save_snapshot(model, run_dir / "pool", 0, cfg.max_pool)  # the imitation, frozen
    start_steps = model.num_timesteps
    remaining = cfg.total_timesteps - start_steps
    callback = build_callbacks(cfg, run_dir, progress)
    start = time.perf_counter()
    cpu_start = time.process_time()
    if remaining > 0:
        if progress is not None:
            progress.start("PPO", cfg.total_timesteps, "steps", done=start_steps)
        model.learn(
            total_timesteps=remaining,
            callback=callback,
            reset_num_timesteps=False,
            tb_log_name=run_name,
        )
        if progress is not None:
            progress.update(model.num_timesteps)
            progress.finish()
    elapsed = time.perf_counter() - start
    cpu_main = time.process_time() - cpu_start
    cpu_envs = env_process_cpu_seconds(venv)
    trained = model.num_timesteps - start_steps
    counts = callback.counts
    ratio = counts["decisions"] / counts["learner_decisions"] if counts["games"] else None
    save_checkpoint(model, run_dir / "checkpoints", cfg.keep_checkpoints)
    final = run_dir / "final_model.zip"
    save_model_atomically(model, final)  # to resume or fine-tune (pickle-based)
    from dune_env.policies.weights import atomic_write_bytes, export_policy

    export_policy(model, run_dir / "final_model")  # to share: final_model.safetensors + .json
    atomic_write_bytes(
        run_dir / "training.json",
        json.dumps(
            {
                "num_timesteps": model.num_timesteps,
                "learner_steps_this_session": trained,
                "seconds_this_session": elapsed,
                "learner_steps_per_second": trained / elapsed if elapsed else 0.0,
                # Decisions of every seat per learner decision, over the session's games.
                "agent_steps_per_learner_step": ratio,
                "agent_steps_per_second": trained * ratio / elapsed if ratio and elapsed else None,
                "cpu_seconds_this_session": None if cpu_envs is None else cpu_main + cpu_envs,
                "games_this_session": counts["games"],
                "session_seed": session_seed(cfg, start_steps),
            },
            indent=2,
        ).encode(),
    )
    venv.close()
    if not quiet:
        print(f"saved {final} after {model.num_timesteps} learner steps ({elapsed:.0f} s)")
    return final


def main(argv: list[str] | None = None) -> int:
    cfg = config_from_cli(
        PPOSelfPlayConfig, sys.argv[1:] if argv is None else argv, "python -m training.ppo_selfplay"
    )
    from dune_env.policies.registry import PolicyLoadError

    try:
        train(cfg)
    except (PolicyLoadError, ResumeError) as exc:
        print(f"ppo_selfplay: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
