"""Typed records (LastBattle, HistoryRow) and the state's field registry: clones are deep and
equal for every registered field, snapshots keep the version-2 schema (an old snapshot loads and
plays on identically), and malformed records are named."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from dune_env.engine import BattleResult, Game, GameConfig
from dune_env.engine.records import (
    HISTORY_ROW_FIELDS,
    LAST_BATTLE_FIELDS,
    HistoryRow,
    LastBattle,
    check_flat,
)
from dune_env.engine.rng import ChanceRng, DiceRng
from dune_env.engine.state import (
    FLAG,
    INT,
    LAST_BATTLE,
    NESTED,
    OTHER_FIELDS,
    STATE_FIELDS,
    GameState,
)
from dune_env.engine.validate import SnapshotError

FIXTURE = Path(__file__).parent / "data" / "snapshot_v2_main.json"


def _fixture() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(FIXTURE.read_text())
    return data


def _states() -> list[GameState]:
    """Varied states: a fixture game after a battle, and positions along a random game
    (including bids in progress and the end)."""
    states = [Game.restore(_fixture()["mid"]).state]
    game = Game(GameConfig(num_players=6, record_events=True), seed=3)
    chooser = DiceRng(3)
    while not game.terminal:
        if game.state.decision_count % 17 == 0 or any(game.state.bid_units[0]):
            states.append(game.state.clone())
        options = game.legal_options()
        game.apply(options[chooser.below(len(options))])
    states.append(game.state)
    return states


def state_attributes() -> set[str]:
    """GameState's attribute names on either build (a compiled class lists them in
    `__mypyc_attrs__` instead of `__slots__`)."""
    names = getattr(GameState, "__slots__", None)
    if names is None:
        names = GameState.__mypyc_attrs__  # type: ignore[attr-defined]
    return {name for name in names if not name.startswith("__")}


def test_registry_covers_every_slot() -> None:
    """A new GameState field must be registered (or listed as outside the registry), so that
    snapshots, validation and the clone test cover it."""
    registered = [f.name for f in STATE_FIELDS]
    assert len(set(registered)) == len(registered)
    assert state_attributes() == set(registered) | set(OTHER_FIELDS)
    assert not set(registered) & set(OTHER_FIELDS)


def _mutate_in_place(clone: GameState, name: str, kind: int) -> None:
    """Change field `name` of `clone` the way engine code would: in place where the value is
    mutable, by assignment where it is not."""
    value = getattr(clone, name)
    if kind == INT:
        setattr(clone, name, value + 1)
    elif kind == FLAG:
        setattr(clone, name, not value)
    elif kind == LAST_BATTLE:
        hash(value)  # an immutable record all the way down (shared by clones)
        setattr(clone, name, None)
    elif kind == NESTED:
        for row in value:
            row.append(7)
            row[0] += 1
        value.append([1])
    else:
        for i in range(len(value)):
            value[i] = not value[i] if isinstance(value[i], bool) else value[i] + 1
        value.append(value[0] if value else 1)


@pytest.mark.parametrize("index", range(6))
def test_clone_is_deep_and_equal(index: int) -> None:
    """Mutating every registered field of a clone (and its chance generator, history and
    events) leaves the original unchanged; before that the clone equals the original."""
    states = _states()
    for original in states[index::6]:
        before = original.to_dict()
        clone = original.clone()
        assert clone.to_dict() == before
        for field in STATE_FIELDS:
            _mutate_in_place(clone, field.name, field.kind)
        clone.rng.forced.append(3)
        clone.rng.turn_roll += 1
        for row in clone.history:
            hash(row[:4])
            if isinstance(row.chance, list):
                row.chance.append(1)
            else:
                hash(row)  # a finished row is immutable
        clone.history.append(HistoryRow(0, 0, 0, 0, [1]))
        for event in clone.events:
            hash(event)
        clone.events.append((0, 1))
        assert original.to_dict() == before


def test_clone_plays_on_identically() -> None:
    """A clone and its original, given the same options, make the same game."""
    game = Game.restore(_fixture()["mid"])
    copy = game.clone()
    while not game.terminal:
        option = game.legal_options()[-1]
        game.apply(option)
        copy.apply(option)
    assert copy.to_json() == game.to_json()


def test_rng_clones_are_independent_and_continue_alike() -> None:
    dice = DiceRng(99, forced=[2])
    copy = dice.clone()
    copy.forced.append(1)
    assert dice.forced == [2] and copy.forced == [2, 1]
    dice.below(8)
    dice.below(8)
    twin = dice.clone()
    assert [dice.below(1000) for _ in range(5)] == [twin.below(1000) for _ in range(5)]
    chance = ChanceRng(7, forced=[1, 2], turn_roll=3)
    other = chance.clone()
    other.forced.pop()
    other.turn_roll += 1
    assert (chance.seed, chance.turn_roll, chance.forced) == (7, 3, [1, 2])
    assert other.seed == 7


def _as_then(snapshot: dict[str, Any], old: dict[str, Any]) -> dict[str, Any]:
    """`snapshot` without the configuration fields added since `old` was written, each
    checked to hold its default (an old snapshot's game plays by the defaults)."""
    defaults = GameConfig().to_dict()
    for key in set(snapshot["config"]) - set(old["config"]):
        assert snapshot["config"].pop(key) == defaults[key]
    return snapshot


def test_old_snapshot_loads_and_plays_on_identically() -> None:
    """A version-2 snapshot written before the typed records (tests/data) restores to the same
    snapshot and, taking every first option, ends exactly where the old engine ended it."""
    data = _fixture()
    game = Game.restore(data["mid"])
    assert _as_then(game.snapshot(), data["mid"]) == data["mid"]
    assert game.last_battle is not None
    assert game.state.last_battle is not None
    assert game.state.last_battle.to_list() == data["mid"]["last_battle"]
    while not game.terminal:
        game.apply(game.legal_options()[0])
    assert _as_then(game.snapshot(), data["end"]) == data["end"]
    text = Game.from_json(json.dumps(data["mid"])).to_json()
    assert text == json.dumps(json.loads(text), separators=(",", ":"))  # compact, in order
    assert _as_then(json.loads(text), data["mid"]) == data["mid"]


def test_record_registries_name_the_record_fields() -> None:
    assert tuple(f.name for f in LAST_BATTLE_FIELDS) == LastBattle._fields
    assert tuple(f.name for f in HISTORY_ROW_FIELDS) == HistoryRow._fields


def test_last_battle_round_trip_and_fields() -> None:
    """BATTLE-6: the record names both sides' strengths and the winning side."""
    flat = _fixture()["mid"]["last_battle"]
    battle = LastBattle.from_list(flat)
    assert battle.to_list() == flat
    assert (battle.region, battle.attacker, battle.defender) == tuple(flat[:3])
    assert (battle.attacker_strength, battle.defender_strength) == tuple(flat[3:5])
    assert len(battle.attacker_units) == len(battle.defender_units) == 16
    assert len(battle.attacker_leaders) == len(battle.defender_leaders) == 8
    assert check_flat(flat, LAST_BATTLE_FIELDS, "x") == ""
    result = BattleResult.from_list(flat)
    assert result == BattleResult.from_record(battle)
    assert result.attacker.strength == battle.attacker_strength
    assert result.attacker_won == (battle.winner_side == 0)


@pytest.mark.parametrize(
    ("edit", "named"),
    [
        (lambda lb: lb.__setitem__(5, 2), "winner_side"),
        (lambda lb: lb.__setitem__(0, 10), "region"),
        (lambda lb: lb.__setitem__(7, True), "attacker_units"),
        (lambda lb: lb.pop(), "must be"),
        (lambda lb: lb.append(0), "must be"),
    ],
)
def test_malformed_last_battle_is_named(edit: Any, named: str) -> None:
    data = _fixture()["mid"]
    edit(data["last_battle"])
    with pytest.raises(SnapshotError, match=f"last_battle.*{named}|{named}.*last_battle"):
        Game.restore(data)


def test_history_rows_are_named() -> None:
    game = Game.restore(_fixture()["mid"])
    rows = game.state.history
    assert rows[0].seat == rows[0].kind == rows[0].option == -1
    assert rows[0].chance  # the set-up's draws
    assert game.chosen_options() == [row.option for row in rows[1:] if not row.forced]
    assert [row.to_list() for row in rows] == _fixture()["mid"]["history"]


def test_event_registry_covers_every_kind_and_every_logged_event() -> None:
    """Every EventKind has registered arguments, and every event of varied games (all player
    counts) checks against them and reads back by name."""
    from dune_env.engine.events import EVENT_FIELDS, EventKind, check_event, event_args

    assert set(EVENT_FIELDS) == set(EventKind)
    seen: set[int] = set()
    for players in range(3, 9):
        game = Game(GameConfig(num_players=players, record_events=True), seed=players)
        chooser = DiceRng(players)
        while not game.terminal:
            options = game.legal_options()
            game.apply(options[chooser.below(len(options))])
        for event in game.state.events:
            assert check_event(event) == "", event
            args = event_args(event)
            assert [f.name for f in EVENT_FIELDS[event[0]]] == list(args)
            seen.add(event[0])
    assert len(seen) > 30
    battle = next(e for e in game.state.events if e[0] == EventKind.BATTLE_RESULT)
    assert event_args(battle)["winner_side"] == battle[4]


@pytest.mark.parametrize(
    ("event", "named"),
    [
        ([23, 2, 3, 5, 1], "unit_type"),  # LAND with unit type 5
        ([23, 2, 3, 1], "LAND"),  # an argument short
        ([99], "EventKind"),
        ([5, 1], "no arguments"),  # PREDICTION_MADE
    ],
)
def test_malformed_event_is_named(event: list[int], named: str) -> None:
    data = _fixture()["mid"]
    data["events"][3] = event
    with pytest.raises(SnapshotError, match=f"events\\[3\\].*{named}"):
        Game.restore(data)


@pytest.mark.parametrize("players", [3, 5, 8])
def test_records_hold_plain_ints_and_rows_are_history_rows(players: int) -> None:
    """The engine's fast paths (rows built with tuple.__new__, events without map(int, ...),
    IntEnum kinds and phases passed as ints) keep what they store plain: every event value,
    every row's seat/kind/option/forced and the phase are exact ints, every row a HistoryRow
    whose fields read by name; the same on both builds (PURE_TESTS)."""
    game = Game(GameConfig(num_players=players), seed=players)
    chooser = DiceRng(players)
    while not game.terminal:
        options = game.legal_options()
        game.apply(options[chooser.below(len(options))])
        assert type(game.state.phase) is int and type(game.state.pending_kind) is int
    assert game.state.events and {type(v) for e in game.state.events for v in e} == {int}
    for row in game.state.history:
        assert type(row) is HistoryRow and row == HistoryRow(*row)
        assert {type(v) for v in row[:4]} == {int} and isinstance(row.chance, tuple | list)
    assert game.state.history[1].seat == game.state.history[1][0]
