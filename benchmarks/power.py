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
effect (`dune_env.harness.stats.sprt.simulate`): 4% control wins per seat for both policies
(H0 true, effect 0) and 5.5% against 2.5% (H1 true, effect 3 points), per design.
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
from dune_env.harness.play.types import SeatResult
from dune_env.harness.stats.scores import is_control_win
from dune_env.harness.stats.strength import Z95, fit_strength
from dune_env.harness.stats.summary import outcomes
from dune_env.match import lineup
from dune_env.seatings import DEFAULT_SEATINGS, SEATINGS, deal_seatings

Z_POWER = 0.8416212335729143  # one-sided z of 80% power

COMPARISONS = [
    # (A, B, line-up)
    ("aggressive", "economic", ["aggressive", "economic"]),
    ("aggressive", "aggressive-eps20", ["aggressive", "aggressive-eps20"]),
    ("economic", "economic-eps20", ["economic", "economic-eps20"]),
    ("ppo-4p", "aggressive", ["ppo-4p", "aggressive", "economic", "random"]),
    ("ppo-4p", "economic", ["ppo-4p", "aggressive", "economic", "random"]),
]


def whole_deals(line: list[str], games: int, seatings: str, players: int = 4) -> int:
    """`games` rounded down to whole deals of the line-up's seating design."""
    per_deal = len(deal_seatings(lineup(line, players), seatings))
    return games - games % per_deal


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

    from dune_env.harness.sprt_run import complete_deals, run_sprt
    from dune_env.harness.stats.sprt import (
        SprtDesign,
        deal_scores,
        default_block,
        fixed_sample_deals,
    )

    results = []
    start = time.perf_counter()
    for pair in args.sprt_comparisons:
        # A:B, or A,B,C,... (the others of the line-up; commas where a name holds a colon)
        line = pair.split(",") if "," in pair else pair.split(":")
        a, b = line[0], line[1]
        per_deal = len(deal_seatings(lineup(line, args.players), args.seatings))
        block = args.block or default_block(per_deal)
        design = SprtDesign(args.delta[0], args.delta[1], args.alpha, args.beta, block)
        runs, scores = [], []
        for r in range(args.sprt):
            name = "_vs_".join(p.rpartition(":")[2] for p in line[:2])
            folder = out_dir / "sprt" / f"{args.players}p_{name}" / f"seed-{args.seed + r}"
            res = run_sprt(
                line,
                args.players,
                args.max_games,
                seed=args.seed + r,
                design=design,
                workers=args.workers,
                out_dir=folder,
                resume=True,
                plots=False,
                seatings=args.seatings,
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
                complete_deals(res.rows, args.players, per_deal), a, b, "control"
            )  # every deal played, for the SD
            print(
                f"{a} vs {b} seed {args.seed + r}: {s['decision']} after {s['games_used']} games",
                flush=True,
            )
        x = np.asarray(scores)
        sd, mean = float(x.std(ddof=1)), float(x.mean())
        fixed = fixed_sample_deals(sd, design) * per_deal
        separate = games_needed(len(x), sd / math.sqrt(len(x)), mean) * per_deal
        used = [run["games"] for run in runs]
        results.append(
            {
                "a": a,
                "b": b,
                "lineup": line,
                "games_per_deal": per_deal,
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
        f"\nH0: effect <= {args.delta[0]:+.1%}, H1: effect >= {args.delta[1]:+.1%} (control-win "
        f"rate per seat, A − B), alpha {args.alpha}, beta {args.beta}, {args.players} players, "
        f"{args.seatings} seatings, at most {args.max_games or '~4000'} games\n"
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
        others = f" ({' '.join(r['lineup'][2:])})" if len(r["lineup"]) > 2 else ""
        print(
            f"| {r['a']} vs {r['b']}{others} | {len(used)} "
            f"| {dec.count('H1')} / {dec.count('H0')} / {dec.count('undecided')} "
            f"| {r['mean_games']:,.0f} ({r['median_games']:,.0f}, "
            f"{min(used):,}–{max(used):,}) | {r['fixed_games_same_errors']:,.0f} "
            f"| {r['games_to_separate']:,.0f} | {r['effect_pooled']:+.1%}, {r['deal_sd']:.3f} |"
        )
    print(f"\n{seconds:.0f} s")
    (out_dir / "power_sprt.json").write_text(json.dumps(results, indent=2, default=str))


SIMULATED_EFFECTS = (-0.15, -0.10, -0.05, -0.02, 0.0, 0.015, 0.03, 0.05, 0.10, 0.15)
SIMULATED_DEALS = (
    # (label, games a deal, seats of A and of B in each game)
    ("4 players, four different policies (24 games a deal)", 24, 1),
    ("4 players, line-up A B (6 games a deal)", 6, 2),
)


def sprt_simulation(runs: int, base: float) -> None:
    """The sequential test on simulated deals (no games played): for effects from -15 to +15
    points of control-win rate per seat (A's rate base + effect/2, B's base - effect/2), the
    share of each decision and the mean games used, against the fixed-size test of the same
    hypotheses and error rates (at the simulated per-deal SD)."""
    from numpy.random import default_rng as rng

    from dune_env.harness.stats.sprt import (
        H0,
        H1,
        SprtDesign,
        default_block,
        simulate,
        synthetic_deal_scores,
    )

    for label, games, seats in SIMULATED_DEALS:
        design = SprtDesign(0.0, 0.03, 0.05, 0.05, default_block(games))
        print(
            f"\n{label}; base control-win rate {base:.0%} per seat; H0 <= 0, H1 >= +3 points, "
            f"alpha = beta = 5%, blocks of {design.block} deals; {runs:,} runs per effect\n"
        )
        print(
            "| effect A − B | H1 accepted | H0 accepted | undecided | mean games "
            "| fixed-size test, games | SPRT / fixed |"
        )
        print("|---:|---:|---:|---:|---:|---:|---:|")
        for effect in SIMULATED_EFFECTS:
            pa, pb = base + effect / 2, base - effect / 2
            scores = synthetic_deal_scores(rng(7), pa, pb, runs, 4000 // games * 4, games, seats)
            result = simulate(design, scores)
            mean, fixed = result["mean_deals"] * games, result["fixed_deals"] * games
            print(
                f"| {effect:+.1%} | {result[H1]:.1%} | {result[H0]:.1%} "
                f"| {result['undecided']:.1%} | {mean:,.0f} | {fixed:,.0f} | {mean / fixed:.2f} |",
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
    parser.add_argument(
        "--block", type=int, default=None, help="--sprt: deals per step (default: >= 48 games)"
    )
    parser.add_argument("--players", type=int, default=4, help="--sprt: players")
    parser.add_argument("--seatings", choices=list(SEATINGS), default=DEFAULT_SEATINGS)
    parser.add_argument(
        "--base-rate", type=float, default=0.08, help="--sprt-simulate: control wins per seat"
    )
    parser.add_argument("--delta", nargs=2, type=float, default=[0.0, 0.03])
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--beta", type=float, default=0.05)
    parser.add_argument("--sprt-simulate", type=int, default=0, metavar="RUNS")
    add_luck_arguments(parser)
    args = parser.parse_args()
    if args.sprt_simulate:
        sprt_simulation(args.sprt_simulate, args.base_rate)
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
        games = whole_deals(line, args.ppo_games if "ppo-4p" in line else args.games, args.seatings)
        measured = {}
        for duplicate in (True, False):
            key = (" ".join(line), duplicate)
            if key not in runs:
                seed = args.seed + (0 if duplicate else 500_000)
                runs[key] = run_benchmark(
                    line,
                    4,
                    games,
                    seed=seed,
                    workers=args.workers,
                    plots=False,
                    duplicate=duplicate,
                    bootstrap=0,
                    seatings=args.seatings,
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
    print(
        f"\n{sum(len(v) for v in runs.values()) // 4} games in {seconds:.0f} s, "
        f"{args.seatings} seatings"
    )
    (out_dir / "power.json").write_text(json.dumps(results, indent=2, default=str))


if __name__ == "__main__":
    main()
