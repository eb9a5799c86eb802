"""Where a network on the strategist departs from it (residual-4p, docs/models/residual-4p.md).

    python benchmarks/residual_departures.py --model residual-4p --games 400

Plays GAMES 4-player games (seeds 0.., the model in seat seed mod 4, strategist, economic and
aggressive in the other seats in turn) and prints, per decision kind with a choice, how often
the model's option differs from the strategist's on the same position.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from dune_env.engine import Game, GameConfig  # noqa: E402
from dune_env.engine.decisions import DecisionKind  # noqa: E402
from dune_env.environment.seating import named_policy  # noqa: E402
from dune_env.policies.registry import load_policy  # noqa: E402


def departures(model: str, games: int, players: int) -> tuple[Counter[str], Counter[str]]:
    """(decisions with a choice, departures from the strategist) per decision kind."""
    policy = load_policy(model)
    strategist = named_policy("strategist", 0)
    others = [named_policy(n, 0) for n in ("strategist", "economic", "aggressive")]
    choices: Counter[str] = Counter()
    departed: Counter[str] = Counter()
    for seed in range(games):
        game = Game(GameConfig(num_players=players), seed=seed)
        mine = seed % players
        while not game.terminal:
            if game.pending is None:
                game.advance()
                continue
            seat = game.state.pending_seat
            if seat != mine:
                game.apply(others[(seat - mine - 1) % players % 3].act(game, seat))
                continue
            option = policy.act(game.clone(), seat)
            if len(game.legal_options()) > 1:
                kind = DecisionKind(game.state.pending_kind).name
                choices[kind] += 1
                departed[kind] += option != strategist.act(game, seat)
            game.apply(option)
    return choices, departed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="residual-4p")
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--players", type=int, default=4)
    args = parser.parse_args()
    choices, departed = departures(args.model, args.games, args.players)
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
