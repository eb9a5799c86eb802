"""A learned network on top of a heuristic: `ResidualWeightsPolicy` (e.g. `residual-4p`).

The network's logits are added to `beta` on the heuristic's own choice, and the policy plays
the most probable legal action:

    logits(a) = network(observation)(a) + beta * [a == heuristic's action]

With a zero network that is the heuristic exactly; training (`training/residual.py`) moves the
network where departing from the heuristic wins more games.  The heuristic reads the same game
its seat sees (it never reads hidden information), so the policy needs the game, not only the
observation: it is an engine policy (`act(game, seat)`), and its safe-format file has a network
kind of its own (`dune_env.policies.weights.RESIDUAL_KIND`) that an observation-only loader
refuses.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..engine import Game


def heuristic(name: str) -> Any:
    """A fresh heuristic policy by name (one of `weights.TEACHERS`; none draws random numbers)."""
    from .heuristics import AggressivePolicy, EconomicPolicy
    from .heuristics.strategist import StrategistPolicy

    classes = {
        "strategist": StrategistPolicy,
        "economic": EconomicPolicy,
        "aggressive": AggressivePolicy,
    }
    return classes[name]()


class ResidualWeightsPolicy:
    """An engine policy: a safe-format network's logits plus `beta` on a heuristic's choice."""

    def __init__(self, weights: Any, name: str) -> None:
        if weights.teacher is None:
            raise ValueError(f"model {weights.path!r} is not a network on a heuristic")
        self.weights = weights
        self.name = name
        self.teacher_name, self.beta = weights.teacher
        self.teacher = heuristic(self.teacher_name)
        self._observers: dict[int, Any] = {}

    def logits(self, game: Game, seat: int) -> tuple[np.ndarray, np.ndarray, int]:
        """(the masked logits with the heuristic's bonus, the legal mask, the heuristic's
        action id) of `seat`'s pending decision."""
        from ..environment.action_table import action_of
        from ..environment.observer import Observer
        from .observation import observation_and_mask

        n = game.state.num_players
        observer = self._observers.get(n)
        if observer is None:
            observer = self._observers[n] = Observer(n)
        obs, mask = observation_and_mask(game, seat, observer)
        suggested = action_of(game.state.pending_kind, int(self.teacher.act(game, seat)))
        logits = self.weights.logits(obs)[0].numpy().astype(np.float64)
        logits[suggested] += self.beta
        logits[mask == 0] = -np.inf
        return logits, mask, suggested

    def act(self, game: Game, seat: int) -> int:
        from ..environment.action_table import option_of

        logits, _, _ = self.logits(game, seat)
        return option_of(game.state.pending_kind, int(np.argmax(logits)))
