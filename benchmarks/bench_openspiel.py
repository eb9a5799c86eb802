"""The OpenSpiel game "python_dune": game lengths and speed of random play.

    python benchmarks/bench_openspiel.py [--games 100]

For each player count: the longest game in player actions (OpenSpiel's game length, compared
with `max_game_length`) and in chance nodes, and OpenSpiel actions (player + chance) applied
per second.  Players and chance are sampled uniformly with one seeded generator.  Needs
OpenSpiel (`pip install "dune-env[openspiel]"`).  Speed is machine-dependent.
"""

from __future__ import annotations

import argparse
import random
import time

from builds import require

require("bench_openspiel.py", "pyspiel")

import pyspiel  # noqa: E402

import dune_env.openspiel  # noqa: E402, F401  (registers "python_dune")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100, help="random games per player count")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random choices")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    print(
        f"{'players':>7} {'max player actions':>19} {'max_game_length':>16} "
        f"{'max chance nodes':>17} {'actions/s':>10}"
    )
    for players in range(3, 9):
        game = pyspiel.load_game("python_dune", {"players": players})
        longest = most_chance = applied = 0
        start = time.perf_counter()
        for _ in range(args.games):
            state = game.new_initial_state()
            actions = chance = 0
            while not state.is_terminal():
                if state.is_chance_node():
                    state.apply_action(rng.randrange(len(state.chance_outcomes())))
                    chance += 1
                else:
                    state.apply_action(rng.choice(state.legal_actions()))
                    actions += 1
            longest = max(longest, actions)
            most_chance = max(most_chance, chance)
            applied += actions + chance
        rate = applied / (time.perf_counter() - start)
        print(
            f"{players:>7} {longest:>19} {game.max_game_length():>16} "
            f"{most_chance:>17} {rate:>10.0f}"
        )


if __name__ == "__main__":
    main()
