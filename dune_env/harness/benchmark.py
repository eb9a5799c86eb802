"""The benchmark: balanced games between policies, their summary, report and plots.

`run_benchmark` schedules the games (`dune_env.match.schedule`), plays them in the protocols'
frame (frame.py: workers, the run folder, resume), summarises the rows (stats/summary.py) and
writes the report (runs/report.py).  `run_games` plays scheduled games without writing
anything.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..match import GameSpec
from .frame import backend_for, finish_run, play_items, play_run, prepare, run_meta
from .options import RunOptions, with_given
from .play.types import GameFailure, Item, SeatResult
from .runs.report import leaderboard, markdown_report, write_plots
from .stats.summary import summarise


@dataclass
class BenchmarkResult:
    rows: list[SeatResult]
    failures: list[GameFailure]
    summary: dict[str, Any]
    out_dir: Path | None

    @property
    def leaderboard(self) -> str:
        return leaderboard(self.summary)


def run_benchmark(
    policies: list[str],
    num_players: int = 4,
    games: int = 100,
    *,
    duplicate: bool = False,
    options: RunOptions | None = None,
    **given: Any,
) -> BenchmarkResult:
    """Play `games` balanced games of `policies` (seats filled by repeating the list) at
    `num_players` seats; with `options.out_dir`, write results.csv (rows as games finish),
    decisions.jsonl, summary.json, report.md and plots there.

    `duplicate`: a deal's seatings share one seed (`schedule`; `games` whole deals), intervals
    over deals, paired differences.  `options` (`RunOptions`; its fields may also be given as
    keyword arguments, as in earlier versions: `run_benchmark(p, games=200, seed=3,
    workers=2)`): the seed and game options, the seatings, luck adjustment, bootstrap, where
    the games run, the run folder.

    Every game runs in a worker process: a policy that thinks longer than `move_timeout` over
    one decision, exceeds `max_decisions`, raises, exits or kills its process loses that game
    (listed in `failures` and summary.json) and the run goes on.  On KeyboardInterrupt the
    finished games' summary is written (marked incomplete) before the interrupt is raised
    again.  `backend="ray"` plays the games as Ray tasks with identical results
    (play/backends.py)."""
    options = with_given(options, given)
    policies, specs, run = prepare(policies, num_players, games, duplicate, options)
    session = play_run(specs, run, options, f"{num_players}p benchmark")
    luck_adjusted = bool(options.luck_samples)
    rows, failures = session.rows, session.failures
    summary = summarise(
        rows, failures, duplicate, options.bootstrap, options.seed, luck_adjusted=luck_adjusted
    )
    summary["incomplete"] = session.interrupted
    summary["meta"] = run_meta(run, session, options)
    summary["meta"] |= {"games_requested": games, "duplicate": duplicate}
    summary["meta"]["bootstrap"] = options.bootstrap
    plot = write_plots if options.plots and rows and not session.interrupted else None
    finish_run(session, summary, markdown_report(summary, summary["meta"]), options, plot)
    return BenchmarkResult(rows, failures, summary, options.folder)


def run_games(
    specs: Sequence[GameSpec],
    *,
    on_result: Callable[[GameSpec, list[SeatResult] | GameFailure], None] | None = None,
    options: RunOptions | None = None,
    **given: Any,
) -> Iterator[Item]:
    """Play the games in worker processes (`options.workers`, also for one worker), yielding
    each as it finishes (in completion order); nothing is written.  A policy that takes longer
    than `options.move_timeout` over one decision, or whose process dies, loses that game (a
    GameFailure naming it) and its worker is replaced (play/workers.py).  `options.backend`
    "ray" plays them as Ray tasks with the same results and failures (play/backends.py)."""
    options = with_given(options, given)
    with backend_for(options) as pool:
        for item in play_items(pool, specs):
            if on_result:
                on_result(*item)
            yield item
