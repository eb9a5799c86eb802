"""`run_benchmark`: schedule the games, play them in worker processes, write the run's files.

The steps are separate functions: arguments checked (`check_options`, `_checked_policies`),
results file opened or resumed (`_open_results`), games played and collected (`_collect`),
summary and report written (`_finish_run`).  `run_games` plays scheduled games without
writing anything.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Generator, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..match import DEFAULT_MAX_DECISIONS, GameSpec, lineup, schedule
from ..provenance import software_record
from ..seatings import DEFAULT_SEATINGS, ROTATIONS
from .outputs import CsvSink
from .replayed import as_rows  # each game's rows from the replay of its decisions
from .report import leaderboard, markdown_report, summarise, write_json, write_plots
from .types import GameFailure, Item, SeatResult

HARNESS_KEYS = ("num_players", "faction_mode", "factions")  # set by the harness itself


@dataclass
class BenchmarkResult:
    rows: list[SeatResult]
    failures: list[GameFailure]
    summary: dict[str, Any]
    out_dir: Path | None

    @property
    def leaderboard(self) -> str:
        return leaderboard(self.summary)


def check_options(
    num_players: int,
    games: int,
    seed: int,
    workers: int | None,
    config: dict[str, Any] | None,
    luck_samples: int = 0,
    luck_model: str = "",
) -> None:
    """Refuse bad benchmark arguments with one clear message (ValueError or ConfigError)."""
    check_luck(luck_samples, luck_model)
    from ..engine import ConfigError, GameConfig
    from ..engine.config import check_seed
    from .types import MAX_GAMES, MAX_WORKERS

    if isinstance(games, bool) or not isinstance(games, int) or not 1 <= games <= MAX_GAMES:
        raise ValueError(f"games={games!r}: give a positive number of games, at most {MAX_GAMES:,}")
    if workers is not None and (
        isinstance(workers, bool) or not isinstance(workers, int) or not 1 <= workers <= MAX_WORKERS
    ):
        raise ValueError(f"workers={workers!r}: give at least 1, at most {MAX_WORKERS}")
    check_seed(seed, "seed")
    for key in sorted(config or {}):
        if key in HARNESS_KEYS:
            what = "--players" if key == "num_players" else "the harness's seat rotation"
            raise ConfigError(f"game option {key!r} cannot be set: it is given by {what}")
        if key not in GameConfig.known_keys():
            raise ConfigError(
                f"unknown game option {key!r}; known: "
                f"{', '.join(k for k in GameConfig.known_keys() if k not in HARNESS_KEYS)}"
            )
    GameConfig(num_players=num_players, **(config or {}))  # validate the game options early


def check_luck(luck_samples: int, luck_model: str = "") -> None:
    """0 (no luck adjustment), or a valid sample count with a readable value model."""
    if luck_samples == 0 and not isinstance(luck_samples, bool):
        if luck_model:
            raise ValueError("a luck value model was given without luck samples: add --luck-adjust")
        return
    from .luck import check_samples, value_model

    check_samples(luck_samples)
    value_model(luck_model).check_observation()  # fails here, before any game is played


def _single_threaded_torch() -> None:
    """One torch thread per process.  A model policy loaded above starts torch's thread pool,
    and worker processes forked after that deadlock in it; one game's batch-of-one inference
    is also faster on one thread, and the workers are the parallelism."""
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(1)


def _checked_policies(
    policies: list[str], num_players: int, backend: str, address: str | None, trust: bool
) -> list[str]:
    """The policy specs to schedule, each loaded once here to fail fast with the loader's
    message; with `trust`, marked trusted so that the opt-in reaches the workers."""
    from ..policies.registry import trusted
    from .backends import check_backend, check_ray_policies

    check_backend(backend, address)
    if backend == "ray":
        from .backends import import_ray

        import_ray()  # one clear message before anything is written when Ray is missing
        check_ray_policies(policies)
    if trust:
        policies = [trusted(p) if isinstance(p, str) else p for p in policies]
    lineup(policies, num_players)  # at most one policy per seat
    from .hosts import check_loadable

    check_loadable(sorted(set(policies)))  # foreign code in a child process only (hosts.py)
    _single_threaded_torch()
    return policies


def run_record(
    policies: list[str],
    num_players: int,
    games: int,
    seed: int,
    config: dict[str, Any] | None,
    duplicate: bool,
    max_decisions: int,
    luck_samples: int = 0,
    luck_model: str = "",
    seatings: str = DEFAULT_SEATINGS,
) -> dict[str, Any]:
    """The parameters that define a run's games (run.json; a resume must repeat them)."""
    record: dict[str, Any] = {
        "policies": list(policies),
        "num_players": num_players,
        "games": games,
        "seed": seed,
        "config": config or {},
        "duplicate": duplicate,
        "max_decisions": max_decisions,
    }
    if luck_samples:  # (absent otherwise: run.json files of earlier versions still resume)
        record["luck_samples"] = luck_samples
    if luck_model:
        record["luck_model"] = luck_model
    if seatings != ROTATIONS:  # (absent: the rotations of runs before the seating designs)
        record["seatings"] = seatings
    return record


