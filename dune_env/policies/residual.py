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

from collections import Counter
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

    def _observer(self, num_players: int) -> Any:
        observer = self._observers.get(num_players)
        if observer is None:
            from ..environment.observer import Observer

            observer = self._observers[num_players] = Observer(num_players)
        return observer

    def logits(self, game: Game, seat: int) -> tuple[np.ndarray, np.ndarray, int]:
        """(the masked logits with the heuristic's bonus, the legal mask, the heuristic's
        action id) of `seat`'s pending decision."""
        from ..environment.action_table import action_of
        from .observation import observation_and_mask

        obs, mask = observation_and_mask(game, seat, self._observer(game.state.num_players))
        suggested = action_of(game.state.pending_kind, int(self.teacher.act(game, seat)))
        logits = self.weights.logits(obs)[0].astype(np.float64)
        logits[suggested] += self.beta
        logits[mask == 0] = -np.inf
        return logits, mask, suggested

    def act(self, game: Game, seat: int) -> int:
        """The legal option with the highest `logits` (the first of equal ones by action id),
        the network evaluated for the legal actions only."""
        from ..environment.action_table import action_ids

        state = game.state
        options = game.legal_options()
        suggested = int(self.teacher.act(game, seat))
        if len(options) == 1:
            return suggested  # (the heuristic's choice is the only legal option)
        ordered = sorted(options)  # action ids ascending: ties go to the first, as np.argmax
        obs = self._observer(state.num_players).observe(state, None, seat)
        ids = np.array(action_ids(state.pending_kind, ordered))
        logits = self.weights.legal_logits(obs, ids).astype(np.float64)
        logits[ordered.index(suggested)] += self.beta
        return ordered[int(np.argmax(logits))]


def departures(
    policy: Any, games: int, num_players: int = 4, teacher: str = "strategist"
) -> tuple[Counter[str], Counter[str]]:
    """Where `policy` departs from the heuristic `teacher`: over games 0..games-1 (the policy in
    seat seed mod n on the clone an outside policy gets, strategist, economic and aggressive in
    the other seats in turn), the decisions with a choice and the departures, per decision kind
    name (`benchmarks/residual_departures.py` prints them)."""
    from ..engine import GameConfig
    from ..engine.decisions import DecisionKind

    reference = heuristic(teacher)
    others = [heuristic(name) for name in ("strategist", "economic", "aggressive")]
    choices: Counter[str] = Counter()
    departed: Counter[str] = Counter()
    for seed in range(games):
        game = Game(GameConfig(num_players=num_players), seed=seed)
        mine = seed % num_players
        while not game.terminal:
            if game.pending is None:
                game.advance()
                continue
            seat = game.state.pending_seat
            if seat != mine:
                game.apply(others[(seat - mine - 1) % num_players % 3].act(game, seat))
                continue
            option = policy.act(game.clone(), seat)
            if len(game.legal_options()) > 1:
                kind = DecisionKind(game.state.pending_kind).name
                choices[kind] += 1
                departed[kind] += option != reference.act(game, seat)
            game.apply(option)
    return choices, departed
