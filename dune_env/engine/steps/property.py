"""Step 8, Property (PROP-1, PROP-2)."""

from __future__ import annotations

from typing import Final

from ..constants import NO_ONE, NUM_TOKEN_TYPES
from ..core import ask, emit, goto, runner
from ..decision_spec import TOKEN_FIELD, DecisionKind, DecisionSpec, OptionBlock, OptionCodec
from ..events import EventKind
from ..queries import POLAR, controls, in_storm
from ..state import GameState, Phase

# REORGANIZE: keep the region as it is, or place a token there (PROP-1).
REORGANIZE_CODEC: Final = OptionCodec(
    OptionBlock("keep", "keep property"),
    OptionBlock("place", "place {token}", (TOKEN_FIELD,)),
)
KEEP_PROPERTY: Final = REORGANIZE_CODEC.offset("keep")
_PLACE_BASE: Final = REORGANIZE_CODEC.offset("place")


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
    """Keep the region as it is, or place a token (after returning the old)."""
    current = state.region_token[state.target]
    return [KEEP_PROPERTY] + [
        _PLACE_BASE + t for t in range(NUM_TOKEN_TYPES) if state.token_supply[t] > 0 or current == t
    ]


@runner(Phase.PROPERTY)
def run_property(state: GameState) -> None:
    if can_reorganize(state):
        ask(state, DecisionKind.REORGANIZE, state.active_seat)
    else:
        goto(state, Phase.STORM)


def apply_reorganize(state: GameState, option: int) -> None:
    if option != KEEP_PROPERTY:
        target = state.target
        old = state.region_token[target]
        if old != NO_ONE:  # PROP-2: at most one token per region
            state.token_supply[old] += 1
        new = option - _PLACE_BASE
        state.token_supply[new] -= 1
        state.region_token[target] = new
        emit(state, EventKind.PROPERTY, target, old, new)
    goto(state, Phase.STORM)


# --- Decision specs ----------------------------------------------------------------------------

DECISION_SPECS: Final[tuple[DecisionSpec, ...]] = (
    DecisionSpec(
        DecisionKind.REORGANIZE,
        REORGANIZE_CODEC,
        legal_reorganize,
        apply_reorganize,
        table_position=26,
        rules="PROP-1",
        summary="place a property token on the controlled target, or keep it",
    ),
)
