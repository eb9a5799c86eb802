"""Step 2, Ally (ALLY-1..5, BG-2, TLX-2, TLX-3, SMG-3)."""

from __future__ import annotations

from typing import Final

from ..constants import FACTION_DICE, FACTION_NAMES, NO_ONE, NUM_FACTIONS, SYMBOL_FACTIONS, Faction
from ..core import ask, ask_faction, emit, goto, runner
from ..decision_spec import (
    YES_NO,
    DecisionKind,
    DecisionSpec,
    OptionBlock,
    OptionCodec,
    OptionField,
    number_labels,
)
from ..events import EventKind
from ..state import GameState, Phase
from .recruit import active_symbol, begin_recruit

# ALLY_OFFER: nobody, or (target faction, die symbol offered) -- TLX-3 / SMG-3 offer a symbol.
OFFER_CODEC: Final = OptionCodec(
    OptionBlock("nobody", "offer nobody"),
    OptionBlock(
        "offer",
        "offer {target} with symbol {symbol}",
        (OptionField("target", FACTION_NAMES), OptionField("symbol", FACTION_NAMES)),
    ),
)
OFFER_NOBODY: Final = OFFER_CODEC.offset("nobody")
_OFFER_BASE: Final = OFFER_CODEC.offset("offer")
_OFFER_VALUES: Final = OFFER_CODEC.value_table
# DICE_SPLIT: how many of the shared dice go to the other party (0 is never legal).
DICE_SPLIT_CODEC: Final = OptionCodec(
    OptionBlock("give", "give {dice} dice", (OptionField("dice", number_labels(5)),))
)


def offer_option(target: int, symbol: int) -> int:
    """OFFER_CODEC.encode("offer", target, symbol), unchecked (the legal generator's path)."""
    return _OFFER_BASE + target * NUM_FACTIONS + symbol


def decode_offer(option: int) -> tuple[int, ...]:
    """(target, symbol) of an "offer" option."""
    return _OFFER_VALUES[option]


def faction_die_symbols(state: GameState) -> list[int]:
    from ..constants import FACTION_DIE_SYMBOLS

    return [FACTION_DIE_SYMBOLS[state.dice_faces[d]] for d in FACTION_DICE]


@runner(Phase.ALLY_OFFER)
def run_offer(state: GameState) -> None:
    if not state.config.alliances_allowed:  # ALLY-1
        begin_recruit(state)
    else:
        ask(state, DecisionKind.ALLY_OFFER, state.active_seat)


def legal_offer(state: GameState) -> list[int]:
    """ALLY-2: nobody, or a player whose symbol shows; Tleilax with any showing symbol (the
    symbol picks its recruiting dice, TLX-3); Smugglers always (SMG-3, they never recruit)."""
    showing = sorted(set(faction_die_symbols(state)))
    options = [OFFER_NOBODY]
    active = state.active_faction
    for target in state.seat_faction:
        if target == active:
            continue
        if target == Faction.TLEILAX:
            options.extend(offer_option(target, s) for s in showing)
        elif target == Faction.SMUGGLERS:
            options.append(offer_option(target, target))
        elif target in showing:
            options.append(offer_option(target, target))
    return sorted(options)


def apply_offer(state: GameState, option: int) -> None:
    if option == OFFER_NOBODY:
        emit(state, EventKind.ALLY_OFFER, state.active_faction, NO_ONE, NO_ONE)
        begin_recruit(state)
        return
    target, symbol = decode_offer(option)
    state.offer_target = target
    state.offer_symbol = symbol
    emit(state, EventKind.ALLY_OFFER, state.active_faction, target, symbol)
    goto(state, Phase.ALLY_ANSWER)


@runner(Phase.ALLY_ANSWER)
def run_answer(state: GameState) -> None:
    ask_faction(state, DecisionKind.ALLY_ANSWER, state.offer_target)


def legal_answer(state: GameState) -> list[int]:
    """ALLY-3; BG-2: a Bene Gesserit offer cannot be declined."""
    return [1] if state.active_faction == Faction.BENE_GESSERIT else [0, 1]


def apply_answer(state: GameState, option: int) -> None:
    emit(state, EventKind.ALLY_ANSWER, state.offer_target, option)
    if not option:
        begin_recruit(state)
        return
    state.ally = state.offer_target
    if shared_dice(state):
        goto(state, Phase.ALLY_SPLIT)
    else:
        begin_recruit(state)


def ally_symbol(state: GameState) -> int:
    """The symbol whose dice the ally recruits with (RECRUIT-2; TLX-3: the offer's symbol)."""
    if state.ally == NO_ONE or state.ally == Faction.SMUGGLERS:
        return NO_ONE
    if state.ally == Faction.TLEILAX:
        return state.offer_symbol
    return state.ally if state.ally in SYMBOL_FACTIONS else NO_ONE


def shared_dice(state: GameState) -> list[int]:
    """TLX-2/3: dice that both the active player and the ally would recruit with."""
    symbol = ally_symbol(state)
    if symbol == NO_ONE or symbol != active_symbol(state):
        return []
    symbols = faction_die_symbols(state)
    return [d for d in FACTION_DICE if symbols[d] == symbol]


@runner(Phase.ALLY_SPLIT)
def run_split(state: GameState) -> None:
    ask(state, DecisionKind.DICE_SPLIT, state.active_seat)


def legal_split(state: GameState) -> list[int]:
    """TLX-2/3: the active player gives at least one of the shared dice to the ally."""
    return list(range(1, len(shared_dice(state)) + 1))


def apply_split(state: GameState, option: int) -> None:
    dice = shared_dice(state)
    emit(state, EventKind.DICE_SPLIT, option)
    begin_recruit(state, to_ally=dice[len(dice) - option :])


# --- Decision specs ----------------------------------------------------------------------------

DECISION_SPECS: Final[tuple[DecisionSpec, ...]] = (
    DecisionSpec(
        DecisionKind.ALLY_OFFER,
        OFFER_CODEC,
        legal_offer,
        apply_offer,
        table_position=7,
        rules="ALLY-2, TLX-3, SMG-3",
        summary="offer an alliance (and with which die symbol)",
    ),
    DecisionSpec(
        DecisionKind.ALLY_ANSWER,
        YES_NO,
        legal_answer,
        apply_answer,
        table_position=8,
        rules="ALLY-3, BG-2",
        summary="accept the offered alliance",
    ),
    DecisionSpec(
        DecisionKind.DICE_SPLIT,
        DICE_SPLIT_CODEC,
        legal_split,
        apply_split,
        table_position=9,
        rules="TLX-2, TLX-3",
        summary="shared dice given to the other party",
    ),
)
