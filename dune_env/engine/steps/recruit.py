"""Step 3, Recruit (RECRUIT-1..4, ATR-2, FRE-1, TLX-1..3, COR-1, SMG-1), and the ghola (TLX-5)."""

from __future__ import annotations

from typing import Final

from ..constants import (
    CARD,
    FACTION_DICE,
    FACTION_DIE_SYMBOLS,
    NO_ONE,
    RESERVE,
    SYMBOL_FACTIONS,
    Faction,
    UnitType,
)
from ..core import ask, ask_known, emit, goto, legal_yes_no, runner
from ..decision_spec import YES_NO, DecisionKind, DecisionSpec, OptionBlock, OptionCodec
from ..events import EventKind
from ..queries import spend, spendable
from ..state import GameState, Phase, uidx

# RECRUIT: one die (or two, COR-1) at a time, or stop (RECRUIT-3).
RECRUIT_CODEC: Final = OptionCodec(
    OptionBlock("stop", "stop recruiting"),
    OptionBlock("unit", "recruit a unit"),
    OptionBlock("leader", "recruit a leader"),
    OptionBlock("sardaukar", "recruit a Sardaukar"),
)
RECRUIT_STOP: Final = RECRUIT_CODEC.offset("stop")
RECRUIT_UNIT: Final = RECRUIT_CODEC.offset("unit")
RECRUIT_LEADER: Final = RECRUIT_CODEC.offset("leader")
RECRUIT_ELITE: Final = RECRUIT_CODEC.offset("sardaukar")


def active_symbol(state: GameState) -> int:
    """The symbol the active player recruits with (TLX-1: the axolotl symbol)."""
    active = state.active_faction
    if active == Faction.TLEILAX:
        return state.axolotl_symbol
    return active if active in SYMBOL_FACTIONS else NO_ONE


def begin_recruit(state: GameState, to_ally: list[int] | None = None) -> None:
    """Assign each faction die to the active player or the ally (each die used once)."""
    from .ally import ally_symbol

    symbols = [FACTION_DIE_SYMBOLS[state.dice_faces[d]] for d in FACTION_DICE]
    mine = active_symbol(state)
    theirs = ally_symbol(state)
    given = set(to_ally or ())
    if state.active_faction == Faction.SMUGGLERS:  # SMG-1: no recruit step
        mine = NO_ONE
    state.recruit_dice = [d for d in FACTION_DICE if symbols[d] == mine and d not in given]
    state.ally_dice = [
        d for d in FACTION_DICE if symbols[d] == theirs and (d in given or theirs != mine)
    ]
    goto(state, Phase.RECRUIT_ACTIVE)


def _recruiter(state: GameState) -> int:
    return state.active_faction if state.phase == Phase.RECRUIT_ACTIVE else state.ally


def _unit_cost(faction: int, own_turn: bool) -> int:
    """FRE-1: a Fremen unit costs two symbols in its own turn, one as an ally."""
    return 2 if faction == Faction.FREMEN and own_turn else 1


def legal_recruit(state: GameState) -> list[int]:
    faction = _recruiter(state)
    own_turn = state.phase == Phase.RECRUIT_ACTIVE
    dice = len(state.recruit_dice)
    units = state.units[faction]
    options = [RECRUIT_STOP]
    if dice >= _unit_cost(faction, own_turn) and units[uidx(RESERVE, UnitType.REGULAR)] > 0:
        options.append(RECRUIT_UNIT)
    if (
        own_turn  # RECRUIT-2: the ally cannot recruit its leader
        and dice >= 1
        and state.leaders[faction][1] > 0
        and not (faction == Faction.ATREIDES and state.leader_recruited)  # ATR-2
    ):
        options.append(RECRUIT_LEADER)
    if dice >= 2 and units[uidx(RESERVE, UnitType.ELITE)] > 0:  # COR-1
        options.append(RECRUIT_ELITE)
    return options


@runner(Phase.RECRUIT_ACTIVE, Phase.RECRUIT_ALLY)
def run_recruit(state: GameState) -> None:
    if state.recruit_dice:
        options = legal_recruit(state)
        if len(options) > 1:
            seat = state.faction_seat[_recruiter(state)]
            ask_known(state, DecisionKind.RECRUIT, seat, options)
            return
    _next_recruiter(state)


def _next_recruiter(state: GameState) -> None:
    if state.phase == Phase.RECRUIT_ACTIVE:
        state.recruit_dice = state.ally_dice
        state.ally_dice = []
        ally = state.ally
        if ally != NO_ONE and ally != Faction.SMUGGLERS and state.recruit_dice:
            goto(state, Phase.RECRUIT_ALLY)
            return
    state.recruit_dice = []
    state.ghola_declined = False
    goto(state, Phase.GHOLA)


def apply_recruit(state: GameState, option: int) -> None:
    faction = _recruiter(state)
    own_turn = state.phase == Phase.RECRUIT_ACTIVE
    if option == RECRUIT_STOP:  # RECRUIT-3: optional, die by die
        _next_recruiter(state)
        return
    if option == RECRUIT_UNIT:
        cost = _unit_cost(faction, own_turn)
        state.move_units(faction, UnitType.REGULAR, RESERVE, CARD)
    elif option == RECRUIT_ELITE:
        cost = 2
        state.move_units(faction, UnitType.ELITE, RESERVE, CARD)
    else:
        cost = 1
        state.leaders[faction][1] -= 1
        state.leaders[faction][0] += 1
        state.leader_recruited = True
    for die in state.recruit_dice[:cost]:
        state.dice_used[die] = True
    del state.recruit_dice[:cost]
    emit(state, EventKind.RECRUIT, faction, option)


# --- TLX-5 Ghola (CL-9: after the recruit step and before each of the Tleilax's battles) ------


def ghola_possible(state: GameState) -> bool:
    """TLX-5: the Tleilax leader is in the reserve and 1 spice can be paid."""
    return (
        state.active_faction == Faction.TLEILAX
        and not state.ghola_declined
        and state.leaders[Faction.TLEILAX][1] > 0
        and spendable(state) >= 1
    )


@runner(Phase.GHOLA)
def run_ghola(state: GameState) -> None:
    if ghola_possible(state):
        ask(state, DecisionKind.GHOLA, state.active_seat)
    else:
        goto(state, Phase.KANLY)


def apply_ghola(state: GameState, option: int) -> None:
    """TLX-5: pay 1 spice, the leader from the reserve to the card."""
    if option:
        spend(state, 1)
        state.leaders[Faction.TLEILAX][1] -= 1
        state.leaders[Faction.TLEILAX][0] += 1
        emit(state, EventKind.GHOLA, Faction.TLEILAX)
    else:
        state.ghola_declined = True
    if state.phase == Phase.GHOLA:
        goto(state, Phase.KANLY)
    else:  # BATTLE_GHOLA
        goto(state, Phase.BATTLE_FORTRESS)


# --- Decision specs ----------------------------------------------------------------------------

DECISION_SPECS: Final[tuple[DecisionSpec, ...]] = (
    DecisionSpec(
        DecisionKind.RECRUIT,
        RECRUIT_CODEC,
        legal_recruit,
        apply_recruit,
        table_position=10,
        rules="RECRUIT-1..3, COR-1",
        summary="recruit with the next die, or stop",
    ),
    DecisionSpec(
        DecisionKind.GHOLA,
        YES_NO,
        legal_yes_no,
        apply_ghola,
        table_position=11,
        rules="TLX-5",
        summary="pay 1 spice to move the leader from the reserve to the card",
    ),
)
