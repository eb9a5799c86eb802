"""Load a saved stable-baselines3 / sb3-contrib model as a policy of the harness.

SB3 `.zip` files are pickle-based: loading one can run arbitrary code, so it needs `trust=True`
(see SECURITY.md).  `dune_env.policies.export` converts one to the safe format once."""

from __future__ import annotations

import zipfile
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from .observation import ObservationPolicy
from .specs import SB3_ZIP, PolicyLoadError, import_extra, model_label, require_trust


@lru_cache(maxsize=8)
def load_model(path: str, version: tuple[int, int] = (0, 0)) -> Any:
    """Load once per (path, modification time and size): a file saved again is reloaded."""
    file = Path(path)
    if not file.is_file():
        raise PolicyLoadError(f"model file {path!r} does not exist")
    if not zipfile.is_zipfile(file):
        raise PolicyLoadError(f"model file {path!r} is not a stable-baselines3 .zip archive")
    maskable_ppo = import_extra("sb3_contrib", "MaskablePPO", "loading a saved model", "train")
    try:
        model = maskable_ppo.load(str(file), device="cpu")
    except Exception as exc:
        raise PolicyLoadError(f"model file {path!r} does not load as MaskablePPO: {exc}") from exc
    check_spaces(model.observation_space, model.action_space, path)
    return model


def check_spaces(observation_space: Any, action_space: Any, label: str) -> np.ndarray | slice:
    """A model must take dune_v1's flat observation and act in its Discrete action table; the
    entries of today's observation it reads, by field name (`layouts.columns_for_width`: a
    model trained on an older layout, e.g. before the `rules_variant` slice existed, is given
    the fields it was trained on)."""
    from ..environment.action_table import NUM_ACTIONS
    from ..environment.config import ENV_NAME
    from ..environment.fields import OBS_LAYOUT, OBS_SIZE
    from .layouts import LayoutMismatch, columns_for_width

    obs_shape = getattr(observation_space, "shape", None)
    n_actions = getattr(action_space, "n", None)
    mismatch = (
        f"model {label!r} does not match {ENV_NAME}: it takes observations of shape "
        f"{obs_shape} and {n_actions} actions, {ENV_NAME} has ({OBS_SIZE},) and {NUM_ACTIONS}"
    )
    if not isinstance(obs_shape, tuple) or len(obs_shape) != 1 or n_actions != NUM_ACTIONS:
        raise PolicyLoadError(mismatch)
    try:
        return columns_for_width(int(obs_shape[0]), OBS_LAYOUT)
    except LayoutMismatch as exc:
        raise PolicyLoadError(f"{mismatch} ({exc})") from None


def load_sb3_policy(
    path: str, deterministic: bool = True, trust: bool = False
) -> ObservationPolicy:
    """Play a MaskablePPO .zip; `trust=True` is required (loading unpickles the file)."""
    require_trust(path, SB3_ZIP, trust)
    return ObservationPolicy(model_actor(path, deterministic), name=model_label(path))


def model_actor(path: str, deterministic: bool = True) -> _ModelActor:
    """The observation policy of a MaskablePPO .zip whose source is trusted (it is unpickled:
    the caller has checked the trust, as `load_sb3_policy` and `load_policy` do)."""
    file = Path(path).resolve()
    stat = file.stat() if file.is_file() else None
    model = load_model(str(file), (stat.st_mtime_ns, stat.st_size) if stat else (0, 0))
    return _ModelActor(model, deterministic)


class _ModelActor:
    """A MaskablePPO model as an observation policy, with a batched `act_batch` (one forward
    pass for many games, as the vector environments ask)."""

    def __init__(self, model: Any, deterministic: bool) -> None:
        self.model = model
        self.deterministic = deterministic
        # The entries of today's observation it was trained on (by field name).
        self.columns = check_spaces(model.observation_space, model.action_space, "the model")

    def __call__(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        action, _ = self.model.predict(
            observation[self.columns],
            action_masks=action_mask.astype(bool),
            deterministic=self.deterministic,
        )
        return int(action)

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        actions, _ = self.model.predict(
            observations[:, self.columns],
            action_masks=masks.astype(bool),
            deterministic=self.deterministic,
        )
        return np.asarray(actions).reshape(len(observations))
