"""The heuristics package: one handler per decision kind, styles as parameter sets."""

from __future__ import annotations

import dataclasses

import pytest

from dune_env.engine import DecisionKind, Game, GameConfig
from dune_env.policies.heuristics import (
    AGGRESSIVE,
    ECONOMIC,
    HANDLERS,
    AggressivePolicy,
    EconomicPolicy,
    HeuristicPolicy,
    Style,
)
from dune_env.policies.heuristics import handlers as handlers_module


def test_every_decision_kind_has_a_handler() -> None:
    assert set(HANDLERS) == set(DecisionKind)
    assert all(callable(h) for h in HANDLERS.values())


def test_a_missing_handler_is_reported_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    table = dict(HANDLERS)
    del table[DecisionKind.BID]
    monkeypatch.setattr(handlers_module, "HANDLERS", table)
    with pytest.raises(LookupError, match="BID"):
        handlers_module.handler_table()


def test_the_styles_are_parameter_sets() -> None:
    assert AggressivePolicy.style is AGGRESSIVE and EconomicPolicy.style is ECONOMIC
    assert AGGRESSIVE != ECONOMIC
    with pytest.raises(dataclasses.FrozenInstanceError):
        AGGRESSIVE.gamble = False  # type: ignore[misc]


def test_a_custom_style_plays_like_the_matching_class() -> None:
    """`HeuristicPolicy(style=...)` is the same player as the class with that style."""
    config = GameConfig(num_players=4)
    for style, cls in ((AGGRESSIVE, AggressivePolicy), (ECONOMIC, EconomicPolicy)):
        chosen = []
        for policy in (HeuristicPolicy(style=style), cls()):
            game = Game(config, seed=5)
            options = []
            while not game.terminal:
                assert game.pending is not None
                option = policy.act(game, game.pending.seat)
                options.append(option)
                game.apply(option)
            chosen.append(options)
        assert chosen[0] == chosen[1]


def test_a_style_changes_decisions() -> None:
    """A different parameter set is a different player (the styles are not decorative)."""
    timid = dataclasses.replace(AGGRESSIVE, kill_weight=0.0, gamble=False, move_cap=1)
    assert isinstance(timid, Style)
    config = GameConfig(num_players=4)
    differ = False
    for seed in range(5):
        games = []
        for style in (AGGRESSIVE, timid):
            policy = HeuristicPolicy(style=style)
            game = Game(config, seed=seed)
            while not game.terminal:
                assert game.pending is not None
                game.apply(policy.act(game, game.pending.seat))
            games.append(game.chosen_options())
        differ = differ or games[0] != games[1]
    assert differ
