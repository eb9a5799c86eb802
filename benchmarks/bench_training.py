"""PPO self-play training throughput: env agent-steps/s, learner included, of the shipped
4-player config against the old path (one DuneSingleAgentEnv per process), in one run.

    python benchmarks/bench_training.py [--config configs/ppo_4p.yaml] [--steps 20000]
                                        [--pool 4] [--rounds 1] [--profile old|new]

Both runs train `training.ppo_selfplay.train` for `--steps` learner decisions from a fresh
model with the config's network and PPO settings (no behaviour cloning, no evaluations), against
an opponent pool holding `--pool` frozen snapshots (random networks of the same shape), so that
`p_self` of the opponent seats are observation policies as in a real run.
- "old": the path before issue 12: n_envs processes, one `DuneSingleAgentEnv` each
  (envs_per_process 1, the old n_steps), every frozen-snapshot decision a batch of one.
- "new": the shipped config as it is (envs_per_process sub-envs per process, opponents'
  snapshot decisions batched across the sub-envs of a process).

An env agent-step is one decision of any seat.  Learner decisions are counted by SB3; all
decisions = learner decisions x (decisions per game / learner decisions per game), the ratio
measured over every finished game of the run (`seat` and `final_rewards` in the final infos do
not carry it, so the runs record `decisions` through the pool's results).  Printed: learner
steps/s, agent-steps/s, and the new/old ratio (issue 12's target: >= 10,000 agent-steps/s).
"""

from __future__ import annotations

import argparse
import cProfile
import dataclasses
import io
import os
import pstats
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

from training.config_utils import load_config  # noqa: E402
from training.ppo_selfplay import PPOSelfPlayConfig, fill_pool_for_benchmark, train  # noqa: E402


def run(cfg: PPOSelfPlayConfig, pool: int, profile: bool) -> tuple[float, float]:
    """(learner steps/s, agent steps/s) of one training session."""
    with tempfile.TemporaryDirectory() as out:
        cfg = dataclasses.replace(cfg, out_dir=out)
        fill_pool_for_benchmark(cfg, pool)
        profiler = cProfile.Profile() if profile else None
        start = time.perf_counter()
        if profiler:
            profiler.enable()
        train(cfg, quiet=True)
        if profiler:
            profiler.disable()
        elapsed = time.perf_counter() - start
        stats_path = Path(out) / f"{cfg.config_name}_seed{cfg.seed}" / "training.json"
        import json

        info = json.loads(stats_path.read_text())
        if profiler:
            text = io.StringIO()
            pstats.Stats(profiler, stream=text).sort_stats("cumulative").print_stats(30)
            print(text.getvalue())
    learner = info["learner_steps_this_session"] / elapsed
    ratio = info["agent_steps_per_learner_step"]
    return learner, learner * ratio


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", default="configs/ppo_4p.yaml")
    parser.add_argument("--steps", type=int, default=20_000, help="learner steps per run")
    parser.add_argument("--pool", type=int, default=4, help="frozen snapshots in the pool")
    parser.add_argument("--rounds", type=int, default=1, help="old/new pairs, alternating")
    parser.add_argument("--profile", choices=("old", "new"), help="cProfile one of the runs")
    parser.add_argument("--only", choices=("old", "new"), help="run only one of the two")
    args = parser.parse_args()
    shipped = load_config(PPOSelfPlayConfig, args.config)
    common = {
        "total_timesteps": args.steps,
        "bc_games": 0,
        "eval_interval": 0,
        "resume": False,
        "config_name": "bench",
    }
    new = dataclasses.replace(shipped, **common)
    old = dataclasses.replace(
        shipped,
        **common,
        envs_per_process=1,
        n_steps=1024,
        batch_size=256,
        torch_threads=1,
        opponent_weighting="uniform",
    )
    print(f"config {args.config}: {shipped.num_players} players, {args.steps} learner steps per run")
    print(
        f"old: n_envs {old.n_envs} x envs_per_process 1, n_steps {old.n_steps}, batch_size "
        f"{old.batch_size}; new: n_envs {new.n_envs} x envs_per_process {new.envs_per_process}, "
        f"n_steps {new.n_steps}, batch_size {new.batch_size}, torch_threads {new.torch_threads}"
    )
    results: dict[str, list[tuple[float, float]]] = {"old": [], "new": []}
    for _ in range(args.rounds):
        for name, cfg in (("old", old), ("new", new)):
            if args.only and name != args.only:
                continue
            results[name].append(run(cfg, args.pool, args.profile == name))
            learner, agent = results[name][-1]
            print(f"  {name}: {learner:,.0f} learner steps/s, {agent:,.0f} agent-steps/s")
    print(f"{'path':<6}{'learner steps/s':>18}{'agent-steps/s':>16}")
    best = {}
    for name, rows in results.items():
        if not rows:
            continue
        best[name] = max(rows, key=lambda r: r[1])
        print(f"{name:<6}{best[name][0]:>18,.0f}{best[name][1]:>16,.0f}")
    if len(best) == 2:
        print(f"new / old agent-steps/s: {best['new'][1] / best['old'][1]:.2f}x")


if __name__ == "__main__":
    main()
