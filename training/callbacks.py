"""The one periodic callback of every stable-baselines3 recipe (`training/skeleton.py`).

On its own interval of learner steps each: snapshots into the opponent pool (recipes with a
pool), numbered checkpoints with their safe export, evaluations with the benchmark harness (the
best evaluated model kept); after every rollout `latest.zip` (where a rerun resumes) and a line
of `progress.jsonl`; console progress at every step; the pairwise results of finished games
(from their final infos) credited to the opponents they were played against; the session's
throughput.  Imported only when training starts (it needs stable-baselines3).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from stable_baselines3.common.callbacks import BaseCallback

from training.checkpoints import RunFolder, save_checkpoint, save_latest
from training.evaluate import EvaluationPlan, evaluate_model
from training.fields import CheckpointFields, PoolFields
from training.opponent_pool import PoolResults, save_snapshot

Export = Callable[[Any, Path], Path]
"""A recipe's safe export: (model, file stem) -> the .json description written."""


class Periodic(BaseCallback):
    """Snapshots, checkpoints and evaluations, each on its own interval of learner steps (see
    the module docstring); `counts`: the session's finished games and their decisions."""

    def __init__(
        self,
        folder: RunFolder,
        checkpoints: CheckpointFields,
        export: Export,
        torch_threads: int = 1,
        progress: Any = None,
        pool: PoolFields | None = None,
        evaluation: EvaluationPlan | None = None,
    ) -> None:
        super().__init__()
        self.folder, self.checkpoints, self.export = folder, checkpoints, export
        self.torch_threads, self.progress = torch_threads, progress
        self.pool, self.evaluation = pool, evaluation  # what this recipe has of the two
        self.next = {"snap": -1, "ckpt": 0, "eval": -1}
        self.results = PoolResults(folder.pool)
        if pool is not None:
            self.results.load()  # a resumed run continues its record
        # Finished games this session: their decisions (all seats) and learner decisions.
        self.counts = {"games": 0, "decisions": 0, "learner_decisions": 0}

    def _on_training_start(self) -> None:
        t = self.num_timesteps
        if self.pool is not None:
            self.next["snap"] = t + self.pool.snapshot_interval
        interval = self.checkpoints.checkpoint_interval
        self.next["ckpt"] = (t // interval + 1) * interval  # on its multiples, resumed or not
        if self.evaluation is not None and self.evaluation.fields.eval_interval:
            self.next["eval"] = t + self.evaluation.fields.eval_interval
        self.started = time.perf_counter()
        self.start_steps = t

    def _on_rollout_start(self) -> None:
        import torch

        torch.set_num_threads(1)  # the environment processes use the cores now

    def _on_rollout_end(self) -> None:
        import torch

        if self.pool is not None:
            self.results.save()  # the environment processes read it at their next draws
        save_latest(self.model, self.folder.checkpoints)
        logs = {k: float(v) for k, v in self.model.logger.name_to_value.items()}
        seconds = time.perf_counter() - self.started
        record = {"steps": self.num_timesteps, "seconds": seconds, **logs}
        with self.folder.progress.open("a") as log:
            log.write(json.dumps(record) + "\n")
        torch.set_num_threads(self.torch_threads)  # for the update that follows

    def _record_games(self) -> None:
        for done, info in zip(self.locals["dones"], self.locals["infos"], strict=True):
            if not done or "final_rewards" not in info:
                continue
            if "opponents" in info and self.pool is not None:
                self.results.record_game(info["opponents"], info["final_rewards"], info["seat"])
            if "decisions" in info and "episode" in info:
                self.counts["games"] += 1
                self.counts["decisions"] += int(info["decisions"])
                self.counts["learner_decisions"] += int(info["episode"]["l"])

    def _snapshot(self, t: int, pool: PoolFields) -> None:
        save_snapshot(self.model, self.folder.pool, t, pool.max_pool)
        self.results.forget_missing(
            {p.with_suffix("").name for p in self.folder.pool.glob("snapshot_*.json")}
        )
        self.next["snap"] += pool.snapshot_interval

    def _checkpoint(self) -> None:
        numbered = save_checkpoint(
            self.model, self.folder.checkpoints, self.checkpoints.keep_checkpoints
        )
        self.export(self.model, numbered.with_suffix(""))  # the safe copy the harness plays
        if self.pool is not None:
            self.results.save()
        self.next["ckpt"] += self.checkpoints.checkpoint_interval

    def _evaluate(self, t: int, evaluation: EvaluationPlan) -> None:
        records = evaluate_model(self.model, evaluation, self.folder.root)
        for name, record in records.items():
            self.logger.record(f"eval/win_rate_vs_{name}", record["win_rate"])
            if record["judgement"] in ("above", "below", "level"):
                key = "strength_diff" if "strength_diff" in record else "strength"
                self.logger.record(f"eval/{key}_vs_{name}", record[key])
        if self.progress is not None:
            self.progress.evaluated(t, records)
        best_against = evaluation.fields.best_against
        if best_against:
            self._keep_if_best(records[best_against], best_against)
        self.next["eval"] += evaluation.fields.eval_interval

    def _keep_if_best(self, record: dict[str, Any], against: str) -> None:
        """Export the model as best_model (safe format) when its paired strength against
        `against` beats the best so far (best.json, so a resumed run keeps comparing)."""
        from dune_env.policies.weights import atomic_write_bytes

        score = record.get("strength_diff")
        path = self.folder.root / "best.json"
        best = json.loads(path.read_text()) if path.is_file() else None
        if score is None or (best is not None and best["strength_diff"] >= score):
            return
        self.export(self.model, self.folder.root / "best_model")
        entry = {
            "num_timesteps": self.num_timesteps,
            "against": against,
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
        if self.pool is not None and t >= self.next["snap"]:
            self._snapshot(t, self.pool)
        if t >= self.next["ckpt"]:
            self._checkpoint()
        if self.evaluation is not None and self.next["eval"] >= 0 and t >= self.next["eval"]:
            self._evaluate(t, self.evaluation)
        elapsed = time.perf_counter() - self.started
        if elapsed > 0:
            self.logger.record("time/learner_steps_per_second", (t - self.start_steps) / elapsed)
        return True

    def _on_training_end(self) -> None:
        if self.pool is not None:
            self.results.save()