def _open_results(
    directory: Path, run: dict[str, Any], specs: list[GameSpec], resume: bool, overwrite: bool
) -> tuple[list[SeatResult], CsvSink, list[GameSpec]]:
    """Prepare the output folder: (rows already played, the results sink, games to play)."""
    from .outputs import RESULTS_FILE, open_output, prepare_out_dir, read_results
    from .workers import POLICY_OUTPUT_FILE

    prepare_out_dir(directory, run, resume, overwrite)
    open_output(directory / POLICY_OUTPUT_FILE, append=resume).close()
    results_path = directory / RESULTS_FILE
    if not resume:
        return [], CsvSink(results_path), specs
    rows = read_results(results_path, specs)
    done = {r.game for r in rows}
    # Keep only complete games' rows (a crash may have cut the last one short): write them to a
    # new file that replaces the old one whole, then append to it.
    partial = directory / (RESULTS_FILE + ".partial")
    rewrite = CsvSink(partial)
    rewrite.write(rows)
    rewrite.close()
    os.replace(partial, results_path)
    return rows, CsvSink(results_path, append=True), [s for s in specs if s.index not in done]


def keep_result(
    result: list[SeatResult] | GameFailure,
    rows: list[SeatResult],
    failures: list[GameFailure],
    sink: CsvSink | None,
    bar: Any,
) -> None:
    """One finished game: its rows kept (and written at once), or its failure; the bar moves."""
    if isinstance(result, GameFailure):
        failures.append(result)
    else:
        rows.extend(result)
        if sink is not None:
            sink.write(result)
    if bar is not None:
        bar.update(1)


def _collect(
    games: Generator[Item, None, None], rows: list[SeatResult], sink: CsvSink | None, bar: Any
) -> tuple[list[GameFailure], bool, int]:
    """Gather the games as they finish (rows written at once) into `rows`, sorted at the end:
    (failures, interrupted, games finished or failed in this session)."""
    failures: list[GameFailure] = []
    interrupted = False
    played = 0
    try:
        for _spec, result in games:
            played += 1
            keep_result(result, rows, failures, sink, bar)
    except KeyboardInterrupt:
        interrupted = True
    finally:
        games.close()  # stops the games still running (Ctrl-C)
        if sink is not None:
            sink.close()
        if bar is not None:
            bar.close()
    rows.sort(key=lambda r: (r.game, r.seat))
    failures.sort(key=lambda f: f.game)
    return failures, interrupted, played


