"""Environment throughput: agent-steps per second of dune_v1 and of PettingZoo's connect_four_v3.

    python benchmarks/bench_env.py [--seconds 3] [--rounds 3] [--players 5] [--profile 25]

Both environments are the wrapped ones (`dune_env.env()`, `pettingzoo.make("aec",
"classic/connect_four_v3")`) driven by the same loop: `agent_iter()`, `last()`, a uniformly
random legal action from the observation's action mask (a seeded generator), `step()`; dead
steps at the end of a game count as agent-steps, as PettingZoo's own benchmark counts them.
The two are measured in alternating rounds so that a busy machine affects both alike; the
ratio of the totals is printed.  `--profile N` also prints the N most expensive functions of
the dune_v1 loop (cProfile, by own time).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import random
import time
from typing import Any

import numpy as np

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
    import pettingzoo

    return pettingzoo.make("aec", "classic/connect_four_v3")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=3.0, help="per environment and round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--players", type=int, default=5)
    parser.add_argument("--profile", type=int, default=0, metavar="N")
    args = parser.parse_args(argv)

    dune, c4 = make_dune(args.players), make_connect_four()
    totals = {"dune_v1": [0, 0, 0.0], "connect_four_v3": [0, 0, 0.0]}
    for round_ in range(args.rounds):
        for name, env in (("dune_v1", dune), ("connect_four_v3", c4)):
            steps, games, elapsed = run(env, args.seconds, seed=round_)
            total = totals[name]
            total[0] += steps
            total[1] += games
            total[2] += elapsed
    print(f"{'environment':<18}{'agent-steps/s':>15}{'games/s':>10}{'steps/game':>12}")
    rates = {}
    for name, (steps, games, elapsed) in totals.items():
        rates[name] = steps / elapsed
        print(f"{name:<18}{steps / elapsed:>15,.0f}{games / elapsed:>10.1f}{steps / games:>12.1f}")
    ratio = rates["dune_v1"] / rates["connect_four_v3"]
    print(f"ratio dune_v1 / connect_four_v3 = {ratio:.2f}  ({args.players} players, wrapped)")

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
