"""Engine throughput, compiled vs pure Python: random games per second and decisions per second.

    python benchmarks/bench_engine.py [--players 4] [--games 60] [--rounds 3] [--events]
    python benchmarks/bench_engine.py --build current     # only the build this process runs
    python benchmarks/bench_engine.py --vs-openspiel --rounds 5   # against OpenSpiel's C++ game

Players choose uniformly among the legal options with their own seeded generator; both builds
play the same games (same seeds, same choices).  By default the compiled and the pure-Python
build (DUNE_ENV_PURE=1) are measured in alternating rounds, each in its own subprocess, and the
ratio compiled / pure is printed.  Figures are machine-dependent; compare ratios of one run.

`--vs-openspiel` measures the build this process runs against OpenSpiel's C++ `connect_four`
driven from Python by the same kind of loop (`legal_actions()`, a uniformly random one from a
seeded generator, `apply_action()`), alternating the two in one process, each round timed for
the same number of CPU seconds of the process (a loaded machine's other jobs do not count); it
prints decisions per CPU-second and each round's ratio
dune / connect_four with their median (needs OpenSpiel: `pip install "dune-env[openspiel]"`).
"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path
from statistics import median

from builds import describe, measure_both, paired_ratios, require


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


def play_for(num_players: int, seconds: float, seed: int) -> float:
    """Decisions per CPU-second of random games of the engine, played for about `seconds` of
    CPU time."""
    from dune_env.engine import Game, GameConfig
    from dune_env.engine.rng import DiceRng

    chooser = DiceRng(seed)
    config = GameConfig(num_players=num_players)
    decisions = 0
    game_seed = seed * 1_000_003
    start = time.process_time()
    while time.process_time() - start < seconds:
        game = Game(config, seed=game_seed)
        game_seed += 1
        while not game.terminal:
            options = game.legal_options()
            game.apply(options[chooser.below(len(options))])
            decisions += 1
    return decisions / (time.process_time() - start)


def play_connect_four_for(seconds: float, seed: int) -> float:
    """Decisions per CPU-second of random games of OpenSpiel's C++ connect_four, from Python."""
    import pyspiel

    game = pyspiel.load_game("connect_four")
    rng = random.Random(seed)
    decisions = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            actions = state.legal_actions()
            state.apply_action(actions[rng.randrange(len(actions))])
            decisions += 1
    return decisions / (time.process_time() - start)


def vs_openspiel(num_players: int, seconds: float, rounds: int) -> None:
    require("bench_engine.py --vs-openspiel", "pyspiel")
    build = describe()
    kind = f"compiled ({build['compiler']})" if build["compiled"] else "pure Python"
    ratios = []
    for round_ in range(rounds):
        dune = play_for(num_players, seconds, seed=round_)
        c4 = play_connect_four_for(seconds, seed=round_)
        ratios.append(dune / c4)
        print(
            f"round {round_}: dune {dune:,.0f}, OpenSpiel connect_four {c4:,.0f} "
            f"decisions per CPU-s; "
            f"ratio {ratios[-1]:.3f}"
        )
    listed = " ".join(f"{r:.3f}" for r in ratios)
    print(
        f"dune engine ({num_players} players, {kind}) / OpenSpiel C++ connect_four, "
        f"decisions per CPU-s, per round: {listed}; median {median(ratios):.3f}"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=60, help="per build and round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--events", action="store_true", help="record the event log")
    parser.add_argument("--build", choices=("both", "current"), default="both")
    parser.add_argument("--vs-openspiel", action="store_true", help="see the module docstring")
    parser.add_argument(
        "--seconds", type=float, default=3.0, help="per game and round (--vs-openspiel)"
    )
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.vs_openspiel:
        vs_openspiel(args.players, args.seconds, args.rounds)
        return

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
