"""Labelled games for distilling a search (`training.distill`): what the teacher says at the
learner's decisions, in the benchmark's setting, stored on disk.

- **A game** (`play_labelled_game`): the learner (the teacher itself, or the student network
  playing greedily) in `learner_seats` seats among the `opponents` (an opponent named
  `student` is one more learner seat: self-play), every decision with a choice of a learner
  seat labelled by the teacher.  With a search teacher
  (`dune_env.policies.mcts.MCTSPolicy`) a label is the root's statistics: the candidates, their
  visits and mean rewards, and the option chosen (`RootSearch`); a decision it does not search
  (and any decision of another teacher) is labelled with its choice alone.  The teacher never
  plays unless it is the learner; the student's own choice is played (DAgger).
- **A round's games** are split into chunks (`chunk_games` games, one file each, written
  atomically), played in `workers` processes; a rerun plays only the chunks not on disk, so an
  interrupted collection resumes.  A chunk's games depend only on its seeds and the player
  files, never on the number of workers.
- **On disk** (`{run}/data/round{r}/{train,heldout}_{chunk}.npz`, compressed): the observation
  (float16: its values are multiples of 1/12, 1/10 and the like, which float16 keeps to 2e-4;
  half the memory of a few million decisions), the legal action ids, the candidates' action
  ids with their visits and means (ragged arrays as flat arrays plus offsets), the teacher's
  choice, the strategist's choice where the search saw it (`preferred`; -1 otherwise), the
  decision kind and the deciding seat's final reward.  `load_round` reads them back as one `Labels`.

The learner's seats: with `learner_seats` = 1 as in the benchmark, the model's seat rotates
with the game number; the other seats are filled from `opponents` in turn and shuffled by the
game's seed.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

HELDOUT_SEED_OFFSET = 1 << 40
STUDENT = "student"
"""An opponent entry that seats one more learner (the student, or the teacher in round 0)."""
ROUND_SEED_STRIDE = 1 << 24
RUN_SEED_STRIDE = 1 << 48


def game_seed(run_seed: int, round_: int, game: int, heldout: bool) -> int:
    """The seed of game `game` of round `round_` (held-out games on seeds of their own)."""
    return (
        run_seed * RUN_SEED_STRIDE
        + round_ * ROUND_SEED_STRIDE
        + game
        + (HELDOUT_SEED_OFFSET if heldout else 0)
    ) % (1 << 64)


@dataclass(frozen=True)
class Chunk:
    """One chunk of a round: what a worker needs to play and label its games."""

    num_players: int
    teacher: str
    student: str  # a safe-format model path; "" for the teacher playing the learner's seats
    opponents: tuple[str, ...]
    learner_seats: int
    run_seed: int
    round_: int
    games: tuple[int, ...]  # game numbers within the round
    heldout: bool


class Labels(NamedTuple):
    """Labelled decisions, the ragged arrays flat with offsets (row i's legal ids are
    `legal[legal_ptr[i]:legal_ptr[i + 1]]`, its candidates likewise with `cand_ptr`)."""

    obs: np.ndarray  # (n, OBS_SIZE) float16
    legal_ptr: np.ndarray  # (n + 1,) int64
    legal: np.ndarray  # int16 action ids
    cand_ptr: np.ndarray  # (n + 1,) int64
    cand: np.ndarray  # int16 action ids of the teacher's candidates
    visits: np.ndarray  # int32 visits of each candidate (1 for an unsearched decision's choice)
    means: np.ndarray  # float32 mean reward of each candidate in [0, 1]
    choice: np.ndarray  # (n,) int16 the teacher's action id
    preferred: np.ndarray  # (n,) int16 the strategist's action id where known, else -1
    kinds: np.ndarray  # (n,) int8 decision kind
    returns: np.ndarray  # (n,) float32 the deciding seat's final reward

    @property
    def size(self) -> int:
        return len(self.choice)

    @staticmethod
    def join(parts: list[Labels]) -> Labels:
        if not parts:
            return empty_labels()

        def ragged(ptrs: list[np.ndarray]) -> np.ndarray:
            out, offset = [np.zeros(1, np.int64)], 0
            for ptr in ptrs:
                out.append(ptr[1:] + offset)
                offset += int(ptr[-1])
            return np.concatenate(out)

        return Labels(
            obs=np.concatenate([p.obs for p in parts]),
            legal_ptr=ragged([p.legal_ptr for p in parts]),
            legal=np.concatenate([p.legal for p in parts]),
            cand_ptr=ragged([p.cand_ptr for p in parts]),
            cand=np.concatenate([p.cand for p in parts]),
            visits=np.concatenate([p.visits for p in parts]),
            means=np.concatenate([p.means for p in parts]),
            choice=np.concatenate([p.choice for p in parts]),
            preferred=np.concatenate([p.preferred for p in parts]),
            kinds=np.concatenate([p.kinds for p in parts]),
            returns=np.concatenate([p.returns for p in parts]),
        )

    def masks(self, rows: np.ndarray) -> np.ndarray:
        """The (len(rows), NUM_ACTIONS) bool legal masks of `rows`."""
        from dune_env.environment.action_table import NUM_ACTIONS

        out = np.zeros((len(rows), NUM_ACTIONS), dtype=bool)
        which, at = segments(self.legal_ptr, rows)
        out[which, self.legal[at]] = True
        return out

    def targets(self, rows: np.ndarray, visit_share: float) -> np.ndarray:
        """The (len(rows), NUM_ACTIONS) float32 target distributions of `rows`: (1 -
        visit_share) on the teacher's choice plus visit_share spread over its candidates in
        proportion to their visits (the choice has the most visits, or ties for it, so it
        always keeps the largest share)."""
        from dune_env.environment.action_table import NUM_ACTIONS

        out = np.zeros((len(rows), NUM_ACTIONS), dtype=np.float32)
        out[np.arange(len(rows)), self.choice[rows]] = 1.0 - visit_share
        if visit_share:
            which, at = segments(self.cand_ptr, rows)
            visits = self.visits[at].astype(np.float32)
            totals = np.bincount(which, weights=visits, minlength=len(rows))
            np.add.at(out, (which, self.cand[at]), visit_share * visits / totals[which])
        return out


def segments(ptr: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For ragged rows (`ptr` offsets): (the position in `rows` of every element of the rows
    `rows`, that element's index in the flat array), in order."""
    starts, lengths = ptr[rows], ptr[np.asarray(rows) + 1] - ptr[rows]
    which = np.repeat(np.arange(len(rows)), lengths)
    first = np.repeat(np.cumsum(lengths) - lengths, lengths)
    return which, np.arange(int(lengths.sum())) - first + np.repeat(starts, lengths)


