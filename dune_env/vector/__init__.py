"""Batched vector environments: N games of `dune_v1` in one process, one learning seat each.

    from dune_env.vector import DuneVecEnv, DuneVectorEnv
    venv = DuneVecEnv(64, learner="rotate", num_players=4)     # stable-baselines3 VecEnv
    envs = DuneVectorEnv(64, learner="rotate", num_players=4)  # gymnasium.vector.VectorEnv

Both run `BatchedGames` (dune_env.vector.core): each sub-env behaves as `DuneSingleAgentEnv`
with the same seed (rewards on other seats' turns credited to the learner, episode return =
final game reward), the opponents' decisions are batched (one call per round for each
observation policy, engine policies inline), observations and masks are stacked numpy arrays.
See docs/environment.md, "Vector environments".  `DuneVecEnv` needs stable-baselines3
(the `train` extra); it is imported on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .core import BatchedGames
from .gymnasium_env import DuneVectorEnv

if TYPE_CHECKING:
    from .sb3 import DuneVecEnv

__all__ = ["BatchedGames", "DuneVecEnv", "DuneVectorEnv"]


def __getattr__(name: str) -> Any:
    if name == "DuneVecEnv":
        from .sb3 import DuneVecEnv

        return DuneVecEnv
    raise AttributeError(f"module 'dune_env.vector' has no attribute {name!r}")
