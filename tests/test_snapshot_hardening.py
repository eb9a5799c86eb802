"""Issue 11 §2: impossible snapshots are refused with a SnapshotError naming the field."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from dune_env.engine import Faction, Game, GameConfig, Phase, SnapshotError
from dune_env.engine.decisions import DecisionKind


def _played(num_players: int, decisions: int, seed: int = 0, **config: Any) -> Game:
    game = Game(GameConfig(num_players=num_players, **config), seed=seed)
    rng = random.Random(seed)
    for _ in range(decisions):
        if game.terminal:
            break
        game.apply(rng.choice(game.legal_options()))
    return game


def _finished(num_players: int = 4, seed: int = 0) -> dict[str, Any]:
    return _played(num_players, 100_000, seed).snapshot()


def _refused(snapshot: dict[str, Any], field: str) -> None:
    with pytest.raises(SnapshotError, match=field):
        Game.restore(snapshot)


def test_pending_kind_must_be_the_decision_of_the_phase() -> None:
    """pending_kind=24 (LEND_LEADER) on a fresh 5-player game used to crash later with
    `IndexError: pop from empty list`."""
    snap = Game(GameConfig(num_players=5), seed=0).snapshot()
    snap["pending_kind"] = int(DecisionKind.LEND_LEADER)
    _refused(snap, "pending_kind")


def test_pending_kind_ghola_in_a_six_player_game_is_refused() -> None:
    """pending_kind=11 (GHOLA) in 6 players used to end in an engine AssertionError."""
    game = _played(6, 40, seed=1)
    snap = game.snapshot()
    assert snap["pending_kind"] != int(DecisionKind.GHOLA)
    snap["pending_kind"] = int(DecisionKind.GHOLA)
    _refused(snap, "pending_kind")


def test_pending_seat_must_be_the_seat_the_phase_asks() -> None:
    snap = _played(5, 30, seed=2).snapshot()
    snap["pending_seat"] = (snap["pending_seat"] + 1) % 5
    _refused(snap, "pending_kind")


def test_forced_dice_outside_their_range_are_refused() -> None:
    snap = Game(GameConfig(num_players=3), seed=0).snapshot()
    snap["rng"]["forced"] = [2, 6]
    _refused(snap, "rng.forced")


@pytest.mark.parametrize(
    "row", [[], [0], [0, 1, 2], "x", [0, 4, 1, 0, 9], [9, 4, 1, 0], [0, 99, 0, 0]]
)
def test_malformed_history_rows_are_refused(row: Any) -> None:
    """A row like [] used to be accepted; chosen_options() then crashed."""
    snap = _played(3, 10).snapshot()
    snap["history"][1] = row
    _refused(snap, r"history\[1\]")


@pytest.mark.parametrize("event", [[], [99], [7, 1], ["x"], [43, 0, 1000]])
def test_malformed_events_are_refused(event: Any) -> None:
    """event_log() used to crash on these."""
    snap = _played(3, 10).snapshot()
    snap["events"][2] = event
    _refused(snap, r"events\[2\]")


def test_decision_count_must_match_the_history() -> None:
    snap = _played(3, 10).snapshot()
    snap["decision_count"] += 1
    _refused(snap, "decision_count")


@pytest.mark.parametrize("field", ["shield_holder", "snooper_holder", "ally", "battle_defender"])
def test_holders_must_be_factions_in_the_game(field: str) -> None:
    game = Game(GameConfig(num_players=3, faction_mode="assigned", factions=(0, 1, 2)), seed=0)
    snap = game.snapshot()
    snap[field] = int(Faction.BENE_GESSERIT)
    _refused(snap, field)


def test_prediction_needs_the_bene_gesserit() -> None:
    snap = Game(GameConfig(num_players=3, faction_mode="assigned", factions=(0, 1, 2))).snapshot()
    snap["bg_prediction"] = int(Faction.ATREIDES)
    _refused(snap, "bg_prediction")


def test_thumper_and_storage_holders_must_be_in_the_game() -> None:
    snap = Game(GameConfig(num_players=3, faction_mode="assigned", factions=(0, 1, 4))).snapshot()
    snap["storage"][Faction.ATREIDES] = 2  # COR-2 / GLD-1: only Corrino and Guild store
    _refused(snap, r"storage\[0\]")
    snap = Game(GameConfig(num_players=3, faction_mode="assigned", factions=(0, 1, 4))).snapshot()
    snap["thumpers"][Faction.GUILD] = 1
    snap["thumper_supply"] -= 1
    _refused(snap, r"thumpers\[5\]")


def test_seat_factions_must_be_available_at_the_player_count() -> None:
    """SETUP-5: no Bene Gesserit with 3 players (even with its pieces added consistently)."""
    snap = Game(GameConfig(num_players=3, faction_mode="assigned", factions=(0, 1, 2))).snapshot()
    snap["config"]["faction_mode"] = "random"
    snap["config"]["factions"] = None
    snap["seat_faction"][2] = int(Faction.BENE_GESSERIT)
    snap["faction_seat"][Faction.FREMEN] = -1
    snap["faction_seat"][Faction.BENE_GESSERIT] = 2
    snap["units"][Faction.BENE_GESSERIT] = snap["units"][Faction.FREMEN]
    _refused(snap, r"seat_faction\[2\]")


def test_game_over_with_a_pending_decision_is_refused() -> None:
    snap = _played(4, 20).snapshot()
    snap["phase"] = int(Phase.GAME_OVER)
    _refused(snap, "pending_kind")


def test_winners_and_rewards_must_agree() -> None:
    snap = _finished()
    assert snap["phase"] == Phase.GAME_OVER
    snap["rewards"] = [1.0] * 4 if snap["rewards"] != [1.0] * 4 else [-1.0] * 4
    _refused(snap, "rewards")
    snap = _played(4, 20).snapshot()
    snap["winners"] = [0]
    _refused(snap, "winners")
    snap = _played(4, 20).snapshot()
    snap["rewards"][1] = 1.0
    _refused(snap, "rewards")


def test_single_option_decision_left_pending_is_refused() -> None:
    """With skip_forced_decisions the engine never asks a decision with one option."""
    game = Game(GameConfig(num_players=4, skip_forced_decisions=False), seed=0)
    rng = random.Random(0)
    while len(game.legal_options()) != 1:
        game.apply(rng.choice(game.legal_options()))
    snap = game.snapshot()
    Game.restore(snap)  # fine without skipping
    snap["config"]["skip_forced_decisions"] = True
    _refused(snap, "single legal option")


def test_huge_history_is_refused_with_a_clear_message() -> None:
    snap = _played(3, 5).snapshot()
    snap["history"] += [[0, 4, 0, 0]] * 1_000_000
    _refused(snap, "history.*at most")


def test_deep_json_is_a_snapshot_error_not_recursion_error() -> None:
    with pytest.raises(SnapshotError, match="nested too deeply"):
        Game.from_json("[" * 100_000 + "]" * 100_000)


def test_duplicate_json_keys_are_refused() -> None:
    text = _played(3, 5).to_json()
    doubled = text[:-1] + ',"round":1}'
    assert json.loads(doubled)["round"] == 1  # plain JSON silently keeps the last
    with pytest.raises(SnapshotError, match="repeats key.*round"):
        Game.from_json(doubled)


def test_invalid_json_is_a_snapshot_error() -> None:
    with pytest.raises(SnapshotError, match="not valid JSON"):
        Game.from_json("{")


def test_unbalanced_pieces_are_refused() -> None:
    """COMP-3: a unit moved out of thin air."""
    snap = _played(4, 20).snapshot()
    faction = snap["seat_faction"][0]
    snap["units"][faction][2] += 1
    _refused(snap, "units")


def _bidding(phase: Phase) -> dict[str, Any]:
    for seed in range(200):
        game = Game(GameConfig(num_players=4), seed=seed)
        rng = random.Random(seed)
        while not game.terminal:
            if game.state.phase == phase:
                return game.snapshot()
            game.apply(rng.choice(game.legal_options()))
    raise AssertionError("no battle found")  # pragma: no cover


def test_bids_must_commit_pieces_the_side_has() -> None:
    """BATTLE-5: a leader bid from thin air used to fail an engine assertion at the reveal."""
    snap = _bidding(Phase.BATTLE_BID_ATTACKER)
    attacker = snap["seat_faction"][snap["active_seat"]]
    snap["bid_leaders"][0][attacker] = snap["leaders"][attacker][0] + 1
    _refused(snap, r"bid_leaders\[0\]")
    snap = _bidding(Phase.BATTLE_BID_ATTACKER)
    snap["bid_units"][1][0] = 1  # the defender has not bid yet
    _refused(snap, "bid_units")
