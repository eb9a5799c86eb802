"""Step 7, Battle (BATTLE-1..7, ATR-1, ATR-3, HAR-2, GLD-3, TLX-4, TLX-5)."""

from __future__ import annotations

from typing import Final

from ..constants import (
    CARD,
    FACTION_DICE,
    FACTION_DIE_SYMBOLS,
    NO_ONE,
    NUM_FACTIONS,
    NUM_UNIT_TYPES,
    RESERVE,
    Faction,
    Token,
    UnitType,
    leaders_strength,
    unit_strength,
)
from ..core import ask, ask_faction, emit, goto, legal_yes_no, runner
from ..decision_spec import (
    FACTION_FIELD,
    REGION_CHOICE,
    UNIT_TYPE_FIELD,
    YES_NO,
    DecisionKind,
    DecisionSpec,
    OptionBlock,
    OptionCodec,
)
from ..events import EventKind
from ..queries import factions_in, is_enemy, present, seat_order_ccw, spend, spendable
from ..records import LastBattle
from ..rules import (  # the battle queries are public rules (re-exported here for the steps)
    ATTACKER,
    DEFENDER,
    attacker_side,
    battle_regions,
    defender_of,
    defender_side,
    side_factions,
    side_leader_owners,
)
from ..state import GameState, Phase, uidx
from .recruit import ghola_possible

_UNIT_FIELDS: Final = (FACTION_FIELD, UNIT_TYPE_FIELD)
# FORTRESS_VICTIM: the attacking unit (owner faction, unit type) the fortress removes.
VICTIM_CODEC: Final = OptionCodec(
    OptionBlock("remove", "remove {faction} {unit_type}", _UNIT_FIELDS)
)
# FACE_DANCER: stop, or the enemy unit (owner faction, unit type) replaced.
FACE_DANCER_CODEC: Final = OptionCodec(
    OptionBlock("stop", "no more face dancers"),
    OptionBlock("replace", "replace {faction} {unit_type}", _UNIT_FIELDS),
)
# BID: done, one more unit (owner faction, unit type) or one more leader token of a faction.
BID_CODEC: Final = OptionCodec(
    OptionBlock("done", "bid done"),
    OptionBlock("unit", "commit {faction} {unit_type}", _UNIT_FIELDS),
    OptionBlock("leader", "commit leader of {faction}", (FACTION_FIELD,)),
)
FACE_DANCER_STOP: Final = FACE_DANCER_CODEC.offset("stop")
BID_DONE: Final = BID_CODEC.offset("done")
BID_LEADER_BASE: Final = BID_CODEC.offset("leader")
_UNIT_BASE: Final = BID_CODEC.offset("unit")
_VICTIM_VALUES: Final = VICTIM_CODEC.value_table
_FACE_DANCER_VALUES: Final = FACE_DANCER_CODEC.value_table
_BID_VALUES: Final = BID_CODEC.value_table
if FACE_DANCER_CODEC.offset("replace") != _UNIT_BASE:  # pragma: no cover - unit_option serves both
    raise AssertionError("FACE_DANCER and BID must pack units alike")


def unit_option(faction: int, unit_type: int) -> int:
    """BID_CODEC.encode("unit", ...) = FACE_DANCER_CODEC.encode("replace", ...), unchecked."""
    return _UNIT_BASE + faction * NUM_UNIT_TYPES + unit_type


def decode_unit(option: int) -> tuple[int, ...]:
    """(faction, unit_type) of a BID "unit" or FACE_DANCER "replace" option."""
    return _BID_VALUES[option]


def victim_option(faction: int, unit_type: int) -> int:
    """VICTIM_CODEC.encode("remove", faction, unit_type), unchecked."""
    return faction * NUM_UNIT_TYPES + unit_type


def bid_leader_option(faction: int) -> int:
    """BID_CODEC.encode("leader", faction), unchecked."""
    return BID_LEADER_BASE + faction


def begin_battles(state: GameState) -> None:
    goto(state, Phase.BATTLE_SELECT)


@runner(Phase.BATTLE_SELECT)
def run_select(state: GameState) -> None:
    if battle_regions(state):
        ask(state, DecisionKind.BATTLE_ORDER, state.active_seat)
    else:
        goto(state, Phase.PROPERTY)


def apply_order(state: GameState, option: int) -> None:
    state.battle_region = option
    state.battle_defender = defender_of(state, option)
    state.battle_fortress_stage = 0
    state.face_dancer_done = False
    state.ghola_declined = False
    state.lent = [False] * NUM_FACTIONS
    state.bid_units = [[0] * (NUM_FACTIONS * NUM_UNIT_TYPES) for _ in (0, 1)]
    state.bid_leaders = [[0] * NUM_FACTIONS for _ in (0, 1)]
    emit(state, EventKind.BATTLE_START, option, state.active_faction, state.battle_defender)
    goto(state, Phase.BATTLE_GHOLA)


