"""The opponent pool of the self-play recipe (`training.ppo_selfplay`): its league.

Each episode, every other seat draws an opponent: a frozen snapshot of the learner (saved into
the run's pool folder every `snapshot_interval` steps, `save_snapshot`), a built-in heuristic,
or the random policy, in the configured proportions; within a kind uniformly or by PFSP weights
from the learner's results against each opponent (`PoolResults`, kept in the pool folder).
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

OPPONENT_WEIGHTINGS = ("uniform", "pfsp")

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


def save_snapshot(model: Any, pool_dir: Path, step: int, max_pool: int) -> None:
    """Add the learner to the opponent pool (safe format) and drop the oldest snapshots."""
    from dune_env.policies.weights import export_policy, weight_paths

    export_policy(model, pool_dir / f"snapshot_{step:09d}")
    for old in sorted(pool_dir.glob("snapshot_*.json"))[:-max_pool]:
        tensors, description = weight_paths(old)
        description.unlink()  # first: the pool lists descriptions
        tensors.unlink(missing_ok=True)
