"""The run folder, the same for every recipe, and its resumable checkpoints.

    {out_dir}/{config_name}_seed{seed}/
        config.json          the flat configuration of the latest session
        checkpoints/         latest.zip + latest.json (after every rollout: where a rerun
                             resumes), checkpoint_{steps}.zip (every checkpoint_interval, the
                             newest keep_checkpoints kept), each with its safe export
                             checkpoint_{steps}.safetensors + .json beside it (all kept)
        final_model.zip      the final model, to resume or fine-tune (pickle-based)
        final_model.safetensors + .json   the final model in the safe format: to share, benchmark
        training.json        the latest session: steps, seconds, CPU seconds, throughput
        progress.jsonl       one line per rollout: steps, seconds, the update's statistics
        tb/                  TensorBoard logs
        pool/                the opponent pool's snapshots and results (recipes with a pool)

Checkpoints (SB3 .zip) are pickle-based, so a run loads only those under its own run directory;
each is written atomically (a temporary file, then a rename), so a crash never leaves a partial
one, and resuming falls back to an older checkpoint when the newest does not load.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np


class RunFolder:
    """The paths of a run folder (the module docstring shows the layout)."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.config = self.root / "config.json"
        self.checkpoints = self.root / "checkpoints"
        self.final = self.root / "final_model.zip"  # its safe export: final_export
        self.final_export = self.final.with_suffix(".safetensors")
        self.pool, self.tensorboard = self.root / "pool", self.root / "tb"
        self.session, self.progress = self.root / "training.json", self.root / "progress.jsonl"

    def trained_steps(self) -> int | None:
        """Learner steps of the run's newest checkpoint (None: it has none that reads)."""
        for path in resume_candidates(self.root):
            try:
                return checkpoint_steps(path)
            except (OSError, ValueError, KeyError):
                continue
        return None

    def check_resumable(self, now: dict[str, Any], fixed: tuple[str, ...]) -> None:
        """Refuse to resume a run with settings (`fixed` keys of the flat configuration `now`)
        its checkpoints cannot honour: they would be silently ignored."""
        if not self.config.is_file() or not resume_candidates(self.root):
            return  # nothing will be resumed
        try:
            before = json.loads(self.config.read_text())
        except (OSError, ValueError):
            return  # no readable earlier config: nothing to compare
        now = json.loads(json.dumps(now))  # tuples as lists, as saved
        changed = [k for k in fixed if k in before and k in now and before[k] != now[k]]
        if changed:
            raise ResumeError(
                f"{self.root} was trained with other {', '.join(changed)} "
                f"({', '.join(f'{k}={before[k]!r}' for k in changed)}); a resumed run cannot "
                "change them: use the same settings, another --config-name or --seed, or "
                "--resume false"
            )


def save_model_atomically(model: Any, path: Path) -> None:
    """`model.save(path)` through a temporary file and a rename: readers (and a resume after a
    crash) see the previous file or the complete new one, never a partial one."""
    from dune_env.policies.weights import temporary_path

    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = temporary_path(path)
    try:
        model.save(tmp)
        with tmp.open("rb") as handle:
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


CHECKPOINT_GLOB = "checkpoint_*.zip"


def save_checkpoint(model: Any, ckpt_dir: Path, keep: int = 3) -> Path:
    """Write checkpoint_{steps}.zip and latest.zip, each atomically, keep the `keep` newest
    numbered checkpoints, and record the step count in latest.json; the numbered path."""
    from dune_env.policies.weights import atomic_write_bytes

    numbered = ckpt_dir / f"checkpoint_{model.num_timesteps:09d}.zip"
    save_model_atomically(model, numbered)
    atomic_write_bytes(ckpt_dir / "latest.zip", numbered.read_bytes())
    info = {"num_timesteps": model.num_timesteps, "checkpoint": numbered.name}
    atomic_write_bytes(ckpt_dir / "latest.json", json.dumps(info).encode())
    for old in sorted(ckpt_dir.glob(CHECKPOINT_GLOB))[: -max(keep, 1)]:
        old.unlink()
    return numbered


