"""Shared helpers of the policy tests: play games between engine policies."""

from __future__ import annotations

from collections.abc import Sequence

from dune_env.engine import Game, GameConfig
from dune_env.policies.base import EnginePolicy


def play(
    config: GameConfig, seed: int, policies: Sequence[EnginePolicy], check: bool = True
) -> tuple[Game, list[int]]:
    """Play one game; every option is checked against the pending decision's legal options.

    Returns the finished game and the options chosen, in order."""
    game = Game(config, seed=seed)
    chosen = []
    while not game.terminal:
        decision = game.pending
        assert decision is not None
        option = policies[decision.seat].act(game, decision.seat)
        if check:
            assert option in decision.options, (
                f"{policies[decision.seat].name} chose {option} for {decision.kind.name}; "
                f"legal: {decision.options}"
            )
        chosen.append(option)
        game.apply(option)
    return game, chosen