def _finish_run(
    directory: Path | None, summary: dict[str, Any], failures: list[GameFailure], plots: bool
) -> None:
    """Write summary.json, report.md, failures.txt and the plots into the output folder."""
    from .outputs import write_output
    from .workers import POLICY_OUTPUT_CAP, POLICY_OUTPUT_FILE

    if directory is None:
        return
    output_log = directory / POLICY_OUTPUT_FILE
    printed = output_log.stat().st_size if output_log.is_file() else 0
    if not printed and output_log.is_file() and not output_log.is_symlink():
        output_log.unlink()  # nothing printed: no file
    summary["meta"]["policy_output_bytes"] = printed
    report = markdown_report(summary, summary["meta"])
    if printed:
        report += (
            f"\nThe policies printed output: {printed} bytes are in {POLICY_OUTPUT_FILE} "
            f"(stdout and stderr of the worker processes; at most {POLICY_OUTPUT_CAP} "
            "bytes are kept, the rest is dropped).\n"
        )
    write_json(directory / "summary.json", summary)
    write_output(directory / "report.md", report)
    if failures:
        write_output(
            directory / "failures.txt",
            "\n\n".join(
                f"game {f.game} seed {f.seed} ({f.kind}): {f.error}\n{f.detail}" for f in failures
            ),
        )
    if plots and not summary["incomplete"]:
        write_plots(summary, directory)


_META_KEYS = (
    "policies",
    "num_players",
    "games_requested",
    "seed",
    "workers",
    "backend",
    "duplicate",
    "bootstrap",
    "config",
    "move_timeout",
    "max_decisions",
    "resumed",
    "luck_samples",
    "luck_model",
    "seatings",
)


def _meta(
    run: dict[str, Any], extra: dict[str, Any], elapsed: float, played: int, resumed: int
) -> dict[str, Any]:
    """summary.json's "meta": the run's parameters, how it was played, how long it took (the
    speed counts only the games played in this session: a resume keeps the others)."""
    values = {"luck_samples": 0, "luck_model": "", "seatings": ROTATIONS, **run}
    values |= {"games_requested": run["games"], **extra}
    meta = {key: values[key] for key in _META_KEYS}
    meta["seconds"] = elapsed
    meta["games_played"] = played
    meta["games_resumed"] = resumed
    meta["games_per_second"] = played / elapsed if played and elapsed > 0 else 0.0
    meta["software"] = software_record()  # the build, versions and commit behind the figures
    return meta


def _checked_timeout(move_timeout: float | None) -> float:
    from .workers import DEFAULT_MOVE_TIMEOUT

    timeout = DEFAULT_MOVE_TIMEOUT if move_timeout is None else float(move_timeout)
    if not timeout > 0 or timeout == float("inf"):
        raise ValueError(f"move_timeout={move_timeout!r}: give a positive number of seconds")
    return timeout


def play_items(pool: Any, specs: Sequence[GameSpec]) -> Generator[Item, None, None]:
    """The pool's games as they finish, each outcome turned into rows here (see types.py)."""
    played = pool.play(specs)
    try:
        for item in played:
            yield as_rows(item)
    finally:
        played.close()


