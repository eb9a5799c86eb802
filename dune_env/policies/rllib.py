"""Load a Ray RLlib checkpoint written by training/rllib_ppo.py as a policy of the harness."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from .observation import ObservationPolicy
from .registry import PolicyLoadError


@lru_cache(maxsize=4)
def _load_module(path: str) -> Any:
    module_dir = Path(path) / "learner_group" / "learner" / "rl_module" / "shared"
    if not module_dir.is_dir():
        raise PolicyLoadError(
            f"{path!r} is not an RLlib checkpoint of training/rllib_ppo.py "
            f"(no {module_dir.relative_to(path)})"
        )
    try:
        from ray.rllib.core.rl_module.rl_module import RLModule
    except ImportError as exc:  # pragma: no cover - the rllib extra is missing
        raise PolicyLoadError(
            "loading an RLlib checkpoint needs: pip install 'dune-env[rllib]'"
        ) from exc
    module = RLModule.from_checkpoint(str(module_dir))
    from .sb3 import check_spaces

    obs_space: Any = module.observation_space
    check_spaces(obs_space["observations"], module.action_space, path)
    return module


def load_rllib_policy(path: str) -> ObservationPolicy:
    module = _load_module(str(Path(path).resolve()))

    def act(observation: np.ndarray, action_mask: np.ndarray) -> int:
        import torch

        batch = {
            "obs": {
                "observations": torch.from_numpy(observation[None]),
                "action_mask": torch.from_numpy(action_mask[None].astype(np.float32)),
            }
        }
        with torch.no_grad():
            logits = module.forward_inference(batch)["action_dist_inputs"][0]
        return int(torch.argmax(logits))  # masked logits: the best legal action

    return ObservationPolicy(act, name=Path(path).name)