def empty_labels() -> Labels:
    from dune_env.environment.observer import OBS_SIZE

    zero = np.zeros(1, np.int64)
    return Labels(
        np.zeros((0, OBS_SIZE), np.float16), zero, np.zeros(0, np.int16), zero.copy(),
        np.zeros(0, np.int16), np.zeros(0, np.int32), np.zeros(0, np.float32),
        np.zeros(0, np.int16), np.zeros(0, np.int16), np.zeros(0, np.int8),
        np.zeros(0, np.float32),
    )  # fmt: skip


# --- one game --------------------------------------------------------------------------------


def seats_of(chunk: Chunk, game: int, seed: int) -> tuple[list[str], set[int]]:
    """The policy names of game `game`'s seats ("" for a learner seat) and the learner seats:
    the learner's first seat rotates with the game number, the others follow it; the
    opponents fill the other seats in turn, shuffled by the game's seed (a `student` entry
    seats one more learner)."""
    n, k = chunk.num_players, chunk.learner_seats
    learner = {(game + i) % n for i in range(k)}
    others = [chunk.opponents[(game + i) % len(chunk.opponents)] for i in range(n - k)]
    np.random.default_rng(seed).shuffle(others)
    names = [others.pop() if seat not in learner else "" for seat in range(n)]
    names = ["" if name == STUDENT else name for name in names]
    return names, {seat for seat, name in enumerate(names) if not name}