def run_benchmark(
    policies: list[str],
    num_players: int = 4,
    games: int = 100,
    seed: int = 0,
    workers: int | None = 1,
    out_dir: str | Path | None = None,
    progress: bool | str = False,
    config: dict[str, Any] | None = None,
    plots: bool = True,
    move_timeout: float | None = None,
    max_decisions: int = DEFAULT_MAX_DECISIONS,
    resume: bool = False,
    overwrite: bool = True,
    trust_checkpoints: bool = False,
    duplicate: bool = False,
    bootstrap: int = 200,
    backend: str = "local",
    address: str | None = None,
    luck_samples: int = 0,
    luck_model: str = "",
    seatings: str = DEFAULT_SEATINGS,
) -> BenchmarkResult:
    """Run `games` balanced games and write results.csv, summary.json, report.md and plots
    into `out_dir` (if given).  Rows are written as games finish.

    `seatings`: how the line-up is seated (`dune_env.seatings`, default balanced).  `duplicate`:
    a deal's seatings share one seed (`schedule`), intervals over deals, paired differences.
    `bootstrap`: resamples for the intervals (0: none).  `progress`: a bar.

    Every game runs in a worker process: a policy that thinks longer than `move_timeout`
    seconds (default 60) over one decision, exceeds `max_decisions` in a game, raises, exits
    or kills its process loses that game (listed in `failures` and summary.json) and the run
    goes on.  `resume` continues the run in `out_dir`, playing only the games not yet in its
    results.csv; otherwise an earlier run's files there are replaced, or, with
    `overwrite=False` (what `dune-bench` does), a non-empty `out_dir` is refused.  On
    KeyboardInterrupt the finished games' summary is written (marked incomplete) before the
    interrupt is re-raised.  `trust_checkpoints` allows pickle-based model files (SB3 .zip,
    RLlib checkpoints), which can run code: see SECURITY.md.

    `backend="ray"` plays the games as tasks on a Ray cluster (`address`: "auto", "ray://...",
    "local", or None for Ray's default), at most `workers` at once (None: all its CPUs; local
    backend: all cores), with results identical to the local backend's: see harness/backends.py.
    `luck_samples` > 0: luck-adjusted scores, that many resampled rolls per roll, valued by the
    model in the file `luck_model` (default: the shipped one; harness/luck.py)."""
    from .backends import open_backend
    from .outputs import progress_bar
    from .workers import POLICY_OUTPUT_FILE

    check_options(num_players, games, seed, workers, config, luck_samples, luck_model)
    timeout = _checked_timeout(move_timeout)
    policies = _checked_policies(policies, num_players, backend, address, trust_checkpoints)
    design = (luck_samples, luck_model, seatings)
    specs = schedule(policies, num_players, games, seed, config, duplicate, *design)
    run = run_record(policies, num_players, games, seed, config, duplicate, max_decisions, *design)
    directory = Path(out_dir) if out_dir is not None else None
    output_log = str(directory / POLICY_OUTPUT_FILE) if directory is not None else None
    # Connect first (Ray: a bad address or cluster fails here, before anything is written).
    with open_backend(backend, workers, timeout, max_decisions, address, output_log) as pool:
        rows: list[SeatResult] = []
        sink = None
        if directory is not None:
            rows, sink, specs = _open_results(directory, run, specs, resume, overwrite)
        resumed = len({r.game for r in rows})
        label = progress if isinstance(progress, str) else f"{num_players}p benchmark"
        bar = progress_bar(len(specs), label) if progress else None
        start = time.perf_counter()
        failures, interrupted, played = _collect(play_items(pool, specs), rows, sink, bar)
        elapsed = time.perf_counter() - start
    summary = summarise(
        rows, failures, duplicate, bootstrap, seed, luck_adjusted=bool(luck_samples)
    )
    summary["incomplete"] = interrupted
    how = {"workers": pool.size, "backend": backend, "move_timeout": timeout}  # Ray: its CPUs
    how |= {"bootstrap": bootstrap, "resumed": resume}
    summary["meta"] = _meta(run, how, elapsed, played, resumed)
    _finish_run(directory, summary, failures, plots and bool(rows))
    if interrupted:
        raise KeyboardInterrupt
    return BenchmarkResult(rows, failures, summary, directory)


def run_games(
    specs: Sequence[GameSpec],
    workers: int | None = 1,
    on_result: Callable[[GameSpec, list[SeatResult] | GameFailure], None] | None = None,
    move_timeout: float | None = None,
    max_decisions: int = DEFAULT_MAX_DECISIONS,
    backend: str = "local",
    address: str | None = None,
) -> Iterator[Item]:
    """Play the games in `workers` worker processes (also for one worker), yielding each as
    it finishes (in completion order).  A policy that takes longer than `move_timeout`
    seconds over one decision, or whose process dies, loses that game (a GameFailure naming
    it) and its worker is replaced.  See harness/workers.py.  `backend="ray"` plays them as
    tasks on the Ray cluster at `address` (at most `workers` at once; None: all its CPUs),
    with the same results and failures: see harness/backends.py."""
    from .backends import open_backend
    from .workers import DEFAULT_MOVE_TIMEOUT

    timeout = DEFAULT_MOVE_TIMEOUT if move_timeout is None else move_timeout
    with open_backend(backend, workers, timeout, max_decisions, address) as pool:
        for item in play_items(pool, specs):
            if on_result:
                on_result(*item)
            yield item


# The steps other kinds of run share (harness/sprt_run.py), under public names.
checked_policies = _checked_policies
checked_timeout = _checked_timeout
open_results = _open_results
