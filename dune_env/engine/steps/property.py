"""Step 8, Property (PROP-1, PROP-2)."""

from __future__ import annotations

from ..constants import NO_ONE, NUM_TOKEN_TYPES
from ..core import ask, decision, emit, goto, runner
from ..decisions import DecisionKind
from ..events import EventKind
from ..queries import POLAR, controls, in_storm
from ..state import GameState, Phase


def can_reorganize(state: GameState) -> bool:
    """PROP-1 (rev. 2): the target (never the Polar Cap, never in the storm) is controlled
    (DEF-6) by the active player or the ally, and the common supply holds a token.  Other
    factions may be present unless strict_control says they break control (the ally never
    does: the two are on one side here)."""
    target = state.target
    if target == NO_ONE or target == POLAR or in_storm(state, target):
        return False
    active, ally = state.active_faction, state.ally
    held = controls(state, active, target, ally) or (
        ally != NO_ONE and controls(state, ally, target, active)
    )
    return held and sum(state.token_supply) > 0


def legal_reorganize(state: GameState) -> list[int]:
    """0 keeps the region as it is; 1 + token places that token (after returning the old)."""
    current = state.region_token[state.target]
    return [0] + [
        1 + t for t in range(NUM_TOKEN_TYPES) if state.token_supply[t] > 0 or current == t
    ]


@runner(Phase.PROPERTY)
def run_property(state: GameState) -> None:
    if can_reorganize(state):
        ask(state, DecisionKind.REORGANIZE, state.active_seat)
    else:
        goto(state, Phase.STORM)


@decision(DecisionKind.REORGANIZE, legal_reorganize)
def apply_reorganize(state: GameState, option: int) -> None:
    if option:
        target = state.target
        old = state.region_token[target]
        if old != NO_ONE:  # PROP-2: at most one token per region
            state.token_supply[old] += 1
        new = option - 1
        state.token_supply[new] -= 1
        state.region_token[target] = new
        emit(state, EventKind.PROPERTY, target, old, new)
    goto(state, Phase.STORM)
