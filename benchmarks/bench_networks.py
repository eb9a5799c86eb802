"""What a learned policy costs a decision, and what a line-up with one costs a game.

    python benchmarks/bench_networks.py [--policies bc-4p residual-4p strategist]
    python benchmarks/bench_networks.py --compare-tree /tmp/base --rounds 5 --harness-games 96

Per decision: the policy plays one seat of seeded 4-player games (seeds 0, 1, ...; the seat
rotates with the game) against the strategist, economic and aggressive heuristics; the first
`--positions` positions where it is asked (as the harness asks it: every decision of its seat)
are kept, then `policy.act(game, seat)` runs over all of them `--repeat` times.  Printed: CPU
microseconds a decision (the process's CPU time, one core: the observation, the mask and the
forward pass included) and a digest of the options chosen, so two implementations can be
checked for the same decisions.

`--breakdown` also prints where a network's decision goes: the observation, the mask, the
heuristic (a network on a heuristic), the network and the rest (the policy's own code).

`--compare-tree PATH` measures another checkout too (e.g. `git worktree add /tmp/base REV` and
its compiled build): this script runs in alternating subprocess rounds with the current
package and with PATH's on PYTHONPATH, and prints both costs, each round's ratio and their
median.  `--harness-games N` adds, in each round, a benchmark line-up with one learned seat
(`--line-up`, default `bc-4p strategist economic aggressive`) run by the harness CLI of each
tree (`--duplicate --seatings permutations --workers 1`), and prints its games per second (the
rate the harness prints: wall time of the games on one worker) and the paired ratios.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from statistics import median
from typing import Any

import numpy as np
from builds import describe, run_in_tree

from dune_env.engine import Game, GameConfig
from dune_env.policies.registry import load_policy

ROOT = Path(__file__).resolve().parent.parent
OPPONENTS = ("strategist", "economic", "aggressive")
LINE_UP = ("bc-4p", "strategist", "economic", "aggressive")
_RATE = re.compile(r"(\d+) games in ([0-9.]+) s \(([0-9.]+) games/s\)")


def positions(name: str, count: int, players: int) -> list[Game]:
    """The first `count` positions where `name` is asked to decide in seeded games."""
    found: list[Game] = []
    seed = 0
    while len(found) < count:
        mine = seed % players
        seats = [load_policy(OPPONENTS[(s - mine - 1) % 3], seed=s) for s in range(players)]
        seats[mine] = load_policy(name, seed=seed)
        game = Game(GameConfig(num_players=players), seed=seed)
        while not game.terminal:
            seat = game.state.pending_seat
            if seat == mine and len(found) < count:
                found.append(game.clone())
            game.apply(seats[seat].act(game, seat))
        seed += 1
    return found


def measure(name: str, count: int, players: int, repeat: int) -> dict[str, Any]:
    """CPU microseconds a decision of `name` over its positions, and the options chosen."""
    games = positions(name, count, players)
    policy = load_policy(name)
    asked = [(game, game.state.pending_seat) for game in games]
    chosen = [policy.act(game, seat) for game, seat in asked]  # (warm: caches, lazy imports)
    start = time.process_time()
    for _ in range(repeat):
        for game, seat in asked:
            policy.act(game, seat)
    spent = time.process_time() - start
    return {
        "us": 1e6 * spent / (repeat * len(asked)),
        "digest": hashlib.sha256(repr(chosen).encode()).hexdigest()[:12],
    }


def _cpu_us(calls: list[Callable[[], Any]], repeat: int) -> float:
    """CPU microseconds a call of `calls`, over `repeat` passes through all of them."""
    start = time.process_time()
    for _ in range(repeat):
        for call in calls:
            call()
    return 1e6 * (time.process_time() - start) / (repeat * len(calls))


def breakdown(name: str, count: int, players: int, repeat: int) -> dict[str, float]:
    """CPU microseconds a decision of the shipped network `name`, part by part (each part timed
    alone, over all the positions; `rest` is the whole decision less the parts: the policy's
    own code, and the caches the parts evict from each other when they run together)."""
    from dune_env.environment.action_table import action_mask, legal_action_ids
    from dune_env.environment.observer import Observer
    from dune_env.policies.residual import ResidualWeightsPolicy

    games = positions(name, count, players)
    policy: Any = load_policy(name)
    observer = Observer(players)
    asked = [(game, game.state.pending_seat) for game in games]
    observations = [observer.observe(g.state, None, seat) for g, seat in asked]
    parts = {
        "observation": _cpu_us(
            [partial(observer.observe, g.state, None, s) for g, s in asked], repeat
        )
    }
    if isinstance(policy, ResidualWeightsPolicy):
        network = policy.weights
        legal = [np.array(sorted(legal_action_ids(g.state))) for g, _ in asked]
        parts["heuristic"] = _cpu_us([partial(policy.teacher.act, g, s) for g, s in asked], repeat)
    else:
        network = policy.fn
        legal = [np.flatnonzero(action_mask(g.state, s)) for g, s in asked]
        parts["mask"] = _cpu_us([partial(action_mask, g.state, s) for g, s in asked], repeat)
    pairs = zip(observations, legal, strict=True)
    parts["network"] = _cpu_us([partial(network.legal_logits, o, ids) for o, ids in pairs], repeat)
    total = _cpu_us([partial(policy.act, g, s) for g, s in asked], repeat)
    parts["rest"] = total - sum(parts.values())
    parts["total"] = total
    return parts


def harness_rate(tree: Path, line_up: list[str], games: int) -> float:
    """Games per second the harness CLI of `tree` prints for the line-up (one worker)."""
    with tempfile.TemporaryDirectory() as out:
        command = [sys.executable, "-m", "dune_env.harness.cli", "--policies", *line_up]
        command += ["--players", str(len(line_up)), "--games", str(games), "--duplicate"]
        command += ["--seatings", "permutations", "--workers", "1", "--no-plots", "--out", out]
        env = dict(os.environ, PYTHONPATH=str(tree))
        run = subprocess.run(command, env=env, cwd=tree, capture_output=True, text=True)
    found = _RATE.search(run.stdout)
    if run.returncode != 0 or found is None:
        raise SystemExit(f"the harness in {tree} failed: {(run.stderr or run.stdout)[-400:]}")
    return float(found.group(3))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--policies", nargs="+", default=["bc-4p", "residual-4p", "strategist"])
    parser.add_argument("--positions", type=int, default=400)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--compare-tree", default=None, metavar="PATH")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--harness-games", type=int, default=0, metavar="N")
    parser.add_argument("--line-up", nargs="+", default=list(LINE_UP))
    parser.add_argument("--breakdown", action="store_true", help="where a decision goes")
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.compare_tree:
        compare_trees(args)
        return
    results = {
        name: measure(name, args.positions, args.players, args.repeat) for name in args.policies
    }
    if args.json:
        print(json.dumps({"build": describe(), "policies": results}))
        return
    print(f"{args.positions} positions a policy ({args.players} players), {args.repeat} passes")
    for name, r in results.items():
        print(f"{name:>14}: {r['us']:7.1f} us CPU a decision, decisions {r['digest']}")
    if args.breakdown:
        from dune_env.policies.registry import SHIPPED_MODELS

        for name in args.policies:
            if name in SHIPPED_MODELS:
                parts = breakdown(name, args.positions, args.players, args.repeat)
                listed = ", ".join(f"{k} {v:.1f}" for k, v in parts.items())
                print(f"{name:>14}: us CPU a decision: {listed}")
    if args.harness_games:
        rate = harness_rate(ROOT, args.line_up, args.harness_games)
        print(f"harness, {' '.join(args.line_up)}: {rate:.1f} games/s (one worker)")


def compare_trees(args: argparse.Namespace) -> None:
    """This script on the current package and on `args.compare_tree`'s, alternating rounds."""
    tree = Path(args.compare_tree).resolve()
    if not (tree / "dune_env" / "__init__.py").is_file():
        raise SystemExit(f"--compare-tree {tree}: no dune_env package there (a checkout's root?)")
    command = [sys.executable, str(Path(__file__).resolve()), "--json", "--policies"]
    command += args.policies
    for name in ("positions", "players", "repeat"):
        command += [f"--{name}", str(getattr(args, name))]
    trees = {"current": ROOT, "tree": tree}
    costs: dict[str, dict[str, list[float]]] = {t: {p: [] for p in args.policies} for t in trees}
    digests: dict[str, dict[str, str]] = {t: {} for t in trees}
    rates: dict[str, list[float]] = {t: [] for t in trees}
    for round_ in range(args.rounds):
        for label, path in trees.items():
            result = run_in_tree(command, path, label)
            if not result["build"]["compiled"]:
                raise SystemExit(f"{path}: not the compiled build (python setup.py build_ext -i)")
            for name, r in result["policies"].items():
                costs[label][name].append(r["us"])
                digests[label][name] = r["digest"]
            line = ", ".join(f"{n} {r['us']:.1f} us" for n, r in result["policies"].items())
            if args.harness_games:
                rates[label].append(harness_rate(path, args.line_up, args.harness_games))
                line += f"; harness {rates[label][-1]:.1f} games/s"
            print(f"round {round_} {label:>7}: {line}", flush=True)
    print(f"current = {ROOT}, tree = {tree}; {args.rounds} alternating rounds, median of rounds")
    for name in args.policies:
        now, then = costs["current"][name], costs["tree"][name]
        ratios = [b / a for a, b in zip(now, then, strict=True)]
        same = digests["current"][name] == digests["tree"][name]
        print(
            f"{name:>14}: current {median(now):7.1f} us, tree {median(then):7.1f} us a decision; "
            f"tree / current per round {' '.join(f'{r:.2f}' for r in ratios)}, "
            f"median {median(ratios):.2f}; same decisions: {'yes' if same else 'NO'}"
        )
    if args.harness_games:
        ratios = [a / b for a, b in zip(rates["current"], rates["tree"], strict=True)]
        print(
            f"harness {' '.join(args.line_up)}, {args.harness_games} games, one worker: current "
            f"{median(rates['current']):.1f}, tree {median(rates['tree']):.1f} games/s; "
            f"current / tree per round {' '.join(f'{r:.2f}' for r in ratios)}, "
            f"median {median(ratios):.2f}"
        )


if __name__ == "__main__":
    main()
