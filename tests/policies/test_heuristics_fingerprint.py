"""The heuristics package makes exactly the decisions recorded before `heuristics.py` was split
(see `heuristics_fingerprint.py`; regenerate the fixture only when the chance model changes)."""

from __future__ import annotations

import json

import pytest

from .heuristics_fingerprint import FIXTURE, GAMES, STYLES, engine_fingerprint, game_fingerprint


@pytest.mark.parametrize("style", sorted(STYLES))
def test_decisions_match_the_recorded_fingerprint(style: str) -> None:
    recorded = json.loads(FIXTURE.read_text())
    assert recorded["engine"] == engine_fingerprint(), (
        "the engine's dice changed since the fixture was recorded, so every game differs: "
        "regenerate it from a tree whose heuristics are unchanged "
        "(python -m tests.policies.heuristics_fingerprint --write)"
    )
    expected = recorded[style]
    assert len(expected) == GAMES
    mismatched = [i for i in range(GAMES) if game_fingerprint(STYLES[style], i) != expected[i]]
    assert not mismatched, f"{style}: games {mismatched[:10]} decide differently"
