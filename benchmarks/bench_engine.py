"""Engine throughput, compiled vs pure Python: random games per second and decisions per second.

    python benchmarks/bench_engine.py [--players 4] [--games 60] [--rounds 3] [--events]
    python benchmarks/bench_engine.py --build current     # only the build this process runs

Players choose uniformly among the legal options with their own seeded generator; both builds
play the same games (same seeds, same choices).  By default the compiled and the pure-Python
build (DUNE_ENV_PURE=1) are measured in alternating rounds, each in its own subprocess, and the
ratio compiled / pure is printed.  Figures are machine-dependent; compare ratios of one run.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from builds import describe, measure_both, paired_ratios


def play(num_players: int, games: int, record_events: bool) -> dict[str, float]:
    from dune_env.engine import Game, GameConfig
    from dune_env.engine.rng import DiceRng

    chooser = DiceRng(12345)
    decisions = 0
    start = time.perf_counter()
    for seed in range(games):
        game = Game(GameConfig(num_players=num_players, record_events=record_events), seed=seed)
        while not game.terminal:
            options = game.legal_options()
            game.apply(options[chooser.below(len(options))])
            decisions += 1
    elapsed = time.perf_counter() - start
    return {"games": games, "decisions": decisions, "seconds": elapsed}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=60, help="per build and round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--events", action="store_true", help="record the event log")
    parser.add_argument("--build", choices=("both", "current"), default="both")
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.build == "current":
        result = play(args.players, args.games, args.events)
        if args.json:
            print(json.dumps({"build": describe(), **result}))
        else:
            kind = "compiled" if describe()["compiled"] else "pure"
            print(
                f"{kind}: {result['games'] / result['seconds']:.1f} games/s, "
                f"{result['decisions'] / result['seconds']:,.0f} decisions/s"
            )
        return

    forwarded = ["--players", str(args.players), "--games", str(args.games)]
    forwarded += ["--events"] if args.events else []
    results = measure_both(Path(__file__), forwarded, args.rounds)
    rates = {}
    print(f"{args.players} players, events {'on' if args.events else 'off'}, {args.rounds} rounds")
    print(f"{'build':<10}{'games/s':>10}{'decisions/s':>14}")
    for build, rounds in results.items():
        seconds = sum(r["seconds"] for r in rounds)
        games = sum(r["games"] for r in rounds)
        decisions = sum(r["decisions"] for r in rounds)
        rates[build] = games / seconds
        print(f"{build:<10}{games / seconds:>10.1f}{decisions / seconds:>14,.0f}")
    same = {r["decisions"] for rs in results.values() for r in rs}
    if len(same) != 1:
        raise SystemExit(f"the builds played different games: decision counts {sorted(same)}")
    print(f"ratio compiled / pure = {rates['compiled'] / rates['pure']:.2f}  (games/s)")
    print(paired_ratios(results, lambda r: r["games"] / r["seconds"]))


if __name__ == "__main__":
    main()
