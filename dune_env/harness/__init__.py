"""The benchmark harness: balanced, seeded, multi-process games between policies.

    from dune_env.harness import run_benchmark
    result = run_benchmark(["aggressive", "random"], num_players=4, games=200, seed=0)
    print(result.leaderboard)

Also a console command: `dune-bench --policies aggressive random --players 4 --games 200`.
"""

from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .report import leaderboard, markdown_report, summarise, write_json, write_plots
from .runner import (
    DEFAULT_MAX_DECISIONS,
    CsvSink,
    GameFailure,
    GameSpec,
    PolicyActionError,
    SeatResult,
    lineup,
    play_game,
    schedule,
)
from .stats import GameOutcome, StrengthFit, fit_strength, wilson_interval


@dataclass
class BenchmarkResult:
    rows: list[SeatResult]
    failures: list[GameFailure]
    summary: dict[str, Any]
    out_dir: Path | None

    @property
    def leaderboard(self) -> str:
        return leaderboard(self.summary)


HARNESS_KEYS = ("num_players", "faction_mode", "factions")  # set by the harness itself


def check_options(
    num_players: int, games: int, seed: int, workers: int | None, config: dict[str, Any] | None
) -> None:
    """Refuse bad benchmark arguments with one clear message (ValueError or ConfigError)."""
    from ..engine import ConfigError, GameConfig
    from ..engine.config import check_seed

    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise ValueError(f"games={games!r}: give a positive number of games")
    if workers is not None and (
        isinstance(workers, bool) or not isinstance(workers, int) or workers < 1
    ):
        raise ValueError(f"workers={workers!r}: give at least 1")
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


def _single_threaded_torch() -> None:
    """One torch thread per process.  A model policy loaded above starts torch's thread pool,
    and worker processes forked after that deadlock in it; one game's batch-of-one inference
    is also faster on one thread, and the workers are the parallelism."""
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(1)


