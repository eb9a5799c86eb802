"""Vector environment throughput and memory: `dune_env.vector` against the AEC env `dune_v1`.

    python benchmarks/bench_vector.py [--envs 64] [--players 4] [--seconds 3] [--rounds 3]
                                      [--api sb3|gymnasium] [--profile 25]

Both run in this one process (one core), in alternating rounds so that a busy machine affects
both alike, with uniformly random legal actions for every seat:
- AEC: the wrapped `dune_env.env()` driven as in bench_env.py (`agent_iter()`, `last()`, a
  random action from the observation's mask, `step()`);
- vector: `DuneVecEnv` (or `DuneVectorEnv` with --api gymnasium) with `--envs` sub-envs, the
  learner's random masked actions drawn for all sub-envs at once with numpy, the other seats
  played inline by the uniform random policy.
An agent-step is one decision of any seat (the AEC loop's dead steps at the end of a game are
not counted).  Printed: agent-steps/s of each, their ratio (issue 12's target: >= 1.5), and the
memory of the vector env after `--memory-steps` steps (tracemalloc's count of the Python and
numpy allocations it holds, and the process's RSS growth; target < 100 MB).
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import io
import os
import pstats
import random
import time
import tracemalloc
from typing import Any

import numpy as np

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")


def run_aec(env: Any, seconds: float, seed: int) -> tuple[int, float]:
    """(decisions, elapsed seconds) of random masked play in the AEC env."""
    rng = random.Random(seed)
    env.reset(seed=seed)
    steps = 0
    start = time.perf_counter()
    while True:
        for _agent in env.agent_iter():
            obs, _, termination, truncation, _ = env.last()
            if termination or truncation:
                action = None
            else:
                legal = np.flatnonzero(obs["action_mask"])
                action = int(legal[rng.randrange(legal.size)])
                steps += 1
            env.step(action)
        if time.perf_counter() - start >= seconds:
            return steps, time.perf_counter() - start
        env.reset()


def random_masked(rng: np.random.Generator, masks: np.ndarray) -> np.ndarray:
    """One uniformly random legal action per row, for all rows at once."""
    scores = rng.random(masks.shape)
    scores[~masks] = -1.0
    return scores.argmax(axis=1)


def make_vector(api: str, num_envs: int, num_players: int) -> Any:
    if api == "sb3":
        from dune_env.vector import DuneVecEnv

        return DuneVecEnv(num_envs, num_players=num_players, learner="rotate")
    from dune_env.vector import DuneVectorEnv

    return DuneVectorEnv(num_envs, num_players=num_players, learner="rotate")


def run_vector(venv: Any, api: str, seconds: float, seed: int) -> tuple[int, float]:
    """(decisions, elapsed seconds) of random masked play in the vector env."""
    rng = np.random.default_rng(seed)
    games = venv.games
    if api == "sb3":
        venv.seed(seed)
        venv.reset()
    else:
        venv.reset(seed=seed)
    first = games.agent_steps
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for _ in range(20):
            venv.step(random_masked(rng, venv.action_masks()))
    return games.agent_steps - first, time.perf_counter() - start


def measure_memory(api: str, num_envs: int, num_players: int, steps: int) -> tuple[float, float]:
    """(tracemalloc MB, RSS growth MB) held by a vector env after `steps` random steps."""
    warm_up = make_vector(api, 1, num_players)  # imports (SB3 brings torch) are not counted
    run_vector(warm_up, api, 0.0, seed=0)
    del warm_up
    gc.collect()
    rss_before = _rss_mb()
    tracemalloc.start()
    venv = make_vector(api, num_envs, num_players)
    rng = np.random.default_rng(0)
    if api == "sb3":
        venv.seed(0)
        venv.reset()
    else:
        venv.reset(seed=0)
    for _ in range(steps):
        venv.step(random_masked(rng, venv.action_masks()))
    gc.collect()
    traced, _peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    rss_after = _rss_mb()
    del venv
    return traced / 2**20, rss_after - rss_before


def _rss_mb() -> float:
    with open("/proc/self/statm") as f:
        pages = int(f.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--envs", type=int, default=64, help="sub-envs of the vector env")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=3.0, help="per environment and round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--api", choices=("sb3", "gymnasium"), default="sb3")
    parser.add_argument("--memory-steps", type=int, default=200)
    parser.add_argument("--profile", type=int, default=0, metavar="N")
    args = parser.parse_args(argv)

    import dune_env

    # Memory first, in a process that has not yet run anything else.
    traced_mb, rss_mb = measure_memory(args.api, args.envs, args.players, args.memory_steps)

    aec = dune_env.env(num_players=args.players)
    venv = make_vector(args.api, args.envs, args.players)
    label = f"vector ({args.api}, {args.envs} envs)"
    totals = {"AEC dune_v1": [0, 0.0], label: [0, 0.0]}
    for round_ in range(args.rounds):
        for name in totals:
            if name == label:
                steps, elapsed = run_vector(venv, args.api, args.seconds, seed=round_)
            else:
                steps, elapsed = run_aec(aec, args.seconds, seed=round_)
            totals[name][0] += steps
            totals[name][1] += elapsed
    print(f"{'environment':<30}{'agent-steps/s per core':>24}")
    rates = {}
    for name, (steps, elapsed) in totals.items():
        rates[name] = steps / elapsed
        print(f"{name:<30}{rates[name]:>24,.0f}")
    ratio = rates[label] / rates["AEC dune_v1"]
    print(f"ratio vector / AEC = {ratio:.2f}  ({args.players} players, target >= 1.5)")
    print(
        f"memory of the {args.envs}-sub-env vector env after {args.memory_steps} steps: "
        f"{traced_mb:.1f} MB traced (tracemalloc), {rss_mb:.1f} MB RSS growth "
        "(target < 100 MB)"
    )

    if args.profile:
        profiler = cProfile.Profile()
        profiler.enable()
        run_vector(venv, args.api, args.seconds, seed=99)
        profiler.disable()
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(args.profile)
        print(out.getvalue())


if __name__ == "__main__":
    main()
