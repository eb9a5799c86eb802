"""Clone cost, compiled vs pure Python: microseconds per `GameState.clone()` of mid-game states.

    python benchmarks/bench_clone.py [--players 4] [--clones 20000] [--rounds 3]
    python benchmarks/bench_clone.py --build current     # only the build this process runs
    python benchmarks/bench_clone.py --compare-tree /tmp/base --rounds 5   # another checkout

The states are those of seeded random 4-player games after 20, 60, ... decisions (search bots
clone at every node).  By default both builds are measured in alternating rounds, each in its
own subprocess (the pure one with DUNE_ENV_PURE=1), and the ratio pure / compiled time is printed.
`--compare-tree PATH` measures this checkout's default build against another checkout's package
(e.g. `git worktree add /tmp/base 37f149c`, the code at issue 12's start) in alternating
subprocess rounds: the same states by the same seeded choices (where the rules allow), per-round
ratios and their median.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from statistics import median

from builds import describe, measure_both, paired_ratios, run_in_tree


def states(num_players: int) -> list:
    from dune_env.engine import Game, GameConfig
    from dune_env.engine.rng import DiceRng

    found = []
    for seed in range(4):
        game = Game(GameConfig(num_players=num_players, record_events=False), seed=seed)
        chooser = DiceRng(seed)
        decisions = 0
        while not game.terminal:
            if decisions in (20, 60, 120, 200):
                found.append(game.state)
                game = game.clone()
            options = game.legal_options()
            game.apply(options[chooser.below(len(options))])
            decisions += 1
    return found


def measure(num_players: int, clones: int) -> dict[str, float]:
    pool = states(num_players)
    per_state = max(1, clones // len(pool))
    start = time.perf_counter()
    for state in pool:
        for _ in range(per_state):
            state.clone()
    elapsed = time.perf_counter() - start
    return {"clones": per_state * len(pool), "seconds": elapsed}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--clones", type=int, default=20000, help="per build and round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--build", choices=("both", "current"), default="both")
    parser.add_argument("--compare-tree", metavar="PATH", help="another checkout's root")
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.build == "current":
        result = measure(args.players, args.clones)
        if args.json:
            print(json.dumps({"build": describe(), **result}))
        else:
            print(f"{result['seconds'] / result['clones'] * 1e6:.2f} us per clone")
        return

    forwarded = ["--players", str(args.players), "--clones", str(args.clones)]
    if args.compare_tree:
        compare_tree(Path(args.compare_tree).resolve(), forwarded, args.rounds)
        return
    results = measure_both(Path(__file__), forwarded, args.rounds)
    micros = {}
    print(f"{args.players} players, {args.rounds} rounds")
    print(f"{'build':<10}{'us/clone':>10}")
    for build, rounds in results.items():
        micros[build] = sum(r["seconds"] for r in rounds) / sum(r["clones"] for r in rounds) * 1e6
        print(f"{build:<10}{micros[build]:>10.2f}")
    print(f"ratio pure / compiled = {micros['pure'] / micros['compiled']:.2f}  (clone speed-up)")
    print(paired_ratios(results, lambda r: r["clones"] / r["seconds"]))


def compare_tree(tree: Path, forwarded: list[str], rounds: int) -> None:
    """This checkout against `tree`'s package, alternating rounds, each in a subprocess."""
    if not (tree / "dune_env" / "__init__.py").is_file():
        raise SystemExit(f"--compare-tree {tree}: no dune_env package there (a checkout's root?)")
    root = Path(__file__).resolve().parents[1]
    command = [sys.executable, str(Path(__file__).resolve()), *forwarded, "--build", "current"]
    ratios = []
    for round_ in range(rounds):
        micros = {}
        for label, path in (("current", root), ("tree", tree)):
            result = run_in_tree([*command, "--json"], path, label)
            micros[label] = result["seconds"] / result["clones"] * 1e6
        ratios.append(micros["tree"] / micros["current"])
        print(
            f"round {round_}: current {micros['current']:.2f} us/clone, "
            f"tree {micros['tree']:.2f} us/clone, speed-up {ratios[-1]:.2f}"
        )
    print(f"speed-up current / {tree}: median {median(ratios):.2f} over {rounds} rounds")


if __name__ == "__main__":
    main()
