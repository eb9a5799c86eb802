"""How much a policy's score depends on where it sits, and whether a seating design cancels it.

    python benchmarks/seat_effects.py --measure --workers 2 --out runs/seat_effects
    python benchmarks/seat_effects.py --check --workers 2 --out runs/seat_effects

`--measure`: plays duplicate deals of heuristic line-ups under random seatings (every deal in
`--arrangements` arrangements drawn uniformly from all n!, each deal's own draw) at 4, 5 and 6
players and fits the strength model (dune_env/harness/stats/strength.py) with, besides policy and
faction, the seat and the policy sitting d seats before and after each seat, d = 1 .. n/2.
Prints per term its largest effect (log-odds, with a 95% bootstrap interval over deals) and the
likelihood-ratio test of the term (chi-squared, levels - 1 degrees of freedom); and, as plain
rates, each policy's win rate by the policy acting just before it.  Writes seat_effects.json.

`--context RUN [RUN ...]`: for finished `dune-bench --duplicate` runs, the strength fit with
and without the context terms (seat, the policy just before, the policy just after) in every
seat's utility: each pair's difference and the width of its 95% bootstrap interval, to see
whether the terms narrow the intervals (docs/baselines.md, "Seat order").

`--check`: the harness's default design (no --seatings flag) on the line-ups that expose a
seat-order bias: a second copy of the strategist under another name
(`dune_env.policies.heuristics.strategist:StrategistPolicy`) and a seeded-random copy
(`dune_env.policies.epsilon:EconomicEps20`, economic-eps20 under another name), at 4 players
(2,016 games) and 5 players (2,400), and the same under `--seatings rotations`; prints copy -
original (strength and control-win rate, paired over deals).  Writes seat_check.json.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import time
from pathlib import Path
from typing import Any

import numpy as np

from dune_env.harness import run_benchmark
from dune_env.harness.benchmark import run_games
from dune_env.harness.play.types import SeatResult
from dune_env.harness.stats.strength import fit_strength
from dune_env.harness.stats.summary import outcomes
from dune_env.match import schedule
from dune_env.seatings import deal_seatings

LINEUPS = {
    4: ["strategist", "economic", "aggressive", "random"],
    5: ["strategist", "economic", "aggressive", "random", "economic-eps20"],
    6: ["strategist", "economic", "aggressive", "random", "economic-eps20", "aggressive-eps20"],
}
STRATEGIST_COPY = "dune_env.policies.heuristics.strategist:StrategistPolicy"
EPS_COPY = "dune_env.policies.epsilon:EconomicEps20"
CHECKS = {
    4: [
        [STRATEGIST_COPY, "strategist", "economic", "aggressive"],
        [EPS_COPY, "economic-eps20", "strategist", "aggressive"],
    ],
    5: [
        [STRATEGIST_COPY, "strategist", "economic", "aggressive", "random"],
        [EPS_COPY, "economic-eps20", "strategist", "aggressive", "random"],
    ],
}
CHECK_GAMES = {4: 2016, 5: 2400}


def random_seating_specs(policies: list[str], deals: int, arrangements: int, seed: int) -> list:
    """Duplicate deals (the schedule's seeds and factions) each seated in `arrangements`
    distinct arrangements drawn at random from all n! (seeded by `seed`)."""
    n = len(policies)
    per_deal = len(deal_seatings(policies))
    base = schedule(policies, n, deals * per_deal, seed, duplicate=True)[::per_deal]
    rng = np.random.default_rng(seed)
    specs = []
    for deal, first in enumerate(base):
        drawn: dict[tuple[str, ...], None] = {}
        while len(drawn) < min(arrangements, math.factorial(n)):
            drawn[tuple(policies[i] for i in rng.permutation(n))] = None
        for k, seats in enumerate(drawn):
            index = deal * arrangements + k
            specs.append(dataclasses.replace(first, index=index, seat_policies=seats))
    return specs


def context_terms(n: int) -> list[str]:
    terms = ["seat"]
    for d in range(1, n // 2 + 1):
        suffix = "" if d == 1 else str(d)
        terms += [f"before{suffix}"] + ([f"after{suffix}"] if 2 * d != n else [])
    return terms


def _largest(effects: dict[str, float]) -> tuple[str, float]:
    level = max(effects, key=lambda k: abs(effects[k]))
    return level, effects[level]


def measure(
    n: int, deals: int, arrangements: int, seed: int, workers: int, boot: int, out_dir: Path
) -> dict:
    """Play the random-seating deals at n players and fit every context term (see module doc);
    the games go to out_dir/games_<n>p.jsonl."""
    policies = LINEUPS[n]
    specs = random_seating_specs(policies, deals, arrangements, seed)
    start = time.perf_counter()
    rows: list[SeatResult] = []
    for _spec, result in run_games(specs, workers=workers):
        if isinstance(result, list):
            rows.extend(result)
    seconds = time.perf_counter() - start
    games = outcomes(rows)
    with open(out_dir / f"games_{n}p.jsonl", "w") as handle:  # for a re-analysis
        for g in games:
            handle.write(json.dumps(dataclasses.asdict(g)) + "\n")
    found = analyse(
        n, games, seed, boot, {"policies": policies, "deals": deals, "seconds": seconds}
    )
    found["control_win_rate_by_predecessor"] = _by_predecessor(rows, n)
    return found


def analyse(n: int, games: list, seed: int, boot: int, out: dict[str, Any]) -> dict[str, Any]:
    """Each context term added alone to policy + faction (+ seat for the neighbour terms):
    its largest effect with a bootstrap interval over deals, and its likelihood-ratio test.
    (All n - 1 neighbour distances together are not identified when the line-up seats n
    different policies: a policy's own strength plus its effect on every other seat is a
    constant per game.)"""
    from scipy.stats import chi2

    out = {**out, "games": len(games), "terms": {}}
    groups: dict[int, list[int]] = {}
    for i, g in enumerate(games):
        groups.setdefault(g.group, []).append(i)
    members = list(groups.values())
    for t in context_terms(n):
        base_terms = [] if t == "seat" else ["seat"]
        with_term = fit_strength(games, bootstrap=0, context=[*base_terms, t])
        without = fit_strength(games, bootstrap=0, context=base_terms)
        statistic = 2 * (with_term.log_likelihood - without.log_likelihood)
        effects = with_term.context_effect[t]
        level, value = _largest(effects)
        rng = np.random.default_rng(seed)
        draws = []
        for _ in range(boot):
            pick = rng.integers(0, len(members), len(members))
            resampled = [
                dataclasses.replace(games[i], group=r)
                for r, k in enumerate(pick)
                for i in members[k]
            ]
            draws.append(
                fit_strength(resampled, bootstrap=0, context=[*base_terms, t]).context_effect[t][
                    level
                ]
            )
        low, high = np.percentile(draws, [2.5, 97.5]) if draws else (math.nan, math.nan)
        out["terms"][t] = {
            "effects": effects,
            "largest": level,
            "largest_effect": value,
            "largest_ci95": [float(low), float(high)],
            "lr_statistic": statistic,
            "df": len(effects) - 1,
            "p_value": float(chi2.sf(statistic, len(effects) - 1)),
        }
    return out


def _by_predecessor(rows: list[SeatResult], n: int) -> dict[str, dict[str, list[float]]]:
    """Each policy's control-win rate (and seats) by the policy acting just before it."""
    from dune_env.harness.stats.scores import is_control_win

    seats: dict[int, dict[int, SeatResult]] = {}
    for r in rows:
        seats.setdefault(r.game, {})[r.seat] = r
    cells: dict[str, dict[str, list[float]]] = {}
    for game in seats.values():
        for s, r in game.items():
            before = game[(s - 1) % n].policy
            cell = cells.setdefault(r.policy, {}).setdefault(before, [0.0, 0.0])
            cell[0] += is_control_win(r)
            cell[1] += 1
    return {
        p: {b: [c[0] / c[1], c[1]] for b, c in sorted(v.items())} for p, v in sorted(cells.items())
    }


def check(n: int, seatings: str | None, seed: int, workers: int, out: Path) -> list[dict]:
    """Copy - original under a design (None: the harness's default), per check line-up."""
    found = []
    for lineup in CHECKS[n]:
        name = "default" if seatings is None else seatings
        folder = out / f"check_{n}p_{lineup[1]}_{name}"
        extra = {} if seatings is None else {"seatings": seatings}
        games = CHECK_GAMES[n]
        if seatings == "rotations":
            games -= games % n
        result = run_benchmark(
            lineup,
            num_players=n,
            games=games,
            seed=seed,
            workers=workers,
            out_dir=folder,
            duplicate=True,
            plots=False,
            progress=False,
            **extra,
        )
        (pair,) = [h for h in result.summary["head_to_head"] if {h["a"], h["b"]} == set(lineup[:2])]
        sign = 1.0 if pair["a"] == lineup[0] else -1.0
        ci = sorted(sign * v for v in pair["strength_diff_ci95"])
        cci = sorted(sign * v for v in pair["control_win_rate_diff_ci95"])
        found.append(
            {
                "players": n,
                "lineup": lineup,
                "seatings": result.summary["meta"]["seatings"],
                "games": result.summary["games"],
                "strength_diff": sign * pair["strength_diff"],
                "strength_diff_ci95": ci,
                "control_diff": sign * pair["control_win_rate_diff"],
                "control_diff_ci95": cci,
            }
        )
        f = found[-1]
        print(
            f"{n}p {f['seatings']:>12} copy of {lineup[1]:<15} {f['games']} games: "
            f"copy - original {f['strength_diff']:+.2f} [{ci[0]:+.2f}, {ci[1]:+.2f}], "
            f"control wins {f['control_diff']:+.1%} [{cci[0]:+.1%}, {cci[1]:+.1%}]",
            flush=True,
        )
    return found


def read_rows(run: Path) -> list[SeatResult]:
    """A finished run's results.csv, checked against the schedule its run.json describes."""
    from dune_env.harness.runs.resume_check import read_checked_results

    record = json.loads((run / "run.json").read_text())
    specs = schedule(
        record["policies"],
        record["num_players"],
        record["games"],
        record["seed"],
        record["config"],
        record["duplicate"],
        seatings=record.get("seatings", "rotations"),
    )
    return read_checked_results(run / "results.csv", specs)


def context_fit(runs: list[Path], boot: int) -> list[dict[str, Any]]:
    """Per run and pair of policies: the difference and its interval width without and with
    the context terms."""
    found = []
    for run in runs:
        games = outcomes(read_rows(run))
        plain = fit_strength(games, bootstrap=boot)
        context = fit_strength(games, bootstrap=boot, context=["seat", "before", "after"])
        for pair, (diff, low, high) in sorted(plain.pair_ci95.items()):
            cdiff, clow, chigh = context.pair_ci95[pair]
            found.append(
                {
                    "run": str(run),
                    "pair": list(pair),
                    "plain": [diff, low, high],
                    "context": [cdiff, clow, chigh],
                    "width_ratio": (chigh - clow) / (high - low) if high > low else math.nan,
                }
            )
            print(
                f"| {run.name} | {pair[0]} − {pair[1]} | {diff:+.2f} [{low:+.2f}, {high:+.2f}] "
                f"| {cdiff:+.2f} [{clow:+.2f}, {chigh:+.2f}] | {found[-1]['width_ratio']:.2f} |",
                flush=True,
            )
    ratios = [f["width_ratio"] for f in found if math.isfinite(f["width_ratio"])]
    if ratios:
        print(f"\nmedian width ratio (with / without the terms): {np.median(ratios):.2f}")
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--measure", action="store_true")
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--context", nargs="+", type=Path, default=None, metavar="RUN")
    parser.add_argument("--players", type=int, nargs="+", default=None)
    parser.add_argument("--deals", type=int, default=60, help="deals per player count")
    parser.add_argument("--arrangements", type=int, default=60, help="seatings per deal")
    parser.add_argument("--bootstrap", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", default="runs/seat_effects")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if args.measure:
        found = {}
        for n in args.players or [4, 5, 6]:
            result = measure(
                n, args.deals, args.arrangements, args.seed, args.workers, args.bootstrap, out
            )
            found[n] = result
            print(
                f"\n{n} players, {result['games']} games ({result['seconds']:.0f} s), "
                f"line-up {' '.join(result['policies'])}"
            )
            print("| term | largest effect (level) | 95% CI | LR chi2 (df) | p |")
            print("|---|---:|---|---:|---:|")
            for t, v in result["terms"].items():
                lo, hi = v["largest_ci95"]
                print(
                    f"| {t} | {v['largest_effect']:+.2f} ({v['largest']}) | [{lo:+.2f}, {hi:+.2f}] "
                    f"| {v['lr_statistic']:.1f} ({v['df']}) | {v['p_value']:.3g} |",
                    flush=True,
                )
        (out / "seat_effects.json").write_text(json.dumps(found, indent=2))
    if args.context:
        print("| run | pair | without context terms | with seat, before, after | width ratio |")
        print("|---|---|---|---|---:|")
        fits = context_fit(args.context, args.bootstrap)
        (out / "context_fit.json").write_text(json.dumps(fits, indent=2))
    if args.check:
        found_checks = []
        for n in args.players or [4, 5]:
            for seatings in (None, "rotations"):
                found_checks += check(n, seatings, args.seed, args.workers, out)
        (out / "seat_check.json").write_text(json.dumps(found_checks, indent=2))


if __name__ == "__main__":
    main()
