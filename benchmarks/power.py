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

With `--sprt R`, measures the sequential test instead (`dune-bench --sprt`, docs/baselines.md,
"Sequential testing"): for each of `--sprt-comparisons` (A vs B, line-up [A, B], 4 players),
R runs of the test with seeds --seed, --seed+1, ... (each in --out/sprt/A_vs_B/seed-S, resumed
when rerun), and prints the games each run used to decide next to the games of the fixed-size
tests at the same error rates, from the per-deal standard deviation pooled over all deals
played: the one-sided z-test of the same hypotheses (((z_(1-alpha) + z_(1-beta)) * SD /
(delta1 - delta0))^2 deals) and the "games to separate" of the table above (95% interval
excluding 0 with 80% power at the pooled effect).  Writes power_sprt.json.

    python benchmarks/power.py --sprt 20 --sprt-comparisons aggressive:aggressive-eps20 --workers 2

`--luck GAMES` measures the luck adjustment instead (`dune-bench --luck-adjust`,
benchmarks/power_luck.py): the same duplicate games scored raw and luck-adjusted, and the games
each scoring needs to separate aggressive vs aggressive-eps20, strategist vs economic and
mcts-strategist-16 vs strategist; `--luck-sprt R` the sequential test's games to a decision,
raw and adjusted, over R seeds.

    python benchmarks/power.py --luck 800 --workers 2
    python benchmarks/power.py --luck-sprt 20 --luck-samples 8 --workers 2

`--sprt-simulate RUNS` checks the test's error rates instead, on simulated deals with a known
effect (`dune_env.harness.sprt.simulate`): 4% control wins per seat for both policies (H0 true,
effect 0) and 5.5% against 2.5% (H1 true, effect 3 points), per design.
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

from power_luck import add_luck_arguments, luck_power, luck_sprt

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


SPRT_COMPARISONS = [
    "aggressive:aggressive-eps20",
    "strategist:economic",
    "mcts-strategist-16:strategist",
]


def sprt_power(args: argparse.Namespace, out_dir: Path) -> None:
    """The sequential test's games to a decision over repetitions, against fixed-size tests."""
    import numpy as np

    from dune_env.harness.sprt import SprtDesign, deal_scores, fixed_sample_deals
    from dune_env.harness.sprt_run import complete_deals, run_sprt

    design = SprtDesign(args.delta[0], args.delta[1], args.alpha, args.beta, args.block)
    results = []
    start = time.perf_counter()
    for pair in args.sprt_comparisons:
        a, b = pair.split(":")
        runs, scores = [], []
        for r in range(args.sprt):
            folder = out_dir / "sprt" / f"{a}_vs_{b}" / f"seed-{args.seed + r}"
            res = run_sprt(
                [a, b],
                4,
                args.max_games,
                args.seed + r,
                design,
                workers=args.workers,
                out_dir=folder,
                resume=True,
                plots=False,
            )
            s = res.summary["sprt"]
            runs.append(
                {
                    "seed": args.seed + r,
                    "decision": s["decision"],
                    "games": s["games_used"],
                    "games_played": res.summary["games"],
                    "effect": s["effect"],
                }
            )
            scores += deal_scores(
                complete_deals(res.rows, 4), a, b, "control"
            )  # every deal played, for the SD
            print(
                f"{a} vs {b} seed {args.seed + r}: {s['decision']} after {s['games_used']} games",
                flush=True,
            )
        x = np.asarray(scores)
        sd, mean = float(x.std(ddof=1)), float(x.mean())
        fixed = fixed_sample_deals(sd, design) * 4
        separate = games_needed(len(x), sd / math.sqrt(len(x)), mean) * 4
        used = [run["games"] for run in runs]
        results.append(
            {
                "a": a,
                "b": b,
                "design": design.__dict__,
                "runs": runs,
                "mean_games": statistics.fmean(used),
                "median_games": statistics.median(used),
                "deals_pooled": len(x),
                "deal_sd": sd,
                "effect_pooled": mean,
                "fixed_games_same_errors": fixed,
                "games_to_separate": separate,
            }
        )
    seconds = time.perf_counter() - start
    print(
        f"\nH0: effect <= {design.delta0:+.1%}, H1: effect >= {design.delta1:+.1%} (control-win "
        f"rate per seat, A − B), alpha {design.alpha}, beta {design.beta}, blocks of "
        f"{design.block} deals, at most {args.max_games or '~4000'} games\n"
    )
    print(
        "| A vs B | runs | H1 / H0 / undecided | games to decide: mean (median, range) "
        "| fixed-size test, same errors | games to separate (95%, 80% power) "
        "| pooled effect, per-deal SD |"
    )
    print("|---|---:|---|---|---:|---:|---|")
    for r in results:
        dec = [run["decision"] for run in r["runs"]]
        used = [run["games"] for run in r["runs"]]
        print(
            f"| {r['a']} vs {r['b']} | {len(used)} | {dec.count('H1')} / {dec.count('H0')} / "
            f"{dec.count('undecided')} | {r['mean_games']:,.0f} ({r['median_games']:,.0f}, "
            f"{min(used):,}–{max(used):,}) | {r['fixed_games_same_errors']:,.0f} "
            f"| {r['games_to_separate']:,.0f} | {r['effect_pooled']:+.1%}, {r['deal_sd']:.3f} |"
        )
    print(f"\n{seconds:.0f} s")
    (out_dir / "power_sprt.json").write_text(json.dumps(results, indent=2, default=str))


