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

DEFAULT_POLICIES = ("aggressive", "economic", "random")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dune-bench", description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument(
        "--policies",
        nargs="+",
        default=None,
        help=f"registered names ({', '.join(policy_names())}), module:attr, or model .zip paths\n"
        f"(default {' '.join(DEFAULT_POLICIES)}; with --suite: the candidates, default ppo-4p)",
    )
    parser.add_argument("--players", type=int, default=None, help="3 to 8 (default 4)")
    parser.add_argument("--games", type=int, default=None, help="number of games (default 100)")
    parser.add_argument(
        "--duplicate",
        action="store_true",
        help="play each deal under every rotation of the line-up (same seed and dice);\n"
        "--games must then be a multiple of --players",
    )
    parser.add_argument(
        "--suite",
        choices=["standard", "standard-short"],
        help="run the dune_v0 standard suite v1 (docs/baselines.md) on --policies plus the\n"
        "baselines aggressive, economic, random; 'standard-short' is its quick version",
    )
    parser.add_argument(
        "--bootstrap",
        type=int,
        default=200,
        help="bootstrap resamples for the strength intervals (default 200; 0: none)",
    )
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
    if args.bootstrap < 0:
        print("dune-bench: --bootstrap must be 0 or more", file=sys.stderr)
        return 2
    if args.suite:
        fixed = [
            flag
            for flag, given in (
                ("--players", args.players is not None),
                ("--games", args.games is not None),
                ("--duplicate", args.duplicate),
                ("--set", bool(args.set)),
            )
            if given
        ]
        if fixed:
            print(
                f"dune-bench: --suite fixes the player counts, games, schedule and game options; "
                f"drop {' '.join(fixed)}",
                file=sys.stderr,
            )
            return 2
        return _run_suite(args)
    try:
        result = run_benchmark(
            args.policies or list(DEFAULT_POLICIES),
            num_players=4 if args.players is None else args.players,
            games=100 if args.games is None else args.games,
            seed=args.seed,
            workers=max(1, args.workers),
            out_dir=args.out,
            progress=not args.no_progress,
            config=_parse_options(args.set),
            plots=not args.no_plots,
            duplicate=args.duplicate,
            bootstrap=args.bootstrap,
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


def _run_suite(args: argparse.Namespace) -> int:
    from ..engine import ConfigError
    from .suite import run_suite

    try:
        result = run_suite(
            args.policies,
            short=args.suite == "standard-short",
            workers=max(1, args.workers),
            out_dir=args.out,
            progress=not args.no_progress,
            plots=not args.no_plots,
            bootstrap=args.bootstrap,
            seed=args.seed,
        )
    except (PolicyLoadError, ConfigError, ValueError) as exc:
        print(f"dune-bench: {exc}", file=sys.stderr)
        return 2
    print(result.text)
    print(
        f"\n{result.games} games in {result.seconds:.1f} s; report written to "
        f"{args.out}/suite_report.md"
    )
    return 1 if result.failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
