"""The benchmark harness: balanced, seeded, multi-process games between policies.

    from dune_env.harness import run_benchmark
    result = run_benchmark(["aggressive", "random"], num_players=4, games=200, seed=0)
    print(result.leaderboard)

Also a console command: `dune-bench --policies aggressive random --players 4 --games 200`.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .report import leaderboard, markdown_report, summarise, write_json, write_plots
from .runner import (
    CsvSink,
    GameFailure,
    GameSpec,
    PolicyActionError,
    SeatResult,
    lineup,
    play_game,
    run_games,
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
    workers: int = 1,
    out_dir: str | Path | None = None,
    progress: bool = False,
    config: dict[str, Any] | None = None,
    plots: bool = True,
    duplicate: bool = False,
    bootstrap: int = 200,
) -> BenchmarkResult:
    """Run `games` balanced games and write results.csv, summary.json, report.md and plots
    into `out_dir` (if given).  Rows are written as games finish.

    `duplicate`: play each deal under every rotation of the line-up (`schedule`); the strength
    intervals then resample deals, and the summary holds paired head-to-head differences.
    `bootstrap`: resamples for the strength intervals (0: no intervals)."""
    from ..engine import GameConfig
    from ..policies.registry import load_policy

    GameConfig(num_players=num_players, **(config or {}))  # validate the game options early
    lineup(policies, num_players)  # at most one policy per seat
    for name in sorted(set(policies)):  # fail fast, with the loader's message, on a bad name
        load_policy(name, seed=0)
    _single_threaded_torch()
    specs = schedule(policies, num_players, games, seed, config, duplicate=duplicate)
    directory = Path(out_dir) if out_dir is not None else None
    sink = None
    if directory is not None:
        directory.mkdir(parents=True, exist_ok=True)
        sink = CsvSink(directory / "results.csv")
    rows: list[SeatResult] = []
    failures: list[GameFailure] = []
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=len(specs), unit="game", desc=f"{num_players}p benchmark")
    start = time.perf_counter()
    try:
        for _spec, result in run_games(specs, workers):
            if isinstance(result, GameFailure):
                failures.append(result)
            else:
                rows.extend(result)
                if sink is not None:
                    sink.write(result)
            if bar is not None:
                bar.update(1)
    finally:
        if sink is not None:
            sink.close()
        if bar is not None:
            bar.close()
    elapsed = time.perf_counter() - start
    rows.sort(key=lambda r: (r.game, r.seat))
    failures.sort(key=lambda f: f.game)
    summary = summarise(rows, failures, duplicate=duplicate, bootstrap=bootstrap, seed=seed)
    meta = {
        "policies": list(policies),
        "num_players": num_players,
        "games_requested": games,
        "seed": seed,
        "workers": workers,
        "duplicate": duplicate,
        "bootstrap": bootstrap,
        "config": config or {},
        "seconds": elapsed,
        "games_per_second": summary["games"] / elapsed if elapsed > 0 else 0.0,
    }
    summary["meta"] = meta
    if directory is not None:
        write_json(directory / "summary.json", summary)
        (directory / "report.md").write_text(markdown_report(summary, meta))
        if failures:
            (directory / "failures.txt").write_text(
                "\n\n".join(f"game {f.game} seed {f.seed}: {f.detail}" for f in failures)
            )
        if plots and rows:
            write_plots(summary, directory)
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