def save_latest(model: Any, ckpt_dir: Path) -> None:
    """latest.zip (atomically) and latest.json: the point a rerun resumes from."""
    from dune_env.policies.weights import atomic_write_bytes

    save_model_atomically(model, ckpt_dir / "latest.zip")
    info = {"num_timesteps": model.num_timesteps, "checkpoint": "latest.zip"}
    atomic_write_bytes(ckpt_dir / "latest.json", json.dumps(info).encode())


class ResumeError(RuntimeError):
    """The run cannot be resumed: none of its checkpoints loads, or its settings changed."""


def resume_candidates(run_dir: Path) -> list[Path]:
    """The run's checkpoints, newest first: latest.zip, then the numbered ones (then the
    latest.zip at the top of a residual run folder of the former layout).  Only regular files
    inside the run directory qualify: the run trusts what it wrote itself, not a link to a file
    elsewhere."""
    ckpt_dir = run_dir / "checkpoints"
    found = [ckpt_dir / "latest.zip", *sorted(ckpt_dir.glob(CHECKPOINT_GLOB), reverse=True)]
    found.append(run_dir / "latest.zip")
    root = run_dir.resolve()
    return [
        p for p in found if p.is_file() and not p.is_symlink() and p.resolve().is_relative_to(root)
    ]


def checkpoint_steps(path: Path) -> int:
    """Learner steps of an SB3 checkpoint, read from its JSON `data` entry (nothing unpickled);
    raises on a truncated or foreign file."""
    import zipfile

    with zipfile.ZipFile(path) as archive:
        steps = json.loads(archive.read("data"))["num_timesteps"]
    if type(steps) is not int or steps < 0:
        raise ValueError(f"num_timesteps is {steps!r}")
    return steps


def resume_from_checkpoint(
    run_dir: Path, device: str, build_venv: Any, algorithm: Any = None
) -> tuple[Any, Any] | None:
    """(model, environments) from the newest checkpoint of the run that loads, or None when
    the run has none.  A truncated or corrupt checkpoint (a crash, a full disk) is reported and
    the next older one tried.  `build_venv(start_steps)` makes the environments, seeded for a
    session starting at that step count; `algorithm` is the class to load (default
    MaskablePPO; a subclass such as KickstartedPPO loads a MaskablePPO checkpoint too)."""
    if algorithm is None:
        from sb3_contrib import MaskablePPO

        algorithm = MaskablePPO
    candidates = resume_candidates(run_dir)
    problems = []
    for path in candidates:
        venv = None
        try:
            venv = build_venv(checkpoint_steps(path))
            # Trusted: a checkpoint this run wrote under its own run directory (SECURITY.md).
            # force_reset discards the saved rollout state (_last_obs), which belongs to the
            # previous session's environments, not to these freshly reset ones.
            model = algorithm.load(path, env=venv, device=device, force_reset=True)
            # load() re-seeds everything (the environments too) with the run's first seed,
            # which would replay the first games: seed this session afresh.
            model.set_random_seed(session_seed_of(model.seed or 0, model.num_timesteps))
            return model, venv
        except Exception as exc:  # zipfile, json, torch and pickle errors alike
            if venv is not None:
                venv.close()
            problems.append(f"{path.name}: {type(exc).__name__}: {exc}")
            print(f"checkpoint {path} does not load ({type(exc).__name__}); trying an older one")
    if candidates:
        raise ResumeError(
            f"no checkpoint of {run_dir} loads: {'; '.join(problems)}; remove its checkpoints "
            "folder to start over, or pass --resume false"
        )
    return None


def session_seed_of(seed: int, start_steps: int) -> int:
    """Seed of a training session starting at `start_steps` (environments, opponents, torch):
    the run's seed for a new run; for a resumed run a fresh one derived from (seed, steps),
    so resuming continues with new games instead of replaying the first ones."""
    if start_steps == 0:
        return seed
    return int(np.random.SeedSequence([seed, start_steps]).generate_state(1)[0] % 1_000_000_000)
