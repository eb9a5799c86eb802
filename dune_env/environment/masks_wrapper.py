"""`gymnasium.make("dune_env/Dune-v1")`'s outermost wrapper: `env.action_masks()` answers.

Gymnasium's wrappers (`OrderEnforcing`, `PassiveEnvChecker`, `TimeLimit`) forward only the
standard API, so without this wrapper `env.action_masks()` raised AttributeError on a made env
(sb3-contrib's own `get_action_masks` goes through `get_wrapper_attr` and never noticed).
Wrappers a user adds on top hide it again, as with any Gymnasium attribute: use
`env.get_wrapper_attr("action_masks")()` there.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np


class ActionMasks(gymnasium.Wrapper[Any, Any, Any, Any], gymnasium.utils.RecordConstructorArgs):
    """Exposes the wrapped env's `action_masks()` (bool, one entry per action id)."""

    def __init__(self, env: gymnasium.Env[Any, Any]) -> None:
        gymnasium.utils.RecordConstructorArgs.__init__(self)
        gymnasium.Wrapper.__init__(self, env)

    def action_masks(self) -> np.ndarray:
        """The legal actions of the seat to act, as sb3-contrib's MaskablePPO reads them."""
        masks: np.ndarray = self.env.get_wrapper_attr("action_masks")()
        return masks
