"""`dune-bench`: benchmark policies against each other.

    dune-bench --policies aggressive random --players 4 --games 200 --workers 2 --out runs/bench

Seats are filled by repeating the policy list; seats and factions are rotated so that every
policy plays every seat and faction equally.  Writes results.csv (one row per game and seat),
summary.json, report.md and plots into --out, and prints the leaderboard.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
from typing import TYPE_CHECKING, Any

from ..match import DEFAULT_MAX_DECISIONS
from ..policies.registry import policy_names
from ..seatings import DEFAULT_SEATINGS, SEATINGS
from .exits import bad_input_errors, interrupted, refused
from .luck import DEFAULT_SAMPLES as DEFAULT_LUCK_SAMPLES
from .luck import LUCK_RESULT, LUCK_START
from .suite import REFERENCES, SUITE_NAME, SUITE_VERSION

if TYPE_CHECKING:
    from .benchmark import BenchmarkResult

DEFAULT_POLICIES = ("aggressive", "economic", "random")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dune-bench", description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    _add_game_arguments(parser)
    _add_run_arguments(parser)
    from .sprt_cli import add_sprt_arguments

    add_sprt_arguments(parser)
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


def _add_game_arguments(parser: argparse.ArgumentParser) -> None:
    """What is played: the policies, the player count, the games and the seed."""
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
        help="duplicate deals: each deal (one seed, so the same dice) is played in every\n"
        "seating of the design; --games must then be whole deals (24 games at 4 players)",
    )
    parser.add_argument(
        "--seatings",
        choices=list(SEATINGS),
        default=DEFAULT_SEATINGS,
        help="how the line-up is arranged over the seats: 'balanced' (default): every\n"
        "policy in every seat and just before every other equally often (n(n-1) games a\n"
        "deal); 'permutations': every arrangement; 'rotations': the line-up's rotations,\n"
        "which keep its seat order and bias a pairing (docs/baselines.md, Seat order)",
    )
    parser.add_argument(
        "--suite",
        choices=["standard", "standard-short"],
        help=f"run the {SUITE_NAME} v{SUITE_VERSION} (docs/baselines.md) on --policies plus the\n"
        f"references {', '.join(REFERENCES)},\n"
        "and print where they land in the published table (docs/leaderboard.md);\n"
        "'standard-short' is its quick version",
    )
    parser.add_argument(
        "--bootstrap",
        type=int,
        default=200,
        help="bootstrap resamples for the strength intervals (default 200; 0: none)",
    )
    parser.add_argument(
        "--trust-checkpoints",
        action="store_true",
        help="allow pickle-based models (SB3 .zip, RLlib folders): they can run code",
    )
    parser.add_argument("--seed", type=int, default=0, help="schedule and dice seed (default 0)")
    parser.add_argument(
        "--luck-adjust",
        type=int,
        nargs="?",
        const=DEFAULT_LUCK_SAMPLES,
        default=0,
        metavar="SAMPLES",
        help="take each seat's dice luck out of its score (AIVAT's chance terms), valued with\n"
        f"SAMPLES resampled rolls per roll (default {DEFAULT_LUCK_SAMPLES}); unbiased whatever\n"
        "the value model, but what it saves depends on it: measured savings in\n"
        "docs/baselines.md, Luck-adjusted outcomes",
    )
    parser.add_argument(
        "--luck-model",
        default="",
        metavar="FILE",
        help="with --luck-adjust: the value model (.npz, as written by\n"
        "python -m training.luck_value; read as plain arrays) instead of the shipped one",
    )


def _add_run_arguments(parser: argparse.ArgumentParser) -> None:
    """How and where it is played: workers, backend, output folder, limits, replays."""
    parser.add_argument(
        "--workers",
        type=int,
        default=None,
        help="worker processes; with --backend ray the most games played at once\n"
        "(default: all cores; with --backend ray all the cluster's CPUs)",
    )
    parser.add_argument(
        "--backend",
        choices=["local", "ray"],
        default="local",
        help="where the games run: worker processes here (default), or tasks on a Ray\n"
        "cluster; same seed, same results (needs pip install 'dune-env[ray]')",
    )
    parser.add_argument(
        "--address",
        default=None,
        help="with --backend ray: the cluster, 'auto' (the one started by `ray start`),\n"
        "'ray://HOST:10001' or 'local' (a new local instance); default: RAY_ADDRESS,\n"
        "else a new local instance",
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
        help="continue the run (or --suite) in --out: play only the games not yet in its\n"
        "results.csv",
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
    parser.add_argument(
        "--save-replays",
        type=int,
        default=0,
        metavar="N",
        help="keep browser replays of N games (the first failed game, then a sample) in\n"
        "OUT/replays/, linked from report.md (default 0)",
    )


def parse_game_options(items: list[str], prog: str = "dune-bench") -> dict[str, object]:
    """`--set KEY=VALUE` items as game options (JSON values; anything else a string)."""
    import json

    options: dict[str, object] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep:
            raise SystemExit(f"{prog}: --set {item!r} must be KEY=VALUE")
        try:
            options[key] = json.loads(value.lower() if value in ("True", "False") else value)
        except json.JSONDecodeError:
            options[key] = value
    return options


def _workers(args: argparse.Namespace) -> int | None:
    """--workers, defaulting to all local cores (None under Ray: all the cluster's CPUs)."""
    if args.workers is not None or args.backend == "ray":
        return int(args.workers) if args.workers is not None else None
    return os.cpu_count() or 1


def _run_options(args: argparse.Namespace, out: str) -> dict[str, Any]:
    """What a single run, a suite and a sequential test take from the command line alike."""
    return {
        "workers": _workers(args),
        "out_dir": out,
        "progress": not args.no_progress,
        "plots": not args.no_plots,
        "move_timeout": args.move_timeout,
        "max_decisions": args.max_decisions,
        "resume": args.resume,
        "trust_checkpoints": args.trust_checkpoints,
        "backend": args.backend,
        "address": args.address,
    }


def print_verdicts(summary: dict[str, Any], names: list[str] | None = None) -> None:
    """The plain-language verdicts, then the legend of the terms."""
    from .verdict import legend, verdicts

    lines = verdicts(summary, names)
    if lines:
        print("\n" + "\n".join(lines))
    print("\n" + legend())


def _suite_args(args: argparse.Namespace) -> list[str]:
    """The arguments that name the suite run (to repeat with --resume)."""
    named = ["--suite", args.suite]
    named += ["--policies", *args.policies] if args.policies else []
    named += ["--seed", str(args.seed)] if args.seed else []
    named += ["--trust-checkpoints"] if args.trust_checkpoints else []
    return named


def _terminate(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    from .benchmark import run_benchmark
    from .outputs import default_out_dir
    from .sprt_cli import given_sprt_flags, run_sprt_command

    args = build_parser().parse_args(argv)
    # `module:attr` policies resolve from the working directory, as with `python -m`.
    if os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.insert(0, os.getcwd())
    if args.resume and args.out is None:
        print(
            "dune-bench: --resume needs --out, the folder of the run to continue", file=sys.stderr
        )
        return 2
    if args.address is not None and args.backend != "ray":
        print("dune-bench: --address is only used with --backend ray", file=sys.stderr)
        return 2
    out = args.out if args.out is not None else str(default_out_dir())
    # SIGTERM (a job scheduler, `timeout`) stops the run as Ctrl-C does: summary first.
    previous = signal.signal(signal.SIGTERM, _terminate)
    from .types import MAX_BOOTSTRAP

    if not 0 <= args.bootstrap <= MAX_BOOTSTRAP:
        print(f"dune-bench: --bootstrap must be from 0 to {MAX_BOOTSTRAP:,}", file=sys.stderr)
        return 2
    if args.save_replays < 0:
        print("dune-bench: --save-replays must be 0 or more", file=sys.stderr)
        return 2
    if args.sprt or given_sprt_flags(args):
        if not args.sprt:
            print(f"dune-bench: {' '.join(given_sprt_flags(args))} need --sprt", file=sys.stderr)
            return 2
        try:
            return run_sprt_command(args, _run_options(args, out), parse_game_options(args.set))
        finally:
            signal.signal(signal.SIGTERM, previous)
    if args.suite:
        fixed = _flags_the_suite_fixes(args)
        if fixed:
            print(
                f"dune-bench: --suite fixes the player counts, games, schedule and game options "
                f"(no --save-replays); "
                f"drop {' '.join(fixed)}",
                file=sys.stderr,
            )
            return 2
        try:
            return _run_suite(args, out)
        finally:
            signal.signal(signal.SIGTERM, previous)
    if args.luck_adjust:
        print(LUCK_START.format(samples=args.luck_adjust), flush=True)
    try:
        result = run_benchmark(
            args.policies or list(DEFAULT_POLICIES),
            num_players=4 if args.players is None else args.players,
            games=100 if args.games is None else args.games,
            seed=args.seed,
            config=parse_game_options(args.set),
            overwrite=False,
            duplicate=args.duplicate,
            seatings=args.seatings,
            bootstrap=args.bootstrap,
            luck_samples=args.luck_adjust,
            luck_model=args.luck_model,
            **_run_options(args, out),
        )
    except bad_input_errors() as exc:
        return refused(exc)
    except KeyboardInterrupt:
        return interrupted(
            f"the finished games are summarised in {out}/summary.json "
            f"(continue with --resume --out {out})"
        )
    finally:
        signal.signal(signal.SIGTERM, previous)
    return _report_run(args, result, out)


def _flags_the_suite_fixes(args: argparse.Namespace) -> list[str]:
    """The given flags that --suite does not take (it fixes what they would set)."""
    fixed = [
        flag
        for flag, given in (
            ("--players", args.players is not None),
            ("--games", args.games is not None),
            ("--duplicate", args.duplicate),
            ("--seatings", args.seatings != DEFAULT_SEATINGS),
            ("--set", bool(args.set)),
            ("--luck-adjust", bool(args.luck_adjust)),
            ("--luck-model", bool(args.luck_model)),
        )
        if given
    ]
    if args.save_replays:
        fixed.append("--save-replays")
    return fixed


def _report_run(args: argparse.Namespace, result: BenchmarkResult, out: str) -> int:
    """Print a finished run's leaderboard, verdicts, replays and pace; its exit code."""
    if result.summary.get("luck_adjusted"):
        print(LUCK_RESULT + "\n")
    print(result.leaderboard)
    print_verdicts(result.summary)
    meta = result.summary["meta"]
    if args.save_replays:
        from .replays import save_replays

        kept = save_replays(
            out, result.rows, result.failures, args.save_replays, args.trust_checkpoints
        )
        written = sum(1 for _, where in kept if not isinstance(where, str))
        print(f"\n{written} replay(s) written to {out}/replays/ (listed in report.md)")
    if not meta["games_resumed"]:
        pace = f"in {meta['seconds']:.1f} s ({meta['games_per_second']:.1f} games/s)"
    elif meta["games_played"]:
        pace = f"({meta['games_played']} played now in {meta['seconds']:.1f} s, "
        pace += f"{meta['games_per_second']:.1f} games/s)"
    else:
        pace = "(none played now: the run was complete)"
    print(f"\n{result.summary['games']} games {pace}; report written to {out}/report.md")
    if result.failures:
        print(f"{len(result.failures)} game(s) failed; see {out}/failures.txt", file=sys.stderr)
        for failure in result.failures[:3]:
            print(f"  game {failure.game}: {failure.error}", file=sys.stderr)
        return 1
    return 0


def _run_suite(args: argparse.Namespace, out: str) -> int:
    from pathlib import Path

    from .suite import run_suite

    folder = Path(out)
    if folder.exists() and not folder.is_dir():
        print(f"dune-bench: --out {out} is an existing file, not a folder", file=sys.stderr)
        return 2
    if not args.resume and folder.is_dir() and any(folder.iterdir()):
        print(
            f"dune-bench: output folder {out} is not empty; pass --resume to continue that "
            "suite, or choose another --out",
            file=sys.stderr,
        )
        return 2
    try:
        if args.backend == "ray":  # one Ray connection for all the suite's line-ups
            from .backends import ray_session

            session: Any = ray_session(args.address)
        else:
            session = contextlib.nullcontext()
        with session:
            result = run_suite(
                args.policies,
                short=args.suite == "standard-short",
                bootstrap=args.bootstrap,
                seed=args.seed,
                **_run_options(args, out),
            )
    except bad_input_errors() as exc:
        return refused(exc)
    except KeyboardInterrupt:
        again = " ".join([*_suite_args(args), "--resume", "--out", out])
        return interrupted(f"the suite was not finished (continue with {again})")
    print(result.text)
    _print_placement(result.summaries, args)
    print(
        f"\n{result.games} games in {result.seconds:.1f} s; report written to {out}/suite_report.md"
    )
    return 1 if result.failures else 0


def _print_placement(summaries: dict[int, dict[str, Any]], args: argparse.Namespace) -> None:
    """Where the suite's candidates land in the published table (docs/leaderboard.md)."""
    from .leaderboard import LeaderboardError, load_published, placement_text
    from .suite import DEFAULT_CANDIDATES

    candidates = list(dict.fromkeys(args.policies or DEFAULT_CANDIDATES))
    try:
        published = load_published()
    except LeaderboardError as exc:
        print(f"dune-bench: the published table was not read: {exc}", file=sys.stderr)
        return
    short = args.suite == "standard-short"
    print("\n" + placement_text(summaries, candidates, published, short=short, seed=args.seed))


if __name__ == "__main__":
    raise SystemExit(main())
