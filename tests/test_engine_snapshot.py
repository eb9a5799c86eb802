"""Snapshots: JSON round-trip at random points of random games; restored games continue
identically; malformed snapshots fail naming the field; clones are independent."""

from __future__ import annotations

import json
import random

import pytest

from dune_env.engine import Game, GameConfig, Phase, SnapshotError
from dune_env.engine.constants import CARD, RESERVE, Faction


def continue_game(game: Game, chooser: random.Random) -> str:
    while not game.terminal:
        game.apply(chooser.choice(game.legal_options()))
    return game.to_json()


@pytest.mark.parametrize("num_players", [3, 5, 8])
def test_snapshot_round_trip_mid_game_continues_identically(num_players: int) -> None:
    for seed in range(8):
        rng = random.Random(seed)
        game = Game(GameConfig(num_players=num_players), seed=seed)
        stop = rng.randrange(1, 250)
        for _ in range(stop):
            if game.terminal:
                break
            game.apply(rng.choice(game.legal_options()))
        text = game.to_json()
        restored = Game.from_json(text)
        assert restored.to_json() == text
        assert restored.pending == game.pending
        state_before = rng.getstate()
        end_a = continue_game(game, rng)
        rng.setstate(state_before)
        end_b = continue_game(restored, rng)
        assert end_a == end_b


def test_snapshot_is_readable() -> None:
    """The documented fields give counts per faction, location and unit type (docs/snapshot.md)."""
    game = Game(GameConfig(num_players=5, faction_mode="assigned", factions=(0, 1, 2, 4, 5)))
    while game.state.phase <= Phase.SETUP_PLACE:  # play the set-up decisions
        game.apply(game.legal_options()[0])
    snap = json.loads(game.to_json())
    corrino = snap["units"][Faction.CORRINO]
    assert corrino[CARD * 2 + 0] == 1 and corrino[CARD * 2 + 1] == 1  # COR-0
    assert corrino[RESERVE * 2 + 0] == 7 and corrino[RESERVE * 2 + 1] == 3
    assert snap["storage"][Faction.CORRINO] == 3
    assert snap["pending_kind"] >= 0 and snap["pending_seat"] >= 0
    assert len(snap["dice_faces"]) == 7 and len(snap["dice_fixed"]) == 7


def test_clone_is_independent() -> None:
    game = Game(GameConfig(num_players=4), seed=3)
    before = game.to_json()
    copy = game.clone()
    rng = random.Random(0)
    for _ in range(40):
        copy.apply(rng.choice(copy.legal_options()))
    assert game.to_json() == before


def _snap() -> dict:
    game = Game(GameConfig(num_players=5), seed=1)
    for _ in range(30):
        game.apply(game.legal_options()[-1])
    return json.loads(game.to_json())


@pytest.mark.parametrize(
    ("mutate", "field"),
    [
        (lambda s: s.pop("storm_sector"), "storm_sector"),
        (lambda s: s.update(storm_sector=9), "storm_sector"),
        (lambda s: s.update(round="one"), "round"),
        (lambda s: s["units"][s["seat_faction"][0]].__setitem__(22, 99), "units"),
        (lambda s: s.update(token_supply=[2, 2, 2]), "token"),
        (lambda s: s.update(dice_faces=[0, 0, 0]), "dice_faces"),
        (lambda s: s.update(version=99), "version"),
        (lambda s: s.update(extra=1), "extra"),
        (lambda s: s["config"].update(num_players=9), "config"),
        (lambda s: s.update(thumper_supply=0), "thumper"),
        (lambda s: s.update(pending_kind=-1), "pending_kind"),
    ],
)
def test_malformed_snapshot_names_the_field(mutate, field: str) -> None:
    snap = _snap()
    mutate(snap)
    with pytest.raises(SnapshotError, match=field):
        Game.restore(snap)


def test_snapshot_not_json() -> None:
    with pytest.raises(ValueError, match="JSON"):
        Game.from_json("{not json")
    with pytest.raises(SnapshotError, match="object"):
        Game.restore([1, 2])  # type: ignore[arg-type]
