"""The benchmark harness: balanced, seeded, multi-process games between policies.

    from dune_env.harness import RunOptions, run_benchmark
    result = run_benchmark(["aggressive", "random"], num_players=4, games=200,
                           options=RunOptions(seed=0, workers=2))
    print(result.leaderboard)

Also a console command: `dune-bench --policies aggressive random --players 4 --games 200`.

The protocols, on top: `benchmark` (run_benchmark, run_games), `sprt_run` (run_sprt, the
sequential test), `suite` (run_suite, the standard suite), `leaderboard` (its published table),
`cli` (`dune-bench`, all three); each takes one `RunOptions` (`options`) and runs in `frame`
(the line-up checked, the games played into the run folder, the files written).  Below them,
three rooms: `play/` (where games run: runner, workers, backends, hosts, replayed, luck, the
result types), `stats/` (scores, the strength fit, the summary, the sequential test's
arithmetic, the verdicts) and `runs/` (the run folder: outputs, resume checks, report, replays).
The games themselves are played by `dune_env.match`.
"""

from __future__ import annotations

from ..match import GameSpec, PolicyActionError, lineup, schedule
from .benchmark import BenchmarkResult, run_benchmark, run_games
from .options import HARNESS_KEYS, RunOptions, check_options
from .play.runner import play_game
from .play.types import GameFailure, SeatResult
from .sprt_run import SprtResult, run_sprt
from .stats.strength import GameOutcome, StrengthFit, fit_strength, wilson_interval
from .suite import SuiteResult, run_suite

__all__ = [
    "BenchmarkResult",
    "GameFailure",
    "GameSpec",
    "GameOutcome",
    "HARNESS_KEYS",
    "PolicyActionError",
    "RunOptions",
    "SeatResult",
    "SprtResult",
    "StrengthFit",
    "SuiteResult",
    "check_options",
    "fit_strength",
    "lineup",
    "play_game",
    "run_benchmark",
    "run_games",
    "run_sprt",
    "run_suite",
    "schedule",
    "wilson_interval",
]
