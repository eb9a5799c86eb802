"""Evaluate any checkpoint with the benchmark harness, in one command.

    python -m training.evaluate runs/ppo/ppo_4p_seed0/final_model.zip --games 200
    python -m training.evaluate runs/rllib/rllib_4p_seed0/checkpoint --opponents random
    python -m training.evaluate ppo-4p
    python -m training.evaluate my_model.safetensors

A stable-baselines3 .zip or an RLlib folder is pickle-based (loading it can run code) and needs
--trust-checkpoints; see SECURITY.md.

The checkpoint (a safe-format .safetensors, a MaskablePPO .zip, an RLlib checkpoint folder, or a
registered name) takes one
seat against copies of each opponent, seats and factions rotated; prints its win rate with a 95%
Wilson interval against each and writes the harness reports under --out.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path


class _HelpFormatter(argparse.RawDescriptionHelpFormatter, argparse.ArgumentDefaultsHelpFormatter):
    """The module docstring as written, and every option's default after its help."""


def main(argv: list[str] | None = None) -> int:
    from dune_env.harness import run_benchmark
    from dune_env.policies.registry import PolicyLoadError, load_policy

    parser = argparse.ArgumentParser(
        prog="python -m training.evaluate", description=__doc__, formatter_class=_HelpFormatter
    )
    parser.add_argument(
        "checkpoint",
        help=".safetensors or .zip model, RLlib checkpoint folder, or registered policy name",
    )
    parser.add_argument(
        "--opponents",
        nargs="+",
        default=["random", "aggressive", "economic"],
        metavar="POLICY",
        help="opponent policies; each is evaluated separately, filling every other seat",
    )
    parser.add_argument("--players", type=int, default=4, help="players per game (3 to 8)")
    parser.add_argument("--games", type=int, default=200, help="games per opponent")
    parser.add_argument("--seed", type=int, default=0, help="schedule and dice seed")
    parser.add_argument(
        "--workers", type=int, default=os.cpu_count() or 1, help="processes (this machine's cores)"
    )
    parser.add_argument(
        "--out", default="runs/eval", help="folder for the reports (one sub-folder per opponent)"
    )
    parser.add_argument(
        "--trust-checkpoints",
        action="store_true",
        help="allow a pickle-based checkpoint (SB3 .zip, RLlib folder): it can run code",
    )
    args = parser.parse_args(argv)
    try:  # a clear error now rather than in every worker
        load_policy(args.checkpoint, trust=args.trust_checkpoints)
    except PolicyLoadError as exc:
        parser.exit(2, f"evaluate: {exc}\n")
    results = {}
    print(f"{'opponent':<12} {'games':>6} {'win rate':>9}  95% CI")
    for opponent in args.opponents:
        lineup = [args.checkpoint] + [opponent] * (args.players - 1)
        result = run_benchmark(
            lineup,
            num_players=args.players,
            games=args.games,
            seed=args.seed,
            workers=args.workers,
            out_dir=Path(args.out) / f"vs_{opponent}",
            trust_checkpoints=args.trust_checkpoints,
        )
        me = result.summary["policies"][args.checkpoint]
        low, high = me["win_rate_ci95"]
        results[opponent] = {"win_rate": me["win_rate"], "ci95": [low, high], "games": args.games}
        print(f"{opponent:<12} {args.games:>6} {me['win_rate']:>9.1%}  [{low:.1%}, {high:.1%}]")
    Path(args.out).mkdir(parents=True, exist_ok=True)
    (Path(args.out) / "evaluation.json").write_text(json.dumps(results, indent=2))
    print(f"reports written under {args.out}/")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
