"""Invariants checked after every decision by the fuzz tests (COMP-2, COMP-3)."""

from __future__ import annotations

from dune_env.engine import GameState
from dune_env.engine.constants import (
    LEADER_COUNTS,
    NO_ONE,
    NUM_FACTIONS,
    NUM_LOCATIONS,
    NUM_THUMPERS,
    NUM_TOKEN_TYPES,
    PROPERTY_TOKENS_PER_TYPE,
    STORAGE_CAP,
    UNIT_COUNTS,
)
from dune_env.engine.map_data import DEFAULT_MAP


def check_invariants(state: GameState) -> None:
    """Pieces and tokens are conserved; every count is non-negative; the Polar Cap is bare."""
    for faction in range(NUM_FACTIONS):
        units = state.units[faction]
        assert min(units) >= 0, f"negative unit count for faction {faction}: {units}"
        in_game = state.faction_seat[faction] != NO_ONE
        for unit_type in (0, 1):
            total = sum(units[loc * 2 + unit_type] for loc in range(NUM_LOCATIONS))
            expected = UNIT_COUNTS[faction][unit_type] if in_game else 0
            assert total == expected, (faction, unit_type, total, expected)
        assert min(state.leaders[faction]) >= 0
        assert sum(state.leaders[faction]) == (LEADER_COUNTS[faction] if in_game else 0)
        assert 0 <= state.storage[faction] <= STORAGE_CAP
    for token in range(NUM_TOKEN_TYPES):
        on_map = state.region_token.count(token)
        assert state.token_supply[token] >= 0
        assert on_map + state.token_supply[token] == PROPERTY_TOKENS_PER_TYPE, token
    assert state.region_token[DEFAULT_MAP.polar_cap] == NO_ONE
    assert state.thumper_supply >= 0 and all(t in (0, 1) for t in state.thumpers)
    assert state.thumper_supply + sum(state.thumpers) == NUM_THUMPERS
    for holder in (state.shield_holder, state.snooper_holder):
        assert holder == NO_ONE or state.faction_seat[holder] != NO_ONE
    assert state.pool >= 0
    assert 1 <= state.round <= 6
    assert 1 <= state.storm_sector <= 6
