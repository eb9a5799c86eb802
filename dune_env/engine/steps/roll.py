"""Step 1, Roll (ROLL-1..5), and the abilities used right after it (HAR-1, TLX-1)."""

from __future__ import annotations

from typing import Final

from ..constants import (
    FACTION_DIE_SYMBOLS,
    NUM_DICE,
    SHAI_HULUD_FACE,
    Die,
    Faction,
    KanlyFace,
)
from ..core import ask, emit, goto, legal_yes_no, runner
from ..decision_spec import (
    DICE_MASK_FIELD,
    FACTION_FIELD,
    YES_NO,
    DecisionKind,
    DecisionSpec,
    OptionBlock,
    OptionCodec,
)
from ..events import EventKind
from ..state import GameState, Phase
from .turn import roll_unfixed

SPICE_BIT: Final = 1 << Die.SPICE

# FIX_DICE: a bit mask of the dice to fix (bit i = die i; the mask 0 is never legal).
FIX_DICE_CODEC: Final = OptionCodec(OptionBlock("fix", "fix dice {dice}", (DICE_MASK_FIELD,)))
# AXOLOTL_SYMBOL: the faction id of the chosen die symbol.
AXOLOTL_CODEC: Final = OptionCodec(OptionBlock("symbol", "symbol {faction}", (FACTION_FIELD,)))


def unfixed_mask(state: GameState) -> int:
    fixed = state.dice_fixed
    return sum(1 << d for d in range(NUM_DICE) if not fixed[d])


@runner(Phase.ROLL)
def run_roll(state: GameState) -> None:
    ask(state, DecisionKind.FIX_DICE, state.active_seat)


def legal_fix(state: GameState) -> list[int]:
    """ROLL-2..4: non-empty subsets of the just-rolled dice; a Shai-Hulud must be fixed unless a
    Thumper is discarded (then another die is fixed), never when it was the only die rolled."""
    rolled = unfixed_mask(state)
    worm = bool(rolled & SPICE_BIT) and state.dice_faces[Die.SPICE] == SHAI_HULUD_FACE
    thumper_ok = worm and state.thumpers[state.active_faction] > 0 and rolled != SPICE_BIT
    if worm and not thumper_ok:
        return _WITH_SPICE[rolled]
    return _SUBSETS[rolled]


def _subsets(mask: int) -> list[int]:
    """The non-empty subsets of `mask`, ascending."""
    return [s for s in range(1, mask + 1) if s & mask == s]


# Shared, read-only tables: every non-empty subset of each mask, and those keeping the spice die.
_SUBSETS: Final[tuple[list[int], ...]] = tuple(_subsets(m) for m in range(1 << NUM_DICE))
_WITH_SPICE: Final[tuple[list[int], ...]] = tuple([s for s in x if s & SPICE_BIT] for x in _SUBSETS)


def apply_fix(state: GameState, option: int) -> None:
    active = state.active_faction
    rolled = unfixed_mask(state)
    worm = bool(rolled & SPICE_BIT) and state.dice_faces[Die.SPICE] == SHAI_HULUD_FACE
    emit(state, EventKind.FIX, active, option)
    if worm and not option & SPICE_BIT:  # ROLL-4: a Thumper goes back to the common supply
        state.thumpers[active] -= 1
        state.thumper_supply += 1
        emit(state, EventKind.THUMPER_USED, active)
    for die in range(NUM_DICE):
        if option >> die & 1:
            state.dice_fixed[die] = True
    if all(state.dice_fixed):
        end_roll(state)
    else:
        roll_unfixed(state)  # ROLL-2, ROLL-5: only unfixed dice are rerolled


def end_roll(state: GameState) -> None:
    """SPICE-1: from the end of step 1 the pool holds the spice die's value (0 on a worm)."""
    face = state.dice_faces[Die.SPICE]
    state.pool = 0 if face == SHAI_HULUD_FACE else face + 1
    goto(state, Phase.PITER)


@runner(Phase.PITER)
def run_piter(state: GameState) -> None:
    """HAR-1: ask the Harkonnen whether to turn the Kanly die to Poison."""
    if (
        state.active_faction == Faction.HARKONNEN
        and state.dice_faces[Die.KANLY] != KanlyFace.POISON
    ):
        ask(state, DecisionKind.PITER_DE_VRIES, state.active_seat)
    else:
        goto(state, Phase.AXOLOTL)


def apply_piter(state: GameState, option: int) -> None:
    """HAR-1: after the roll step the Harkonnen may turn the Kanly die to Poison."""
    if option:
        state.dice_faces[Die.KANLY] = int(KanlyFace.POISON)
        emit(state, EventKind.PITER, state.active_faction)
    goto(state, Phase.AXOLOTL)


@runner(Phase.AXOLOTL)
def run_axolotl(state: GameState) -> None:
    """TLX-1: ask the Tleilax for the symbol it recruits with this turn."""
    if state.active_faction == Faction.TLEILAX:
        ask(state, DecisionKind.AXOLOTL_SYMBOL, state.active_seat)
    else:
        goto(state, Phase.ALLY_OFFER)


def legal_axolotl(state: GameState) -> list[int]:
    """TLX-1: any faction symbol of the faction dice."""
    return sorted(FACTION_DIE_SYMBOLS)


def apply_axolotl(state: GameState, option: int) -> None:
    state.axolotl_symbol = option
    emit(state, EventKind.AXOLOTL, option)
    goto(state, Phase.ALLY_OFFER)


# --- Decision specs ----------------------------------------------------------------------------

DECISION_SPECS: Final[tuple[DecisionSpec, ...]] = (
    DecisionSpec(
        DecisionKind.FIX_DICE,
        FIX_DICE_CODEC,
        legal_fix,
        apply_fix,
        table_position=4,
        rules="ROLL-2..4",
        summary="the just-rolled dice to fix",
    ),
    DecisionSpec(
        DecisionKind.PITER_DE_VRIES,
        YES_NO,
        legal_yes_no,
        apply_piter,
        table_position=5,
        rules="HAR-1",
        summary="turn the Kanly die to Poison",
    ),
    DecisionSpec(
        DecisionKind.AXOLOTL_SYMBOL,
        AXOLOTL_CODEC,
        legal_axolotl,
        apply_axolotl,
        table_position=6,
        rules="TLX-1",
        summary="the die symbol the Tleilax recruits with",
    ),
)
