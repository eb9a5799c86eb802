"""Build and name the options of every decision kind, without knowing how they are packed.

    from dune_env.engine import options as opt

    game.apply(opt.offer(Faction.CORRINO))                  # ALLY_OFFER, with the Corrino symbol
    game.apply(opt.land(Region.ARRAKEEN))                   # LAND one regular unit
    game.apply(opt.fortress_victim(Faction.CORRINO, UnitType.ELITE))
    game.apply(opt.bid_leader(Faction.HARKONNEN))
    opt.name(DecisionKind.LAND, game.pending.options[1])   # "land unit in Arrakeen"
    opt.by_name(DecisionKind.LAND, "land unit in Arrakeen") # the option back from its name

One builder per kind (or a constant for the fixed choices); each encodes through the kind's
`OptionCodec` (its `DecisionSpec`, see `dune_env.engine.decisions`), the packing the engine and
the environment's action table use, so an option built here is exactly the one the engine
expects, and a field out of range is a ValueError naming it.  Yes/no kinds take a bool.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from typing import Final

from .constants import NUM_DICE, UnitType
from .decisions import (
    BID_CODEC,
    BID_DONE,
    DICE_SPLIT_CODEC,
    FACE_DANCER_CODEC,
    FACE_DANCER_STOP,
    KANLY_CODEC,
    KANLY_NONE,
    KANLY_TAKE,
    KEEP_PROPERTY,
    LAND_CODEC,
    LAND_SMUGGLERS_LEADER,
    LAND_STOP,
    MOVE_CODEC,
    MOVE_STOP,
    OFFER_CODEC,
    OFFER_NOBODY,
    RECRUIT_ELITE,
    RECRUIT_LEADER,
    RECRUIT_STOP,
    RECRUIT_UNIT,
    REORGANIZE_CODEC,
    VICTIM_CODEC,
    DecisionKind,
    spec_of,
)

REGULAR: Final = int(UnitType.REGULAR)

# --- fixed choices -----------------------------------------------------------------------------

NO_OFFER: Final = OFFER_NOBODY  # ALLY_OFFER: offer nobody
NO_KANLY: Final = KANLY_NONE  # KANLY: no effect
TAKE_TOKEN: Final = KANLY_TAKE  # KANLY: take the Snooper / Shield / Thumper
STOP_RECRUITING: Final = RECRUIT_STOP
RECRUIT_A_UNIT: Final = RECRUIT_UNIT
RECRUIT_THE_LEADER: Final = RECRUIT_LEADER
RECRUIT_A_SARDAUKAR: Final = RECRUIT_ELITE  # COR-1: two dice
STOP_LANDING: Final = LAND_STOP
SMUGGLERS_LEADER_TO_CARD: Final = LAND_SMUGGLERS_LEADER  # SMG-1 / CL-11
STOP_MOVING: Final = MOVE_STOP
STOP_FACE_DANCERS: Final = FACE_DANCER_STOP
BID_COMPLETE: Final = BID_DONE


def yes_no(answer: bool) -> int:
    """PITER_DE_VRIES, ALLY_ANSWER, LAND_CONSENT, GHOLA, INFILTRATION, LEND_LEADER."""
    return int(bool(answer))


# --- set-up ------------------------------------------------------------------------------------


def faction(faction_id: int) -> int:
    """CHOOSE_FACTION, BG_PREDICTION, AXOLOTL_SYMBOL: a faction id (or die symbol)."""
    return int(faction_id)


def region(region_id: int) -> int:
    """ATREIDES_START, HARKONNEN_START, HARVESTER_DISCARD, MOVE_TARGET, BATTLE_ORDER."""
    return int(region_id)


# --- step 1 ------------------------------------------------------------------------------------


def fix_dice(dice: Iterable[int]) -> int:
    """FIX_DICE: the dice (`Die` indices) to fix now, as the engine's bit mask."""
    mask = 0
    for die in dice:
        if not 0 <= int(die) < NUM_DICE:
            raise ValueError(f"die {die!r} is not a die index 0..{NUM_DICE - 1} (see Die)")
        mask |= 1 << int(die)
    if not mask:
        raise ValueError("fix at least one die (ROLL-2)")
    return mask


# --- steps 2-3 ---------------------------------------------------------------------------------


