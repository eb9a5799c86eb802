"""Gymnasium registration of the single-agent view: `gymnasium.make("dune_env/Dune-v1", ...)`.

A top-level module so that registering imports Gymnasium only (the environment itself is
imported by `make`).

Keyword arguments of `make` go to `DuneSingleAgentEnv` (learner, opponents, illegal_penalty,
opponent_sampler and every game option, e.g. num_players=4).  The made env answers
`env.action_masks()` (an `ActionMasks` wrapper outside Gymnasium's own).  The id's version is the
environment's (`dune_env/env_version.py`; see CHANGELOG.md, "Versions of the environment").
"""

from __future__ import annotations

from .env_version import GYMNASIUM_ID as GYMNASIUM_ID


def register_gymnasium_envs() -> None:
    """Register "dune_env/Dune-v1" once (idempotent)."""
    import gymnasium
    from gymnasium.envs.registration import WrapperSpec

    if GYMNASIUM_ID in gymnasium.registry:
        return
    gymnasium.register(
        id=GYMNASIUM_ID,
        entry_point="dune_env.single_agent:DuneSingleAgentEnv",
        # No time limit: the game ends by itself (six rounds at most, DEF-3).
        # Outermost, so that `make(...).action_masks()` answers as sb3-contrib users expect.
        additional_wrappers=(
            WrapperSpec(
                name="ActionMasks",
                entry_point="dune_env.environment.masks_wrapper:ActionMasks",
                kwargs={},
            ),
        ),
    )
