"""The heuristics package: one handler per decision kind, styles as parameter sets with hooks."""

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
from dune_env.policies.heuristics.strategist import STRATEGIST, StrategistPolicy, StrategistStyle


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


def test_every_style_plays_the_same_handlers() -> None:
    """A style differs by its fields and hooks only: the strategist's handler table is the
    aggressive and economic one, its rules live in `StrategistStyle`'s hooks."""
    table = handlers_module.handler_table()
    for cls in (AggressivePolicy, EconomicPolicy, StrategistPolicy):
        assert cls().handler_table() == table
    assert isinstance(STRATEGIST, StrategistStyle) and StrategistPolicy.style is STRATEGIST
    overridden = {
        name
        for name in ("adjust_target_value", "kanly_focus", "item_value", "offer_value")
        if getattr(StrategistStyle, name) is not getattr(Style, name)
    }
    assert len(overridden) == 4


@dataclasses.dataclass(frozen=True)
class _NeverAllied(Style):
    """The economic weights, refusing every alliance offer: a style written outside the
    package, overriding one hook."""

    def accepts_alliance(self, s: object, me: int, active: int, together: int) -> bool:
        return False


def _answers(style: Style, seeds: range) -> list[int]:
    """Every ALLY_ANSWER option chosen in 5-player games with `style` at every seat."""
    config = GameConfig(num_players=5)
    answers = []
    for seed in seeds:
        policy = HeuristicPolicy(style=style)
        game = Game(config, seed=seed)
        while not game.terminal:
            assert game.pending is not None
            option = policy.act(game, game.pending.seat)
            if game.pending.kind == DecisionKind.ALLY_ANSWER and len(game.pending.options) > 1:
                answers.append(option)
            game.apply(option)
    return answers


def test_a_style_subclass_changes_decisions_through_its_hooks() -> None:
    """ALLY-3: a `Style` subclass (a plain Python one, also on the compiled build) that
    overrides `accepts_alliance` declines the offers the economic style accepts, except where
    the shared rule accepts for it (four strategic regions together: END-2 this turn)."""
    never = _NeverAllied(**{f.name: getattr(ECONOMIC, f.name) for f in dataclasses.fields(Style)})
    economic = _answers(ECONOMIC, range(10))
    refusing = _answers(never, range(10))
    assert economic.count(1) > 5
    assert refusing.count(1) < economic.count(1) / 4
