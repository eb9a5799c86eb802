"""Shared fixtures of the harness tests."""

from __future__ import annotations

import pytest


@pytest.fixture
def cheap_suite(monkeypatch: pytest.MonkeyPatch) -> None:
    """The standard suite with only the fast heuristics as references and one deal per player
    count (its real references include a search that costs seconds per game)."""
    from dune_env.harness import suite

    monkeypatch.setattr(suite, "REFERENCES", ("economic", "aggressive", "random"))
    monkeypatch.setattr(suite, "SEATED_ONLY_AT", {})
    monkeypatch.setattr(suite, "SHORT_DEALS", dict.fromkeys(suite.PLAYER_COUNTS, 1))
    monkeypatch.setattr(suite, "DEALS", dict.fromkeys(suite.PLAYER_COUNTS, 1))
