"""The benchmark harness: statistics, balanced schedules, reproducibility, outputs, bad input."""

from __future__ import annotations

import csv
import json
from collections import Counter
from pathlib import Path

import pytest

from dune_env.engine import Game
from dune_env.harness import run_benchmark, schedule, wilson_interval
from dune_env.harness.cli import main as bench_main
from dune_env.harness.stats.strength import GameOutcome, fit_strength
from dune_env.policies.base import SeededPolicy
from dune_env.policies.registry import PolicyLoadError, load_policy


@pytest.mark.parametrize(
    ("wins", "n", "low", "high"),
    [
        # Reference values (Wilson 1927; e.g. statsmodels proportion_confint method="wilson").
        (8, 10, 0.4902, 0.9433),
        (0, 10, 0.0, 0.2775),
        (50, 100, 0.4038, 0.5962),
        (1, 1, 0.2065, 1.0),
        (25, 100, 0.1755, 0.3430),
    ],
)
def test_wilson_interval_known_values(wins: int, n: int, low: float, high: float) -> None:
    lo, hi = wilson_interval(wins, n)
    assert lo == pytest.approx(low, abs=1e-4)
    assert hi == pytest.approx(high, abs=1e-4)


def test_wilson_interval_rejects_impossible_counts() -> None:
    with pytest.raises(ValueError):
        wilson_interval(5, 3)
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_strength_ranks_the_winner_higher() -> None:
    """(Replaces the OpenSkill test: the batch fit ranks a policy that wins more higher.)"""
    games = [
        GameOutcome(
            ("a", "b", "b"),
            ("F0", "F1", "F2")[i % 3 :] + ("F0", "F1", "F2")[: i % 3],
            (0,) if i % 4 else (1,),
            i,
        )
        for i in range(30)
    ]
    fit = fit_strength(games, reference="b", bootstrap=0)
    assert fit.strength["a"] > fit.strength["b"] == 0.0


@pytest.mark.parametrize("num_players", [3, 4, 5, 6, 8])
def test_schedule_balances_seats_and_factions(num_players: int) -> None:
    """Every policy sits in every seat equally often, and plays every faction equally often,
    over whole cycles of the faction sets (m deals of the seating design)."""
    from dune_env.engine.constants import available_factions
    from dune_env.match import lineup
    from dune_env.seatings import deal_seatings

    m = len(available_factions(num_players))
    games = len(deal_seatings(lineup(["a", "b"], num_players))) * m
    specs = schedule(["a", "b"], num_players, games, seed=1)
    seats = Counter()
    factions = Counter()
    for spec in specs:
        assert sorted(spec.factions) == sorted(set(spec.factions))
        for seat, policy in enumerate(spec.seat_policies):
            seats[(policy, seat)] += 1
            factions[(policy, spec.factions[seat])] += 1
    per_policy = Counter(p for spec in specs for p in spec.seat_policies)
    for policy in ("a", "b"):
        counts = [seats[(policy, s)] for s in range(num_players)]
        assert len(set(counts)) == 1, counts
        fcounts = [factions[(policy, f)] for f in available_factions(num_players)]
        assert len(set(fcounts)) == 1, fcounts
        assert sum(counts) == per_policy[policy]


def test_schedule_rejects_more_policies_than_seats() -> None:
    with pytest.raises(ValueError, match="at most 3"):
        schedule(["a", "b", "c", "d"], 3, 10, 0)


def test_benchmark_is_reproducible_and_independent_of_workers(tmp_path: Path) -> None:
    a = run_benchmark(["random"], num_players=4, games=12, seed=3, workers=1, plots=False)
    b = run_benchmark(["random"], num_players=4, games=12, seed=3, workers=2, plots=False)
    assert [r.__dict__ for r in a.rows] == [r.__dict__ for r in b.rows]
    c = run_benchmark(["random"], num_players=4, games=12, seed=4, workers=1, plots=False)
    assert [r.__dict__ for r in a.rows] != [r.__dict__ for r in c.rows]


