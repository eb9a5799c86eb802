"""Step 5, Landing (LAND-1..6, SPICE-1..4, COR-3, GLD-1, BG-2, SMG-1)."""

from __future__ import annotations

from typing import Final

from ..constants import (
    CARD,
    LEADER_NAMES,
    NUM_UNIT_TYPES,
    RESERVE,
    STORAGE_CAP,
    Faction,
    Token,
)
from ..core import ask, ask_faction, ask_known, emit, goto, legal_yes_no, runner
from ..decision_spec import (
    REGION_CHOICE,
    REGION_FIELD,
    UNIT_TYPE_FIELD,
    YES_NO,
    DecisionKind,
    DecisionSpec,
    OptionBlock,
    OptionCodec,
    spice_amounts,
)
from ..events import EventKind
from ..queries import (
    MAP,
    POLAR,
    REGIONS,
    add_storage,
    in_storm,
    present,
    spend,
    spendable,
    spice_die_is_worm,
)
from ..state import GameState, Phase, uidx

SMUGGLERS_POLAR_COST: Final = 2  # SMG-1
SMUGGLERS_LEADER_COST: Final = 2  # SMG-1, CL-11
MAX_GRANT: Final = 20  # spice granted to an ally for landing (LAND-5); a pool never exceeds this

# LAND: stop, the Smugglers' leader to the card (SMG-1), or one unit into a region.
LAND_CODEC: Final = OptionCodec(
    OptionBlock("stop", "stop landing"),
    OptionBlock("smugglers_leader", f"put {LEADER_NAMES[Faction.SMUGGLERS]} on the card"),
    OptionBlock("land", "land {unit_type} in {region}", (REGION_FIELD, UNIT_TYPE_FIELD)),
)
LAND_STOP: Final = LAND_CODEC.offset("stop")
LAND_SMUGGLERS_LEADER: Final = LAND_CODEC.offset("smugglers_leader")
_LAND_BASE: Final = LAND_CODEC.offset("land")
_LAND_VALUES: Final = LAND_CODEC.value_table


def land_option(region: int, unit_type: int) -> int:
    """LAND_CODEC.encode("land", region, unit_type), unchecked."""
    return _LAND_BASE + region * NUM_UNIT_TYPES + unit_type


def decode_land(option: int) -> tuple[int, ...]:
    """(region, unit_type) of a "land" option."""
    return _LAND_VALUES[option]


@runner(Phase.LAND_START)
def run_land_start(state: GameState) -> None:
    """LAND-1: harvester income, or on Shai-Hulud none and a harvester lost."""
    harvesters = legal_harvester(state)
    if spice_die_is_worm(state):
        goto(state, Phase.LAND_HARVESTER if harvesters else Phase.LAND_GIFT)
        return
    income = 2 * sum(1 for r in harvesters if not in_storm(state, r))
    if income:
        state.pool += income
        emit(state, EventKind.HARVEST, income)
    goto(state, Phase.LAND_GIFT)


def legal_harvester(state: GameState) -> list[int]:
    """Regions holding a harvester and one of the active player's units (LAND-1)."""
    active = state.active_faction
    return [
        r for r in REGIONS if state.region_token[r] == Token.HARVESTER and present(state, active, r)
    ]


@runner(Phase.LAND_HARVESTER)
def run_harvester(state: GameState) -> None:
    ask(state, DecisionKind.HARVESTER_DISCARD, state.active_seat)


def apply_harvester(state: GameState, option: int) -> None:
    state.region_token[option] = -1
    state.token_supply[Token.HARVESTER] += 1
    emit(state, EventKind.HARVESTER_LOST, option)
    goto(state, Phase.LAND_GIFT)


# --- COR-3 / CL-10: the Corrino ally's gift at the start of the landing step ---------------


@runner(Phase.LAND_GIFT)
def run_gift(state: GameState) -> None:
    """COR-3 / CL-10: the Corrino ally may give stored spice at the start of landing."""
    if state.ally == Faction.CORRINO and state.storage[Faction.CORRINO] > 0:
        ask_faction(state, DecisionKind.SPICE_GIFT, Faction.CORRINO)
    else:
        goto(state, Phase.LAND_CONSENT)


def legal_gift(state: GameState) -> list[int]:
    return list(range(state.storage[Faction.CORRINO] + 1))


