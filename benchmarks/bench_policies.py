"""Win rates and speed of the baseline policies in seeded 4-player games, seats rotated.

    python benchmarks/bench_policies.py --hero aggressive --others random --games 400
    python benchmarks/bench_policies.py --hero mcts --others economic --games 40
    python benchmarks/bench_policies.py --hero strategist --others economic --speed-only

One `--hero` policy plays against `--players - 1` copies of `--others`; the hero's seat
rotates with the game index, factions are drawn by the game seed.  Prints the hero's win rate
(with a 95% normal-approximation interval), the same seats' win rate when the hero is replaced
by an `--others` player (the baseline for this seat rotation), and the hero's mean time per
decision, wall-clock and CPU (the process's CPU time: on a shared machine the steadier figure
to compare).  `--speed-only` skips the baseline games and prints the times alone.
"""

from __future__ import annotations

import argparse
import math
import time

from dune_env.engine import Game, GameConfig
from dune_env.policies.registry import load_policy


def run(hero: str, others: str, games: int, players: int, seed: int) -> tuple[float, float, float]:
    """(the hero's win rate, its mean wall-clock and CPU seconds per decision)."""
    wins = 0
    spent = 0.0
    spent_cpu = 0.0
    decisions = 0
    for i in range(games):
        seat = i % players
        policies = [load_policy(others, seed=seed + 100 * i + k) for k in range(players)]
        policies[seat] = load_policy(hero, seed=seed + i)
        game = Game(GameConfig(num_players=players), seed=seed + i)
        while not game.terminal:
            decision = game.pending
            assert decision is not None
            start, start_cpu = time.perf_counter(), time.process_time()
            option = policies[decision.seat].act(game, decision.seat)
            if decision.seat == seat:
                spent += time.perf_counter() - start
                spent_cpu += time.process_time() - start_cpu
                decisions += 1
            game.apply(option)
        wins += seat in game.winners
    return wins / games, spent / max(decisions, 1), spent_cpu / max(decisions, 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hero", default="aggressive")
    parser.add_argument("--others", default="random")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--speed-only", action="store_true", help="skip the baseline games; print the times"
    )
    args = parser.parse_args()
    rate, per_decision, cpu = run(args.hero, args.others, args.games, args.players, args.seed)
    speed = f"{1e6 * per_decision:.1f} us per {args.hero} decision ({1e6 * cpu:.1f} us CPU)"
    if args.speed_only:
        print(f"{args.hero} vs {args.players - 1}x {args.others}, {args.games} games: {speed}")
        return
    base, _, _ = run(args.others, args.others, args.games, args.players, args.seed)
    half = 1.96 * math.sqrt(max(rate * (1 - rate), 1e-9) / args.games)
    print(
        f"{args.hero} vs {args.players - 1}x {args.others}, {args.games} games: "
        f"win rate {rate:.3f} +/- {half:.3f} (same seats played by {args.others}: {base:.3f}); "
        f"{speed}"
    )


if __name__ == "__main__":
    main()
