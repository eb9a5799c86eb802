"""The self-play recipe's callback (`training.ppo_selfplay.build_callbacks`): snapshots into the
opponent pool, resumable checkpoints and periodic evaluations, each on its own interval of
learner steps; the pairwise results of finished games (from their final infos) credited to the
opponents they were played against; the best evaluated model kept; the session's throughput.
Imported only when training starts (it needs stable-baselines3)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from stable_baselines3.common.callbacks import BaseCallback

from training.checkpoints import save_checkpoint
from training.evaluate import evaluate_model
from training.opponent_pool import PoolResults, save_snapshot

if TYPE_CHECKING:
    from training.ppo_selfplay import PPOSelfPlayConfig


class Periodic(BaseCallback):
    """Snapshots, checkpoints and evaluations, each on its own interval of learner steps;
    every finished game's pairwise outcomes credited to the opponents it was played against."""

    def __init__(self, cfg: PPOSelfPlayConfig, run_dir: Path, progress: Any = None) -> None:
        super().__init__()
        self.cfg = cfg
        self.run_dir = run_dir
        self.pool_dir = run_dir / "pool"
        self.ckpt_dir = run_dir / "checkpoints"
        self.progress = progress
        self.next = {"snap": 0, "ckpt": 0, "eval": 0}
        self.results = PoolResults(self.pool_dir)
        self.results.load()  # a resumed run continues its record
        # Finished games this session: their decisions (all seats) and learner decisions.
        self.counts = {"games": 0, "decisions": 0, "learner_decisions": 0}

    def _on_training_start(self) -> None:
        t, cfg = self.num_timesteps, self.cfg
        self.next["snap"] = t + cfg.snapshot_interval
        self.next["ckpt"] = t + cfg.checkpoint_interval
        self.next["eval"] = t + cfg.eval_interval if cfg.eval_interval else -1
        self.started = time.perf_counter()
        self.start_steps = t

    def _on_rollout_start(self) -> None:
        import torch

        torch.set_num_threads(1)  # the environment processes use the cores now

    def _on_rollout_end(self) -> None:
        import torch

        self.results.save()  # the environment processes read it at their next draws
        torch.set_num_threads(self.cfg.torch_threads)  # for the update that follows

    def _record_games(self) -> None:
        for done, info in zip(self.locals["dones"], self.locals["infos"], strict=True):
            if not done or "final_rewards" not in info:
                continue
            if "opponents" in info:
                self.results.record_game(info["opponents"], info["final_rewards"], info["seat"])
            if "decisions" in info and "episode" in info:
                self.counts["games"] += 1
                self.counts["decisions"] += int(info["decisions"])
                self.counts["learner_decisions"] += int(info["episode"]["l"])

    def _snapshot(self, t: int) -> None:
        save_snapshot(self.model, self.pool_dir, t, self.cfg.max_pool)
        self.results.forget_missing(
            {p.with_suffix("").name for p in self.pool_dir.glob("snapshot_*.json")}
        )
        self.next["snap"] += self.cfg.snapshot_interval

    def _checkpoint(self) -> None:
        save_checkpoint(self.model, self.ckpt_dir, self.cfg.keep_checkpoints)
        self.results.save()
        self.next["ckpt"] += self.cfg.checkpoint_interval

    def _evaluate(self, t: int) -> None:
        records = evaluate_model(self.model, self.cfg, self.run_dir)
        for name, record in records.items():
            self.logger.record(f"eval/win_rate_vs_{name}", record["win_rate"])
            if record["judgement"] in ("above", "below", "level"):
                key = "strength_diff" if "strength_diff" in record else "strength"
                self.logger.record(f"eval/{key}_vs_{name}", record[key])
        if self.progress is not None:
            self.progress.evaluated(t, records)
        if self.cfg.best_against:
            self._keep_if_best(records[self.cfg.best_against])
        self.next["eval"] += self.cfg.eval_interval

    def _keep_if_best(self, record: dict[str, Any]) -> None:
        """Export the model as best_model (safe format) when its paired strength against
        `best_against` beats the best so far (best.json, so a resumed run keeps comparing)."""
        from dune_env.policies.weights import atomic_write_bytes, export_policy

        score = record.get("strength_diff")
        path = self.run_dir / "best.json"
        best = json.loads(path.read_text()) if path.is_file() else None
        if score is None or (best is not None and best["strength_diff"] >= score):
            return
        export_policy(self.model, self.run_dir / "best_model")
        entry = {
            "num_timesteps": self.num_timesteps,
            "against": self.cfg.best_against,
            "strength_diff": score,
            "strength_diff_ci95": record.get("strength_diff_ci95"),
            "games": record.get("games"),
        }
        atomic_write_bytes(path, json.dumps(entry, indent=2).encode())

    def _on_step(self) -> bool:
        self._record_games()
        t = self.num_timesteps
        if self.progress is not None:
            self.progress.update(t)
        if t >= self.next["snap"]:
            self._snapshot(t)
        if t >= self.next["ckpt"]:
            self._checkpoint()
        if self.next["eval"] >= 0 and t >= self.next["eval"]:
            self._evaluate(t)
        elapsed = time.perf_counter() - self.started
        if elapsed > 0:
            self.logger.record("time/learner_steps_per_second", (t - self.start_steps) / elapsed)
        return True

    def _on_training_end(self) -> None:
        self.results.save()
