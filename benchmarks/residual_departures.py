"""Where a network on the strategist departs from it (residual-4p, docs/models/residual-4p.md).

    python benchmarks/residual_departures.py --model residual-4p --games 400

Plays GAMES 4-player games (seeds 0.., the model in seat seed mod 4, strategist, economic and
aggressive in the other seats in turn) and prints, per decision kind with a choice, how often
the model's option differs from the strategist's on the same position.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from dune_env.policies.registry import load_policy  # noqa: E402
from dune_env.policies.residual import departures  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="residual-4p")
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--players", type=int, default=4)
    args = parser.parse_args()
    choices, departed = departures(load_policy(args.model), args.games, args.players)
    total, moved = sum(choices.values()), sum(departed.values())
    print(
        f"{args.model}, {args.games} games of {args.players} players: departs from the "
        f"strategist on {moved} of {total} decisions with a choice ({moved / total:.1%})"
    )
    print("| decision kind | decisions with a choice | departures | share |")
    print("|---|---:|---:|---:|")
    for kind, n in sorted(choices.items(), key=lambda kv: -departed[kv[0]]):
        if departed[kind]:
            print(f"| {kind} | {n} | {departed[kind]} | {departed[kind] / n:.1%} |")


if __name__ == "__main__":
    main()
