"""Step 4, Kanly (KANLY-1..5, BG-3, FRE-2)."""

from __future__ import annotations

from typing import Final

from ..constants import NO_ONE, NUM_FACTIONS, NUM_UNIT_TYPES, RESERVE, Die, KanlyFace
from ..core import ask_known, emit, goto, runner
from ..decision_spec import (
    FACTION_FIELD,
    REGION_FIELD,
    UNIT_TYPE_FIELD,
    DecisionKind,
    DecisionSpec,
    OptionBlock,
    OptionCodec,
)
from ..events import EventKind
from ..queries import REGIONS, in_storm, is_enemy
from ..rules import kanly_protected
from ..state import GameState, Phase

# KANLY: no effect, take the token shown (KANLY-3..5), or remove one unit (KANLY-1).
KANLY_CODEC: Final = OptionCodec(
    OptionBlock("none", "no Kanly"),
    OptionBlock("take", "take the token"),
    OptionBlock(
        "kill",
        "kill {faction} {unit_type} in {region}",
        (REGION_FIELD, FACTION_FIELD, UNIT_TYPE_FIELD),
    ),
)
KANLY_NONE: Final = KANLY_CODEC.offset("none")
KANLY_TAKE: Final = KANLY_CODEC.offset("take")
_KILL_BASE: Final = KANLY_CODEC.offset("kill")
_KILL_VALUES: Final = KANLY_CODEC.value_table


def kanly_kill_option(region: int, faction: int, unit_type: int) -> int:
    """KANLY_CODEC.encode("kill", region, faction, unit_type), unchecked."""
    return _KILL_BASE + (region * NUM_FACTIONS + faction) * NUM_UNIT_TYPES + unit_type


def decode_kanly_kill(option: int) -> tuple[int, ...]:
    """(region, faction, unit_type) of a "kill" option."""
    return _KILL_VALUES[option]


_KILL_FACES: Final = (KanlyFace.POISON, KanlyFace.CRYSKNIFE, KanlyFace.HUNTER_SEEKER)


def legal_kanly(state: GameState) -> list[int]:
    face = state.dice_faces[Die.KANLY]
    active = state.active_faction
    options = [KANLY_NONE]
    if face in _KILL_FACES:
        targets = [
            (faction, state.units[faction])
            for faction in range(NUM_FACTIONS)
            if state.faction_seat[faction] != NO_ONE
            and is_enemy(state, faction)
            and not kanly_protected(state, face, faction)
        ]
        for region in REGIONS:
            if in_storm(state, region):  # KANLY-2
                continue
            base = region * NUM_UNIT_TYPES
            for faction, units in targets:
                for unit_type in range(NUM_UNIT_TYPES):
                    if units[base + unit_type] > 0:
                        options.append(kanly_kill_option(region, faction, unit_type))
        options.sort()
    elif face == KanlyFace.SNOOPER:
        if state.snooper_holder != active:
            options.append(KANLY_TAKE)
    elif face == KanlyFace.SHIELD:
        if state.shield_holder != active:
            options.append(KANLY_TAKE)
    elif state.thumpers[active] == 0 and state.thumper_supply > 0:  # KANLY-5
        options.append(KANLY_TAKE)
    return options


@runner(Phase.KANLY)
def run_kanly(state: GameState) -> None:
    options = legal_kanly(state)
    if len(options) > 1:
        ask_known(state, DecisionKind.KANLY, state.active_seat, options)
    else:
        goto(state, Phase.LAND_START)


def apply_kanly(state: GameState, option: int) -> None:
    face = state.dice_faces[Die.KANLY]
    active = state.active_faction
    if option == KANLY_TAKE:
        if face == KanlyFace.SNOOPER:  # KANLY-4
            previous, state.snooper_holder = state.snooper_holder, active
        elif face == KanlyFace.SHIELD:
            previous, state.shield_holder = state.shield_holder, active
        else:  # KANLY-5
            previous = NO_ONE
            state.thumper_supply -= 1
            state.thumpers[active] += 1
        emit(state, EventKind.KANLY_TAKE, face, active, previous)
    elif option != KANLY_NONE:  # KANLY-1: to its owner's reserve
        region, faction, unit_type = decode_kanly_kill(option)
        state.move_units(faction, unit_type, region, RESERVE)
        emit(state, EventKind.KANLY_KILL, face, region, faction, unit_type)
    goto(state, Phase.LAND_START)


# --- Decision specs ----------------------------------------------------------------------------

DECISION_SPECS: Final[tuple[DecisionSpec, ...]] = (
    DecisionSpec(
        DecisionKind.KANLY,
        KANLY_CODEC,
        legal_kanly,
        apply_kanly,
        table_position=12,
        rules="KANLY-1..5",
        summary="the Kanly die's effect",
    ),
)