def offer(target: int, symbol: int | None = None) -> int:
    """ALLY_OFFER to `target` with the die `symbol` (default: the target's own symbol; Tleilax
    and Smugglers need the symbol actually offered, TLX-3 / SMG-3)."""
    return OFFER_CODEC.encode("offer", int(target), int(target if symbol is None else symbol))


def dice_split(dice_given: int) -> int:
    """DICE_SPLIT: shared dice given to the other party (TLX-2/3)."""
    return DICE_SPLIT_CODEC.encode("give", int(dice_given))


# --- steps 4-5 ---------------------------------------------------------------------------------


def kanly_kill(region_id: int, victim: int, unit_type: int = REGULAR) -> int:
    """KANLY: remove one unit of `victim` (a faction) in `region_id`."""
    return KANLY_CODEC.encode("kill", int(region_id), int(victim), int(unit_type))


def spice(amount: int) -> int:
    """SPICE_GIFT (COR-3) and ALLY_GRANT (LAND-5 / CL-7): an amount of spice."""
    return int(amount)


def land(region_id: int, unit_type: int = REGULAR) -> int:
    """LAND one unit of `unit_type` into `region_id`."""
    return LAND_CODEC.encode("land", int(region_id), int(unit_type))


# --- step 6 ------------------------------------------------------------------------------------


def move(from_region: int, unit_type: int = REGULAR) -> int:
    """MOVE one unit of `unit_type` from `from_region` into the target."""
    return MOVE_CODEC.encode("move", int(from_region), int(unit_type))


# --- step 7 ------------------------------------------------------------------------------------


def fortress_victim(owner: int, unit_type: int = REGULAR) -> int:
    """FORTRESS_VICTIM: the attacking unit (owner faction, unit type) removed (BATTLE-3)."""
    return VICTIM_CODEC.encode("remove", int(owner), int(unit_type))


def face_dancer(victim: int, unit_type: int = REGULAR) -> int:
    """FACE_DANCER: replace one unit of `victim` (TLX-4)."""
    return FACE_DANCER_CODEC.encode("replace", int(victim), int(unit_type))


def bid_unit(owner: int, unit_type: int = REGULAR) -> int:
    """BID: commit one unit of `owner` (your own, your ally's or a side member's)."""
    return BID_CODEC.encode("unit", int(owner), int(unit_type))


def bid_leader(owner: int) -> int:
    """BID: commit one leader token of `owner`."""
    return BID_CODEC.encode("leader", int(owner))


# --- step 8 ------------------------------------------------------------------------------------


def reorganize(token: int) -> int:
    """REORGANIZE: place `token` (a Token) on the target (PROP-1)."""
    return REORGANIZE_CODEC.encode("place", int(token))


# --- names -------------------------------------------------------------------------------------


def name(kind: int, option: int) -> str:
    """The stable English name of an option (the environment's action names use it too)."""
    return spec_of(kind).describe(option)


def names(kind: int, options: Iterable[int] | None = None) -> dict[int, str]:
    """Option -> name for `options` (default: every option the kind can ever have)."""
    spec = spec_of(kind)
    chosen = range(spec.option_count) if options is None else options
    return {int(o): spec.describe(int(o)) for o in chosen}


def by_name(kind: int, text: str) -> int:
    """The option of `kind` whose name is `text`; ValueError listing close names otherwise."""
    texts = spec_of(kind).codec.texts
    if text in texts:
        return texts.index(text)
    close = difflib.get_close_matches(text, list(texts), n=5, cutoff=0.5)
    raise ValueError(
        f"{DecisionKind(kind).name} has no option named {text!r}; similar names: {close}"
    )


__all__ = [
    "BID_COMPLETE",
    "KEEP_PROPERTY",
    "NO_KANLY",
    "NO_OFFER",
    "RECRUIT_A_SARDAUKAR",
    "RECRUIT_A_UNIT",
    "RECRUIT_THE_LEADER",
    "SMUGGLERS_LEADER_TO_CARD",
    "STOP_FACE_DANCERS",
    "STOP_LANDING",
    "STOP_MOVING",
    "STOP_RECRUITING",
    "TAKE_TOKEN",
    "bid_leader",
    "bid_unit",
    "by_name",
    "dice_split",
    "face_dancer",
    "faction",
    "fix_dice",
    "fortress_victim",
    "kanly_kill",
    "land",
    "move",
    "name",
    "names",
    "offer",
    "region",
    "reorganize",
    "spice",
    "yes_no",
]
