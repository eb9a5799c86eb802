"""`dune-replay`: a game as one self-contained HTML file to step through in a browser.

    dune-replay --policies aggressive economic random random --seed 3 --out game.html
    dune-replay game.json --out game.html            # a replay file or an engine snapshot
    dune-replay --benchmark runs/bench --game 17 --out game17.html   # a dune-bench --out folder
    dune-replay --benchmark runs/benchmark --players 4 --lineup 0 --game 17   # a suite (make run)

--save-record also writes the replay record (configuration, seed, chosen options) as JSON.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from ..exits import refuse


class HelpFormatter(argparse.RawDescriptionHelpFormatter, argparse.ArgumentDefaultsHelpFormatter):
    """The module docstring as written, and every option's default after its help (none for an
    option without one: "(default: None)" said nothing, or contradicted the help's own words)."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        if action.default is None:
            return action.help
        return super()._get_help_string(action)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dune-replay", description=__doc__, formatter_class=HelpFormatter
    )
    parser.add_argument("file", nargs="?", help="a replay record or engine snapshot (JSON)")
    parser.add_argument(
        "--policies", nargs="+", metavar="POLICY", help="play a fresh game between these policies"
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the fresh game")
    parser.add_argument(
        "--players",
        type=int,
        help="players of the fresh game (default: one per policy); with --benchmark of a\n"
        "suite: its N-player runs (default: the only player count)",
    )
    parser.add_argument(
        "--benchmark",
        metavar="DIR",
        help="a dune-bench --out folder, or a suite folder (make run) with --players/--lineup",
    )
    parser.add_argument(
        "--lineup", type=int, help="with --benchmark of a suite: line-up J (default: the only one)"
    )
    parser.add_argument("--game", type=int, help="game index in that benchmark (results.csv)")
    parser.add_argument(
        "--trust-checkpoints",
        action="store_true",
        help="let --benchmark run the folder's module:attr policies and pickle-based models\n"
        "(they can run arbitrary code: only for run folders you trust)",
    )
    parser.add_argument("--out", default="replay.html", help="the HTML file to write")
    parser.add_argument("--save-record", metavar="JSON", help="also write the replay record")
    return parser


def main(argv: list[str] | None = None) -> int:
    from ..engine import ConfigError
    from ..policies.registry import PolicyLoadError
    from .html import write_replay_html
    from .record import (
        ReplayError,
        ReplayRecord,
        benchmark_record,
        benchmark_run_dir,
        play_policies,
    )

    parser = build_parser()
    args = parser.parse_args(argv)
    sources = [args.file is not None, args.policies is not None, args.benchmark is not None]
    if sum(sources) != 1:
        parser.error("give exactly one of: a FILE, --policies ..., or --benchmark DIR --game N")
    if args.benchmark is not None and args.game is None:
        parser.error("--benchmark needs --game N (the game index of results.csv)")
    if args.lineup is not None and args.benchmark is None:
        parser.error("--lineup goes with --benchmark DIR (a suite folder)")
    try:
        if args.file is not None:
            record = ReplayRecord.load(args.file)
        elif args.policies is not None:
            record = play_policies(args.policies, seed=args.seed, num_players=args.players)
        else:
            run_dir = benchmark_run_dir(args.benchmark, args.players, args.lineup)
            record = benchmark_record(run_dir, args.game, trust=args.trust_checkpoints)
        path = write_replay_html(record, args.out)
        if args.save_record:
            Path(args.save_record).write_text(record.to_json())
    except (ReplayError, PolicyLoadError, ConfigError, OSError) as exc:
        return refuse("dune-replay", exc)
    print(f"wrote {path} ({path.stat().st_size // 1024} KiB, {len(record.options) + 1} decisions)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