def play_labelled_game(chunk: Chunk, game: int, student: Any = None) -> Labels:
    """One game of `chunk` (see the module docstring); `student`: the loaded student network
    (a `WeightsPolicy`) when it plays the learner's seats."""
    from dune_env.engine import Game, GameConfig
    from dune_env.engine.state import Phase
    from dune_env.environment.action_table import action_of, legal_action_ids, option_of
    from dune_env.environment.observer import Observer
    from dune_env.match import reseed_seats, seat_seed
    from dune_env.policies.registry import load_policy

    seed = game_seed(chunk.run_seed, chunk.round_, game, chunk.heldout)
    names, learner = seats_of(chunk, game, seed)
    teacher: Any = load_policy(chunk.teacher, seed=0)
    seats = [teacher if not name else load_policy(name, seed=s) for s, name in enumerate(names)]
    reseed_seats(seats, seed)
    if student is not None and hasattr(teacher, "reseed"):
        teacher.reseed(seat_seed(seed, 15))  # it labels only: a seed of its own
    game_ = Game(GameConfig(num_players=chunk.num_players), seed=seed)
    state = game_.state
    observer = Observer(chunk.num_players)
    rows: dict[str, list[Any]] = {k: [] for k in Labels._fields}
    deciders: list[int] = []
    over = int(Phase.GAME_OVER)
    while state.phase != over:
        seat = state.pending_seat
        if seat not in learner:
            game_.apply(seats[seat].act(game_, seat))
            continue
        options = game_.legal_options()
        if len(options) == 1:
            game_.apply(options[0])
            continue
        kind = int(state.pending_kind)
        obs = observer.observe(state, state.decision_count, seat)
        legal = np.asarray(legal_action_ids(state), dtype=np.int16)
        choice = teacher.act(game_, seat)
        search = getattr(teacher, "last_search", None)
        if search is not None:
            cand = [action_of(kind, o) for o in search.candidates]
            visits, means, preferred = (
                search.visits,
                search.means,
                action_of(kind, search.preferred),
            )
        else:
            cand, visits, means, preferred = [action_of(kind, choice)], (1,), (0.0,), -1
        rows["obs"].append(obs)
        rows["legal"].append(legal)
        rows["cand"].append(np.asarray(cand, np.int16))
        rows["visits"].append(np.asarray(visits, np.int32))
        rows["means"].append(np.asarray(means, np.float32))
        rows["choice"].append(action_of(kind, choice))
        rows["preferred"].append(preferred)
        rows["kinds"].append(kind)
        deciders.append(seat)
        if student is None:
            option = choice
        else:
            option = option_of(kind, student_action(student, obs, legal))
        game_.apply(option)
    final = list(state.rewards)
    return labels_of(rows, [float(final[s]) for s in deciders])


def student_action(student: Any, obs: np.ndarray, legal: np.ndarray) -> int:
    """The student's greedy action id among the `legal` ids (`WeightsPolicy.legal_logits`)."""
    legal = legal.astype(np.int64)
    return int(legal[int(np.argmax(student.legal_logits(obs, legal)))])


def labels_of(rows: dict[str, list[Any]], returns: list[float]) -> Labels:
    from dune_env.environment.observer import OBS_SIZE

    def ptr(parts: list[np.ndarray]) -> np.ndarray:
        return np.concatenate([[0], np.cumsum([len(p) for p in parts])]).astype(np.int64)

    def flat(parts: list[np.ndarray], dtype: Any) -> np.ndarray:
        return np.concatenate(parts).astype(dtype) if parts else np.zeros(0, dtype)

    n = len(rows["choice"])
    return Labels(
        obs=np.asarray(rows["obs"], np.float16).reshape(n, OBS_SIZE),
        legal_ptr=ptr(rows["legal"]),
        legal=flat(rows["legal"], np.int16),
        cand_ptr=ptr(rows["cand"]),
        cand=flat(rows["cand"], np.int16),
        visits=flat(rows["visits"], np.int32),
        means=flat(rows["means"], np.float32),
        choice=np.asarray(rows["choice"], np.int16),
        preferred=np.asarray(rows["preferred"], np.int16),
        kinds=np.asarray(rows["kinds"], np.int8),
        returns=np.asarray(returns, np.float32),
    )


