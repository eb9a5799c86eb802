"""The heuristics that decline every alliance offer (ALLY-3; BG-2: a Bene Gesserit offer
cannot be declined)."""

from __future__ import annotations

import pytest

from dune_env.engine import DecisionKind, Game, GameConfig
from dune_env.policies.base import RandomPolicy
from dune_env.policies.registry import load_policy


@pytest.mark.parametrize("name", ["strategist", "economic", "aggressive"])
def test_declines_every_offer_it_may_and_otherwise_plays_its_heuristic_ALLY_3(name: str) -> None:
    declining = load_policy(f"{name}-declines", seed=1)
    heuristic = load_policy(name, seed=1)
    answers = {0: 0, 1: 0}
    for seed in range(4):
        game = Game(GameConfig(num_players=5), seed=seed)
        offering = RandomPolicy(seed)  # offers on most of its turns
        while not game.terminal:
            assert game.pending is not None
            seat, kind = game.pending.seat, game.pending.kind
            if seat == 0:
                game.apply(offering.act(game, seat))
                continue
            option = declining.act(game, seat)
            if kind == DecisionKind.ALLY_ANSWER:
                legal = game.legal_options()
                assert option == (0 if 0 in legal else 1)  # 1 only for the Bene Gesserit (BG-2)
                answers[option] += 1
            else:
                assert option == heuristic.act(game, seat)
            game.apply(option)
    assert answers[0] > 5


def test_the_declining_heuristics_are_built_in_and_named() -> None:
    from dune_env.match import is_builtin

    policy = load_policy("strategist-declines")
    assert is_builtin(policy) and policy.name == "strategist-declines"
