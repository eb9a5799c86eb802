"""The heuristics that decline every alliance offer (ALLY-3; BG-2: a Bene Gesserit offer
cannot be declined)."""

from __future__ import annotations

import pytest

from dune_env.engine import DecisionKind, Game, GameConfig
from dune_env.policies.base import RandomPolicy
from dune_env.policies.registry import load_policy

DECLINE, ACCEPT = 0, 1  # the ALLY_ANSWER options


@pytest.mark.parametrize("name", ["strategist", "economic", "aggressive"])
def test_declines_every_offer_it_may_and_otherwise_plays_its_heuristic_ALLY_3_BG_2(
    name: str,
) -> None:
    """Seat 0 offers at random on most of its turns; the other seats are `<name>-declines`.
    Every answer it may decline is declined (ALLY-3), a Bene Gesserit offer, whose only answer
    is to accept (BG-2), is accepted, and every other decision is its heuristic's.  (Forced
    decisions are asked too, so that the Bene Gesserit's offers reach the policy.)"""
    declining = load_policy(f"{name}-declines", seed=1)
    heuristic = load_policy(name, seed=1)
    answers = {DECLINE: 0, ACCEPT: 0}
    for seed in range(40):
        if answers[DECLINE] > 5 and answers[ACCEPT] > 0:
            break
        game = Game(GameConfig(num_players=5, skip_forced_decisions=False), seed=seed)
        offering = RandomPolicy(seed)
        while not game.terminal:
            assert game.pending is not None
            seat, kind = game.pending.seat, game.pending.kind
            if seat == 0:
                game.apply(offering.act(game, seat))
                continue
            option = declining.act(game, seat)
            if kind == DecisionKind.ALLY_ANSWER:
                legal = game.legal_options()
                assert option == (DECLINE if DECLINE in legal else ACCEPT)
                if DECLINE not in legal:
                    assert list(legal) == [ACCEPT]  # BG-2: the only answer to the Bene Gesserit
                answers[option] += 1
            else:
                assert option == heuristic.act(game, seat)
            game.apply(option)
    assert answers[DECLINE] > 5  # ALLY-3: declined
    assert answers[ACCEPT] > 0  # BG-2: the Bene Gesserit's offers were met, and accepted


def test_the_declining_heuristics_are_built_in_and_named() -> None:
    """Registered built-ins (the harness may hand them the live game) under their own names."""
    from dune_env.match import is_builtin
    from dune_env.policies.declining import DecliningPolicy
    from dune_env.policies.registry import BUILTIN_POLICIES

    for base in ("strategist", "economic", "aggressive"):
        policy = load_policy(f"{base}-declines")
        assert f"{base}-declines" in BUILTIN_POLICIES
        assert is_builtin(policy) and policy.name == f"{base}-declines"
    assert not is_builtin(DecliningPolicy(RandomPolicy(0)))  # unregistered wrapper: user code


def test_the_docs_list_every_registered_name() -> None:
    """docs/baselines.md's table of policy specs names every built-in and shipped policy, the
    declining heuristics included."""
    from pathlib import Path

    from dune_env.policies.registry import BUILTIN_POLICIES, SHIPPED_MODELS

    docs = Path(__file__).resolve().parents[2] / "docs" / "baselines.md"
    (row,) = [line for line in docs.read_text().splitlines() if "| a registered name |" in line]
    listed = {cell.strip("` ") for cell in row.split("|")[2].split(",")}
    assert set(BUILTIN_POLICIES) | set(SHIPPED_MODELS) <= listed
