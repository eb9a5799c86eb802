"""Engine throughput: full random games per second and decisions per second.

    python benchmarks/bench_engine.py [--games 200] [--seconds 0]

Players choose uniformly among the legal options with their own seeded generator.  Figures are
machine-dependent; compare ratios measured in one run.
"""

from __future__ import annotations

import argparse
import time

from dune_env.engine import Game, GameConfig
from dune_env.engine.rng import DiceRng


def run(num_players: int, games: int, record_events: bool) -> tuple[float, float, float]:
    chooser = DiceRng(12345)
    decisions = 0
    clones = 0
    start = time.perf_counter()
    for seed in range(games):
        game = Game(GameConfig(num_players=num_players, record_events=record_events), seed=seed)
        state = game.state
        while not game.terminal:
            options = game.legal_options()
            game.apply(options[chooser.below(len(options))])
            decisions += 1
        clones += 1
    elapsed = time.perf_counter() - start
    # Clone cost, for search bots: clone a mid-game state repeatedly.
    t0 = time.perf_counter()
    for _ in range(2000):
        state.clone()
    clone_us = (time.perf_counter() - t0) / 2000 * 1e6
    return games / elapsed, decisions / elapsed, clone_us


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=200)
    args = parser.parse_args()
    print(f"{'players':>7} {'events':>6} {'games/s':>9} {'decisions/s':>12} {'clone us':>9}")
    for n in (3, 5, 8):
        for events in (True, False):
            gps, dps, clone_us = run(n, args.games, events)
            print(f"{n:>7} {str(events):>6} {gps:>9.1f} {dps:>12.0f} {clone_us:>9.1f}")


if __name__ == "__main__":
    main()
