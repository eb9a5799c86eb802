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

Both use today's code otherwise (the greedy snapshots' masked argmax, the callbacks).  An env
agent-step is one decision of any seat: agent-steps = learner steps x the decisions per learner
decision over the session's finished games (`decisions` and the episode length in their final
infos), as `train` records it in training.json.  Printed per run and as a table: learner
steps/s, agent-steps/s (wall clock, learner included), agent-steps per CPU-second of the
training process and its environment processes (a figure that a busy machine changes less), and
the new/old ratios.  Issue 12's target: >= 10,000 agent-steps/s on 2 otherwise idle cores.
"""

from __future__ import annotations

import argparse
import cProfile
import dataclasses
import io
import json
import os
import pstats
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from builds import require  # noqa: E402

require("bench_training.py", "yaml", "tensorboard", "sb3_contrib")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

from training.config_utils import load_config  # noqa: E402
from training.opponent_pool import save_snapshot  # noqa: E402
from training.ppo_selfplay import PPOSelfPlayConfig, train  # noqa: E402


def fill_pool(cfg: PPOSelfPlayConfig, snapshots: int) -> None:
    """`snapshots` frozen snapshots (untrained networks of the config's shape) in the run's
    pool, as a run has after `snapshots` x snapshot_interval steps."""
    from sb3_contrib import MaskablePPO

    from dune_env.single_agent import DuneSingleAgentEnv

    env = DuneSingleAgentEnv(num_players=cfg.run.num_players)
    for k in range(snapshots):
        model = MaskablePPO(
            "MlpPolicy",
            env,
            n_steps=64,
            batch_size=64,
            policy_kwargs={"net_arch": list(cfg.ppo.net_arch)},
            seed=1000 + k,
        )
        save_snapshot(model, cfg.run_dir / "pool", k, cfg.pool.max_pool)


def run(cfg: PPOSelfPlayConfig, pool: int, profile: bool) -> dict[str, float]:
    """Throughput figures of one training session from a fresh run folder."""
    with tempfile.TemporaryDirectory() as out:
        cfg = dataclasses.replace(cfg, out_dir=out)
        fill_pool(cfg, pool)
        profiler = cProfile.Profile() if profile else None
        if profiler:
            profiler.enable()
        train(cfg, quiet=True)
        if profiler:
            profiler.disable()
            text = io.StringIO()
            pstats.Stats(profiler, stream=text).sort_stats("tottime").print_stats(25)
            print(text.getvalue())
        info = json.loads((cfg.run_dir / "training.json").read_text())
    agent_steps = info["learner_steps_this_session"] * info["agent_steps_per_learner_step"]
    return {
        "learner/s": info["learner_steps_per_second"],
        "agent/s": info["agent_steps_per_second"],
        "agent/cpu-s": agent_steps / info["cpu_seconds_this_session"],
        "ratio": info["agent_steps_per_learner_step"],
        "seconds": info["seconds_this_session"],
    }


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
    print(
        f"config {args.config}: {shipped.run.num_players} players, {args.steps} learner steps "
        "per run"
    )
    print(
        f"old: n_envs {old.env.n_envs} x envs_per_process 1, n_steps {old.ppo.n_steps}, "
        f"batch_size {old.ppo.batch_size}; new: n_envs {new.env.n_envs} x envs_per_process "
        f"{new.env.envs_per_process}, n_steps {new.ppo.n_steps}, batch_size "
        f"{new.ppo.batch_size}, torch_threads {new.ppo.torch_threads}"
    )
    results: dict[str, list[dict[str, float]]] = {"old": [], "new": []}
    for _ in range(args.rounds):
        for name, cfg in (("old", old), ("new", new)):
            if args.only and name != args.only:
                continue
            row = run(cfg, args.pool, args.profile == name)
            results[name].append(row)
            print(
                f"  {name}: {row['seconds']:.0f} s, {row['learner/s']:,.0f} learner steps/s, "
                f"{row['agent/s']:,.0f} agent-steps/s, {row['agent/cpu-s']:,.0f} agent-steps "
                f"per CPU-second, {row['ratio']:.2f} agent-steps per learner step"
            )
    print(f"\n{'path':<6}{'learner steps/s':>17}{'agent-steps/s':>15}{'agent-steps/CPU-s':>19}")
    best = {}
    for name, rows in results.items():
        if rows:
            best[name] = max(rows, key=lambda r: r["agent/s"])
            b = best[name]
            print(
                f"{name:<6}{b['learner/s']:>17,.0f}{b['agent/s']:>15,.0f}{b['agent/cpu-s']:>19,.0f}"
            )
    if len(best) == 2:
        wall = best["new"]["agent/s"] / best["old"]["agent/s"]
        cpu = best["new"]["agent/cpu-s"] / best["old"]["agent/cpu-s"]
        print(f"new / old: {wall:.2f}x agent-steps/s, {cpu:.2f}x agent-steps per CPU-second")
    print(f"load average during the runs: {os.getloadavg()[0]:.1f} (on {os.cpu_count()} cores)")


if __name__ == "__main__":
    main()
