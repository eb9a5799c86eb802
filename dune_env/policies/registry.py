"""Named policies and loaders: a registered name, a `module:attr` path, a saved model, or a
Python callable.  Every loaded policy is an engine policy (`act(game, seat) -> option`).

Saved models in the safe format (`.safetensors` + `.json`, see `weights.py`) load from anyone.
Pickle-based files -- stable-baselines3 `.zip` files and RLlib checkpoints -- can run arbitrary
code when loaded, so they load only with `trust=True` (see SECURITY.md).

The path reads one way: `classify` a spec, check a pickle-based file's trust, call its one
loader (`weights.py`, `sb3.py`, `rllib.py` or `specs.import_attr`), wrap the object once
(`specs.as_engine_policy`).  What the loaders share (the errors, `TrustedSpec`, the trust check)
is in `specs.py`, re-exported here; no loader imports this module."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

from .base import EnginePolicy
from .specs import (
    RLLIB_CHECKPOINT,
    SB3_ZIP,
    PolicyLoadError,
    TrustedSpec,
    UntrustedCheckpointError,
    as_engine_policy,
    import_attr,
    model_label,
    require_trust,
    trusted,
)

__all__ = [
    "BUILTIN_POLICIES",
    "CHECKPOINT_DIR",
    "SHIPPED_MODELS",
    "PolicyLoadError",
    "TrustedSpec",
    "UntrustedCheckpointError",
    "builtin_observation_callables",
    "builtin_policy_classes",
    "classify",
    "load_policy",
    "policy_names",
    "register_policy",
    "require_trust",
    "runs_foreign_code",
    "trusted",
]

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
    # the heuristics declining every alliance offer (5+ players: alliance play held out)
    "strategist-declines": "dune_env.policies.declining:StrategistDeclines",
    "economic-declines": "dune_env.policies.declining:EconomicDeclines",
    "aggressive-declines": "dune_env.policies.declining:AggressiveDeclines",
}
CHECKPOINT_DIR = Path(__file__).resolve().parent / "checkpoints"
# name -> shipped model in the safe format (model cards: docs/models/<name>.md).
SHIPPED_MODELS: dict[str, str] = {
    "ppo-4p": "ppo_4p.safetensors",
    "bc-4p": "bc_4p.safetensors",
    "bc-5p": "bc_5p.safetensors",
    "residual-4p": "residual_4p.safetensors",  # a network on the strategist (policies/residual.py)
    "residual-5p": "residual_5p.safetensors",
}
_USER_POLICIES: dict[str, Callable[[int], EnginePolicy]] = {}


def register_policy(name: str, factory: Callable[[int], EnginePolicy]) -> None:
    """Register `factory(seed) -> policy` under `name` (e.g. a trained checkpoint)."""
    _USER_POLICIES[name] = factory


def builtin_policy_classes() -> list[type]:
    """The classes of the registered built-in policies, `ObservationPolicy` (when its callable
    is one of `builtin_observation_callables`) and `ResidualWeightsPolicy` (a network's arrays
    and a built-in heuristic, both only reading the game): the policies the harness may hand
    the live game (`dune_env.match.is_builtin`)."""
    from .observation import ObservationPolicy
    from .residual import ResidualWeightsPolicy

    builtin = [import_attr(path) for path in BUILTIN_POLICIES.values()]
    return builtin + [ObservationPolicy, ResidualWeightsPolicy]


def builtin_observation_callables() -> list[type]:
    """The classes of the project's own observation callables: the safe-format networks (data
    read by the project's code).  Any other callable is user code."""
    from .weights import WeightsPolicy

    return [WeightsPolicy]


def policy_names() -> list[str]:
    return sorted(set(BUILTIN_POLICIES) | set(_USER_POLICIES) | set(SHIPPED_MODELS))


class Classified(NamedTuple):
    """What a spec names, found without loading anything: which `loader` loads it, its
    `target` (an object, a factory, a 'module:attr' path or a model path) and the `label` the
    loaded policy is named by."""

    loader: str  # "object", "factory", "module:attr", "weights", "sb3" or "rllib"
    target: Any
    label: str


# The loaders of pickle-based files, and what `require_trust` calls them.
PICKLE_BASED: dict[str, str] = {"sb3": SB3_ZIP, "rllib": RLLIB_CHECKPOINT}


def classify(spec: str | Callable[..., Any] | EnginePolicy) -> Classified:
    """Which loader `spec` needs (a PolicyLoadError if none)."""
    if not isinstance(spec, str):
        label = getattr(spec, "name", getattr(spec, "__name__", "callable"))
        return Classified("object", spec, label)
    if spec in _USER_POLICIES:
        return Classified("factory", _USER_POLICIES[spec], spec)
    if spec in BUILTIN_POLICIES:
        return Classified("module:attr", BUILTIN_POLICIES[spec], spec)
    if spec in SHIPPED_MODELS:
        return Classified("weights", str(CHECKPOINT_DIR / SHIPPED_MODELS[spec]), spec)
    from .weights import is_weights_spec

    if is_weights_spec(spec):
        return Classified("weights", spec, model_label(spec))
    if Path(spec).suffix == ".zip":
        if not Path(spec).is_file():
            raise PolicyLoadError(f"model file {spec!r} does not exist")
        return Classified("sb3", spec, model_label(spec))
    if Path(spec).is_dir() and (Path(spec) / "rllib_checkpoint.json").exists():
        return Classified("rllib", spec, model_label(spec))
    if ":" in spec:
        return Classified("module:attr", spec, spec)
    raise PolicyLoadError(
        f"unknown policy {spec!r}; known names: {policy_names()}, or give 'module:attr' or a "
        "saved model (.safetensors; pickle-based .zip or RLlib folder with trust)"
    )


def runs_foreign_code(spec: str) -> bool:
    """Whether loading `spec` runs code that is not the project's: a `module:attr` other than
    the registered built-ins, a `register_policy` factory, a pickle-based model file.  The
    registered names and safe-format models (data read by the project's own code) do not.
    The benchmark plays the policies that do in processes of their own (harness/play/hosts.py)."""
    found = classify(spec)
    if found.loader == "module:attr":
        return spec not in BUILTIN_POLICIES
    return found.loader not in ("weights",)


def load_policy(
    spec: str | Callable[..., Any] | EnginePolicy, seed: int = 0, trust: bool = False
) -> EnginePolicy:
    """Load a policy from a registered name, 'module:attr', a saved model, or an object (engine
    policy or observation callable).

    Saved models: a safe-format `.safetensors` (with its `.json` description beside it) always
    loads.  A stable-baselines3 `.zip` or an RLlib checkpoint folder is pickle-based and loads
    only with `trust=True` (or a `TrustedSpec`): only for files from sources you trust.

    One way through: the spec is classified, a pickle-based file's trust checked, its one
    loader gives a Python object (an engine policy, its class, or an observation policy), and
    that becomes an engine policy."""
    found = classify(spec)
    if found.loader in PICKLE_BASED:
        require_trust(found.target, PICKLE_BASED[found.loader], trust)
    obj: Any = found.target
    if found.loader == "factory":
        obj = found.target(seed)
    elif found.loader == "module:attr":
        obj = import_attr(found.target)
    elif found.loader == "weights":
        from .weights import weights_policy

        obj = weights_policy(found.target)
    elif found.loader == "sb3":
        from .sb3 import model_actor

        obj = model_actor(found.target)
    elif found.loader == "rllib":
        from .rllib import checkpoint_actor

        obj = checkpoint_actor(found.target)
    return as_engine_policy(obj, seed, found.label)