def apply_gift(state: GameState, option: int) -> None:
    """COR-3: stored spice into the active player's pool."""
    if option:
        state.storage[Faction.CORRINO] -= option
        state.pool += option
        emit(state, EventKind.SPICE_GIFT, Faction.CORRINO, option)
    goto(state, Phase.LAND_CONSENT)


# --- Where a lander may land ---------------------------------------------------------------


def _landable(state: GameState, region: int) -> bool:
    """LAND-3 / CL-6: never into the storm; into a desert region unless desert_landing=False."""
    if in_storm(state, region):
        return False
    return state.config.desert_landing or not MAP.desert[region]


def _lands_anywhere(state: GameState, lander: int) -> bool:
    """SMG-1 [variant] smugglers_land_anywhere: the Smugglers may land into any landable
    region, whoever is there (LAND-2/4/5's presence conditions do not apply to them)."""
    return lander == Faction.SMUGGLERS and state.config.smugglers_land_anywhere


def _pieces_to_land(state: GameState, faction: int) -> bool:
    if faction == Faction.SMUGGLERS:
        return state.count(faction, CARD) + state.count(faction, RESERVE) > 0
    return state.count(faction, CARD) > 0


def _ally_only_regions(state: GameState) -> list[int]:
    """Regions the active player could land into only with the ally's consent (LAND-4)."""
    active, ally = state.active_faction, state.ally
    if _lands_anywhere(state, active):
        return []  # SMG-1 variant: no consent needed anywhere
    return [
        r
        for r in REGIONS
        if r != POLAR
        and present(state, ally, r)
        and not present(state, active, r)
        and _landable(state, r)
    ]


@runner(Phase.LAND_CONSENT)
def run_consent(state: GameState) -> None:
    """LAND-4: the ally's consent to land in its regions (BG-2: the BG needs none)."""
    active = state.active_faction
    state.land_consent = active == Faction.BENE_GESSERIT
    if (
        state.ally >= 0
        and not state.land_consent
        and _pieces_to_land(state, active)
        and spendable(state) >= 1
        and _ally_only_regions(state)
    ):
        ask_faction(state, DecisionKind.LAND_CONSENT, state.ally)
    else:
        goto(state, Phase.LAND_ACTIVE)


def apply_consent(state: GameState, option: int) -> None:
    state.land_consent = bool(option)
    emit(state, EventKind.CONSENT, state.ally, option)
    goto(state, Phase.LAND_ACTIVE)


def _land_cost(state: GameState, faction: int, region: int, unit_type: int) -> tuple[int, int]:
    """(source location, spice cost) of landing one unit; cost 0 means impossible.

    LAND-2: 1 spice from the card.  SMG-1: the Smugglers also land from their reserve, 2 spice
    onto the Polar Cap and 1 elsewhere (units on their card, which only an honourable duel can
    put there, land at the normal price)."""
    units = state.units[faction]
    if units[uidx(CARD, unit_type)] > 0:
        return CARD, 1
    if faction == Faction.SMUGGLERS and units[uidx(RESERVE, unit_type)] > 0:
        return RESERVE, SMUGGLERS_POLAR_COST if region == POLAR else 1
    return CARD, 0


def _lander(state: GameState) -> int:
    return state.active_faction if state.phase == Phase.LAND_ACTIVE else state.ally


def legal_land(state: GameState) -> list[int]:
    active, ally = state.active_faction, state.ally
    lander = _lander(state)
    budget = spendable(state)
    if lander != active:
        budget = min(budget, state.grant)  # LAND-5 / CL-7
    options = [LAND_STOP]
    if (
        lander == active
        and active == Faction.SMUGGLERS
        and state.leaders[active][1] > 0
        and budget >= SMUGGLERS_LEADER_COST
    ):
        options.append(LAND_SMUGGLERS_LEADER)
    if budget <= 0:
        return options
    for region in REGIONS:
        if not _landable(state, region):
            continue
        if region != POLAR and not _lands_anywhere(state, lander):
            if lander == active:
                allowed = present(state, active, region) or (
                    state.land_consent and ally >= 0 and present(state, ally, region)
                )
            else:
                allowed = present(state, ally, region) or present(state, active, region)
            if not allowed:
                continue
        for unit_type in range(NUM_UNIT_TYPES):
            _, cost = _land_cost(state, lander, region, unit_type)
            if 0 < cost <= budget:
                options.append(land_option(region, unit_type))
    return options


