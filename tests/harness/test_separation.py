"""The benchmark separates competent policies from slightly weaker copies (issue: "800
four-player duplicate games").  Plays 800 games on 2 workers: the slowest harness test."""

from __future__ import annotations

from dune_env.harness import run_benchmark


def test_each_heuristic_is_stronger_than_its_20_percent_random_copy() -> None:
    lineup = ["aggressive", "aggressive-eps20", "economic", "economic-eps20"]
    result = run_benchmark(
        lineup, num_players=4, games=800, seed=0, workers=2, plots=False, duplicate=True
    )
    summary = result.summary
    assert summary["games"] == 800 and not result.failures
    fit = summary["strength_fit"]
    assert fit["converged"]
    policies = summary["policies"]
    for name in ("aggressive", "economic"):
        weak = f"{name}-eps20"
        strong_low = policies[name]["strength_ci95"][0]
        weak_high = policies[weak]["strength_ci95"][1]
        assert strong_low > weak_high, (name, policies[name], policies[weak])
        # the paired difference says the same
        (pair,) = [h for h in summary["head_to_head"] if {h["a"], h["b"]} == {name, weak}]
        low, high = pair["strength_diff_ci95"]
        assert (low > 0) if pair["a"] == name else (high < 0)
        assert policies[name]["control_win_rate"] > policies[weak]["control_win_rate"]
