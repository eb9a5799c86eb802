"""How each policy uses alliances (ALLY-1..3, END-2) at 5+ players.

    python benchmarks/alliance_statistics.py --policies strategist economic aggressive random \
        --players 5 6 --games 1000

Plays the `dune-bench --duplicate` schedule (the same seed gives the same games as the
harness) in this process and counts, per policy, from the game's events: its turns (offer
steps), the offers it made, the offers it received and accepted or declined, and its alliance
wins (END-2, per seat played).  The figures depend only on the arguments.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from dune_env.engine.constants import NO_ONE  # noqa: E402
from dune_env.engine.events import EventKind  # noqa: E402
from dune_env.match import play_spec, schedule  # noqa: E402

ALLIANCE_VICTORY = 1  # the VICTORY event's kind field (events.py)


def count(policies: list[str], num_players: int, games: int, seed: int) -> dict[str, Counter[str]]:
    stats: dict[str, Counter[str]] = {p: Counter() for p in policies}
    for spec in schedule(policies, num_players, games, seed, duplicate=True):
        game = play_spec(spec)
        state = game.state
        owner = {state.seat_faction[s]: spec.seat_policies[s] for s in range(num_players)}
        for s in range(num_players):
            stats[spec.seat_policies[s]]["seats"] += 1
        for event in state.events:
            if event[0] == EventKind.ALLY_OFFER:
                active, target = event[1], event[2]
                stats[owner[active]]["turns"] += 1
                if target != NO_ONE:
                    stats[owner[active]]["offers"] += 1
            elif event[0] == EventKind.ALLY_ANSWER:
                target, accepted = event[1], event[2]
                stats[owner[target]]["accepted" if accepted else "declined"] += 1
            elif event[0] == EventKind.VICTORY and event[1] == ALLIANCE_VICTORY:
                for seat in event[2:]:
                    stats[spec.seat_policies[seat]]["alliance_wins"] += 1
    return stats


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--policies", nargs="+", required=True)
    parser.add_argument("--players", nargs="+", type=int, default=[5, 6])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    for n in args.players:
        stats = count(args.policies, n, args.games, args.seed)
        print(f"\n{n} players, {args.games} duplicate games (seed {args.seed})")
        print(
            "| policy | seats | offers / turn | offers received | accepted | declined "
            "| alliance wins / seat |"
        )
        print("|---|---:|---:|---:|---:|---:|---:|")
        for p in args.policies:
            c = stats[p]
            received = c["accepted"] + c["declined"]
            print(
                f"| {p} | {c['seats']} | {c['offers'] / max(c['turns'], 1):.1%} | {received} "
                f"| {c['accepted']} | {c['declined']} "
                f"| {c['alliance_wins'] / max(c['seats'], 1):.1%} |"
            )


if __name__ == "__main__":
    main()