def _end_battle(state: GameState) -> None:
    state.battle_region = NO_ONE
    state.battle_defender = NO_ONE
    state.lend_queue = []
    goto(state, Phase.BATTLE_SELECT)


# --- TLX-5 before each battle ---------------------------------------------------------------


@runner(Phase.BATTLE_GHOLA)
def run_battle_ghola(state: GameState) -> None:
    """TLX-5 / CL-9: the ghola is offered before each Tleilax battle."""
    if ghola_possible(state):
        ask(state, DecisionKind.GHOLA, state.active_seat)
    else:
        goto(state, Phase.BATTLE_FORTRESS)


# --- BATTLE-3 / HAR-2 -----------------------------------------------------------------------


@runner(Phase.BATTLE_FORTRESS)
def run_fortress(state: GameState) -> None:
    """BATTLE-3 and HAR-2: the fortress takes an attacking unit unless the Harkonnen infiltrate."""
    region = state.battle_region
    if state.region_token[region] != Token.FORTRESS or state.battle_fortress_stage == 2:
        goto(state, Phase.BATTLE_FACE_DANCERS)
    elif state.active_faction == Faction.HARKONNEN and state.battle_fortress_stage == 0:
        ask(state, DecisionKind.INFILTRATION, state.active_seat)
    else:
        ask(state, DecisionKind.FORTRESS_VICTIM, state.active_seat)


def apply_infiltration(state: GameState, option: int) -> None:
    """HAR-2: ignore the fortress (no unit lost, the fortress stays)."""
    if option:
        state.battle_fortress_stage = 2
        emit(state, EventKind.INFILTRATION, state.battle_region)
    else:
        state.battle_fortress_stage = 1


def legal_victim(state: GameState) -> list[int]:
    """BATTLE-3: one attacking unit, the active player's or the ally's."""
    region = state.battle_region
    options = []
    for faction in attacker_side(state):
        for unit_type in range(NUM_UNIT_TYPES):
            if state.units[faction][uidx(region, unit_type)] > 0:
                options.append(victim_option(faction, unit_type))
    return sorted(options)


def apply_victim(state: GameState, option: int) -> None:
    region = state.battle_region
    faction, unit_type = _VICTIM_VALUES[option]
    state.move_units(faction, unit_type, region, RESERVE)
    state.region_token[region] = NO_ONE
    state.token_supply[Token.FORTRESS] += 1
    state.battle_fortress_stage = 2
    emit(state, EventKind.FORTRESS, region, faction, unit_type)
    if not present(state, state.active_faction, region):
        # The fortress took the active player's last unit here.  Default: no battle is left.
        # `battle_survives_fortress`: the battle was decided before the fortress acted and
        # goes on (the ally's units, lent leaders and the attacker's leaders may fight).
        if not state.config.battle_survives_fortress:
            _end_battle(state)


# --- TLX-4 face dancers ------------------------------------------------------------------------


def _face_dancer_dice(state: GameState, faction: int) -> list[int]:
    return [
        d
        for d in FACTION_DICE
        if not state.dice_used[d] and FACTION_DIE_SYMBOLS[state.dice_faces[d]] == faction
    ]


def legal_face_dancer(state: GameState) -> list[int]:
    """TLX-4: stop, or an enemy unit present to replace (by an unused die or 1 spice)."""
    region = state.battle_region
    tleilax = Faction.TLEILAX
    options = [FACE_DANCER_STOP]
    if state.units[tleilax][uidx(RESERVE, UnitType.REGULAR)] == 0:
        return options
    by_spice = state.config.face_dancers == "spice"
    if by_spice and spendable(state) < 1:
        return options
    for faction in factions_in(state, region):
        if not is_enemy(state, faction):
            continue
        if not by_spice and not _face_dancer_dice(state, faction):
            continue
        for unit_type in range(NUM_UNIT_TYPES):
            if state.units[faction][uidx(region, unit_type)] > 0:
                options.append(unit_option(faction, unit_type))
    return options


@runner(Phase.BATTLE_FACE_DANCERS)
def run_face_dancers(state: GameState) -> None:
    if (
        state.active_faction == Faction.TLEILAX
        and not state.face_dancer_done
        and len(legal_face_dancer(state)) > 1
    ):
        ask(state, DecisionKind.FACE_DANCER, state.active_seat)
    else:
        begin_lending(state)


