"""Cost of the benchmark harness's guards (issue 11): worker processes for every game and the
clone handed to policies from outside the project.

    python benchmarks/bench_harness.py --games 200

Prints games/s of `run_benchmark` with 1 and 2 workers (heuristics and random, 4 players), and
the time of one `Game.clone()` next to one heuristic decision.
"""

from __future__ import annotations

import argparse
import time

from dune_env.engine import Game, GameConfig
from dune_env.harness import run_benchmark
from dune_env.policies.registry import load_policy


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=200)
    args = parser.parse_args()
    policies = ["aggressive", "economic", "random"]
    for workers in (1, 2):
        start = time.perf_counter()
        result = run_benchmark(
            policies, num_players=4, games=args.games, workers=workers, plots=False
        )
        seconds = time.perf_counter() - start
        print(
            f"run_benchmark, {workers} worker(s): {args.games / seconds:.1f} games/s "
            f"({len(result.failures)} failures)"
        )
    seated = [load_policy(p, seed=i) for i, p in enumerate([*policies, "aggressive"])]
    clone_time = act_time = 0.0
    decisions = 0
    for seed in range(20):
        game = Game(GameConfig(num_players=4), seed=seed)
        while not game.terminal:
            seat = game.state.pending_seat
            t0 = time.perf_counter()
            game.clone()
            t1 = time.perf_counter()
            option = seated[seat].act(game, seat)
            t2 = time.perf_counter()
            game.apply(option)
            clone_time += t1 - t0
            act_time += t2 - t1
            decisions += 1
    print(
        f"per decision: clone {1e6 * clone_time / decisions:.1f} us, "
        f"heuristic/random act {1e6 * act_time / decisions:.1f} us ({decisions} decisions)"
    )


if __name__ == "__main__":
    main()
