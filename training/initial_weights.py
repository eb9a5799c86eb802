"""Warm starts: a new model's weights copied from a saved network in the safe format (a shipped
name such as bc-4p, or a .safetensors / .json path), after the checks every loaded model goes
through (`dune_env.policies.weights.WeightsPolicy`: description, SHA-256, layout)."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def shipped_or_path(spec: str) -> Path:
    """The .safetensors file of a shipped model name (bc-4p) or of a path."""
    from dune_env.policies.registry import CHECKPOINT_DIR, SHIPPED_MODELS
    from dune_env.policies.weights import weight_paths

    if spec in SHIPPED_MODELS:
        return CHECKPOINT_DIR / SHIPPED_MODELS[spec]
    return weight_paths(spec)[0]


def load_initial_weights(model: Any, spec: str) -> None:
    """Copy a safe-format model's tensors (policy and value networks) into `model`'s policy,
    after the checks of `WeightsPolicy` (description, SHA-256, layout); the network must take
    today's observation unchanged and have the model's layers.  PolicyLoadError otherwise."""
    import numpy as np
    import torch
    from safetensors.torch import load as load_tensors

    from dune_env.policies.registry import PolicyLoadError
    from dune_env.policies.weights import WeightsPolicy

    path = shipped_or_path(spec)
    checked = WeightsPolicy(path)  # raises PolicyLoadError on a bad file
    width = int(model.observation_space.shape[0])
    columns = checked.columns
    if isinstance(columns, slice):
        columns = np.arange(width)[columns]
    if not np.array_equal(columns, np.arange(width)):
        raise PolicyLoadError(
            f"init_weights={spec!r} was trained on another observation layout; a warm start "
            "needs a model of today's observation (e.g. bc-4p)"
        )
    if checked.activation != "tanh":
        raise PolicyLoadError(
            f"init_weights={spec!r} uses {checked.activation}; the recipe's MlpPolicy uses tanh"
        )
    state = load_tensors(path.read_bytes())
    own = model.policy.state_dict()
    mismatched = sorted(
        k
        for k in set(own) | set(state)
        if k not in state or k not in own or own[k].shape != state[k].shape
    )
    if mismatched:
        raise PolicyLoadError(
            f"init_weights={spec!r} does not fit the configured network (net_arch, tanh): "
            f"tensors {mismatched[:4]} differ; set net_arch to the model's layers"
        )
    with torch.no_grad():
        model.policy.load_state_dict(state)
