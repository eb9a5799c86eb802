"""Read-only rule queries shared by the steps: presence, storm, control, spice, sides."""

from __future__ import annotations

from .constants import (
    NO_ONE,
    NUM_FACTIONS,
    NUM_UNIT_TYPES,
    RESERVE,
    SHAI_HULUD_FACE,
    STORAGE_CAP,
    Die,
    Faction,
)
from .map_data import DEFAULT_MAP
from .state import GameState

MAP = DEFAULT_MAP
POLAR = MAP.polar_cap
REGIONS = range(MAP.num_regions)


def present(state: GameState, faction: int, region: int) -> bool:
    """DEF-5."""
    u = state.units[faction]
    i = region * NUM_UNIT_TYPES
    return u[i] + u[i + 1] > 0


def factions_in(state: GameState, region: int) -> list[int]:
    """Factions present in a region, in faction order."""
    i = region * NUM_UNIT_TYPES
    return [f for f in range(NUM_FACTIONS) if state.units[f][i] + state.units[f][i + 1] > 0]


def occupied(state: GameState, region: int) -> bool:
    i = region * NUM_UNIT_TYPES
    return any(u[i] + u[i + 1] for u in state.units)


def in_storm(state: GameState, region: int) -> bool:
    """DEF-7, MAP-4: the regions of the sector under the storm marker (never the Polar Cap)."""
    return MAP.sectors[region] == state.storm_sector


def controls(state: GameState, faction: int, region: int, ally: int = NO_ONE) -> bool:
    """DEF-6 / CL-3.  With strict_control, no other faction (except `ally`) may be present."""
    if region == POLAR or not present(state, faction, region):
        return False
    if state.config.strict_control:
        for other in factions_in(state, region):
            if other != faction and other != ally:
                return False
    return True


def strategic_controlled(state: GameState, faction: int) -> int:
    return sum(1 for r in MAP.strategic_regions if controls(state, faction, r))


def spice_die_is_worm(state: GameState) -> bool:
    return state.dice_faces[Die.SPICE] == SHAI_HULUD_FACE


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


def is_enemy(state: GameState, faction: int) -> bool:
    """DEF-4: an enemy of the active player."""
    return faction != state.active_faction and faction != state.ally


def seat_order_ccw(state: GameState, from_seat: int) -> list[int]:
    """DEF-9: seats counter-clockwise from `from_seat` (exclusive), nearest first."""
    n = state.num_players
    return [(from_seat - k) % n for k in range(1, n)]


def reserve_units(state: GameState, faction: int) -> int:
    return state.count(faction, RESERVE)
