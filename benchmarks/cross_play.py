"""Cross-play of a pool of agents at one player count: paired differences in a common pool.

    python benchmarks/cross_play.py --players 4 --policies A B C D E ... --lineups 18 --deals 7 \
        --workers 2 --out runs/cross_play/p4

The pool's line-ups are combinations of `--players` of the policies, chosen so that every pair
shares as equal a number of tables as possible (`dune_env.harness.suite.balanced_combinations`,
the standard suite's rule); each line-up plays `--deals` duplicate deals in the harness's
default (balanced) seating design, on its own schedule seed (`--seed` + line-up number).  All
the games are then fitted together (`dune_env.harness.stats.summary.summarise`: one strength per
policy, faction effects, bootstrap intervals over deals), and every pair is compared over the
deals where both sat: the matrix gives row minus column, the strength difference of the joint
fit with its 95% interval, and the paired control-win rate difference.  Each line-up's run
folder resumes (`--resume` continues an interrupted cross-play).

Prints the standings (strength against the joint fit's reference, the harness's usual zero of
the scale, with its interval) and the matrix in Markdown; writes cross_play.json (the joint
summary and the line-ups) and cross_play.md.  Bad arguments (a pool smaller than a table, more
line-ups than the pool has combinations, an unknown policy) are one line, exit code 2.
"""

from __future__ import annotations

import argparse
import json
import math
import resource
import sys
import time
from pathlib import Path
from typing import Any

from dune_env.engine import ConfigError
from dune_env.harness import lineup, run_benchmark
from dune_env.harness.stats.summary import summarise
from dune_env.harness.suite import balanced_combinations
from dune_env.policies import PolicyLoadError
from dune_env.seatings import deal_seatings


def play(args: argparse.Namespace) -> tuple[list[Any], list[list[str]], float]:
    """Every line-up's games (resumed where their folders hold some); the rows, the line-ups
    and the CPU seconds of this process and its workers."""
    groups = balanced_combinations(list(args.policies), args.players, args.lineups)
    rows: list[Any] = []
    for j, group in enumerate(groups):
        per_deal = len(deal_seatings(lineup(group, args.players)))
        out = Path(args.out) / f"lineup{j:02d}"
        started = time.perf_counter()
        result = run_benchmark(
            group,
            num_players=args.players,
            games=args.deals * per_deal,
            seed=args.seed + j,
            workers=args.workers,
            out_dir=out,
            resume=args.resume and (out / "run.json").is_file(),
            plots=False,
            duplicate=True,
            bootstrap=0,
        )
        print(f"line-up {j + 1}/{len(groups)} {' '.join(group)}: "
              f"{len(result.rows) // args.players} games, {time.perf_counter() - started:.0f} s",
              flush=True)  # fmt: skip
        offset = len({r.game for r in rows})  # one numbering of the pool's games
        for row in result.rows:
            row.game += offset
        rows.extend(result.rows)
    cpu = 0.0  # this process (games played here with --workers 1) and the worker processes
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        usage = resource.getrusage(who)
        cpu += usage.ru_utime + usage.ru_stime
    return rows, groups, cpu


def matrix(summary: dict[str, Any], policies: list[str]) -> str:
    """Row minus column: strength difference [95% interval] and control-win points."""
    pairs = {(h["a"], h["b"]): h for h in summary["head_to_head"]}
    head = "| row − column | " + " | ".join(policies) + " |"
    lines = [head, "|---" * (len(policies) + 1) + "|"]
    for a in policies:
        cells = []
        for b in policies:
            if a == b:
                cells.append("–")
                continue
            h, sign = (pairs[(a, b)], 1) if (a, b) in pairs else (pairs[(b, a)], -1)
            diff, ci = h.get("strength_diff"), h.get("strength_diff_ci95")
            if diff is None or ci is None:
                cells.append(f"{h['deals']} deals")
                continue
            low, high = sorted(sign * c for c in ci)
            mark = "**" if low > 0 or high < 0 else ""
            cells.append(
                f"{mark}{sign * diff:+.2f}{mark} [{low:+.2f}, {high:+.2f}]; "
                f"{100 * sign * h['control_win_rate_diff']:+.1f} pts ({h['deals']} deals)"
            )
        lines.append(f"| {a} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def standings(summary: dict[str, Any], policies: list[str]) -> str:
    fit = summary["strength_fit"]
    lines = [f"strength against {fit['reference']} (joint fit of {summary['games']:,} games):"]
    order = sorted(policies, key=lambda p: -fit["strength"][p])
    for p in order:
        ci = (fit.get("strength_ci95") or {}).get(p)
        shown = f" [{ci[0]:+.2f}, {ci[1]:+.2f}]" if ci else ""
        lines.append(f"  {p:<24} {fit['strength'][p]:+.2f}{shown}")
    return "\n".join(lines)


def check(args: argparse.Namespace) -> None:
    """Refuse arguments the pool cannot play, in one line."""
    combinations = math.comb(len(args.policies), args.players)
    if len(set(args.policies)) != len(args.policies):
        raise ValueError(f"--policies {' '.join(args.policies)}: name each policy once")
    if not combinations:
        raise ValueError(
            f"--policies: {len(args.policies)} policies cannot fill a {args.players}-player table"
        )
    if not 1 <= args.lineups <= combinations:
        raise ValueError(
            f"--lineups {args.lineups}: give 1 to {combinations} (the pool's combinations of "
            f"{args.players})"
        )
    if args.deals < 1:
        raise ValueError(f"--deals {args.deals}: give at least 1")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, required=True)
    parser.add_argument("--policies", nargs="+", required=True)
    parser.add_argument("--lineups", type=int, required=True, help="line-ups of the pool")
    parser.add_argument("--deals", type=int, required=True, help="duplicate deals a line-up")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--bootstrap", type=int, default=200)
    parser.add_argument("--out", required=True)
    parser.add_argument("--resume", action="store_true")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    try:
        check(args)
        rows, groups, cpu = play(args)
    except (PolicyLoadError, ConfigError, ValueError) as exc:
        print(f"cross_play: {exc}", file=sys.stderr)
        return 2
    summary = summarise(rows, duplicate=True, bootstrap=args.bootstrap, seed=args.seed)
    text = "\n\n".join([standings(summary, args.policies), matrix(summary, args.policies)])
    print(text)
    wall = time.perf_counter() - started
    print(f"{len(groups)} line-ups, {summary['games']:,} games, {wall:.0f} s wall, {cpu:.0f} CPU-s")
    record = {
        "players": args.players,
        "policies": args.policies,
        "lineups": groups,
        "deals": args.deals,
        "seed": args.seed,
        "summary": summary,
        "cpu_seconds": cpu,
    }
    (Path(args.out) / "cross_play.json").write_text(json.dumps(record, indent=1, default=str))
    (Path(args.out) / "cross_play.md").write_text(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
