"""Deprecated: use `dune_env.engine.information.resample` (the engine's visibility rules).

`visible_game(game, seat, rng)` is `resample(game, seat, rng)`: a clone of `game` in which
everything `seat` cannot know is re-drawn with `rng`.
"""

from __future__ import annotations

import warnings

from ..engine.information import resample as visible_game

warnings.warn(
    "dune_env.policies.information is deprecated: use dune_env.engine.information.resample",
    DeprecationWarning,
    stacklevel=2,
)

__all__ = ["visible_game"]
