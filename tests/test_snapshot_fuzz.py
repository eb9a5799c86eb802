"""Issue 11 §2: a mutation fuzzer for snapshot restore.  Valid snapshots are taken at random
points of random games and mutated one field at a time; every mutant must either be refused
with a SnapshotError or be a consistent game that plays to its end with the invariants
(COMP-2, COMP-3) holding after every decision."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest

from dune_env.engine import Game, GameConfig, SnapshotError
from tests.invariants import check_invariants

SEED = 11


def _snapshots(rng: random.Random, count: int) -> list[dict[str, Any]]:
    out = []
    while len(out) < count:
        n = rng.choice([3, 4, 5, 6, 8])
        config = GameConfig(
            num_players=n,
            faction_mode=rng.choice(["random", "draft"]),
            strict_control=rng.random() < 0.3,
            skip_forced_decisions=rng.random() < 0.8,
            record_events=rng.random() < 0.8,
        )
        game = Game(config, seed=rng.randrange(2**32))
        for _ in range(rng.randrange(0, 400)):
            if game.terminal:
                break
            game.apply(rng.choice(game.legal_options()))
        out.append(game.snapshot())
    return out


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path to a leaf or a list in a snapshot."""
    paths = [prefix] if prefix else []
    if isinstance(value, dict):
        for key, item in value.items():
            paths += _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            paths += _paths(item, (*prefix, i))
    return paths


def _get(data: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        data = data[key]
    return data


def _set(data: Any, path: tuple[Any, ...], value: Any) -> None:
    _get(data, path[:-1])[path[-1]] = value


def _mutant(rng: random.Random, snapshot: dict[str, Any]) -> tuple[dict[str, Any], str]:
    data = copy.deepcopy(snapshot)
    paths = [p for p in _paths(data) if p[0] not in ("version",)]
    path = rng.choice(paths)
    old = _get(data, path)
    choice = rng.randrange(10)
    if isinstance(old, list):
        if old and choice < 4:
            del old[rng.randrange(len(old))]
            how = "dropped an entry"
        elif choice < 7:
            old.append(
                rng.choice([-1, 0, 1, 2, 5, 7, 11, 30])
                if not old
                else copy.deepcopy(rng.choice(old))
            )
            how = "added an entry"
        elif len(old) > 1:
            i, j = rng.sample(range(len(old)), 2)
            old[i], old[j] = old[j], old[i]
            how = "swapped two entries"
        else:
            _set(data, path, [])
            how = "emptied"
    elif isinstance(old, bool):
        _set(data, path, not old)
        how = "flipped"
    elif isinstance(old, (int, float)):
        value = rng.choice([old - 1, old + 1, -1, 0, 1, 2, 3, 5, 6, 7, 8, 11, 24, 26, 32, 99])
        _set(data, path, value)
        how = f"{old} -> {value}"
    else:
        _set(data, path, rng.choice([None, 0, "x"]))
        how = "retyped"
    return data, f"{'/'.join(map(str, path))}: {how}"


def _play_out(game: Game, rng: random.Random) -> None:
    check_invariants(game.state)
    game.chosen_options()
    game.event_log()
    Game.from_json(game.to_json())
    steps = 0
    while not game.terminal:
        options = game.legal_options()
        assert options, "no legal option in a game that is not over"
        game.apply(rng.choice(options))
        check_invariants(game.state)
        steps += 1
        assert steps < 20_000
    game.event_log()
    assert len(game.rewards) == game.config.num_players


@pytest.mark.parametrize("batch", range(4))
def test_snapshot_mutants_are_refused_or_consistent(batch: int) -> None:
    rng = random.Random(SEED * 100 + batch)
    snapshots = _snapshots(rng, 10)
    refused = accepted = 0
    for i in range(100):
        base = snapshots[i % len(snapshots)]
        mutant, how = _mutant(rng, base)
        try:
            game = Game.restore(mutant)
        except SnapshotError:
            refused += 1
            continue
        accepted += 1
        try:
            _play_out(game, random.Random(i))
        except Exception as exc:  # pragma: no cover - the failure message is the point
            raise AssertionError(f"accepted mutant ({how}) is inconsistent: {exc!r}") from exc
    assert refused > 0 and accepted > 0


def test_valid_snapshots_are_all_accepted() -> None:
    rng = random.Random(SEED)
    for snapshot in _snapshots(rng, 60):
        game = Game.restore(json.loads(json.dumps(snapshot)))
        assert game.snapshot() == snapshot
