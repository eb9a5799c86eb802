"""dune-env: Dune, the Dice Game as a rules engine (`dune_env.engine`) and RL environments.

`dune_env.env(**config)` is the wrapped PettingZoo AEC environment `dune_v0`, `dune_env.raw_env`
the unwrapped one (also as `dune_env.dune_v0.env` / `raw_env`), `dune_env.DuneSingleAgentEnv`
the single-agent Gymnasium wrapper.  They are imported on first use, so that `dune_env.engine`
stays free of numpy, Gymnasium and PettingZoo.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from .environment.aec import env, raw_env
    from .environment.single_agent import DuneSingleAgentEnv

_LAZY = {
    "env": ("dune_env.environment.aec", "env"),
    "raw_env": ("dune_env.environment.aec", "raw_env"),
    "DuneSingleAgentEnv": ("dune_env.environment.single_agent", "DuneSingleAgentEnv"),
}

__all__ = ["DuneSingleAgentEnv", "env", "raw_env"]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        module, attr = _LAZY[name]
        value = getattr(importlib.import_module(module), attr)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'dune_env' has no attribute {name!r}")
