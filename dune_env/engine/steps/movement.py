"""Step 6, Movement (MOVE-1..4, PROP-4, FRE-3, SMG-2)."""

from __future__ import annotations

from typing import Final

from ..constants import NUM_UNIT_TYPES, Die, Faction
from ..core import ask, ask_known, emit, goto, runner
from ..decision_spec import (
    REGION_CHOICE,
    REGION_FIELD,
    UNIT_TYPE_FIELD,
    DecisionKind,
    DecisionSpec,
    OptionBlock,
    OptionCodec,
    OptionField,
)
from ..events import EventKind
from ..queries import MAP, POLAR, REGIONS, in_storm, occupied
from ..rules import can_move
from ..state import GameState, Phase, uidx
from .battle import begin_battles

# MOVE: stop, or one unit (from region, unit type) into the target region.
MOVE_CODEC: Final = OptionCodec(
    OptionBlock("stop", "stop moving"),
    OptionBlock(
        "move",
        "move {unit_type} from {from_region}",
        (OptionField("from_region", REGION_FIELD.labels), UNIT_TYPE_FIELD),
    ),
)
MOVE_STOP: Final = MOVE_CODEC.offset("stop")
_MOVE_BASE: Final = MOVE_CODEC.offset("move")
_MOVE_VALUES: Final = MOVE_CODEC.value_table


def move_option(from_region: int, unit_type: int) -> int:
    """MOVE_CODEC.encode("move", from_region, unit_type), unchecked."""
    return _MOVE_BASE + from_region * NUM_UNIT_TYPES + unit_type


def decode_move(option: int) -> tuple[int, ...]:
    """(from_region, unit_type) of a "move" option."""
    return _MOVE_VALUES[option]


def die_sector(state: GameState) -> int:
    return state.dice_faces[Die.REGION] + 1


def running_rat_allowed(state: GameState) -> bool:
    """SMG-2 / CL-12: for the Smugglers' turn and for an active player allied with them."""
    return state.active_faction == Faction.SMUGGLERS or state.ally == Faction.SMUGGLERS


def legal_target(state: GameState) -> list[int]:
    """MOVE-1: a region of the die's sector or the Polar Cap, never in the storm; SMG-2: any
    unoccupied region out of the storm."""
    options = {r for r in MAP.regions_in_sector(die_sector(state)) if not in_storm(state, r)}
    options.add(POLAR)
    if running_rat_allowed(state):
        options.update(r for r in REGIONS if not in_storm(state, r) and not occupied(state, r))
    return sorted(options)


@runner(Phase.MOVE_TARGET)
def run_target(state: GameState) -> None:
    ask(state, DecisionKind.MOVE_TARGET, state.active_seat)


def apply_target(state: GameState, option: int) -> None:
    state.target = option
    emit(state, EventKind.TARGET, option)
    goto(state, Phase.MOVE_ACTIVE)


def _mover(state: GameState) -> int:
    return state.active_faction if state.phase == Phase.MOVE_ACTIVE else state.ally


def legal_move(state: GameState) -> list[int]:
    faction = _mover(state)
    target = state.target
    units = state.units[faction]
    options = [MOVE_STOP]
    for region in REGIONS:
        if units[uidx(region, 0)] + units[uidx(region, 1)] == 0:
            continue
        if not can_move(state, faction, region, target):  # MOVE-2/4, PROP-4, FRE-3
            continue
        for unit_type in range(NUM_UNIT_TYPES):
            if units[uidx(region, unit_type)] > 0:
                options.append(move_option(region, unit_type))
    return options


@runner(Phase.MOVE_ACTIVE, Phase.MOVE_ALLY)
def run_move(state: GameState) -> None:
    options = legal_move(state)
    if len(options) > 1:
        ask_known(state, DecisionKind.MOVE, state.faction_seat[_mover(state)], options)
    else:
        _end_moves(state)


def _end_moves(state: GameState) -> None:
    if state.phase == Phase.MOVE_ACTIVE and state.ally >= 0:
        goto(state, Phase.MOVE_ALLY)  # MOVE-3: then the ally
    else:
        begin_battles(state)


def apply_move(state: GameState, option: int) -> None:
    if option == MOVE_STOP:
        _end_moves(state)
        return
    faction = _mover(state)
    region, unit_type = decode_move(option)
    state.move_units(faction, unit_type, region, state.target)
    emit(state, EventKind.MOVE, faction, region, state.target, unit_type)


# --- Decision specs ----------------------------------------------------------------------------

DECISION_SPECS: Final[tuple[DecisionSpec, ...]] = (
    DecisionSpec(
        DecisionKind.MOVE_TARGET,
        REGION_CHOICE,
        legal_target,
        apply_target,
        table_position=18,
        rules="MOVE-1, SMG-2",
        summary="the target region of the movement",
    ),
    DecisionSpec(
        DecisionKind.MOVE,
        MOVE_CODEC,
        legal_move,
        apply_move,
        table_position=19,
        rules="MOVE-2, MOVE-3",
        summary="move one unit into the target, or stop",
    ),
)