def test_benchmark_writes_all_outputs(tmp_path: Path) -> None:
    result = run_benchmark(["random"], num_players=5, games=6, seed=0, out_dir=tmp_path)
    assert len(result.rows) == 30
    with (tmp_path / "results.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 30 and {"game", "seat", "faction", "policy", "won"} <= set(rows[0])
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["games"] == 6
    assert "random" in summary["policies"]
    assert "Leaderboard" in (tmp_path / "report.md").read_text()
    assert (tmp_path / "win_rate.png").stat().st_size > 1000
    assert (tmp_path / "win_rate_by_faction.png").stat().st_size > 1000


class IllegalPolicy(SeededPolicy):
    name = "illegal"

    def act(self, game: Game, seat: int) -> int:
        return 10_000


class FlakyPolicy(SeededPolicy):
    """Plays randomly but crashes in games with an odd seed."""

    name = "flaky"

    def __init__(self, seed: int = 0) -> None:
        super().__init__(seed)
        self.seed = seed

    def reseed(self, seed: int) -> None:
        super().reseed(seed)
        self.seed = seed

    def act(self, game: Game, seat: int) -> int:
        if (self.seed // 16) % 2:
            raise RuntimeError("flaky policy crashed")
        return self.choice(game.legal_options())


def test_illegal_action_is_reported_naming_the_policy(tmp_path: Path) -> None:
    result = run_benchmark(
        ["tests.harness.test_harness:IllegalPolicy"], num_players=3, games=2, out_dir=tmp_path
    )
    assert len(result.failures) == 2
    assert "IllegalPolicy" in result.failures[0].error
    assert "illegal option" in result.failures[0].error


def test_a_failing_game_keeps_the_other_results(tmp_path: Path) -> None:
    result = run_benchmark(
        ["tests.harness.test_harness:FlakyPolicy"],
        num_players=3,
        games=8,
        seed=0,
        out_dir=tmp_path,
        plots=False,
    )
    assert result.failures and result.rows
    assert len(result.rows) == 3 * (8 - len(result.failures))
    with (tmp_path / "results.csv").open() as f:
        assert len(list(csv.DictReader(f))) == len(result.rows)


def test_unknown_policy_name_is_a_clear_error() -> None:
    with pytest.raises(PolicyLoadError, match="unknown policy 'nonsense'.*random"):
        load_policy("nonsense")
    with pytest.raises(PolicyLoadError, match="no attribute"):
        load_policy("dune_env.policies.base:Nothing")
    with pytest.raises(PolicyLoadError, match="cannot import"):
        load_policy("no_such_module:thing")


def test_policy_loads_from_callable_and_module_path() -> None:
    policy = load_policy("dune_env.policies.base:RandomPolicy", seed=1)
    game = Game(num_players=3)
    assert policy.act(game, game.pending.seat) in game.legal_options()


def test_command_runs_end_to_end(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = bench_main(
        [
            "--policies",
            "random",
            "--players",
            "3",
            "--games",
            "4",
            "--workers",
            "1",
            "--out",
            str(tmp_path),
            "--no-progress",
            "--no-plots",
        ]
    )
    assert code == 0
    out = capsys.readouterr().out
    assert "| random |" in out and "report written" in out
    assert (tmp_path / "summary.json").exists()


def test_command_rejects_bad_input(capsys: pytest.CaptureFixture[str]) -> None:
    assert bench_main(["--policies", "nonsense", "--games", "1", "--no-progress"]) == 2
    assert "unknown policy" in capsys.readouterr().err
    assert bench_main(["--policies", "random", "--players", "9", "--no-progress"]) == 2
    args = ["--policies", "random", "random", "random", "random", "--players", "3"]
    assert bench_main([*args, "--no-progress"]) == 2
    assert "at most 3" in capsys.readouterr().err


def test_plots_accept_a_zero_win_rate(tmp_path: Path) -> None:
    """A policy that never wins has a 0% rate and a lower bound of exactly 0 (regression)."""
    from dune_env.harness.runs.report import write_plots

    summary = {
        "policies": {
            "never": {"win_rate": 0.0, "win_rate_ci95": [0.0, 0.3], "by_faction": {}},
            "always": {"win_rate": 1.0, "win_rate_ci95": [0.7, 1.0], "by_faction": {}},
        }
    }
    paths = write_plots(summary, tmp_path)
    assert all(p.stat().st_size > 1000 for p in paths)
