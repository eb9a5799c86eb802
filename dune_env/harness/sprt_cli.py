"""The `--sprt` options of `dune-bench` and the command that runs the sequential test."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .exits import bad_input_errors, interrupted, refused
from .luck import LUCK_START

SPRT_FLAGS = ("--max-games", "--sprt-delta", "--alpha", "--beta", "--sprt-block", "--sprt-metric")


def add_sprt_arguments(parser: argparse.ArgumentParser) -> None:
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


def given_sprt_flags(args: argparse.Namespace) -> list[str]:
    return [f for f in SPRT_FLAGS if getattr(args, f[2:].replace("-", "_")) is not None]


def _refusal(args: argparse.Namespace) -> str:
    """Why the command line cannot run a sequential test ("" when it can)."""
    fixed = [
        flag
        for flag, given in (
            ("--suite", bool(args.suite)),
            ("--games", args.games is not None),
            ("--save-replays", bool(args.save_replays)),
        )
        if given
    ]
    if fixed:
        return (
            "--sprt chooses the number of games itself (give --max-games) and always plays "
            f"duplicate deals; drop {' '.join(fixed)}"
        )
    if not args.policies or len(args.policies) < 2:
        return "--sprt needs --policies A B [others]: A is tested against B"
    return ""


def run_sprt_command(
    args: argparse.Namespace, options: dict[str, Any], config: dict[str, object]
) -> int:
    """`dune-bench --sprt`: exit 0 when decided, 3 when undecided at the maximum, 1 when a game
    failed, 2 on bad arguments, 130 on interruption.  `options`: what every run takes from the
    command line (the output folder `out_dir` among them)."""
    from ..match import lineup
    from ..seatings import deal_seatings
    from .sprt import SprtDesign, default_block
    from .sprt_run import run_sprt

    out = options["out_dir"]
    refusal = _refusal(args)
    if refusal:
        print(f"dune-bench: {refusal}", file=sys.stderr)
        return 2
    try:
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
        if args.luck_adjust:
            print(LUCK_START.format(samples=args.luck_adjust), flush=True)
        result = run_sprt(
            args.policies,
            num_players=players,
            max_games=args.max_games,
            seatings=args.seatings,
            seed=args.seed,
            design=design,
            metric=args.sprt_metric or "control",
            config=config,
            overwrite=False,
            luck_samples=args.luck_adjust,
            luck_model=args.luck_model,
            **options,
        )
    except bad_input_errors() as exc:
        return refused(exc)
    except KeyboardInterrupt:
        return interrupted(
            f"the test so far is in {out}/summary.json (continue "
            f"with the same command plus --resume --out {out})"
        )
    from .sprt_run import sprt_text

    print(sprt_text(result.summary))
    print(f"\nreport written to {out}/report.md (LLR trace: {out}/sprt.png)")
    if result.failures:
        print(
            f"{len(result.failures)} game(s) failed, the test stopped; see {out}/failures.txt "
            f"(--resume plays them again)",
            file=sys.stderr,
        )
        return 1
    return 0 if result.decision.decision != "undecided" else 3