def apply_face_dancer(state: GameState, option: int) -> None:
    """TLX-4: the enemy unit to its reserve, a Tleilax unit from the reserve in."""
    region = state.battle_region
    if option == FACE_DANCER_STOP:
        state.face_dancer_done = True
        return
    faction, unit_type = _FACE_DANCER_VALUES[option]
    if state.config.face_dancers == "spice":
        spend(state, 1)
    else:
        state.dice_used[_face_dancer_dice(state, faction)[0]] = True  # each die once
    state.move_units(faction, unit_type, region, RESERVE)
    state.move_units(Faction.TLEILAX, UnitType.REGULAR, RESERVE, region)
    emit(state, EventKind.FACE_DANCER, region, faction, unit_type)


# --- BATTLE-4 leaders lent ----------------------------------------------------------------------


def begin_lending(state: GameState) -> None:
    region = state.battle_region
    if not any(is_enemy(state, f) for f in factions_in(state, region)):
        _end_battle(state)  # face dancers replaced every enemy: nothing left to fight
        return
    state.battle_defender = defender_of(state, region)
    queue = []
    ally = state.ally
    if ally != NO_ONE and state.leaders[ally][0] > 0:
        queue.append(ally)  # may lend even with no units in the region
    helpers = set(defender_side(state)) - {state.battle_defender}
    for seat in seat_order_ccw(state, state.active_seat):
        faction = state.seat_faction[seat]
        if faction in helpers and state.leaders[faction][0] > 0:
            queue.append(faction)
    state.lend_queue = queue
    goto(state, Phase.BATTLE_LEND)


@runner(Phase.BATTLE_LEND)
def run_lend(state: GameState) -> None:
    if state.lend_queue:
        ask_faction(state, DecisionKind.LEND_LEADER, state.lend_queue[0])
    else:
        goto(state, Phase.BATTLE_BID_ATTACKER)


def apply_lend(state: GameState, option: int) -> None:
    faction = state.lend_queue.pop(0)
    state.lent[faction] = bool(option)
    emit(state, EventKind.LEND, faction, option)


# --- BATTLE-5 hidden bids ---------------------------------------------------------------------


def _side(state: GameState) -> int:
    return ATTACKER if state.phase == Phase.BATTLE_BID_ATTACKER else DEFENDER


def legal_bid(state: GameState) -> list[int]:
    """Depends only on this side's pieces and this side's own bid so far: the other side's
    bid is never read (BATTLE-5)."""
    side = _side(state)
    region = state.battle_region
    bid_units = state.bid_units[side]
    bid_leaders = state.bid_leaders[side]
    options = [BID_DONE]
    for faction in side_factions(state, side):
        units = state.units[faction]
        for unit_type in range(NUM_UNIT_TYPES):
            if bid_units[faction * NUM_UNIT_TYPES + unit_type] < units[uidx(region, unit_type)]:
                options.append(unit_option(faction, unit_type))
    for faction in side_leader_owners(state, side):
        if bid_leaders[faction] < state.leaders[faction][0]:
            options.append(bid_leader_option(faction))
    return sorted(options)


@runner(Phase.BATTLE_BID_ATTACKER, Phase.BATTLE_BID_DEFENDER)
def run_bid(state: GameState) -> None:
    if _side(state) == ATTACKER:
        ask(state, DecisionKind.BID, state.active_seat)
    else:
        ask_faction(state, DecisionKind.BID, state.battle_defender)


def apply_bid(state: GameState, option: int) -> None:
    side = _side(state)
    if option == BID_DONE:
        if side == ATTACKER:
            goto(state, Phase.BATTLE_BID_DEFENDER)
        else:
            resolve_battle(state)
        return
    values = _BID_VALUES[option]
    if option >= BID_LEADER_BASE:
        state.bid_leaders[side][values[0]] += 1
    else:
        faction, unit_type = values
        state.bid_units[side][faction * NUM_UNIT_TYPES + unit_type] += 1


