"""The PettingZoo environment `dune_v1`: its parts (the action table, the observer and its
layouts, rendering) and the AEC environment (`aec.py`).

`dune_env.env()` / `dune_env.raw_env()` (or `dune_env.dune_v1.env()`) build it with policy
names resolved by `dune_env.match` (dune_v1.py); the single-agent Gymnasium view above the match
layer is `dune_env.single_agent`, registered here with Gymnasium by its entry point.
"""

from ..registration import GYMNASIUM_ID, register_gymnasium_envs
from .action_table import (
    ACTIONS,
    KIND_OFFSET,
    KIND_ORDER,
    NUM_ACTIONS,
    action_id,
    action_mask,
    action_name,
    action_of,
    decode_action,
    legal_action_ids,
    option_of,
)
from .aec import GameOverError, IllegalActionError, InvalidActionError, env, raw_env
from .config import EnvConfig
from .layout import Field, Layout
from .observer import OBS_LAYOUT, STATE_LAYOUT, Observer

register_gymnasium_envs()

__all__ = [
    "ACTIONS",
    "EnvConfig",
    "Field",
    "GYMNASIUM_ID",
    "GameOverError",
    "IllegalActionError",
    "InvalidActionError",
    "KIND_OFFSET",
    "KIND_ORDER",
    "Layout",
    "NUM_ACTIONS",
    "OBS_LAYOUT",
    "Observer",
    "STATE_LAYOUT",
    "action_id",
    "action_mask",
    "action_name",
    "action_of",
    "decode_action",
    "legal_action_ids",
    "option_of",
    "env",
    "raw_env",
]
