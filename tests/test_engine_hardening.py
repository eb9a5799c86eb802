"""Issue 11 §4: configuration rewards must be finite, seeds must fit 64 bits, clones share no
history rows."""

from __future__ import annotations

import math

import pytest

from dune_env.engine import ConfigError, Game, GameConfig


@pytest.mark.parametrize(
    "value",
    [math.nan, math.inf, -math.inf, 10**400, -(10**400)],
    ids=["nan", "inf", "-inf", "1e400", "-1e400"],
)
@pytest.mark.parametrize("field", ["win_reward", "loss_reward"])
def test_config_rewards_must_be_finite(field: str, value: float) -> None:
    """END-7 rewards: nan, inf and ints too large for a float are refused, naming the field."""
    with pytest.raises(ConfigError, match=field):
        GameConfig(num_players=3, **{field: value})


def test_config_accepts_finite_int_and_float_rewards() -> None:
    config = GameConfig(num_players=3, win_reward=10**6, loss_reward=-0.5)
    game = Game(config, seed=0)
    while not game.terminal:
        game.apply(game.legal_options()[0])
    assert all(math.isfinite(r) for r in game.rewards)


@pytest.mark.parametrize("seed", [-1, 2**64, 2**70, -(2**64)])
def test_game_refuses_seeds_outside_64_bits(seed: int) -> None:
    """Seeds outside [0, 2**64) used to wrap silently onto other seeds."""
    with pytest.raises(ValueError, match="seed"):
        Game(GameConfig(num_players=3), seed=seed)


@pytest.mark.parametrize("seed", [-1, 2**64])
def test_scenario_refuses_seeds_outside_64_bits(seed: int) -> None:
    from dune_env.engine import Faction, Scenario

    with pytest.raises(ValueError, match="seed"):
        Scenario([Faction.ATREIDES, Faction.HARKONNEN, Faction.FREMEN], seed=seed)


def test_game_accepts_the_largest_seed() -> None:
    assert not Game(GameConfig(num_players=3), seed=2**64 - 1).terminal


@pytest.mark.parametrize("restored", [False, True], ids=["played", "restored"])
def test_clone_shares_no_mutable_history_row(restored: bool) -> None:
    """Editing a clone's history rows never changes the original's: finished rows are frozen
    (their chance outcomes a tuple), the open last row's are copied."""
    game = Game(GameConfig(num_players=4), seed=1)
    for _ in range(5):
        game.apply(game.legal_options()[0])
    if restored:
        game = Game.restore(game.snapshot())
    before = [row.to_list() for row in game.state.history]
    copy = game.clone()
    for row in copy.state.history:
        try:
            row.chance.append(5)  # type: ignore[union-attr]
        except AttributeError:
            pass  # a frozen row
    assert [row.to_list() for row in game.state.history] == before
    last, copied = game.state.history[-1].chance, copy.state.history[-1].chance
    assert isinstance(last, tuple) or copied is not last  # an open row is copied
    copy.apply(copy.legal_options()[0])  # play on: chance outcomes go to the copied last row
    assert [row.to_list() for row in game.state.history] == before
