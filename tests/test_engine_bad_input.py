"""Bad input: illegal options and invalid configurations get clear errors; state unchanged."""

from __future__ import annotations

import pytest

from dune_env.engine import ConfigError, DecisionKind, Game, GameConfig, IllegalOptionError


def test_illegal_option_names_decision_option_and_legal_options_and_keeps_state() -> None:
    game = Game(GameConfig(num_players=5), seed=2)
    before = game.to_json()
    legal = game.legal_options()
    bad = next(o for o in range(10_000) if o not in legal)
    with pytest.raises(IllegalOptionError) as info:
        game.apply(bad)
    text = str(info.value)
    assert DecisionKind(game.state.pending_kind).name in text
    assert str(bad) in text and "legal options" in text
    assert game.to_json() == before


@pytest.mark.parametrize("bad", [None, "1", 1.0, True, -1])
def test_wrong_option_types_are_rejected(bad) -> None:
    game = Game(GameConfig(num_players=3), seed=0)
    before = game.to_json()
    with pytest.raises(IllegalOptionError):
        game.apply(bad)
    assert game.to_json() == before


def test_applying_after_the_end_fails() -> None:
    game = Game(GameConfig(num_players=3), seed=0)
    while not game.terminal:
        game.apply(game.legal_options()[0])
    with pytest.raises(IllegalOptionError, match="over"):
        game.apply(0)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"num_players": 2}, "3 to 8"),
        ({"num_players": 9}, "3 to 8"),
        ({"num_players": 4, "faction_mode": "assigned", "factions": (0, 1, 6, 4)}, "allowed"),
        ({"num_players": 3, "faction_mode": "assigned", "factions": (0, 0, 1)}, "twice"),
        ({"num_players": 3, "faction_mode": "assigned", "factions": (0, 1)}, "3"),
        ({"num_players": 3, "faction_mode": "assigned"}, "needs factions"),
        ({"num_players": 3, "factions": (0, 1, 2)}, "faction_mode"),
        ({"faction_mode": "auction"}, "random"),
        ({"face_dancers": "teeth"}, "dice"),
        ({"region_die_west_faces": (0,)}, "1 to 6"),
        ({"strict_control": "yes"}, "True or False"),
        ({"win_reward": "lots"}, "number"),
    ],
)
def test_invalid_configuration_fails_at_construction(kwargs, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        GameConfig(**kwargs)


def test_unknown_configuration_key_lists_known_keys() -> None:
    with pytest.raises(ConfigError, match="known keys") as info:
        GameConfig.from_dict({"num_players": 5, "colour": "red"})
    assert "colour" in str(info.value) and "strict_control" in str(info.value)
    with pytest.raises(ConfigError, match="colour"):
        Game(num_players=5, colour="red")


def test_a_numpy_integer_option_is_refused_with_a_message_that_says_why() -> None:
    """`Game.apply` takes Python ints; a numpy integer gets an error that names its type and
    the conversion, not a claim that the value is illegal."""
    import numpy as np

    game = Game(GameConfig(num_players=4), seed=0)
    before = game.snapshot()
    option = game.legal_options()[0]
    with pytest.raises(IllegalOptionError, match=r"is a int64: give a Python int"):
        game.apply(np.int64(option))
    assert game.snapshot() == before
    game.apply(int(np.int64(option)))
