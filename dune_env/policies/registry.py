"""Named policies and loaders: a registered name, a `module:attr` path, a saved model, or a
Python callable.  Every loaded policy is an engine policy (`act(game, seat) -> option`).

Saved models in the safe format (`.safetensors` + `.json`, see `weights.py`) load from anyone.
Pickle-based files -- stable-baselines3 `.zip` files and RLlib checkpoints -- can run arbitrary
code when loaded, so they load only with `trust=True` (see SECURITY.md)."""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .base import EnginePolicy

# name -> "module:attr" of a class taking `seed`; imported lazily so the registry stays light.
BUILTIN_POLICIES: dict[str, str] = {
    "random": "dune_env.policies.base:RandomPolicy",
    "aggressive": "dune_env.policies.heuristics:AggressivePolicy",
    "economic": "dune_env.policies.heuristics:EconomicPolicy",
    "strategist": "dune_env.policies.heuristics.strategist:StrategistPolicy",
    "mcts": "dune_env.policies.mcts:MCTSPolicy",
    # MCTS on the strategist at three budgets (iterations per searched decision)
    "mcts-strategist-4": "dune_env.policies.mcts:StrategistMCTS4",
    "mcts-strategist-16": "dune_env.policies.mcts:StrategistMCTS16",
    "mcts-strategist-64": "dune_env.policies.mcts:StrategistMCTS64",
    # weakened copies (20% of decisions at random), to measure a benchmark's power
    "aggressive-eps20": "dune_env.policies.epsilon:AggressiveEps20",
    "economic-eps20": "dune_env.policies.epsilon:EconomicEps20",
}
CHECKPOINT_DIR = Path(__file__).resolve().parent / "checkpoints"
# name -> shipped model in the safe format (model cards: docs/models/<name>.md).
SHIPPED_MODELS: dict[str, str] = {
    "ppo-4p": "ppo_4p.safetensors",
    "bc-4p": "bc_4p.safetensors",
    "bc-5p": "bc_5p.safetensors",
}
_USER_POLICIES: dict[str, Callable[[int], EnginePolicy]] = {}


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


def require_trust(spec: str, what: str, trust: bool) -> None:
    if trust or isinstance(spec, TrustedSpec):
        return
    raise UntrustedCheckpointError(
        f"{spec!r} is {what}, a pickle-based format: loading it can run arbitrary code. "
        "Load it only if you trust its source: pass --trust-checkpoints (Python: "
        "load_policy(path, trust=True)), or use a model in the safe .safetensors format "
        "(python -m dune_env.policies.export converts one)"
    )


def register_policy(name: str, factory: Callable[[int], EnginePolicy]) -> None:
    """Register `factory(seed) -> policy` under `name` (e.g. a trained checkpoint)."""
    _USER_POLICIES[name] = factory


def builtin_policy_classes() -> list[type]:
    """The classes of the registered built-in policies, and `ObservationPolicy` (which shows
    its callable only an observation): the policies the harness may hand the live game."""
    from .observation import ObservationPolicy

    return [_import(path) for path in BUILTIN_POLICIES.values()] + [ObservationPolicy]


def policy_names() -> list[str]:
    return sorted(set(BUILTIN_POLICIES) | set(_USER_POLICIES) | set(SHIPPED_MODELS))


def _import(path: str) -> Any:
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


def _wrap(obj: Any, seed: int, label: str) -> EnginePolicy:
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
        from .observation import ObservationPolicy

        return ObservationPolicy(obj, name=label)
    raise PolicyLoadError(
        f"{label!r} is neither an engine policy (with act(game, seat)) nor a callable "
        "(observation, action_mask) -> action"
    )


def load_policy(
    spec: str | Callable[..., Any] | EnginePolicy, seed: int = 0, trust: bool = False
) -> EnginePolicy:
    """Load a policy from a registered name, 'module:attr', a saved model, or an object (engine
    policy or observation callable).

    Saved models: a safe-format `.safetensors` (with its `.json` description beside it) always
    loads.  A stable-baselines3 `.zip` or an RLlib checkpoint folder is pickle-based and loads
    only with `trust=True` (or a `TrustedSpec`): only for files from sources you trust."""
    if not isinstance(spec, str):
        return _wrap(spec, seed, getattr(spec, "name", getattr(spec, "__name__", "callable")))
    if spec in _USER_POLICIES:
        policy = _USER_POLICIES[spec](seed)
        if not hasattr(policy, "name"):
            policy.name = spec
        return policy
    if spec in BUILTIN_POLICIES:
        return _wrap(_import(BUILTIN_POLICIES[spec]), seed, spec)
    if spec in SHIPPED_MODELS:
        from .weights import load_weights_policy

        policy = load_weights_policy(str(CHECKPOINT_DIR / SHIPPED_MODELS[spec]))
        policy.name = spec
        return policy
    from .weights import is_weights_spec, load_weights_policy

    if is_weights_spec(spec):
        return load_weights_policy(spec)
    if Path(spec).suffix == ".zip":
        if not Path(spec).is_file():
            raise PolicyLoadError(f"model file {spec!r} does not exist")
        require_trust(spec, "a stable-baselines3 .zip", trust)
        from .sb3 import load_sb3_policy

        return load_sb3_policy(spec, trust=True)
    if Path(spec).is_dir() and (Path(spec) / "rllib_checkpoint.json").exists():
        require_trust(spec, "an RLlib checkpoint", trust)
        from .rllib import load_rllib_policy

        return load_rllib_policy(spec, trust=True)
    if ":" in spec:
        return _wrap(_import(spec), seed, spec)
    raise PolicyLoadError(
        f"unknown policy {spec!r}; known names: {policy_names()}, or give 'module:attr' or a "
        "saved model (.safetensors; pickle-based .zip or RLlib folder with trust)"
    )
