"""The saving of luck-adjusted outcomes (`dune-bench --luck-adjust`): `power.py --luck GAMES`.

For each comparison A vs B (4 players, line-up [A, B], duplicate deals), one run of GAMES games
with the dice's luck measured; the same games are then scored twice, raw and luck-adjusted, and
for each scoring the table gives the strength difference A - B (95% bootstrap interval over
deals) and the paired control-win difference, each with the games needed for its 95% interval
to exclude 0 with 80% power at a common effect (the mean of both scorings' estimates):
n = GAMES * ((1.96 + 0.84) * SE / |effect|)^2.  Same games, same seeds: the ratio of the two
is the saving.

With `--luck-sprt R` the sequential test too: R seeds of A vs B (the first comparison by
default), blocks of deals played until both tests have decided, each deal sequence scored raw
and adjusted, and the games each test needed (`dune_env.harness.stats.sprt.decide`, the deals in
schedule order, as `dune-bench --sprt` runs it).  Nothing is written per seed (not resumable).
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import time
from pathlib import Path
from typing import Any

from dune_env.harness import run_benchmark
from dune_env.harness.benchmark import run_games
from dune_env.harness.play.types import GameFailure, SeatResult
from dune_env.harness.stats.sprt import SprtDesign, deal_scores, decide, default_block
from dune_env.harness.stats.strength import Z95, fit_strength
from dune_env.harness.stats.summary import outcomes
from dune_env.match import schedule
from dune_env.seatings import deal_seatings

Z_POWER = 0.8416212335729143  # one-sided z of 80% power
LUCK_COMPARISONS = [
    "aggressive:aggressive-eps20",
    "strategist:economic",
    "mcts-strategist-16:strategist",
]


def games_needed(games: int, se: float, effect: float) -> float:
    return math.inf if effect == 0 else games * ((Z95 + Z_POWER) * se / abs(effect)) ** 2


def scored(rows: list[SeatResult], a: str, b: str, adjusted: bool, bootstrap: int) -> dict:
    """Strength A - B and paired control-win A - B of `rows`, raw or luck-adjusted."""
    fit = fit_strength(outcomes(rows, adjusted), bootstrap=bootstrap, seed=1)
    pair = fit.pair_ci95.get((a, b))
    sign = 1.0
    if pair is None:
        pair, sign = fit.pair_ci95[(b, a)], -1.0
    low, high = sorted((pair[1] * sign, pair[2] * sign))
    d = deal_scores(rows, a, b, "control", adjusted)
    return {
        "strength_diff": pair[0] * sign,
        "strength_ci95": [low, high],
        "strength_se": (high - low) / (2 * Z95),
        "control_diff": statistics.fmean(d),
        "control_se": statistics.stdev(d) / math.sqrt(len(d)),
        "deal_sd": statistics.stdev(d),
    }


def luck_power(args: argparse.Namespace, out_dir: Path) -> list[dict[str, Any]]:
    results = []
    start = time.perf_counter()
    for pair in args.luck_comparisons:
        a, b = pair.split(":")
        per_deal = len(deal_seatings([a, b, a, b], args.seatings))
        result = run_benchmark(
            [a, b],
            4,
            args.luck - args.luck % per_deal,
            seed=args.seed,
            workers=args.workers,
            out_dir=out_dir / "luck" / f"{a}_vs_{b}",
            resume=(out_dir / "luck" / f"{a}_vs_{b}" / "run.json").exists(),
            plots=False,
            duplicate=True,
            bootstrap=0,
            luck_samples=args.luck_samples,
            seatings=args.seatings,
        )
        rows = result.rows
        games = len({r.game for r in rows})
        raw = scored(rows, a, b, False, args.bootstrap)
        adj = scored(rows, a, b, True, args.bootstrap)
        for metric in ("strength", "control"):
            effect = (raw[f"{metric}_diff"] + adj[f"{metric}_diff"]) / 2
            for m in (raw, adj):
                m[f"games_needed_{metric}"] = games_needed(games, m[f"{metric}_se"], effect)
        results.append({"a": a, "b": b, "games": games, "raw": raw, "adjusted": adj})
        print(f"{a} vs {b}: {games} games done ({time.perf_counter() - start:.0f} s)", flush=True)
    print_luck_table(results, args.luck_samples)
    print(f"\n{time.perf_counter() - start:.0f} s")
    (out_dir / "power_luck.json").write_text(json.dumps(results, indent=2, default=str))
    return results


def _n(x: float) -> str:
    return "∞" if not math.isfinite(x) else f"{x:,.0f}"


def print_luck_table(results: list[dict[str, Any]], samples: int) -> None:
    print(
        f"\nLuck adjustment ({samples} resampled rolls per roll), 4 players, line-up [A, B], "
        "duplicate deals; the same games scored raw and adjusted\n"
    )
    print(
        "| A vs B | games | scoring | strength A−B [95% CI] | games to separate "
        "| control-win A−B (per-deal SD) | games to separate |"
    )
    print("|---|---:|---|---|---:|---|---:|")
    for r in results:
        for name in ("raw", "adjusted"):
            m = r[name]
            lo, hi = m["strength_ci95"]
            print(
                f"| {r['a']} vs {r['b']} | {r['games']} | {name} "
                f"| {m['strength_diff']:+.2f} [{lo:+.2f}, {hi:+.2f}] "
                f"| {_n(m['games_needed_strength'])} "
                f"| {m['control_diff']:+.1%} ({m['deal_sd']:.3f}) "
                f"| {_n(m['games_needed_control'])} |"
            )
        raw, adj = r["raw"], r["adjusted"]
        print(
            f"| | | **saving** | | **{_ratio(raw, adj, 'strength')}** | "
            f"| **{_ratio(raw, adj, 'control')}** |"
        )


def _ratio(raw: dict[str, Any], adj: dict[str, Any], metric: str) -> str:
    n_raw, n_adj = raw[f"games_needed_{metric}"], adj[f"games_needed_{metric}"]
    if not (math.isfinite(n_raw) and math.isfinite(n_adj)) or n_adj == 0:
        return "–"
    return f"{n_raw / n_adj:.2f}×"


def _play_until_both_decide(
    a: str, b: str, seed: int, games: int, design: SprtDesign, args: argparse.Namespace
) -> dict[str, Any]:
    """One seed: blocks of deals played (luck measured) until the raw and the adjusted test
    have both decided, or `games` are played; each test's decision and games used."""
    per_deal = len(deal_seatings([a, b, a, b], args.seatings))
    games -= games % (per_deal * design.block)
    specs = schedule([a, b], 4, games, seed, None, True, args.luck_samples, "", args.seatings)
    unit = per_deal * design.block
    rows: list[SeatResult] = []
    decisions: dict[str, Any] = {}
    for start in range(0, len(specs), unit):
        for _spec, result in run_games(specs[start : start + unit], workers=args.workers):
            if isinstance(result, GameFailure):
                raise RuntimeError(result.error)
            rows.extend(result)
        rows.sort(key=lambda r: (r.game, r.seat))
        decisions = {
            name: decide(deal_scores(rows, a, b, "control", adjusted), design)
            for name, adjusted in (("raw", False), ("adjusted", True))
        }
        if all(d.decision != "undecided" for d in decisions.values()):
            break
    return {
        name: {"decision": d.decision, "games": d.deals * per_deal} for name, d in decisions.items()
    }


