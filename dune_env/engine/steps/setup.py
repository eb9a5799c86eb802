"""Setup (SETUP-1..7) and each faction's set-up (ATR-0 ... SMG-0)."""

from __future__ import annotations

from typing import Final

from ..constants import (
    CARD,
    FACES_PER_DIE,
    NO_ONE,
    NUM_FACTIONS,
    NUM_TOKEN_TYPES,
    PROPERTY_TOKENS_PER_TYPE,
    RESERVE,
    Faction,
    UnitType,
    available_factions,
)
from ..core import ask, ask_faction, draw, emit, goto, runner
from ..decision_spec import FACTION_CHOICE, REGION_CHOICE, DecisionKind, DecisionSpec
from ..events import EventKind
from ..queries import MAP, POLAR, occupied
from ..rng import SETUP_FACTIONS, SETUP_FIRST, SETUP_STORM, SETUP_TOKENS
from ..rules import legal_prediction
from ..state import GameState, Phase, initial_pieces
from .turn import start_turn


def begin_setup(state: GameState) -> None:
    """SETUP-1..5 chance and faction assignment; called once at game creation."""
    rng = state.rng
    sector = draw(state, FACES_PER_DIE, rng.prefix(SETUP_STORM)) + 1  # SETUP-1: the region die
    state.storm_sector = sector
    state.round = 1
    emit(state, EventKind.SETUP_STORM, sector)
    tokens = [t for t in range(NUM_TOKEN_TYPES) for _ in range(PROPERTY_TOKENS_PER_TYPE)]
    _shuffle(state, tokens, rng.prefix(SETUP_TOKENS))  # SETUP-2
    for region, token in zip(MAP.strategic_regions, tokens, strict=False):
        state.region_token[region] = token
        state.token_supply[token] -= 1
        emit(state, EventKind.SETUP_TOKEN, region, token)
    # SETUP-3: Shield, Snooper, Thumpers start in the common supply (the state's defaults).
    state.first_seat = draw(state, state.num_players, rng.prefix(SETUP_FIRST))  # SETUP-4
    state.active_seat = state.first_seat
    emit(state, EventKind.FIRST_PLAYER, state.first_seat)
    mode = state.config.faction_mode
    if mode == "assigned":
        assert state.config.factions is not None
        for seat, faction in enumerate(state.config.factions):
            _seat(state, seat, faction)
    elif mode == "random":
        pool = list(available_factions(state.num_players))
        _shuffle(state, pool, rng.prefix(SETUP_FACTIONS))
        for seat in range(state.num_players):
            _seat(state, seat, pool[seat])
    if mode == "draft":
        goto(state, Phase.SETUP_DRAFT)
    else:
        goto(state, Phase.SETUP_PLACE)


def _shuffle(state: GameState, items: list[int], event: int) -> None:
    for i in range(len(items) - 1, 0, -1):
        j = draw(state, i + 1, event, i)
        items[i], items[j] = items[j], items[i]


def _seat(state: GameState, seat: int, faction: int) -> None:
    state.seat_faction[seat] = faction
    state.faction_seat[faction] = seat
    initial_pieces(state, faction)
    emit(state, EventKind.FACTION, seat, faction)


# --- SETUP-5 draft ---------------------------------------------------------------------------


def draft_seat(state: GameState) -> int:
    """SETUP-5: the right of the first player chooses first, going counter-clockwise."""
    chosen = sum(1 for f in state.seat_faction if f != NO_ONE)
    return (state.first_seat - 1 - chosen) % state.num_players


@runner(Phase.SETUP_DRAFT)
def run_draft(state: GameState) -> None:
    if all(f != NO_ONE for f in state.seat_faction):
        goto(state, Phase.SETUP_PLACE)
    else:
        ask(state, DecisionKind.CHOOSE_FACTION, draft_seat(state))


def legal_draft(state: GameState) -> list[int]:
    taken = set(state.seat_faction)
    return [f for f in available_factions(state.num_players) if f not in taken]


def apply_draft(state: GameState, option: int) -> None:
    _seat(state, draft_seat(state), option)


# --- SETUP-6 faction set-up in setup order ---------------------------------------------------


def _place(state: GameState, faction: int, location: int, n: int, unit_type: int = 0) -> None:
    state.move_units(faction, unit_type, RESERVE, location, n)
    if location < CARD:
        emit(state, EventKind.SETUP_UNITS, faction, location, n)


def _leader_to_card(state: GameState, faction: int, n: int = 1) -> None:
    state.leaders[faction][1] -= n
    state.leaders[faction][0] += n


