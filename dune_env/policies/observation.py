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
from typing import Any

import numpy as np

from ..engine import Game

ObsFn = Callable[[np.ndarray, np.ndarray], Any]


class ObservationPolicyError(ValueError):
    """An observation policy returned something that is not a legal action id."""


def observation_and_mask(
    game: Game, seat: int, observer: Any = None
) -> tuple[np.ndarray, np.ndarray]:
    """The `dune_v1` observation vector and int8 action mask of `seat` in `game`."""
    from ..environment.action_table import action_mask
    from ..environment.observer import Observer

    state = game.state
    if observer is None or observer.num_players != state.num_players:
        observer = Observer(state.num_players)
    return observer.observe(state, object(), seat), action_mask(state, seat)


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
        from ..environment.observer import Observer

        n = game.state.num_players
        if n not in self._observers:
            self._observers[n] = Observer(n)
        obs, mask = observation_and_mask(game, seat, self._observers[n])
        return action_option(self.name, game, seat, action_id(self.name, self.fn(obs, mask)), mask)


def action_id(name: str, action: Any) -> int:
    """What an observation policy named `name` returned, as an action id (the env's own check:
    8.9 is refused, not truncated to 8); ObservationPolicyError otherwise."""
    from ..engine.shown import shown
    from ..environment.action_table import check_action

    try:
        return check_action(action, f"policy {name!r}")
    except (TypeError, ValueError) as exc:
        raise ObservationPolicyError(
            f"policy {name!r} returned {shown(action)}, not an int action id: {exc}"
        ) from exc


def action_option(name: str, game: Game, seat: int, action: int, mask: np.ndarray) -> int:
    """The engine option of the action id `action` that the observation policy `name` chose
    for `seat` under `mask`; ObservationPolicyError if the mask does not allow it."""
    from ..environment.action_table import illegal_action_message, option_of

    state = game.state
    if not mask[action]:
        raise ObservationPolicyError(
            illegal_action_message(
                action, state.pending_kind, game.legal_options(), f"policy {name!r} (player_{seat})"
            )
        )
    return option_of(state.pending_kind, action)
