"""`dune-bench`: benchmark policies against each other.

    dune-bench --policies aggressive random --players 4 --games 200 --workers 2 --out runs/bench

Seats are filled by repeating the policy list; seats and factions are rotated so that every
policy plays every seat and faction equally.  Writes results.csv (one row per game and seat),
summary.json, report.md and plots into --out, and prints the leaderboard.
"""

from __future__ import annotations

import argparse
import os
import sys

from ..policies.registry import PolicyLoadError, policy_names


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dune-bench", description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument(
        "--policies",
        nargs="+",
        default=["aggressive", "economic", "random"],
        help=f"registered names ({', '.join(policy_names())}), module:attr, or saved models",
    )
    parser.add_argument(
        "--trust-checkpoints",
        action="store_true",
        help="allow pickle-based models (SB3 .zip, RLlib folders): they can run code",
    )
    parser.add_argument("--players", type=int, default=4, help="3 to 8 (default 4)")
    parser.add_argument("--games", type=int, default=100, help="number of games (default 100)")
    parser.add_argument("--seed", type=int, default=0, help="schedule and dice seed (default 0)")
    parser.add_argument(
        "--workers", type=int, default=os.cpu_count() or 1, help="processes (default: all cores)"
    )
    parser.add_argument("--out", default="runs/benchmark", help="output folder")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    parser.add_argument("--no-plots", action="store_true", help="skip the PNG plots")
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="game option, e.g. --set strict_control=true (repeatable)",
    )
    return parser


def _parse_options(items: list[str]) -> dict[str, object]:
    import json

    options: dict[str, object] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep:
            raise SystemExit(f"dune-bench: --set {item!r} must be KEY=VALUE")
        try:
            options[key] = json.loads(value.lower() if value in ("True", "False") else value)
        except json.JSONDecodeError:
            options[key] = value
    return options


def main(argv: list[str] | None = None) -> int:
    from ..engine import ConfigError
    from . import run_benchmark

    args = build_parser().parse_args(argv)
    try:
        result = run_benchmark(
            args.policies,
            num_players=args.players,
            games=args.games,
            seed=args.seed,
            workers=max(1, args.workers),
            out_dir=args.out,
            progress=not args.no_progress,
            config=_parse_options(args.set),
            plots=not args.no_plots,
            trust_checkpoints=args.trust_checkpoints,
        )
    except (PolicyLoadError, ConfigError, ValueError) as exc:
        print(f"dune-bench: {exc}", file=sys.stderr)
        return 2
    print(result.leaderboard)
    meta = result.summary["meta"]
    print(
        f"\n{result.summary['games']} games in {meta['seconds']:.1f} s "
        f"({meta['games_per_second']:.1f} games/s); report written to {args.out}/report.md"
    )
    if result.failures:
        print(
            f"{len(result.failures)} game(s) failed; see {args.out}/failures.txt", file=sys.stderr
        )
        for failure in result.failures[:3]:
            print(f"  game {failure.game}: {failure.error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