# --- a chunk, a round ------------------------------------------------------------------------


def play_chunk(chunk: Chunk) -> tuple[Labels, float]:
    """Every game of `chunk` (run in a worker process: numpy only, no torch), and the CPU
    seconds they took."""
    import time

    started = time.process_time()
    student = None
    if chunk.student:
        from dune_env.policies.weights import WeightsPolicy

        student = WeightsPolicy(chunk.student)
    labels = Labels.join([play_labelled_game(chunk, g, student) for g in chunk.games])
    return labels, time.process_time() - started


def chunk_path(round_dir: Path, heldout: bool, index: int) -> Path:
    return round_dir / f"{'heldout' if heldout else 'train'}_{index:04d}.npz"


def save_labels(path: Path, labels: Labels, cpu_seconds: float = 0.0) -> None:
    """`labels` and the CPU seconds that made them as a compressed .npz, written atomically
    (plain arrays: read without pickle)."""
    import io

    from dune_env.policies.weights import atomic_write_bytes

    buffer = io.BytesIO()
    np.savez_compressed(buffer, cpu_seconds=np.float64(cpu_seconds), **labels._asdict())
    atomic_write_bytes(path, buffer.getvalue())


def read_labels(path: Path) -> Labels:
    with np.load(path, allow_pickle=False) as data:
        return Labels(**{k: data[k] for k in Labels._fields})


def collect_round(
    round_dir: Path,
    template: Chunk,
    games: int,
    heldout_games: int,
    chunk_games: int,
    workers: int,
    progress: Any = None,
) -> None:
    """Play and save the chunks of a round not yet on disk (`games` training games and
    `heldout_games` held-out ones), in `workers` processes (1: in this one)."""
    import dataclasses

    round_dir.mkdir(parents=True, exist_ok=True)
    jobs: list[tuple[Path, Chunk]] = []
    for heldout, count in ((False, games), (True, heldout_games)):
        for index, start in enumerate(range(0, count, chunk_games)):
            path = chunk_path(round_dir, heldout, index)
            if path.is_file():
                continue
            numbers = tuple(range(start, min(start + chunk_games, count)))
            jobs.append((path, dataclasses.replace(template, games=numbers, heldout=heldout)))
    total, done = len(jobs), 0
    if progress is not None and total:
        progress.start(f"round {template.round_}: labelled games, chunks", total, "chunks")
    if workers <= 1:
        for path, chunk in jobs:
            save_labels(path, *play_chunk(chunk))
            done += 1
            if progress is not None:
                progress.update(done)
    elif jobs:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor, as_completed

        context = multiprocessing.get_context("spawn")  # no torch thread pool forked
        pool = ProcessPoolExecutor(workers, mp_context=context, initializer=_quiet)
        try:
            futures = {pool.submit(play_chunk, chunk): path for path, chunk in jobs}
            for future in as_completed(futures):
                save_labels(futures[future], *future.result())
                done += 1
                if progress is not None:
                    progress.update(done)
        finally:  # an interruption stops at the running chunks (the rest resume later)
            pool.shutdown(wait=True, cancel_futures=True)
    if progress is not None and total:
        progress.finish()


def _quiet() -> None:
    os.environ.setdefault("OMP_NUM_THREADS", "1")


def round_cpu_seconds(round_dir: Path) -> float:
    """The CPU seconds the round's saved chunks took to play and label."""
    total = 0.0
    for path in round_dir.glob("*.npz"):
        with np.load(path, allow_pickle=False) as data:
            total += float(data["cpu_seconds"]) if "cpu_seconds" in data.files else 0.0
    return total


def load_round(round_dir: Path, heldout: bool) -> Labels:
    """Every saved chunk of a round (training or held-out), in chunk order."""
    kind = "heldout" if heldout else "train"
    return Labels.join([read_labels(p) for p in sorted(round_dir.glob(f"{kind}_*.npz"))])
