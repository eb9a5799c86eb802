"""Issue 31 §9, the engine's part: hostile inputs raise the engine's own errors, naming the field,
on both builds (this suite also runs with DUNE_ENV_PURE=1: Makefile PURE_TESTS)."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from dune_env.engine import ConfigError, Game, GameConfig, SnapshotError
from dune_env.engine.game import IllegalOptionError


def _finished_snapshot() -> dict[str, Any]:
    game = Game(GameConfig(num_players=4), seed=3)
    while not game.terminal:
        game.apply(game.legal_options()[0])
    snapshot: dict[str, Any] = json.loads(game.to_json())
    return snapshot


@pytest.mark.parametrize("reward", [int("9" * 4000), -int("9" * 4000)], ids=["huge", "-huge"])
def test_rewards_of_thousands_of_digits_are_a_snapshot_error(reward: int) -> None:
    """END-7 rewards in a snapshot: an integer too large for a float is refused as a
    SnapshotError naming the field (it was an OverflowError from float())."""
    snapshot = _finished_snapshot()
    snapshot["rewards"] = [reward] * 4
    with pytest.raises(SnapshotError, match="'rewards'"):
        Game.restore(snapshot)


@pytest.mark.parametrize("reward", [float("nan"), float("inf")])
def test_non_finite_rewards_are_a_snapshot_error(reward: float) -> None:
    snapshot = _finished_snapshot()
    snapshot["rewards"] = [reward] * 4
    with pytest.raises(SnapshotError, match="'rewards'.*finite"):
        Game.restore(snapshot)


@pytest.mark.parametrize(
    "value",
    [b"\x01\x04", bytearray(b"\x02"), "14", {1: 0, 4: 0}],
    ids=["bytes", "bytearray", "str", "mapping"],
)
def test_restore_refuses_west_faces_that_game_config_refuses(value: Any) -> None:
    """CL-1: `region_die_west_faces` must be a list on every path.  `GameConfig(...)` refused
    bytes but `Game.restore` turned them into a tuple of ints (b'\\x01\\x04' -> (1, 4))."""
    with pytest.raises(ConfigError, match="region_die_west_faces must be a list"):
        GameConfig(num_players=4, region_die_west_faces=value)
    snapshot = json.loads(Game(GameConfig(num_players=4), seed=1).to_json())
    snapshot["config"]["region_die_west_faces"] = value
    with pytest.raises(SnapshotError, match="region_die_west_faces must be a list"):
        Game.restore(snapshot)
    with pytest.raises(ConfigError, match="region_die_west_faces must be a list"):
        GameConfig.from_dict({"num_players": 4, "region_die_west_faces": value})


def test_restore_still_takes_west_faces_as_a_list() -> None:
    snapshot = json.loads(Game(GameConfig(num_players=4), seed=1).to_json())
    snapshot["config"]["region_die_west_faces"] = [2, 3, 5]
    assert Game.restore(snapshot).config.region_die_west_faces == (2, 3, 5)


def test_apply_of_a_deeply_nested_list_is_an_illegal_option() -> None:
    """A nested list 100,000 deep raised RecursionError (its repr in the message)."""
    nested: list[Any] = []
    for _ in range(100_000):
        nested = [nested]
    game = Game(GameConfig(num_players=4), seed=1)
    before = copy.deepcopy(game.snapshot())
    with pytest.raises(IllegalOptionError, match="is a list: give a Python int"):
        game.apply(nested)
    assert game.snapshot() == before


@pytest.mark.parametrize("option", [10**5000, -(10**5000)], ids=["huge", "-huge"])
def test_apply_of_an_integer_of_thousands_of_digits_is_an_illegal_option(option: int) -> None:
    """repr() of an int past Python's digit limit raises ValueError: the message shows its size."""
    game = Game(GameConfig(num_players=4), seed=1)
    with pytest.raises(IllegalOptionError, match="an integer of about 5001 digits"):
        game.apply(option)
