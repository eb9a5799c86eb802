"""Spice helpers of the steps (SPICE-4, COR-2, GLD-1) and the read-only queries they use.

The read-only queries are defined in the public `rules` module and re-exported here for the
steps; new code should import them from `dune_env.engine.rules`."""

from __future__ import annotations

from .constants import STORAGE_CAP, Faction
from .rules import (  # the read-only queries live in the public rules API
    MAP,
    POLAR,
    REGIONS,
    controls,
    factions_in,
    in_storm,
    is_enemy,
    occupied,
    present,
    seat_order_ccw,
    spice_die_is_worm,
    strategic_controlled,
)
from .state import GameState

__all__ = [
    "MAP",
    "POLAR",
    "REGIONS",
    "add_storage",
    "controls",
    "factions_in",
    "in_storm",
    "is_enemy",
    "occupied",
    "present",
    "seat_order_ccw",
    "spend",
    "spendable",
    "spice_die_is_worm",
    "strategic_controlled",
]


def spendable(state: GameState) -> int:
    """Spice the active player can spend now: pool plus own storage (SPICE-4)."""
    return state.pool + state.storage[state.active_faction]


def spend(state: GameState, amount: int) -> None:
    """Spend from the active player's pool and storage in the owner's best order (SPICE-4)."""
    faction = state.active_faction
    if amount > spendable(state):
        raise AssertionError(f"engine bug: spending {amount} with {spendable(state)} available")
    if faction == Faction.CORRINO:
        from_storage = min(amount, state.storage[faction])
        state.storage[faction] -= from_storage
        state.pool -= amount - from_storage
    else:
        from_pool = min(amount, state.pool)
        state.pool -= from_pool
        state.storage[faction] -= amount - from_pool


def add_storage(state: GameState, faction: int, amount: int) -> int:
    """Add to a storage, capped at 5 (COR-2, GLD-1).  Returns what was actually added."""
    before = state.storage[faction]
    state.storage[faction] = min(STORAGE_CAP, before + amount)
    return state.storage[faction] - before
