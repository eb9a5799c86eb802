"""`dune-bench`: benchmark policies against each other.

    dune-bench --policies aggressive random --players 4 --games 200 --workers 2 --out runs/bench

Seats are filled by repeating the policy list; seats and factions are rotated so that every
policy plays every seat and faction equally.  Writes results.csv (one row per game and seat),
summary.json, report.md and plots into --out, and prints the leaderboard.  --sprt runs the
sequential test instead, --suite the standard suite.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from ..match import DEFAULT_MAX_DECISIONS, lineup
from ..policies.registry import policy_names
from ..seatings import DEFAULT_SEATINGS, SEATINGS, deal_seatings
from .benchmark import BenchmarkResult, run_benchmark
from .exits import bad_input_errors, interrupted, refused
from .options import MAX_BOOTSTRAP, RunOptions
from .play.luck import DEFAULT_SAMPLES as DEFAULT_LUCK_SAMPLES
from .runs.outputs import default_out_dir
from .sprt_run import SprtResult, run_sprt, sprt_text
from .stats.sprt import SprtDesign, default_block
from .stats.verdict import legend, verdicts
from .suite import DEFAULT_CANDIDATES, REFERENCES, SUITE_NAME, SUITE_VERSION, SuiteResult, run_suite

DEFAULT_POLICIES = ("aggressive", "economic", "random")
SPRT_FLAGS = ("--max-games", "--sprt-delta", "--alpha", "--beta", "--sprt-block", "--sprt-metric")
# What `dune-bench --luck-adjust` says before the games and with the results.
LUCK_START = (
    "Luck-adjusted run (--luck-adjust {samples}): every roll is replayed {samples} times to "
    "value its luck, so games take about 100 times as long as without it (heuristics: about "
    "half a game a second on one core)."
)
LUCK_RESULT = (
    "Luck-adjusted: the strengths and the paired control-win differences below use each "
    "seat's score minus its dice luck; the win and control-win rates are the raw ones "
    "(summary.json's luck_adjusted holds the unadjusted fit)."
)
Result = TypeVar("Result")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dune-bench", description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    _add_game_arguments(parser)
    _add_run_arguments(parser)
    _add_sprt_arguments(parser)
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
        default=None,
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


def _add_sprt_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group(
        "sequential test (--sprt; docs/baselines.md, 'Sequential testing')"
    )
    group.add_argument(
        "--sprt",
        action="store_true",
        help="test whether the first policy beats the second by at least DELTA1 (H1) or by at\n"
        "most DELTA0 (H0) on duplicate deals, stopping as soon as the evidence decides",
    )
    group.add_argument(
        "--max-games",
        type=int,
        default=None,
        help="with --sprt: stop undecided after this many games, a multiple of players x\n"
        "--sprt-block (default: the largest up to 4000)",
    )
    group.add_argument(
        "--sprt-delta",
        nargs=2,
        type=float,
        default=None,
        metavar=("DELTA0", "DELTA1"),
        help="with --sprt: the effect (A's per-seat rate minus B's) under H0 and H1\n"
        "(default 0 0.03: 3 points of control-win rate)",
    )
    group.add_argument(
        "--alpha", type=float, default=None, help="with --sprt: the false H1 rate (default 0.05)"
    )
    group.add_argument(
        "--beta", type=float, default=None, help="with --sprt: the false H0 rate (default 0.05)"
    )
    group.add_argument(
        "--sprt-block",
        type=int,
        default=None,
        metavar="DEALS",
        help="deals per step of the test (default: the fewest holding 48 games)",
    )
    group.add_argument(
        "--sprt-metric",
        choices=["control", "win"],
        default=None,
        help="the per-seat rate compared: control wins (default) or all wins",
    )


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    # `module:attr` policies resolve from the working directory, as with `python -m`.
    if os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.insert(0, os.getcwd())
    refusal = _refusal(args)
    if refusal:
        return refused(refusal)
    out = args.out if args.out is not None else str(default_out_dir())
    # SIGTERM (a job scheduler, `timeout`) stops the run as Ctrl-C does: summary first.
    previous = signal.signal(signal.SIGTERM, _terminate)
    try:
        if args.sprt:
            return _sprt(args, out)
        if args.suite:
            return _suite(args, out)
        return _benchmark(args, out)
    finally:
        signal.signal(signal.SIGTERM, previous)


def _terminate(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _refusal(args: argparse.Namespace) -> str:
    """Why the command line cannot run ("" when it can): flags that need another, or that the
    chosen protocol fixes itself."""
    if args.resume and args.out is None:
        return "--resume needs --out, the folder of the run to continue"
    if args.address is not None and args.backend != "ray":
        return "--address is only used with --backend ray"
    if args.save_replays < 0:
        return "--save-replays must be 0 or more"
    if args.bootstrap is not None and not 0 <= args.bootstrap <= MAX_BOOTSTRAP:
        return f"--bootstrap must be from 0 to {MAX_BOOTSTRAP:,}"
    sprt_flags = [f for f in SPRT_FLAGS if getattr(args, f[2:].replace("-", "_")) is not None]
    if sprt_flags and not args.sprt:
        return f"{' '.join(sprt_flags)} need --sprt"
    if args.sprt:
        return _sprt_refusal(args)
    if args.suite:
        fixed = _given(args, "--players", "--games", "--duplicate", "--seatings", "--set")
        fixed += _given(args, "--luck-adjust", "--luck-model", "--save-replays")
        if fixed:
            return (
                "--suite fixes the player counts, games, schedule and game options (no "
                f"--save-replays); drop {' '.join(fixed)}"
            )
    return ""


def _sprt_refusal(args: argparse.Namespace) -> str:
    """Why the command line cannot run a sequential test ("" when it can)."""
    fixed = _given(args, "--suite", "--games", "--save-replays")
    if fixed:
        return (
            "--sprt chooses the number of games itself (give --max-games) and always plays "
            f"duplicate deals; drop {' '.join(fixed)}"
        )
    if args.bootstrap is not None:  # (ignored before this version; now said)
        return "--sprt draws no bootstrap (the test has no strength intervals); drop --bootstrap"
    if not args.policies or len(args.policies) < 2:
        return "--sprt needs --policies A B [others]: A is tested against B"
    return ""


def _given(args: argparse.Namespace, *flags: str) -> list[str]:
    """The `flags` given on the command line (set away from their defaults)."""
    defaults = vars(build_parser().parse_args([]))
    names = {flag: flag[2:].replace("-", "_") for flag in flags}
    return [flag for flag, name in names.items() if getattr(args, name) != defaults[name]]


def _workers(args: argparse.Namespace) -> int | None:
    """--workers, defaulting to all local cores (None under Ray: all the cluster's CPUs)."""
    if args.workers is not None or args.backend == "ray":
        return int(args.workers) if args.workers is not None else None
    return os.cpu_count() or 1


def run_options(args: argparse.Namespace, out: str) -> RunOptions:
    """The `RunOptions` of the command line (checked: a bad value is a ValueError naming it);
    a luck-adjusted run says up front that it is slow."""
    options = RunOptions(
        seed=args.seed,
        config=parse_game_options(args.set),
        seatings=args.seatings,
        luck_samples=args.luck_adjust,
        luck_model=args.luck_model,
        bootstrap=200 if args.bootstrap is None else args.bootstrap,
        workers=_workers(args),
        backend=args.backend,
        address=args.address,
        move_timeout=args.move_timeout,
        max_decisions=args.max_decisions,
        trust_checkpoints=args.trust_checkpoints,
        out_dir=out,
        resume=args.resume,
        overwrite=False,
        progress=not args.no_progress,
        plots=not args.no_plots,
    )
    if options.luck_samples:
        print(LUCK_START.format(samples=options.luck_samples), flush=True)
    return options


def _play_and_report(
    play: Callable[[], Result], again: str, report: Callable[[Result], int]
) -> int:
    """The exit code of `report(play())`, or of a run `play` cannot finish: 2 with one line when
    the input was bad, 130 when interrupted, saying how to go on (`again`)."""
    try:
        result = play()
    except bad_input_errors() as exc:
        return refused(exc)
    except KeyboardInterrupt:
        return interrupted(again)
    return report(result)


# --- the benchmark ------------------------------------------------------------------------------


def _benchmark(args: argparse.Namespace, out: str) -> int:
    def play() -> BenchmarkResult:
        return run_benchmark(
            args.policies or list(DEFAULT_POLICIES),
            num_players=4 if args.players is None else args.players,
            games=100 if args.games is None else args.games,
            duplicate=args.duplicate,
            options=run_options(args, out),
        )

    again = f"the finished games are summarised in {out}/summary.json "
    again += f"(continue with --resume --out {out})"
    return _play_and_report(play, again, lambda result: _report_run(args, result, out))


def print_verdicts(summary: dict[str, Any], names: list[str] | None = None) -> None:
    """The plain-language verdicts, then the legend of the terms."""
    lines = verdicts(summary, names)
    if lines:
        print("\n" + "\n".join(lines))
    print("\n" + legend())


def _report_run(args: argparse.Namespace, result: BenchmarkResult, out: str) -> int:
    """Print a finished run's leaderboard, verdicts, replays and pace; its exit code."""
    if result.summary.get("luck_adjusted"):
        print(LUCK_RESULT + "\n")
    print(result.leaderboard)
    print_verdicts(result.summary)
    meta = result.summary["meta"]
    if args.save_replays:
        from .runs.replays import save_replays

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


# --- the sequential test ------------------------------------------------------------------------


def _sprt(args: argparse.Namespace, out: str) -> int:
    """`dune-bench --sprt`: exit 0 when decided, 3 when undecided at the maximum, 1 when a game
    failed, 2 on bad arguments, 130 on interruption."""

    def play() -> SprtResult:
        delta0, delta1 = args.sprt_delta or (0.0, 0.03)
        players = 4 if args.players is None else args.players
        per_deal = len(deal_seatings(lineup(args.policies, players), args.seatings))
        design = SprtDesign(
            delta0=delta0,
            delta1=delta1,
            alpha=0.05 if args.alpha is None else args.alpha,
            beta=0.05 if args.beta is None else args.beta,
            block=default_block(per_deal) if args.sprt_block is None else args.sprt_block,
        )
        return run_sprt(
            args.policies,
            num_players=players,
            max_games=args.max_games,
            design=design,
            metric=args.sprt_metric or "control",
            options=run_options(args, out),
        )

    def report(result: SprtResult) -> int:
        print(sprt_text(result.summary))
        print(f"\nreport written to {out}/report.md (LLR trace: {out}/sprt.png)")
        if result.failures:
            print(
                f"{len(result.failures)} game(s) failed, the test stopped; see "
                f"{out}/failures.txt (--resume plays them again)",
                file=sys.stderr,
            )
            return 1
        return 0 if result.decision.decision != "undecided" else 3

    again = f"the test so far is in {out}/summary.json (continue with the same command plus "
    again += f"--resume --out {out})"
    return _play_and_report(play, again, report)


# --- the standard suite -------------------------------------------------------------------------


def _suite(args: argparse.Namespace, out: str) -> int:
    folder = Path(out)
    if folder.exists() and not folder.is_dir():
        return refused(f"--out {out} is an existing file, not a folder")
    if not args.resume and folder.is_dir() and any(folder.iterdir()):
        return refused(
            f"output folder {out} is not empty; pass --resume to continue that suite, "
            "or choose another --out"
        )

    def play() -> SuiteResult:
        options = run_options(args, out)
        session: Any = contextlib.nullcontext()
        if args.backend == "ray":  # one Ray connection for all the suite's line-ups
            from .play.backends import ray_session

            session = ray_session(args.address)
        with session:
            return run_suite(args.policies, short=args.suite == "standard-short", options=options)

    def report(result: SuiteResult) -> int:
        print(result.text)
        _print_placement(result.summaries, args)
        print(
            f"\n{result.games} games in {result.seconds:.1f} s; report written to "
            f"{out}/suite_report.md"
        )
        return 1 if result.failures else 0

    again = " ".join([*_suite_args(args), "--resume", "--out", out])
    return _play_and_report(play, f"the suite was not finished (continue with {again})", report)


def _suite_args(args: argparse.Namespace) -> list[str]:
    """The arguments that name the suite run (to repeat with --resume)."""
    named = ["--suite", args.suite]
    named += ["--policies", *args.policies] if args.policies else []
    named += ["--seed", str(args.seed)] if args.seed else []
    named += ["--trust-checkpoints"] if args.trust_checkpoints else []
    return named


def _print_placement(summaries: dict[int, dict[str, Any]], args: argparse.Namespace) -> None:
    """Where the suite's candidates land in the published table (docs/leaderboard.md)."""
    from .leaderboard import LeaderboardError, load_published, placement_text

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
