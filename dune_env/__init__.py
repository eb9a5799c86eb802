"""dune-env: Dune, the Dice Game as a rules engine (`dune_env.engine`) and RL environments.

`dune_env.env(**config)` is the wrapped PettingZoo AEC environment `dune_v1`, `dune_env.raw_env`
the unwrapped one (also as `dune_env.dune_v1.env` / `raw_env`), `dune_env.DuneSingleAgentEnv`
the single-agent Gymnasium wrapper, registered with Gymnasium as "dune_env/Dune-v1".  They are
imported on first use, so that `dune_env.engine` stays free of numpy, Gymnasium and PettingZoo.

The engine and the observer run compiled (mypyc) where the build made them, else from their
sources; `dune_env.build_info()` says which, `DUNE_ENV_PURE=1` forces the sources, and a compiled
module older than its source is refused at import (docs/performance.md).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from .compiled_build import activate as _activate_build
from .compiled_build import build_info

__version__ = "0.1.0"

_activate_build()

if TYPE_CHECKING:
    from . import dune_v1
    from .dune_v1 import env, raw_env
    from .single_agent import DuneSingleAgentEnv

_LAZY = {
    "env": ("dune_env.dune_v1", "env"),
    "raw_env": ("dune_env.dune_v1", "raw_env"),
    "DuneSingleAgentEnv": ("dune_env.single_agent", "DuneSingleAgentEnv"),
}
_LAZY_MODULES = ("dune_v1", "dune_v0", "engine", "environment", "policies", "harness")

__all__ = ["DuneSingleAgentEnv", "build_info", "dune_v1", "env", "raw_env"]


def __getattr__(name: str) -> Any:
    import importlib

    if name in _LAZY:
        module, attr = _LAZY[name]
        value = getattr(importlib.import_module(module), attr)
        globals()[name] = value
        return value
    if name in _LAZY_MODULES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module 'dune_env' has no attribute {name!r}")


# Gymnasium 1.x has no plugin entry points: an environment id exists once a module registers it.
# `dune_env.environment` always does; here only if Gymnasium is loaded already, which is the case
# for `gymnasium.make("dune_env:dune_env/Dune-v1")` and for `import gymnasium` before
# `import dune_env`, so that a plain `import dune_env.engine` stays light.
if "gymnasium" in sys.modules:
    from .registration import register_gymnasium_envs

    register_gymnasium_envs()
