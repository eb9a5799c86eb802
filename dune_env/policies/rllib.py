"""Load a Ray RLlib checkpoint written by training/rllib_ppo.py as a policy of the harness.

RLlib checkpoints hold pickle files: loading one can run arbitrary code, so it needs
`trust=True` (see SECURITY.md)."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from .observation import ObservationPolicy
from .specs import RLLIB_CHECKPOINT, PolicyLoadError, import_extra, model_label, require_trust


@lru_cache(maxsize=4)
def _load_module(path: str) -> tuple[Any, Any]:
    """(the checkpoint's RLModule, the entries of today's observation it reads)."""
    module_dir = Path(path) / "learner_group" / "learner" / "rl_module" / "shared"
    if not module_dir.is_dir():
        raise PolicyLoadError(
            f"{path!r} is not an RLlib checkpoint of training/rllib_ppo.py "
            f"(no {module_dir.relative_to(path)})"
        )
    rl_module = import_extra(
        "ray.rllib.core.rl_module.rl_module", "RLModule", "loading an RLlib checkpoint", "rllib"
    )
    try:
        module = rl_module.from_checkpoint(str(module_dir))
    except Exception as exc:  # RLlib raises anything from FileNotFoundError to pickle errors
        raise PolicyLoadError(
            f"{path!r} does not load as an RLlib checkpoint of training/rllib_ppo.py: "
            f"{type(exc).__name__}: {exc}"
        ) from exc
    from .sb3 import check_spaces

    obs_space: Any = module.observation_space
    return module, check_spaces(obs_space["observations"], module.action_space, path)


def load_rllib_policy(path: str, trust: bool = False) -> ObservationPolicy:
    """Play an RLlib checkpoint greedily; `trust=True` is required (loading unpickles)."""
    require_trust(path, RLLIB_CHECKPOINT, trust)
    return ObservationPolicy(checkpoint_actor(path), name=model_label(path))


def checkpoint_actor(path: str) -> Callable[[np.ndarray, np.ndarray], int]:
    """The greedy observation policy of an RLlib checkpoint whose source is trusted (its pickle
    files are loaded: the caller has checked the trust, as `load_rllib_policy` and
    `load_policy` do)."""
    module, columns = _load_module(str(Path(path).resolve()))

    def act(observation: np.ndarray, action_mask: np.ndarray) -> int:
        import torch

        batch = {
            "obs": {
                "observations": torch.from_numpy(observation[columns][None]),
                "action_mask": torch.from_numpy(action_mask[None].astype(np.float32)),
            }
        }
        with torch.no_grad():
            logits = module.forward_inference(batch)["action_dist_inputs"][0]
        return int(torch.argmax(logits))  # masked logits: the best legal action

    return act