def sprt_simulation(runs: int) -> None:
    """The simulated error rates and mean deals of a few designs (no games played)."""
    from dune_env.harness.sprt import H0, H1, SprtDesign, fixed_sample_deals, simulate

    print(
        "| alpha, beta | block | H1 accepted when H0 holds | H0 accepted when H1 holds "
        "| mean deals (H0; H1) | fixed-size test, deals |"
    )
    print("|---|---:|---:|---:|---|---:|")
    sd = math.sqrt(4 * 0.16) / 8  # per-deal SD under H0: each game adds +1, -1 (8% each) or 0
    for error, block in ((0.05, 16), (0.05, 12), (0.05, 8), (0.05, 1), (0.01, 16), (0.01, 8)):
        design = SprtDesign(0.0, 0.03, error, error, block)
        null = simulate(design, 0.04, 0.04, runs, 2000, seed=1)
        alt = simulate(design, 0.055, 0.025, runs, 2000, seed=2)
        print(
            f"| {error}, {error} | {block} | {null[H1]:.1%} | {alt[H0]:.1%} "
            f"| {null['mean_deals']:.0f}; {alt['mean_deals']:.0f} "
            f"| {fixed_sample_deals(sd, design):.0f} |",
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=800, help="games per heuristic run")
    parser.add_argument("--ppo-games", type=int, default=400, help="games per ppo-4p run")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="runs/power")
    parser.add_argument(
        "--sprt",
        type=int,
        default=0,
        metavar="R",
        help="measure the sequential test instead: R runs per comparison",
    )
    parser.add_argument("--sprt-comparisons", nargs="+", default=SPRT_COMPARISONS, metavar="A:B")
    parser.add_argument(
        "--max-games", type=int, default=None, help="--sprt: games per run at most (~4000)"
    )
    parser.add_argument("--block", type=int, default=16, help="--sprt: deals per step")
    parser.add_argument("--delta", nargs=2, type=float, default=[0.0, 0.03])
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--beta", type=float, default=0.05)
    parser.add_argument("--sprt-simulate", type=int, default=0, metavar="RUNS")
    add_luck_arguments(parser)
    args = parser.parse_args()
    if args.sprt_simulate:
        sprt_simulation(args.sprt_simulate)
        return
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    if args.luck or args.luck_sprt:
        if args.luck:
            luck_power(args, out_dir)
        if args.luck_sprt:
            luck_sprt(args, out_dir)
        return
    if args.sprt:
        sprt_power(args, out_dir)
        return
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
