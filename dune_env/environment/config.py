"""Configuration of the `dune_v1` environment: the engine's `GameConfig` plus the env's options.

Every key is validated when the environment is constructed; an unknown key fails with the list
of known keys.  Engine keys keep the engine's defaults, except `record_events`, which defaults
to False here (the environment never reads the event log; turn it on to read
`env.unwrapped.game.event_log()`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import Any

from ..engine.config import ConfigError, GameConfig
from ..env_version import ENV_NAME as ENV_NAME

RENDER_MODES = ("ansi", "human", "rgb_array")
ILLEGAL_ACTION_MODES = ("raise", "penalize")

ENV_DEFAULTS: dict[str, Any] = {
    "render_mode": None,
    "illegal_action": "raise",
    "illegal_penalty": -1.0,
}
ENGINE_DEFAULT_OVERRIDES: dict[str, Any] = {"record_events": False}


def engine_keys() -> list[str]:
    return [f.name for f in fields(GameConfig)]


def known_keys() -> list[str]:
    return engine_keys() + list(ENV_DEFAULTS)


@dataclass(frozen=True)
class EnvConfig:
    """The validated configuration of one environment.

    Attributes:
        game: the engine configuration (players, factions or draft, variants, rewards).
        render_mode: None, "ansi", "human" or "rgb_array".
        illegal_action: "raise" (an illegal action raises IllegalActionError and changes
            nothing) or "penalize" (the game ends; the offender gets `illegal_penalty`, every
            other agent 0).
        illegal_penalty: the offender's reward under "penalize".
    """

    game: GameConfig
    render_mode: str | None = None
    illegal_action: str = "raise"
    illegal_penalty: float = -1.0

    @classmethod
    def from_kwargs(cls, **kwargs: Any) -> EnvConfig:
        known = known_keys()
        unknown = sorted(set(kwargs) - set(known))
        if unknown:
            raise ConfigError(
                f"unknown configuration key(s) {unknown} for {ENV_NAME}; known keys: {known}"
            )
        engine = {**ENGINE_DEFAULT_OVERRIDES}
        engine.update({k: v for k, v in kwargs.items() if k in engine_keys()})
        for key in ("factions", "region_die_west_faces"):
            if engine.get(key) is not None and not isinstance(engine[key], (list, tuple)):
                raise ConfigError(f"{key} must be a list or tuple of ints, not {engine[key]!r}")
        try:
            game = GameConfig.from_dict(engine)
        except TypeError as exc:  # pragma: no cover - from_dict validates the keys first
            raise ConfigError(str(exc)) from exc
        options = {**ENV_DEFAULTS, **{k: v for k, v in kwargs.items() if k in ENV_DEFAULTS}}
        render_mode = options["render_mode"]
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ConfigError(
                f"render_mode={render_mode!r} is unknown; use None or one of {RENDER_MODES}"
            )
        illegal = options["illegal_action"]
        if illegal not in ILLEGAL_ACTION_MODES:
            raise ConfigError(
                f"illegal_action={illegal!r} is unknown; use one of {ILLEGAL_ACTION_MODES}"
            )
        penalty = options["illegal_penalty"]
        if (
            isinstance(penalty, bool)
            or not isinstance(penalty, (int, float))
            or not math.isfinite(penalty)
        ):
            raise ConfigError(f"illegal_penalty must be a finite number, not {penalty!r}")
        return cls(game, render_mode, illegal, float(penalty))
