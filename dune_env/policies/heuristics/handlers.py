"""The handler of every decision kind: `HANDLERS[kind](style, state, seat, options)`."""

from __future__ import annotations

from collections.abc import Callable

from ...engine import DecisionKind, GameState
from ...engine.decisions import SPECS
from . import alliance, battle, dice, kanly, landing, movement, recruit, setup
from . import property as property_step
from .style import Style

Handler = Callable[[Style, GameState, int, list[int]], int]
"""Chooses one of `options` (legal, at least two) for `seat` in `state`, played in `style`."""

HANDLERS: dict[DecisionKind, Handler] = {
    DecisionKind.CHOOSE_FACTION: setup.choose_faction,
    DecisionKind.ATREIDES_START: setup.start_region,
    DecisionKind.HARKONNEN_START: setup.start_region,
    DecisionKind.BG_PREDICTION: setup.bg_prediction,
    DecisionKind.FIX_DICE: dice.fix_dice,
    DecisionKind.PITER_DE_VRIES: dice.piter,
    DecisionKind.AXOLOTL_SYMBOL: dice.axolotl,
    DecisionKind.ALLY_OFFER: alliance.ally_offer,
    DecisionKind.ALLY_ANSWER: alliance.ally_answer,
    DecisionKind.DICE_SPLIT: alliance.dice_split,
    DecisionKind.RECRUIT: recruit.recruit,
    DecisionKind.GHOLA: recruit.ghola,
    DecisionKind.KANLY: kanly.kanly,
    DecisionKind.HARVESTER_DISCARD: landing.harvester_discard,
    DecisionKind.SPICE_GIFT: landing.spice_gift,
    DecisionKind.LAND_CONSENT: landing.land_consent,
    DecisionKind.LAND: landing.land,
    DecisionKind.ALLY_GRANT: landing.ally_grant,
    DecisionKind.MOVE_TARGET: movement.move_target,
    DecisionKind.MOVE: movement.move,
    DecisionKind.BATTLE_ORDER: battle.battle_order,
    DecisionKind.INFILTRATION: battle.infiltration,
    DecisionKind.FORTRESS_VICTIM: battle.fortress_victim,
    DecisionKind.FACE_DANCER: battle.face_dancer,
    DecisionKind.LEND_LEADER: battle.lend_leader,
    DecisionKind.BID: battle.bid,
    DecisionKind.REORGANIZE: property_step.reorganize,
}


def handler_table() -> tuple[Handler, ...]:
    """The handlers indexed by decision kind, for every kind of the engine's registry
    (`dune_env.engine.decisions.SPECS`); a kind without a handler is an error naming it."""
    missing = [spec.kind.name for spec in SPECS if spec.kind not in HANDLERS]
    if missing:
        raise LookupError(
            f"heuristics: no handler for decision kinds {missing}; add one to HANDLERS in "
            "dune_env/policies/heuristics/handlers.py"
        )
    unknown = [kind.name for kind in HANDLERS if kind not in {spec.kind for spec in SPECS}]
    if unknown:  # pragma: no cover - the enum and the registry agree at import
        raise LookupError(f"heuristics: handlers for unregistered decision kinds {unknown}")
    return tuple(HANDLERS[spec.kind] for spec in SPECS)
