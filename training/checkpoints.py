"""Resumable checkpoints of the self-play recipe (`training.ppo_selfplay`).

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


def save_checkpoint(model: Any, ckpt_dir: Path, keep: int = 3) -> None:
    """Write checkpoint_{steps}.zip and latest.zip, each atomically, keep the `keep` newest
    numbered checkpoints, and record the step count in latest.json."""
    from dune_env.policies.weights import atomic_write_bytes

    numbered = ckpt_dir / f"checkpoint_{model.num_timesteps:09d}.zip"
    save_model_atomically(model, numbered)
    atomic_write_bytes(ckpt_dir / "latest.zip", numbered.read_bytes())
    info = {"num_timesteps": model.num_timesteps, "checkpoint": numbered.name}
    atomic_write_bytes(ckpt_dir / "latest.json", json.dumps(info).encode())
    for old in sorted(ckpt_dir.glob(CHECKPOINT_GLOB))[: -max(keep, 1)]:
        old.unlink()


class ResumeError(RuntimeError):
    """The run cannot be resumed: none of its checkpoints loads, or its settings changed."""


def resume_candidates(run_dir: Path) -> list[Path]:
    """The run's checkpoints, newest first: latest.zip, then the numbered ones.  Only regular
    files inside the run directory qualify: the run trusts what it wrote itself, not a link to
    a file elsewhere."""
    ckpt_dir = run_dir / "checkpoints"
    found = [ckpt_dir / "latest.zip", *sorted(ckpt_dir.glob(CHECKPOINT_GLOB), reverse=True)]
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
    if start_steps == 0:
        return seed
    return int(np.random.SeedSequence([seed, start_steps]).generate_state(1)[0] % 1_000_000_000)
