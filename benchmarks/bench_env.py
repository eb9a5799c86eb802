"""Environment throughput: agent-steps per second of dune_v1 and of PettingZoo's connect_four_v3.

    python benchmarks/bench_env.py [--seconds 3] [--rounds 3] [--players 4] [--profile 25]
    python benchmarks/bench_env.py --build current     # only the build this process runs
    python benchmarks/bench_env.py --compare-tree /tmp/base --rounds 5   # vs another checkout

Both environments are the wrapped ones (`dune_env.env()`, `pettingzoo.make("aec",
"classic/connect_four_v3")`) driven by the same loop: `agent_iter()`, `last()`, a uniformly
random legal action from the observation's action mask (a seeded generator), `step()`; dead
steps at the end of a game count as agent-steps, as PettingZoo's own benchmark counts them.
The two are measured in alternating rounds so that a busy machine affects both alike; the
ratio of the totals is printed.  By default this is done for both builds of dune_env, the
compiled one and the pure-Python one (DUNE_ENV_PURE=1), each round in a subprocess per build,
alternating; each build's ratio uses the connect_four_v3 rate measured in the same subprocess.
`--profile N` (with --build current) also prints the N most expensive functions of the dune_v1
loop (cProfile, by own time).  `--compare-tree PATH` measures this checkout's default build and
another checkout's (e.g. `git worktree add /tmp/base REV`, compiled in place) in alternating
subprocess rounds, and prints each round's ratio dune_v1 / connect_four_v3 per tree, their
medians, and the median of dune_v1 this checkout / that one; each also per CPU-second of the
measuring process (on a loaded machine the wall clock counts the time other jobs ran).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import random
import sys
import time
from pathlib import Path
from statistics import median
from typing import Any

import numpy as np
from builds import describe, measure_both, require, run_in_tree

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")


def run(env: Any, seconds: float, seed: int) -> tuple[int, int, float, float]:
    """(agent-steps, finished games, elapsed seconds, CPU seconds of this process) of random
    masked play."""
    rng = random.Random(seed)
    env.reset(seed=seed)
    steps = games = 0
    start, cpu = time.perf_counter(), time.process_time()
    while True:
        for _agent in env.agent_iter():
            obs, _, termination, truncation, _ = env.last()
            if termination or truncation:
                action = None
            else:
                legal = np.flatnonzero(obs["action_mask"])
                action = int(legal[rng.randrange(legal.size)])
            env.step(action)
            steps += 1
        games += 1
        if time.perf_counter() - start >= seconds:
            return steps, games, time.perf_counter() - start, time.process_time() - cpu
        env.reset()


def make_dune(num_players: int) -> Any:
    import dune_env

    return dune_env.env(num_players=num_players)


def make_connect_four() -> Any:
    require("bench_env.py", "pygame")  # pettingzoo's connect_four draws with pygame-ce
    import pettingzoo

    return pettingzoo.make("aec", "classic/connect_four_v3")


def measure(players: int, seconds: float, rounds: int) -> dict[str, list[float]]:
    """Totals {environment: [agent-steps, games, seconds, CPU seconds]} over alternating
    rounds."""
    dune, c4 = make_dune(players), make_connect_four()
    totals = {"dune_v1": [0.0] * 4, "connect_four_v3": [0.0] * 4}
    for round_ in range(rounds):
        for name, env in (("dune_v1", dune), ("connect_four_v3", c4)):
            for i, value in enumerate(run(env, seconds, seed=round_)):
                totals[name][i] += value
    return totals


def rate(totals: dict[str, list[float]], name: str, cpu: bool = False) -> float:
    """Agent-steps per second (wall clock), or per CPU-second of the process with `cpu`."""
    return totals[name][0] / totals[name][3 if cpu else 2]


def ratio_of(totals: dict[str, list[float]], cpu: bool = False) -> float:
    """dune_v1 / connect_four_v3 agent-steps per second (or per CPU-second)."""
    return rate(totals, "dune_v1", cpu) / rate(totals, "connect_four_v3", cpu)


def compare_tree(tree: Path, forwarded: list[str], rounds: int) -> None:
    """This checkout against `tree`'s package, alternating rounds, each in a subprocess."""
    if not (tree / "dune_env" / "__init__.py").is_file():
        raise SystemExit(f"--compare-tree {tree}: no dune_env package there (a checkout's root?)")
    root = Path(__file__).resolve().parents[1]
    command = [sys.executable, str(Path(__file__).resolve()), *forwarded, "--build", "current"]
    ratios: dict[str, list[float]] = {"current": [], "tree": []}
    cpu_ratios: dict[str, list[float]] = {"current": [], "tree": []}
    speedups, cpu_speedups = [], []
    for round_ in range(rounds):
        dune, dune_cpu = {}, {}
        for label, path in (("current", root), ("tree", tree)):
            result = run_in_tree([*command, "--json"], path, label)
            if not result["build"]["compiled"]:
                print(f"warning: {label} ran pure Python (no compiled build there)")
            totals = result["totals"]
            ratios[label].append(ratio_of(totals))
            cpu_ratios[label].append(ratio_of(totals, cpu=True))
            dune[label] = rate(totals, "dune_v1")
            dune_cpu[label] = rate(totals, "dune_v1", cpu=True)
        speedups.append(dune["current"] / dune["tree"])
        cpu_speedups.append(dune_cpu["current"] / dune_cpu["tree"])
        print(
            f"round {round_}: dune_v1 / connect_four_v3 current {ratios['current'][-1]:.2f} "
            f"({cpu_ratios['current'][-1]:.2f} per CPU-s), tree {ratios['tree'][-1]:.2f} "
            f"({cpu_ratios['tree'][-1]:.2f}); dune_v1 agent-steps per CPU-s current "
            f"{dune_cpu['current']:,.0f}, tree {dune_cpu['tree']:,.0f}"
        )
    print(
        f"dune_v1 / connect_four_v3, median of {rounds} rounds: current "
        f"{median(ratios['current']):.2f} ({median(cpu_ratios['current']):.2f} per CPU-s), "
        f"tree {tree} {median(ratios['tree']):.2f} ({median(cpu_ratios['tree']):.2f} per CPU-s)"
    )
    print(
        f"dune_v1 current / tree: median {median(speedups):.2f} "
        f"({median(cpu_speedups):.2f} per CPU-s)"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=3.0, help="per environment and round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--profile", type=int, default=0, metavar="N")
    parser.add_argument("--build", choices=("both", "current"), default="both")
    parser.add_argument("--compare-tree", metavar="PATH", help="another checkout's root")
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    forwarded = ["--players", str(args.players), "--seconds", str(args.seconds)]
    forwarded += ["--rounds", "1"]
    if args.compare_tree:
        compare_tree(Path(args.compare_tree).resolve(), forwarded, args.rounds)
        return
    if args.build == "both":
        results = measure_both(Path(__file__), forwarded, args.rounds)
        print(f"{args.players} players, wrapped, random masked actions, {args.rounds} rounds")
        print(f"{'build':<10}{'dune_v1 steps/s':>17}{'connect_four_v3':>17}{'ratio':>8}")
        dune_rate = {}
        for build, rounds in results.items():
            sums = {
                name: [sum(r["totals"][name][i] for r in rounds) for i in range(3)]
                for name in ("dune_v1", "connect_four_v3")
            }
            dune_rate[build] = sums["dune_v1"][0] / sums["dune_v1"][2]
            c4_rate = sums["connect_four_v3"][0] / sums["connect_four_v3"][2]
            print(
                f"{build:<10}{dune_rate[build]:>17,.0f}{c4_rate:>17,.0f}"
                f"{dune_rate[build] / c4_rate:>8.2f}"
            )
        ratio = dune_rate["compiled"] / dune_rate["pure"]
        print(f"ratio: dune_v1 / connect_four_v3 per build; dune_v1 compiled / pure = {ratio:.2f}")
        for build, rounds in results.items():
            per_round = [ratio_of(r["totals"]) for r in rounds]
            listed = " ".join(f"{r:.2f}" for r in per_round)
            print(
                f"{build} dune_v1 / connect_four_v3 per round: {listed}; "
                f"median {median(per_round):.2f}"
            )
        return

    totals = measure(args.players, args.seconds, args.rounds)
    if args.json:
        print(json.dumps({"build": describe(), "totals": totals}))
        return
    print(f"{'environment':<18}{'agent-steps/s':>15}{'games/s':>10}{'steps/game':>12}")
    rates = {}
    for name, (steps, games, elapsed, _cpu) in totals.items():
        rates[name] = steps / elapsed
        print(f"{name:<18}{steps / elapsed:>15,.0f}{games / elapsed:>10.1f}{steps / games:>12.1f}")
    ratio = rates["dune_v1"] / rates["connect_four_v3"]
    build = "compiled" if describe()["compiled"] else "pure Python"
    print(
        f"ratio dune_v1 / connect_four_v3 = {ratio:.2f}  ({args.players} players, wrapped, {build})"
    )

    if args.profile:
        profiler = cProfile.Profile()
        profiler.enable()
        run(make_dune(args.players), args.seconds, seed=99)
        profiler.disable()
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(args.profile)
        print(out.getvalue())


if __name__ == "__main__":
    main()
