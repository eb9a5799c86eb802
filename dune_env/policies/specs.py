"""What the registry and the model loaders share: the load errors, the trust opt-in for
pickle-based files, and turning a Python object into an engine policy.

It sits below both: `registry.py` classifies a spec and calls one loader (`weights.py`,
`sb3.py`, `rllib.py`, or `as_engine_policy` here); the loaders import from this module, never
from the registry."""

from __future__ import annotations

import importlib
import inspect
from pathlib import Path
from typing import Any

from .base import EnginePolicy
from .observation import ObservationPolicy


class PolicyLoadError(ValueError):
    """A policy spec that names nothing loadable, or a model that does not fit dune_v1."""


class UntrustedCheckpointError(PolicyLoadError):
    """A pickle-based model file was given without the explicit opt-in to trust it."""


class TrustedSpec(str):
    """A policy spec string whose pickle-based file the caller has chosen to trust.

    It compares, hashes and prints as the plain string (so results stay keyed by the spec), and
    it survives pickling, so the opt-in reaches the harness's worker processes with the spec."""

    __slots__ = ()


def trusted(spec: str) -> TrustedSpec:
    return spec if isinstance(spec, TrustedSpec) else TrustedSpec(spec)


# The pickle-based formats (what `require_trust` calls them): loading one can run its code.
SB3_ZIP = "a stable-baselines3 .zip"
RLLIB_CHECKPOINT = "an RLlib checkpoint"


def require_trust(spec: str, what: str, trust: bool) -> None:
    """Refuse to load the pickle-based file `spec` (`what` it is) without the opt-in."""
    if trust or isinstance(spec, TrustedSpec):
        return
    raise UntrustedCheckpointError(
        f"{spec!r} is {what}, a pickle-based format: loading it can run arbitrary code. "
        "Load it only if you trust its source: pass --trust-checkpoints (Python: "
        "load_policy(path, trust=True)), or use a model in the safe .safetensors format "
        "(python -m dune_env.policies.export converts one)"
    )


def model_label(path: str) -> str:
    """The name a policy loaded from a model file (its stem) or a checkpoint folder (its name)
    plays under."""
    return Path(path).name if Path(path).is_dir() else Path(path).stem


def import_extra(module: str, name: str, needed_for: str, extra: str) -> Any:
    """`name` from `module`, part of the optional dependencies `extra` (of pyproject.toml);
    when they are not installed, a PolicyLoadError saying what needs them (`needed_for`) and
    how to install them."""
    try:
        found = importlib.import_module(module)
    except ImportError as exc:
        raise PolicyLoadError(
            f"{needed_for} needs {module.partition('.')[0]}: pip install 'dune-env[{extra}]'"
        ) from exc
    return getattr(found, name)


def import_attr(path: str) -> Any:
    """The object named by `path` of the form 'module:attr' (attr may be dotted)."""
    module_name, _, attr = path.partition(":")
    if not module_name or not attr:
        raise PolicyLoadError(f"{path!r} is not of the form 'module:attr'")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise PolicyLoadError(
            f"cannot import module {module_name!r} for policy {path!r}: {exc}"
        ) from exc
    target: Any = module
    for part in attr.split("."):
        if not hasattr(target, part):
            raise PolicyLoadError(f"module {module_name!r} has no attribute {attr!r}")
        target = getattr(target, part)
    return target


def as_engine_policy(obj: Any, seed: int, label: str) -> EnginePolicy:
    """Turn a class, factory, engine policy or observation callable into an engine policy."""
    if inspect.isclass(obj):
        factory: Any = obj
        try:
            obj = factory(seed=seed)
        except TypeError:
            obj = factory()
    if hasattr(obj, "act") and callable(obj.act):
        if not hasattr(obj, "name"):
            obj.name = label
        policy: EnginePolicy = obj
        return policy
    if callable(obj):
        return ObservationPolicy(obj, name=label)
    raise PolicyLoadError(
        f"{label!r} is neither an engine policy (with act(game, seat)) nor a callable "
        "(observation, action_mask) -> action"
    )
