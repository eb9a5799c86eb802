"""The PettingZoo environment `dune_v1` and the single-agent Gymnasium wrapper.

`dune_env.env()` / `dune_env.raw_env()` (or `dune_env.dune_v1.env()`) build the environment;
this package holds its parts: the action table, the observer and its layouts, rendering.
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