@runner(Phase.SETUP_PLACE)
def run_place(state: GameState) -> None:
    """Set up the next faction in setup order; pose its set-up decision when it has one."""
    while state.setup_index < NUM_FACTIONS:
        faction = state.setup_index
        if not state.in_game(faction):
            state.setup_index += 1
            continue
        if faction == Faction.ATREIDES:
            ask_faction(state, DecisionKind.ATREIDES_START, faction)
            return
        if faction == Faction.HARKONNEN:
            ask_faction(state, DecisionKind.HARKONNEN_START, faction)
            return
        if faction == Faction.BENE_GESSERIT:
            ask_faction(state, DecisionKind.BG_PREDICTION, faction)
            return
        _auto_setup(state, faction)
        state.setup_index += 1
    start_turn(state)


def _auto_setup(state: GameState, faction: int) -> None:
    if faction == Faction.FREMEN:  # FRE-0
        _leader_to_card(state, faction)
        for region in MAP.non_strategic_sector_regions:
            if not occupied(state, region):
                _place(state, faction, region, 1)
    elif faction == Faction.TLEILAX:  # TLX-0
        _place(state, faction, POLAR, 2)
        _place(state, faction, CARD, 2)
        _leader_to_card(state, faction)
    elif faction == Faction.CORRINO:  # COR-0
        _leader_to_card(state, faction)
        _place(state, faction, CARD, 1)
        _place(state, faction, CARD, 1, UnitType.ELITE)
        state.storage[faction] = 3
    elif faction == Faction.GUILD:  # GLD-0
        _leader_to_card(state, faction)
        _place(state, faction, CARD, 3)
        state.storage[faction] = 0
    elif faction == Faction.SMUGGLERS:  # SMG-0
        _leader_to_card(state, faction)
        _place(state, faction, POLAR, 3)
    else:  # pragma: no cover - ATR, HAR and BG are set up through their decisions
        raise AssertionError(faction)


def legal_atreides_start(state: GameState) -> list[int]:
    """ATR-0: a non-strategic region of your choice (not the Polar Cap)."""
    return list(MAP.non_strategic_sector_regions)


def apply_atreides_start(state: GameState, option: int) -> None:
    """ATR-0: two units into the chosen region, both leader tokens on the card."""
    faction = Faction.ATREIDES
    _leader_to_card(state, faction, 2)
    _place(state, faction, option, 2)
    state.setup_index += 1


def legal_harkonnen_start(state: GameState) -> list[int]:
    """HAR-0: an empty non-strategic region."""
    return [r for r in MAP.non_strategic_sector_regions if not occupied(state, r)]


def apply_harkonnen_start(state: GameState, option: int) -> None:
    """HAR-0: two units and the unused property token into the chosen region."""
    faction = Faction.HARKONNEN
    _place(state, faction, option, 2)
    # The unused property token (the one left in the common supply) goes there too.
    for token in range(NUM_TOKEN_TYPES):
        if state.token_supply[token] > 0 and state.region_token[option] == NO_ONE:
            state.token_supply[token] -= 1
            state.region_token[option] = token
            emit(state, EventKind.SETUP_TOKEN, option, token)
    state.setup_index += 1


def apply_prediction(state: GameState, option: int) -> None:
    """BG-0: the secret prediction, then leader to card and three units on the Polar Cap."""
    faction = Faction.BENE_GESSERIT
    _leader_to_card(state, faction)
    _place(state, faction, POLAR, 3)
    state.bg_prediction = option
    emit(state, EventKind.PREDICTION_MADE)
    state.setup_index += 1


# --- Decision specs ----------------------------------------------------------------------------

DECISION_SPECS: Final[tuple[DecisionSpec, ...]] = (
    DecisionSpec(
        DecisionKind.CHOOSE_FACTION,
        FACTION_CHOICE,
        legal_draft,
        apply_draft,
        table_position=0,
        rules="SETUP-5",
        summary="draft a faction",
    ),
    DecisionSpec(
        DecisionKind.ATREIDES_START,
        REGION_CHOICE,
        legal_atreides_start,
        apply_atreides_start,
        table_position=1,
        rules="ATR-0",
        summary="the Atreides' starting region",
    ),
    DecisionSpec(
        DecisionKind.HARKONNEN_START,
        REGION_CHOICE,
        legal_harkonnen_start,
        apply_harkonnen_start,
        table_position=2,
        rules="HAR-0",
        summary="the Harkonnen's starting region",
    ),
    DecisionSpec(
        DecisionKind.BG_PREDICTION,
        FACTION_CHOICE,
        legal_prediction,
        apply_prediction,
        table_position=3,
        rules="BG-0",
        summary="the Bene Gesserit's secret prediction",
        hidden=True,
    ),
)
