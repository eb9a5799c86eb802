"""Statistical power of `dune-bench`: how many games separate two policies, with and without
duplicate deals, and the variance reduction of duplicate mode.

    python benchmarks/power.py --games 800 --ppo-games 400 --workers 2 --out runs/power

For each comparison (A vs B), plays `--games` 4-player games in duplicate mode and as many
in the ordinary rotated schedule (other seeds), and reports per mode:

- the difference in faction-adjusted strength A - B (log-odds) with its 95% bootstrap interval,
  and the difference in control-win rate per seat with its 95% interval;
- the games needed for the 95% interval of the difference to exclude 0 with 80% power,
  n = games * ((1.96 + 0.84) * SE / |difference|)^2, where SE is the measured standard error at
  `--games` and the difference is the mean of both modes' estimates;
- for the duplicate run, the variance reduction ratio of the paired control-win difference:
  (var(a_k) + var(b_k)) / var(a_k - b_k) over deals k, where a_k, b_k are A's and B's per-seat
  control-win rates in deal k: the factor by which pairing divides the variance of the
  estimate, measured in one run.

Prints a Markdown table (docs/baselines.md quotes it) and writes power.json into --out.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from dune_env.harness import run_benchmark
from dune_env.harness.report import is_control_win, outcomes
from dune_env.harness.runner import SeatResult
from dune_env.harness.stats import Z95, fit_strength

Z_POWER = 0.8416212335729143  # one-sided z of 80% power

COMPARISONS = [
    # (A, B, line-up)
    ("aggressive", "economic", ["aggressive", "economic"]),
    ("aggressive", "aggressive-eps20", ["aggressive", "aggressive-eps20"]),
    ("economic", "economic-eps20", ["economic", "economic-eps20"]),
    ("ppo-4p", "aggressive", ["ppo-4p", "aggressive", "economic", "random"]),
    ("ppo-4p", "economic", ["ppo-4p", "aggressive", "economic", "random"]),
]


def games_needed(games: int, se: float, diff: float) -> float:
    if diff == 0:
        return math.inf
    return games * ((Z95 + Z_POWER) * se / abs(diff)) ** 2


def control_by_unit(rows: list[SeatResult], policy: str) -> dict[int, float]:
    """Per-seat control-win rate of `policy` in each deal (duplicate) or game (seed)."""
    cells: dict[int, list[int]] = defaultdict(lambda: [0, 0])
    for r in rows:
        if r.policy == policy:
            cells[r.seed][0] += int(is_control_win(r))
            cells[r.seed][1] += 1
    return {k: won / seats for k, (won, seats) in cells.items()}


def measure(rows: list[SeatResult], a: str, b: str, duplicate: bool) -> dict[str, Any]:
    fit = fit_strength(outcomes(rows))
    pair = fit.pair_ci95.get((a, b)) or fit.pair_ci95.get((b, a))
    assert pair is not None
    sign = 1.0 if (a, b) in fit.pair_ci95 else -1.0
    diff, low, high = (
        pair[0] * sign,
        min(pair[1] * sign, pair[2] * sign),
        max(pair[1] * sign, pair[2] * sign),
    )
    ra, rb = control_by_unit(rows, a), control_by_unit(rows, b)
    out: dict[str, Any] = {
        "games": len({r.game for r in rows}),
        "strength_diff": diff,
        "strength_diff_ci95": [low, high],
        "strength_se": (high - low) / (2 * Z95),
    }
    if duplicate:
        keys = sorted(set(ra) & set(rb))
        d = [ra[k] - rb[k] for k in keys]
        va = statistics.variance([ra[k] for k in keys])
        vb = statistics.variance([rb[k] for k in keys])
        vd = statistics.variance(d)
        mean = statistics.fmean(d)
        se = math.sqrt(vd / len(d))
        out["variance_reduction"] = (va + vb) / vd if vd > 0 else math.inf
    else:
        xa, xb = list(ra.values()), list(rb.values())
        mean = statistics.fmean(xa) - statistics.fmean(xb)
        se = math.sqrt(statistics.variance(xa) / len(xa) + statistics.variance(xb) / len(xb))
    out["control_diff"] = mean
    out["control_diff_ci95"] = [mean - Z95 * se, mean + Z95 * se]
    out["control_se"] = se
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=800, help="games per heuristic run")
    parser.add_argument("--ppo-games", type=int, default=400, help="games per ppo-4p run")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="runs/power")
    args = parser.parse_args()
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    runs: dict[tuple[str, bool], list[SeatResult]] = {}
    results = []
    for a, b, line in COMPARISONS:
        games = args.ppo_games if "ppo-4p" in line else args.games
        games -= games % 4
        measured = {}
        for duplicate in (True, False):
            key = (" ".join(line), duplicate)
            if key not in runs:
                seed = args.seed + (0 if duplicate else 500_000)
                runs[key] = run_benchmark(
                    line,
                    4,
                    games,
                    seed,
                    workers=args.workers,
                    plots=False,
                    duplicate=duplicate,
                    bootstrap=0,
                ).rows
            measured["duplicate" if duplicate else "independent"] = measure(
                runs[key], a, b, duplicate
            )
        dup, ind = measured["duplicate"], measured["independent"]
        pooled_strength = (dup["strength_diff"] + ind["strength_diff"]) / 2
        pooled_control = (dup["control_diff"] + ind["control_diff"]) / 2
        for m in (dup, ind):
            m["games_needed_strength"] = games_needed(m["games"], m["strength_se"], pooled_strength)
            m["games_needed_control"] = games_needed(m["games"], m["control_se"], pooled_control)
        results.append({"a": a, "b": b, "lineup": line, **measured})
    seconds = time.perf_counter() - start

    def fmt_n(x: float) -> str:
        return "∞" if not math.isfinite(x) else f"{x:,.0f}"

    print(
        "| A vs B (line-up) | mode | games | strength A−B [95% CI] | games to separate "
        "| control-win A−B [95% CI] | games to separate | variance reduction |"
    )
    print("|---|---|---:|---|---:|---|---:|---:|")
    for r in results:
        for mode in ("duplicate", "independent"):
            m = r[mode]
            lo, hi = m["strength_diff_ci95"]
            clo, chi = m["control_diff_ci95"]
            vr = f"{m['variance_reduction']:.2f}" if "variance_reduction" in m else ""
            print(
                f"| {r['a']} vs {r['b']} ({len(r['lineup'])} policies) | {mode} | {m['games']} "
                f"| {m['strength_diff']:+.2f} [{lo:+.2f}, {hi:+.2f}] "
                f"| {fmt_n(m['games_needed_strength'])} "
                f"| {m['control_diff']:+.1%} [{clo:+.1%}, {chi:+.1%}] "
                f"| {fmt_n(m['games_needed_control'])} | {vr} |"
            )
    print(f"\n{sum(len(v) for v in runs.values()) // 4} games in {seconds:.0f} s")
    (out_dir / "power.json").write_text(json.dumps(results, indent=2, default=str))


if __name__ == "__main__":
    main()
