"""Environment throughput: agent-steps per second of dune_v1 and of PettingZoo's connect_four_v3.

    python benchmarks/bench_env.py [--seconds 3] [--rounds 3] [--players 4] [--profile 25]
    python benchmarks/bench_env.py --build current     # only the build this process runs

Both environments are the wrapped ones (`dune_env.env()`, `pettingzoo.make("aec",
"classic/connect_four_v3")`) driven by the same loop: `agent_iter()`, `last()`, a uniformly
random legal action from the observation's action mask (a seeded generator), `step()`; dead
steps at the end of a game count as agent-steps, as PettingZoo's own benchmark counts them.
The two are measured in alternating rounds so that a busy machine affects both alike; the
ratio of the totals is printed.  By default this is done for both builds of dune_env, the
compiled one and the pure-Python one (DUNE_ENV_PURE=1), each round in a subprocess per build,
alternating; each build's ratio uses the connect_four_v3 rate measured in the same subprocess.
`--profile N` (with --build current) also prints the N most expensive functions of the dune_v1
loop (cProfile, by own time).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import random
import time
from pathlib import Path
from typing import Any

import numpy as np
from builds import describe, measure_both, require

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")


def run(env: Any, seconds: float, seed: int) -> tuple[int, int, float]:
    """(agent-steps, finished games, elapsed seconds) of random masked play."""
    rng = random.Random(seed)
    env.reset(seed=seed)
    steps = games = 0
    start = time.perf_counter()
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
            return steps, games, time.perf_counter() - start
        env.reset()


def make_dune(num_players: int) -> Any:
    import dune_env

    return dune_env.env(num_players=num_players)


def make_connect_four() -> Any:
    require("bench_env.py", "pygame")  # pettingzoo's connect_four draws with pygame-ce
    import pettingzoo

    return pettingzoo.make("aec", "classic/connect_four_v3")


def measure(players: int, seconds: float, rounds: int) -> dict[str, list[float]]:
    """Totals {environment: [agent-steps, games, seconds]} over alternating rounds."""
    dune, c4 = make_dune(players), make_connect_four()
    totals = {"dune_v1": [0.0, 0.0, 0.0], "connect_four_v3": [0.0, 0.0, 0.0]}
    for round_ in range(rounds):
        for name, env in (("dune_v1", dune), ("connect_four_v3", c4)):
            steps, games, elapsed = run(env, seconds, seed=round_)
            total = totals[name]
            total[0] += steps
            total[1] += games
            total[2] += elapsed
    return totals


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=3.0, help="per environment and round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--profile", type=int, default=0, metavar="N")
    parser.add_argument("--build", choices=("both", "current"), default="both")
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.build == "both":
        forwarded = ["--players", str(args.players), "--seconds", str(args.seconds)]
        forwarded += ["--rounds", "1"]
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
        return

    totals = measure(args.players, args.seconds, args.rounds)
    if args.json:
        print(json.dumps({"build": describe(), "totals": totals}))
        return
    print(f"{'environment':<18}{'agent-steps/s':>15}{'games/s':>10}{'steps/game':>12}")
    rates = {}
    for name, (steps, games, elapsed) in totals.items():
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
