"""`python -m dune_env.play`: one seeded game between uniformly random players, narrated."""

from __future__ import annotations

import argparse

from .engine import FACTION_NAMES_BY_ID, Game, GameConfig
from .engine.rng import DiceRng


def play_random_game(num_players: int = 5, seed: int = 0) -> Game:
    """Play a game where every decision is uniform over the legal options.

    The players' choices use their own seeded generator, apart from the game's dice."""
    game = Game(GameConfig(num_players=num_players), seed=seed)
    chooser = DiceRng(seed ^ 0x5EED)
    while not game.terminal:
        options = game.legal_options()
        game.apply(options[chooser.below(len(options))])
    return game


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--players", type=int, default=5, help="3 to 8 (default 5)")
    parser.add_argument("--seed", type=int, default=0, help="game seed (default 0)")
    args = parser.parse_args(argv)
    game = play_random_game(args.players, args.seed)
    for line in game.event_log():
        print(line)
    state = game.state
    print()
    print(f"Result after {state.decision_count} decisions:")
    for seat, faction in enumerate(state.seat_faction):
        outcome = "wins" if seat in game.winners else "loses"
        print(
            f"  seat {seat} {FACTION_NAMES_BY_ID[faction]:<14} {outcome}"
            f"  reward {game.rewards[seat]:+.1f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
