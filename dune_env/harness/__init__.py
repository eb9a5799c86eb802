"""The benchmark harness: balanced, seeded, multi-process games between policies.

    from dune_env.harness import run_benchmark
    result = run_benchmark(["aggressive", "random"], num_players=4, games=200, seed=0)
    print(result.leaderboard)

Also a console command: `dune-bench --policies aggressive random --players 4 --games 200`.

Modules: `benchmark` (run_benchmark, run_games), `runner` (one game in a worker), `types`
(the shared result types), `workers` and `backends` (where games run), `outputs`, `report`,
`stats`, `suite`, `replays`, `cli`, and the sequential test (`sprt`: the statistics,
`sprt_run`: run_sprt, `sprt_cli`: `dune-bench --sprt`).  The games themselves are played
by `dune_env.match`.
"""

from __future__ import annotations

from ..match import GameSpec, PolicyActionError, lineup, schedule
from .benchmark import HARNESS_KEYS, BenchmarkResult, check_options, run_benchmark, run_games
from .play.runner import play_game
from .play.types import GameFailure, SeatResult
from .stats.strength import GameOutcome, StrengthFit, fit_strength, wilson_interval

__all__ = [
    "BenchmarkResult",
    "GameFailure",
    "GameSpec",
    "GameOutcome",
    "HARNESS_KEYS",
    "PolicyActionError",
    "SeatResult",
    "StrengthFit",
    "check_options",
    "fit_strength",
    "lineup",
    "play_game",
    "run_benchmark",
    "run_games",
    "schedule",
    "wilson_interval",
]
