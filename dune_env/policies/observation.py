"""Adapters between observation policies `(observation, action_mask) -> action` and the engine.

`ObservationPolicy(fn)` lets any PettingZoo-style policy (a trained network, a user callable)
play through the engine-level harness: it builds the seat's `dune_v1` observation and mask
exactly as the environment does, calls `fn`, and turns the action id back into an option.

Batched interface (optional): an observation policy may also have
`act_batch(observations, masks) -> actions`, taking (B, OBS_SIZE) float32 observations and
(B, NUM_ACTIONS) int8 masks and returning B action ids; the vector environments
(`dune_env.vector`) call it once for all the games waiting on that policy.  `act_batch` below
falls back to one call per row for callables without it.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any, NamedTuple

import numpy as np

from ..engine import Game

ObsFn = Callable[[np.ndarray, np.ndarray], Any]


class ObservationPolicyError(ValueError):
    """An observation policy returned something that is not a legal action id."""


class _Environment(NamedTuple):
    """What an observation policy needs of the environment package."""

    observer: type
    action_mask: Callable[[Any, int], np.ndarray]
    check_action: Callable[[Any, str], int]
    illegal_action_message: Callable[..., str]
    option_of: Callable[[int, int], int]


@cache
def _environment() -> _Environment:
    """The environment's observer and action table, imported at the first decision: a process
    playing engine policies only never loads the environment package."""
    from ..environment.action_table import (
        action_mask,
        check_action,
        illegal_action_message,
        option_of,
    )
    from ..environment.observer import Observer

    return _Environment(Observer, action_mask, check_action, illegal_action_message, option_of)


def observation_and_mask(
    game: Game, seat: int, observer: Any = None
) -> tuple[np.ndarray, np.ndarray]:
    """The `dune_v1` observation vector and int8 action mask of `seat` in `game`."""
    environment = _environment()
    state = game.state
    if observer is None or observer.num_players != state.num_players:
        observer = environment.observer(state.num_players)
    return observer.observe(state, None, seat), environment.action_mask(state, seat)


class ObservationPolicy:
    """An engine policy backed by an observation policy."""

    def __init__(self, fn: ObsFn, name: str = "observation-policy") -> None:
        self.fn = fn
        self.name = name
        self._observers: dict[int, Any] = {}

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """One action id per row: `fn.act_batch` if `fn` has it, else `fn` row by row."""
        batch = getattr(self.fn, "act_batch", None)
        if batch is not None:
            return np.asarray(batch(observations, masks))
        return np.array([self.fn(o, m) for o, m in zip(observations, masks, strict=True)])

    def act(self, game: Game, seat: int) -> int:
        environment = _environment()
        n = game.state.num_players
        observer = self._observers.get(n)
        if observer is None:
            observer = self._observers[n] = environment.observer(n)
        obs, mask = observation_and_mask(game, seat, observer)
        return action_option(self.name, game, seat, action_id(self.name, self.fn(obs, mask)), mask)


def action_id(name: str, action: Any) -> int:
    """What an observation policy named `name` returned, as an action id (the env's own check:
    8.9 is refused, not truncated to 8); ObservationPolicyError otherwise."""
    from ..engine.shown import shown

    try:
        return _environment().check_action(action, f"policy {name!r}")
    except (TypeError, ValueError) as exc:
        raise ObservationPolicyError(
            f"policy {name!r} returned {shown(action)}, not an int action id: {exc}"
        ) from exc


def action_option(name: str, game: Game, seat: int, action: int, mask: np.ndarray) -> int:
    """The engine option of the action id `action` that the observation policy `name` chose
    for `seat` under `mask`; ObservationPolicyError if the mask does not allow it."""
    environment = _environment()
    state = game.state
    if not mask[action]:
        raise ObservationPolicyError(
            environment.illegal_action_message(
                action, state.pending_kind, game.legal_options(), f"policy {name!r} (player_{seat})"
            )
        )
    return environment.option_of(state.pending_kind, action)
