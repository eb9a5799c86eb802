"""The versioned environment module, as PettingZoo's own environments have one.

from dune_env import dune_v1
env = dune_v1.env(num_players=5)
"""

from .environment.aec import env, raw_env

__all__ = ["env", "raw_env"]
