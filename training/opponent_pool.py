"""The opponent pool of the self-play recipe (`training.ppo_selfplay`): its league.

Each episode, every other seat draws an opponent: a frozen snapshot of the learner (saved into
the run's pool folder every `snapshot_interval` steps, `save_snapshot`), a built-in heuristic,
or the random policy, in the configured proportions (`check_opponent_mix`); within a kind
uniformly or by PFSP weights from the learner's results against each opponent (`PoolResults`,
kept in the pool folder).

The results are pairwise: in each finished game the learner is compared with every other seat
on its own (`pairwise_outcomes`): it beat that seat (its reward is higher), lost to it (lower),
or neither (equal rewards: both lost, or both won an alliance), which is not recorded.  So an
opponent's recorded win rate means "how often the learner finished above that opponent when
one of the two did", 0.5 between equals at any player count, and a game won by one opponent
counts against that opponent only, not against the others who lost with the learner.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from training.fields import HEURISTICS, OPPONENT_WEIGHTINGS, PoolFields, check_opponent_mix

PAIRWISE_CHANCE = 0.5
"""The pairwise win rate between equals: the prior of an opponent not yet played."""


@lru_cache(maxsize=16)
def _frozen(path: str) -> Any:
    from dune_env.policies.weights import WeightsPolicy

    return WeightsPolicy(path)  # numpy inference: no torch thread pool in the env processes


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
        logits = self.network.logits(observations)
        legal = np.asarray(masks, dtype=bool).reshape(logits.shape)
        return np.where(legal, logits, -np.inf).argmax(axis=1)


RESULTS_FILE = "results.json"


def learner_won(final_rewards: list[float], seat: int) -> bool:
    """The learner won the game: its final reward is the game's highest and not everyone's
    (so it holds whatever rewards END-7's configuration gives)."""
    best = max(final_rewards)
    return final_rewards[seat] == best and min(final_rewards) < best


def pairwise_outcomes(
    opponents: list[str | None], final_rewards: list[float], seat: int
) -> list[tuple[str, bool]]:
    """(opponent name, the learner beat it) for every other seat whose final reward differs
    from the learner's (END-7: a winner's reward is higher than a loser's); seats with the
    learner's reward (both lost, or allies who won together) give no outcome."""
    mine = final_rewards[seat]
    return [
        (name, mine > final_rewards[other])
        for other, name in enumerate(opponents)
        if other != seat and name is not None and final_rewards[other] != mine
    ]


RESULTS_VERSION = 2
"""Version 2: pairwise outcomes (`pairwise_outcomes`).  Version 1 credited every opponent of
a game with the learner's win or loss; such a file is not comparable and is read as empty."""


class PoolResults:
    """The learner's pairwise record (decided, wins) against each opponent of the pool, by name
    ("snapshot_000050000", "aggressive", "random", ...): games in which one of the two finished
    above the other, and those the learner did (see the module docstring).  Kept in
    `{pool_dir}/results.json` so that a resumed run keeps it.  The training process records
    results and saves the file after each rollout; the environment processes read it (again
    when it changed) to weight their draws.
    """

    def __init__(self, pool_dir: str | Path) -> None:
        self.path = Path(pool_dir) / RESULTS_FILE
        self.records: dict[str, list[int]] = {}
        self._signature: tuple[int, ...] = ()
        self._dirty = False

    def record(self, name: str, won: bool) -> None:
        """One decided pairing: the learner finished above (`won`) or below `name`."""
        decided_wins = self.records.setdefault(name, [0, 0])
        decided_wins[0] += 1
        decided_wins[1] += int(won)
        self._dirty = True

    def record_game(
        self, opponents: list[str | None], final_rewards: list[float], seat: int
    ) -> None:
        """A finished game: the pairwise outcome against each other seat (`pairwise_outcomes`;
        two seats of the same opponent are two pairings)."""
        for name, won in pairwise_outcomes(opponents, final_rewards, seat):
            self.record(name, won)

    def win_rate(self, name: str, prior_rate: float, prior_games: float) -> float:
        """The learner's pairwise win rate against `name`, with `prior_games` pseudo-games at
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
            "version": RESULTS_VERSION,
            "opponents": {
                n: dict(zip(("decided", "wins"), r, strict=True))
                for n, r in sorted(self.records.items())
            },
        }
        atomic_write_bytes(self.path, json.dumps(data, indent=1).encode())
        self._dirty = False

    def load(self) -> None:
        """Read the records from the file (none if there is no file, or a version-1 file of
        the former bookkeeping)."""
        self.records = {}
        if self.path.is_file():
            data = json.loads(self.path.read_text())
            version = data.get("version") if isinstance(data, dict) else None
            if version not in (1, RESULTS_VERSION):
                raise ValueError(f"{self.path}: not a version-{RESULTS_VERSION} pool results file")
            for name, rec in data["opponents"].items() if version == RESULTS_VERSION else ():
                decided, wins = int(rec["decided"]), int(rec["wins"])
                if not 0 <= wins <= decided:
                    raise ValueError(f"{self.path}: {name} has {wins} wins in {decided} pairings")
                self.records[str(name)] = [decided, wins]
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
    with probability p_self (a heuristic while the pool has none), a heuristic with
    p_heuristic, the random policy with p_random (the three sum to 1: `check_opponent_mix`; no
    seat is ever random when p_random is 0); within a kind, the opponent is drawn uniformly or,
    with weighting="pfsp", by the weights of `PoolResults.weights` from the pairwise results
    recorded in the pool folder."""

    def __init__(
        self,
        pool_dir: str,
        num_players: int,
        p_self: float,
        p_heuristic: float,
        weighting: str = "uniform",
        pfsp_exponent: float = 3.0,
        pfsp_prior_games: float = 4.0,
        heuristics: tuple[str, ...] = HEURISTICS,
        p_random: float = 0.0,
    ) -> None:
        check_opponent_mix(p_self, p_heuristic, p_random)
        if weighting not in OPPONENT_WEIGHTINGS:
            raise ValueError(f"weighting={weighting!r}; use one of {OPPONENT_WEIGHTINGS}")
        self.pool_dir = Path(pool_dir)
        self.num_players = num_players
        self.p_self = p_self
        self.p_heuristic = p_heuristic
        self.p_random = p_random
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
            names, self.pfsp_exponent, PAIRWISE_CHANCE, self.pfsp_prior_games
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
            elif u < self.p_self + self.p_heuristic or not self.p_random:
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


def make_pool(pool: PoolFields, num_players: int, pool_dir: str | Path) -> OpponentPool:
    """The opponent pool that `pool` configures, its snapshots and results in `pool_dir`."""
    return OpponentPool(
        str(pool_dir),
        num_players,
        pool.p_self,
        pool.p_heuristic,
        pool.opponent_weighting,
        pool.pfsp_exponent,
        pool.pfsp_prior_games,
        tuple(pool.heuristic_opponents),
        pool.p_random,
    )