def bid_strength(state: GameState, side: int) -> int:
    """BATTLE-6: committed units (DEF-8) plus committed leaders (ATR-1)."""
    total = 0
    for i, n in enumerate(state.bid_units[side]):
        if n:
            total += n * unit_strength(i // NUM_UNIT_TYPES, i % NUM_UNIT_TYPES)
    for faction, n in enumerate(state.bid_leaders[side]):
        total += leaders_strength(faction, n)
    return total


def resolve_battle(state: GameState) -> None:
    """BATTLE-6/7 with ATR-3 (honourable duel) and GLD-3 (evacuation)."""
    region = state.battle_region
    strengths = (bid_strength(state, ATTACKER), bid_strength(state, DEFENDER))
    winner = ATTACKER if strengths[ATTACKER] > strengths[DEFENDER] else DEFENDER
    for side in (ATTACKER, DEFENDER):
        emit(
            state,
            EventKind.BATTLE_BIDS,
            side,
            strengths[side],
            *state.bid_units[side],
            *state.bid_leaders[side],
        )
    emit(state, EventKind.BATTLE_RESULT, region, strengths[0], strengths[1], winner)
    sides = (attacker_side(state), defender_side(state))  # before any unit leaves
    for side in (ATTACKER, DEFENDER):
        _side_losses(state, side, side == winner, sides[side])
    state.last_battle = LastBattle(
        region=region,
        attacker=state.active_faction,
        defender=state.battle_defender,
        attacker_strength=strengths[ATTACKER],
        defender_strength=strengths[DEFENDER],
        winner_side=winner,
        attacker_units=tuple(state.bid_units[ATTACKER]),
        defender_units=tuple(state.bid_units[DEFENDER]),
        attacker_leaders=tuple(state.bid_leaders[ATTACKER]),
        defender_leaders=tuple(state.bid_leaders[DEFENDER]),
    )
    state.bid_units = [[0] * (NUM_FACTIONS * NUM_UNIT_TYPES) for _ in (0, 1)]
    state.bid_leaders = [[0] * NUM_FACTIONS for _ in (0, 1)]
    state.lent = [False] * NUM_FACTIONS
    _end_battle(state)


def _side_losses(state: GameState, side: int, won: bool, factions: list[int]) -> None:
    """BATTLE-7 for one side: committed units and leaders are lost; a losing side's other
    units in the region too.  ATR-3 sends a duel winner's committed units to the card, GLD-3
    the Guild's uncommitted losses."""
    region = state.battle_region
    duel_factions = set()
    # ATR-3: the Atreides fought on the winning side and both sides committed a leader, whoever
    # owns it (a leader lent by the Atreides' ally counts: "you and the opponent used a leader").
    if (
        won
        and int(Faction.ATREIDES) in factions
        and sum(state.bid_leaders[side]) > 0
        and sum(state.bid_leaders[1 - side]) > 0
    ):
        duel_factions.add(int(Faction.ATREIDES))
        if side == ATTACKER and state.ally == Faction.ATREIDES:
            duel_factions.add(state.active_faction)  # as the ally: the active's units too
    for faction in factions:
        for unit_type in range(NUM_UNIT_TYPES):
            committed = state.bid_units[side][faction * NUM_UNIT_TYPES + unit_type]
            if committed:
                dest = CARD if faction in duel_factions else RESERVE
                state.move_units(faction, unit_type, region, dest, committed)
                emit(state, EventKind.LOSS, faction, region, unit_type, committed, dest)
            if not won:
                rest = state.units[faction][uidx(region, unit_type)]
                if rest:
                    dest = CARD if faction == Faction.GUILD else RESERVE  # GLD-3
                    state.move_units(faction, unit_type, region, dest, rest)
                    emit(state, EventKind.LOSS, faction, region, unit_type, rest, dest)
    for faction, n in enumerate(state.bid_leaders[side]):
        if n:
            state.leaders[faction][0] -= n
            state.leaders[faction][1] += n
            emit(state, EventKind.LEADER_LOST, faction, n)


# --- Decision specs ----------------------------------------------------------------------------

DECISION_SPECS: Final[tuple[DecisionSpec, ...]] = (
    DecisionSpec(
        DecisionKind.BATTLE_ORDER,
        REGION_CHOICE,
        battle_regions,
        apply_order,
        table_position=20,
        rules="BATTLE-1",
        summary="the region of the next battle",
    ),
    DecisionSpec(
        DecisionKind.INFILTRATION,
        YES_NO,
        legal_yes_no,
        apply_infiltration,
        table_position=21,
        rules="HAR-2",
        summary="ignore the fortress",
    ),
    DecisionSpec(
        DecisionKind.FORTRESS_VICTIM,
        VICTIM_CODEC,
        legal_victim,
        apply_victim,
        table_position=22,
        rules="BATTLE-3",
        summary="the attacking unit the fortress removes",
    ),
    DecisionSpec(
        DecisionKind.FACE_DANCER,
        FACE_DANCER_CODEC,
        legal_face_dancer,
        apply_face_dancer,
        table_position=23,
        rules="TLX-4",
        summary="replace one more enemy unit, or stop",
    ),
    DecisionSpec(
        DecisionKind.LEND_LEADER,
        YES_NO,
        legal_yes_no,
        apply_lend,
        table_position=24,
        rules="BATTLE-4",
        summary="lend the leader tokens on the card to the defender",
    ),
    DecisionSpec(
        DecisionKind.BID,
        BID_CODEC,
        legal_bid,
        apply_bid,
        table_position=25,
        rules="BATTLE-5",
        summary="commit one more unit or leader token to the hidden bid, or stop",
        hidden=True,
    ),
)