def luck_sprt(args: argparse.Namespace, out_dir: Path) -> None:
    """Games to a decision of the sequential test, raw and adjusted, on the same deals."""
    a, b = args.luck_comparisons[0].split(":")
    per_deal = len(deal_seatings([a, b, a, b], args.seatings))
    block = args.block or default_block(per_deal)
    design = SprtDesign(args.delta[0], args.delta[1], args.alpha, args.beta, block)
    games = args.max_games or 1600
    runs = []
    start = time.perf_counter()
    for r in range(args.luck_sprt):
        run = {
            "seed": args.seed + r,
            **_play_until_both_decide(a, b, args.seed + r, games, design, args),
        }
        runs.append(run)
        print(
            f"seed {args.seed + r}: raw {run['raw']['decision']} after {run['raw']['games']}, "
            f"adjusted {run['adjusted']['decision']} after {run['adjusted']['games']} games "
            f"({time.perf_counter() - start:.0f} s)",
            flush=True,
        )
    print(
        f"\n{a} vs {b}, H0: effect <= {design.delta0:+.1%}, H1: >= {design.delta1:+.1%}, alpha "
        f"{design.alpha}, beta {design.beta}, blocks of {design.block} deals, at most {games} "
        f"games (an undecided run counts {games}), {args.luck_samples} resampled rolls per roll\n"
    )
    print("| scoring | runs | H1 / H0 / undecided | games to decide: mean (median, range) |")
    print("|---|---:|---|---|")
    for name in ("raw", "adjusted"):
        used = [run[name]["games"] for run in runs]
        dec = [run[name]["decision"] for run in runs]
        print(
            f"| {name} | {len(runs)} | {dec.count('H1')} / {dec.count('H0')} / "
            f"{dec.count('undecided')} | {statistics.fmean(used):,.0f} "
            f"({statistics.median(used):,.0f}, {min(used):,}–{max(used):,}) |"
        )
    print(f"\n{time.perf_counter() - start:.0f} s")
    (out_dir / "power_luck_sprt.json").write_text(json.dumps(runs, indent=2))


def add_luck_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--luck", type=int, default=0, metavar="GAMES", help="measure the luck adjustment"
    )
    parser.add_argument("--luck-samples", type=int, default=16, help="resampled rolls per roll")
    parser.add_argument("--luck-comparisons", nargs="+", default=LUCK_COMPARISONS, metavar="A:B")
    parser.add_argument("--luck-sprt", type=int, default=0, metavar="R", help="SPRT repetitions")
    parser.add_argument("--bootstrap", type=int, default=200, help="--luck: bootstrap resamples")
