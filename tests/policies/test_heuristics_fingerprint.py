"""The heuristics make exactly the decisions recorded in `fixtures/heuristics_fingerprint.json`:
each style alone and the three mixed at 3 to 8 players, and MCTS on each of them (see
`heuristics_fingerprint.py`; regenerate the fixture only when the chance model changes).  Runs on
the compiled build and, in `make test`'s pure subset, on the pure-Python sources."""

from __future__ import annotations

import json

import pytest

from .heuristics_fingerprint import (
    FIXTURE,
    GAMES,
    MCTS_GAMES,
    SEARCHES,
    TABLES,
    engine_fingerprint,
    search_fingerprints,
    table_fingerprints,
)


@pytest.fixture(scope="module")
def recorded() -> dict[str, object]:
    recorded: dict[str, object] = json.loads(FIXTURE.read_text())
    assert recorded["engine"] == engine_fingerprint(), (
        "the engine's dice changed since the fixture was recorded, so every game differs: "
        "regenerate it from a tree whose heuristics are unchanged "
        "(python -m tests.policies.heuristics_fingerprint --write)"
    )
    return recorded


def _mismatched(expected: object, played: list[str]) -> list[int]:
    assert isinstance(expected, list) and len(expected) == len(played)
    return [i for i, (want, got) in enumerate(zip(expected, played, strict=True)) if want != got]


@pytest.mark.parametrize("table", TABLES)
def test_decisions_match_the_recorded_fingerprint(recorded: dict[str, object], table: str) -> None:
    mismatched = _mismatched(recorded[table], table_fingerprints(table, GAMES))
    assert not mismatched, f"{table}: games {mismatched[:10]} decide differently"


@pytest.mark.parametrize("search", SEARCHES)
def test_searches_match_the_recorded_fingerprint(recorded: dict[str, object], search: str) -> None:
    """MCTS on each heuristic (its prior, its rollouts with the die tables kept over a turn)
    plays the recorded games."""
    searches = recorded["mcts"]
    assert isinstance(searches, dict)
    mismatched = _mismatched(searches[search], search_fingerprints(search, MCTS_GAMES))
    assert not mismatched, f"MCTS on {search}: games {mismatched} decide differently"