@runner(Phase.LAND_ACTIVE, Phase.LAND_ALLY)
def run_land(state: GameState) -> None:
    options = legal_land(state)
    if len(options) > 1:
        ask_known(state, DecisionKind.LAND, state.faction_seat[_lander(state)], options)
    else:
        _end_landing(state)


def _end_landing(state: GameState) -> None:
    if state.phase == Phase.LAND_ACTIVE:
        goto(state, Phase.LAND_GRANT)
    else:
        state.grant = 0  # CL-7: the unused rest returns to the active player
        goto(state, Phase.MOVE_TARGET)


def apply_land(state: GameState, option: int) -> None:
    lander = _lander(state)
    if option == LAND_STOP:
        _end_landing(state)
        return
    if option == LAND_SMUGGLERS_LEADER:
        spend(state, SMUGGLERS_LEADER_COST)
        state.leaders[lander][1] -= 1
        state.leaders[lander][0] += 1
        emit(state, EventKind.SMUGGLERS_LEADER, lander)
        return
    region, unit_type = decode_land(option)
    source, cost = _land_cost(state, lander, region, unit_type)
    spend(state, cost)  # the active player pays, for the ally too (LAND-5)
    if lander != state.active_faction:
        state.grant -= cost
    state.move_units(lander, unit_type, source, region)
    emit(state, EventKind.LAND, lander, region, unit_type, cost)
    _guild_income(state, lander, region)


def _guild_income(state: GameState, lander: int, region: int) -> None:
    """GLD-1 (rev. 2): +1 Guild storage in a turn where another player lands outside the Polar
    Cap, once per turn; with guild_income_per_lander, once for each such player.
    `guild_paid[f]` records that f's landing paid the Guild this turn."""
    guild = Faction.GUILD
    if region == POLAR or lander == guild or not state.in_game(guild):
        return
    if state.guild_paid[lander]:
        return
    if not state.config.guild_income_per_lander and any(state.guild_paid):
        return
    state.guild_paid[lander] = True
    added = add_storage(state, guild, 1)
    emit(state, EventKind.GUILD_INCOME, added, lander)


# --- LAND-5 / CL-7: the grant to the ally ---------------------------------------------------


@runner(Phase.LAND_GRANT)
def run_grant(state: GameState) -> None:
    ally = state.ally
    if ally >= 0 and _pieces_to_land(state, ally) and spendable(state) >= 1:
        ask(state, DecisionKind.ALLY_GRANT, state.active_seat)
    else:
        goto(state, Phase.MOVE_TARGET)


def legal_grant(state: GameState) -> list[int]:
    return list(range(min(spendable(state), MAX_GRANT) + 1))


def apply_grant(state: GameState, option: int) -> None:
    state.grant = option
    emit(state, EventKind.GRANT, option)
    goto(state, Phase.LAND_ALLY if option else Phase.MOVE_TARGET)


# --- Decision specs ----------------------------------------------------------------------------

DECISION_SPECS: Final[tuple[DecisionSpec, ...]] = (
    DecisionSpec(
        DecisionKind.HARVESTER_DISCARD,
        REGION_CHOICE,
        legal_harvester,
        apply_harvester,
        table_position=13,
        rules="LAND-1",
        summary="on Shai-Hulud, the region whose harvester is discarded",
    ),
    DecisionSpec(
        DecisionKind.SPICE_GIFT,
        spice_amounts(STORAGE_CAP + 1),  # COR-2: a storage holds 5 at most
        legal_gift,
        apply_gift,
        table_position=14,
        rules="COR-3",
        summary="stored spice the Corrino gives its ally",
    ),
    DecisionSpec(
        DecisionKind.LAND_CONSENT,
        YES_NO,
        legal_yes_no,
        apply_consent,
        table_position=15,
        rules="LAND-4",
        summary="let the active player land where the ally is",
    ),
    DecisionSpec(
        DecisionKind.LAND,
        LAND_CODEC,
        legal_land,
        apply_land,
        table_position=16,
        rules="LAND-2, SMG-1",
        summary="land one unit (or the Smugglers' leader), or stop",
    ),
    DecisionSpec(
        DecisionKind.ALLY_GRANT,
        spice_amounts(MAX_GRANT + 1),
        legal_grant,
        apply_grant,
        table_position=17,
        rules="LAND-5, CL-7",
        summary="spice granted to the ally for its landing",
    ),
)