def run_benchmark(
    policies: list[str],
    num_players: int = 4,
    games: int = 100,
    seed: int = 0,
    workers: int | None = 1,
    out_dir: str | Path | None = None,
    progress: bool = False,
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
) -> BenchmarkResult:
    """Run `games` balanced games and write results.csv, summary.json, report.md and plots
    into `out_dir` (if given).  Rows are written as games finish.

    `duplicate`: play each deal under every rotation of the line-up (`schedule`); the strength
    intervals then resample deals, and the summary holds paired head-to-head differences.
    `bootstrap`: resamples for the strength intervals (0: no intervals).

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
    backend: all cores), with results identical to the local backend's: see harness/backends.py."""
    from ..policies.registry import load_policy, trusted
    from .backends import check_backend, check_ray_policies, open_backend
    from .outputs import (
        RESULTS_FILE,
        open_output,
        prepare_out_dir,
        progress_bar,
        read_results,
        write_output,
    )
    from .workers import DEFAULT_MOVE_TIMEOUT, POLICY_OUTPUT_CAP, POLICY_OUTPUT_FILE

    check_options(num_players, games, seed, workers, config)
    check_backend(backend, address)
    if backend == "ray":
        from .backends import import_ray

        import_ray()  # one clear message before anything is written when Ray is missing
        check_ray_policies(policies)
    if trust_checkpoints:  # the opt-in travels with each spec into the worker processes
        policies = [trusted(p) if isinstance(p, str) else p for p in policies]
    timeout = DEFAULT_MOVE_TIMEOUT if move_timeout is None else float(move_timeout)
    if not timeout > 0 or timeout == float("inf"):
        raise ValueError(f"move_timeout={move_timeout!r}: give a positive number of seconds")
    lineup(policies, num_players)  # at most one policy per seat
    for name in sorted(set(policies)):  # fail fast, with the loader's message, on a bad name
        load_policy(name, seed=0)
    _single_threaded_torch()
    specs = schedule(policies, num_players, games, seed, config, duplicate=duplicate)
    # Connect first (Ray: a bad address or cluster fails here, before anything is written).
    directory = Path(out_dir) if out_dir is not None else None
    output_log = directory / POLICY_OUTPUT_FILE if directory is not None else None
    log_name = str(output_log) if output_log is not None else None
    with open_backend(backend, workers, timeout, max_decisions, address, log_name) as pool:
        sink = None
        rows: list[SeatResult] = []
        done: set[int] = set()  # games kept from the run being resumed
        if directory is not None:
            run = {
                "policies": list(policies),
                "num_players": num_players,
                "games": games,
                "seed": seed,
                "config": config or {},
                "duplicate": duplicate,
                "max_decisions": max_decisions,
            }
            prepare_out_dir(directory, run, resume, overwrite)
            open_output(directory / POLICY_OUTPUT_FILE, append=resume).close()
            results_path = directory / RESULTS_FILE
            if resume:
                rows = read_results(results_path, specs)
                done = {r.game for r in rows}
                specs = [s for s in specs if s.index not in done]
                # Keep only complete games' rows (a crash may have cut the last one short): write
                # them to a new file that replaces the old one whole, then append to it.
                partial = directory / (RESULTS_FILE + ".partial")
                rewrite = CsvSink(partial)
                rewrite.write(rows)
                rewrite.close()
                os.replace(partial, results_path)
                sink = CsvSink(results_path, append=True)
            else:
                sink = CsvSink(results_path)
        failures: list[GameFailure] = []
        bar = progress_bar(len(specs), f"{num_players}p benchmark") if progress else None
        start = time.perf_counter()
        interrupted = False
        workers_used = pool.size  # under Ray with workers=None: the cluster's CPUs
        games_played = pool.play(specs)
        played_now = 0  # finished or failed in this session (a resume keeps the others)
        try:
            for _spec, result in games_played:
                played_now += 1
                if isinstance(result, GameFailure):
                    failures.append(result)
                else:
                    rows.extend(result)
                    if sink is not None:
                        sink.write(result)
                if bar is not None:
                    bar.update(1)
        except KeyboardInterrupt:
            interrupted = True
        finally:
            games_played.close()  # stops the games still running (Ctrl-C)
            if sink is not None:
                sink.close()
            if bar is not None:
                bar.close()
            elapsed = time.perf_counter() - start
    rows.sort(key=lambda r: (r.game, r.seat))
    failures.sort(key=lambda f: f.game)
    summary = summarise(rows, failures, duplicate=duplicate, bootstrap=bootstrap, seed=seed)
    summary["incomplete"] = interrupted
    meta = {
        "policies": list(policies),
        "num_players": num_players,
        "games_requested": games,
        "seed": seed,
        "workers": workers_used,
        "backend": backend,
        "duplicate": duplicate,
        "bootstrap": bootstrap,
        "config": config or {},
        "move_timeout": timeout,
        "max_decisions": max_decisions,
        "resumed": resume,
        "seconds": elapsed,
        "games_played": played_now,
        "games_resumed": len(done),
        "games_per_second": played_now / elapsed if played_now and elapsed > 0 else 0.0,
    }
    summary["meta"] = meta
    if directory is not None:
        assert output_log is not None
        printed = output_log.stat().st_size if output_log.is_file() else 0
        if not printed and output_log.is_file() and not output_log.is_symlink():
            output_log.unlink()  # nothing printed: no file
        meta["policy_output_bytes"] = printed
        report = markdown_report(summary, meta)
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
                    f"game {f.game} seed {f.seed} ({f.kind}): {f.error}\n{f.detail}"
                    for f in failures
                ),
            )
        if plots and rows and not interrupted:
            write_plots(summary, directory)
    if interrupted:
        raise KeyboardInterrupt
    return BenchmarkResult(rows, failures, summary, directory)


__all__ = [
    "BenchmarkResult",
    "GameFailure",
    "GameSpec",
    "GameOutcome",
    "PolicyActionError",
    "SeatResult",
    "StrengthFit",
    "fit_strength",
    "play_game",
    "run_benchmark",
    "schedule",
    "wilson_interval",
]
