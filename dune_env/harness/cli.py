"""`dune-bench`: benchmark policies against each other.

    dune-bench --policies aggressive random --players 4 --games 200 --workers 2 --out runs/bench

Seats are filled by repeating the policy list; seats and factions are rotated so that every
policy plays every seat and faction equally.  Writes results.csv (one row per game and seat),
summary.json, report.md and plots into --out, and prints the leaderboard.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys

from ..policies.registry import PolicyLoadError, policy_names
from .runner import DEFAULT_MAX_DECISIONS


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
    parser.add_argument(
        "--out",
        default=None,
        help="output folder; must be empty unless --resume (default: runs/benchmark, or "
        "runs/benchmark-2, -3, ... if that is taken)",
    )
    parser.add_argument(
        "--resume",
        action="store_true",
        help="continue the run in --out: play only the games not yet in its results.csv",
    )
    parser.add_argument(
        "--move-timeout",
        type=float,
        default=60.0,
        metavar="SECONDS",
        help="longest time a policy may take over one decision; past it the policy loses "
        "that game (default 60)",
    )
    parser.add_argument(
        "--max-decisions",
        type=int,
        default=DEFAULT_MAX_DECISIONS,
        help=f"decision cap per game (default {DEFAULT_MAX_DECISIONS})",
    )
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


def _terminate(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    from ..engine import ConfigError
    from . import run_benchmark
    from .outputs import default_out_dir

    args = build_parser().parse_args(argv)
    # `module:attr` policies resolve from the working directory, as with `python -m`.
    if os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.insert(0, os.getcwd())
    if args.resume and args.out is None:
        print(
            "dune-bench: --resume needs --out, the folder of the run to continue", file=sys.stderr
        )
        return 2
    out = args.out if args.out is not None else str(default_out_dir())
    # SIGTERM (a job scheduler, `timeout`) stops the run as Ctrl-C does: summary first.
    previous = signal.signal(signal.SIGTERM, _terminate)
    try:
        result = run_benchmark(
            args.policies,
            num_players=args.players,
            games=args.games,
            seed=args.seed,
            workers=args.workers,
            out_dir=out,
            progress=not args.no_progress,
            config=_parse_options(args.set),
            plots=not args.no_plots,
            move_timeout=args.move_timeout,
            max_decisions=args.max_decisions,
            resume=args.resume,
            overwrite=False,
            trust_checkpoints=args.trust_checkpoints,
        )
    except (PolicyLoadError, ConfigError, ValueError, TypeError) as exc:
        print(f"dune-bench: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(
            f"\ndune-bench: interrupted; the finished games are summarised in {out}/summary.json "
            f"(continue with --resume --out {out})",
            file=sys.stderr,
        )
        return 130
    finally:
        signal.signal(signal.SIGTERM, previous)
    print(result.leaderboard)
    meta = result.summary["meta"]
    print(
        f"\n{result.summary['games']} games in {meta['seconds']:.1f} s "
        f"({meta['games_per_second']:.1f} games/s); report written to {out}/report.md"
    )
    if result.failures:
        print(f"{len(result.failures)} game(s) failed; see {out}/failures.txt", file=sys.stderr)
        for failure in result.failures[:3]:
            print(f"  game {failure.game}: {failure.error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
