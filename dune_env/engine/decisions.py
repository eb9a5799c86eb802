"""Decision kinds (RULES.md §9) and the integer encoding of each kind's options.

Every decision is (kind, deciding seat, legal options).  An option is a small int whose meaning
is fixed per kind, documented below and by `describe_option`; `OPTION_COUNTS[kind]` bounds it.
The environment's action table is these per-kind ranges laid end to end in `DecisionKind` order.
"""

from __future__ import annotations

from enum import IntEnum

from .constants import (
    FACTION_NAMES,
    LEADER_NAMES,
    NUM_DICE,
    NUM_FACTIONS,
    NUM_REGIONS,
    NUM_UNIT_TYPES,
    TOKEN_NAMES,
)
from .map_data import DEFAULT_MAP

MAX_GRANT = 20  # spice granted to an ally for landing (LAND-5); a pool never exceeds this


class DecisionKind(IntEnum):
    """One enum of every kind of decision, in action-table order."""

    CHOOSE_FACTION = 0  # SETUP-5 draft: option = faction id
    ATREIDES_START = 1  # ATR-0: option = region
    HARKONNEN_START = 2  # HAR-0: option = region
    BG_PREDICTION = 3  # BG-0: option = faction id (hidden)
    FIX_DICE = 4  # ROLL-2..4: option = bitmask of dice to fix (bit i = die i)
    PITER_DE_VRIES = 5  # HAR-1: 0 no, 1 turn the Kanly die to Poison
    AXOLOTL_SYMBOL = 6  # TLX-1: option = faction id of the chosen die symbol
    ALLY_OFFER = 7  # ALLY-2: 0 nobody, else 1 + target*8 + symbol (faction ids)
    ALLY_ANSWER = 8  # ALLY-3: 0 decline, 1 accept
    DICE_SPLIT = 9  # TLX-2/3: option = number of shared dice given to the other party (1..4)
    RECRUIT = 10  # RECRUIT-1..3: 0 stop, 1 unit, 2 leader, 3 Sardaukar (2 dice, COR-1)
    GHOLA = 11  # TLX-5: 0 no, 1 pay 1 spice to move the leader from reserve to card
    KANLY = 12  # KANLY-1..5: 0 none, 1 take the token, 2 + region*16 + faction*2 + unit type
    HARVESTER_DISCARD = 13  # LAND-1 Shai-Hulud: option = region whose harvester is discarded
    SPICE_GIFT = 14  # COR-3: option = stored spice given to the ally (0..5)
    LAND_CONSENT = 15  # LAND-4: 0 refuse, 1 consent
    LAND = 16  # LAND-2, SMG-1: 0 stop, 1 Smugglers' leader to card, 2 + region*2 + unit type
    ALLY_GRANT = 17  # LAND-5 / CL-7: option = spice granted to the ally (0..MAX_GRANT)
    MOVE_TARGET = 18  # MOVE-1, SMG-2: option = region
    MOVE = 19  # MOVE-2/3: 0 stop, 1 + from_region*2 + unit type (one unit into the target)
    BATTLE_ORDER = 20  # BATTLE-1: option = region of the next battle
    INFILTRATION = 21  # HAR-2: 0 no, 1 ignore the fortress
    FORTRESS_VICTIM = 22  # BATTLE-3: option = faction*2 + unit type of the removed attacker
    FACE_DANCER = 23  # TLX-4: 0 stop, 1 + faction*2 + unit type of the replaced enemy unit
    LEND_LEADER = 24  # BATTLE-4: 0 no, 1 lend
    BID = 25  # BATTLE-5: 0 done, 1 + faction*2 + type commits a unit, 17 + faction a leader
    REORGANIZE = 26  # PROP-1: 0 no, 1 + token type placed


NUM_DECISION_KINDS = len(DecisionKind)

OPTION_COUNTS: tuple[int, ...] = (
    NUM_FACTIONS,  # CHOOSE_FACTION
    NUM_REGIONS,  # ATREIDES_START
    NUM_REGIONS,  # HARKONNEN_START
    NUM_FACTIONS,  # BG_PREDICTION
    1 << NUM_DICE,  # FIX_DICE
    2,  # PITER_DE_VRIES
    NUM_FACTIONS,  # AXOLOTL_SYMBOL
    1 + NUM_FACTIONS * NUM_FACTIONS,  # ALLY_OFFER
    2,  # ALLY_ANSWER
    5,  # DICE_SPLIT
    4,  # RECRUIT
    2,  # GHOLA
    2 + NUM_REGIONS * NUM_FACTIONS * NUM_UNIT_TYPES,  # KANLY
    NUM_REGIONS,  # HARVESTER_DISCARD
    6,  # SPICE_GIFT
    2,  # LAND_CONSENT
    2 + NUM_REGIONS * NUM_UNIT_TYPES,  # LAND
    MAX_GRANT + 1,  # ALLY_GRANT
    NUM_REGIONS,  # MOVE_TARGET
    1 + NUM_REGIONS * NUM_UNIT_TYPES,  # MOVE
    NUM_REGIONS,  # BATTLE_ORDER
    2,  # INFILTRATION
    NUM_FACTIONS * NUM_UNIT_TYPES,  # FORTRESS_VICTIM
    1 + NUM_FACTIONS * NUM_UNIT_TYPES,  # FACE_DANCER
    2,  # LEND_LEADER
    1 + NUM_FACTIONS * NUM_UNIT_TYPES + NUM_FACTIONS,  # BID
    1 + 3,  # REORGANIZE
)
assert len(OPTION_COUNTS) == NUM_DECISION_KINDS


# --- Option constructors and decoders (one place, used by the steps and by the env) -----------

RECRUIT_STOP, RECRUIT_UNIT, RECRUIT_LEADER, RECRUIT_ELITE = 0, 1, 2, 3
KANLY_NONE, KANLY_TAKE = 0, 1
LAND_STOP, LAND_SMUGGLERS_LEADER = 0, 1
BID_DONE = 0
BID_LEADER_BASE = 1 + NUM_FACTIONS * NUM_UNIT_TYPES


def offer_option(target: int, symbol: int) -> int:
    return 1 + target * NUM_FACTIONS + symbol


def decode_offer(option: int) -> tuple[int, int]:
    return divmod(option - 1, NUM_FACTIONS)


def kanly_kill_option(region: int, faction: int, unit_type: int) -> int:
    return 2 + (region * NUM_FACTIONS + faction) * NUM_UNIT_TYPES + unit_type


def decode_kanly_kill(option: int) -> tuple[int, int, int]:
    rest, unit_type = divmod(option - 2, NUM_UNIT_TYPES)
    region, faction = divmod(rest, NUM_FACTIONS)
    return region, faction, unit_type


def land_option(region: int, unit_type: int) -> int:
    return 2 + region * NUM_UNIT_TYPES + unit_type


def decode_land(option: int) -> tuple[int, int]:
    return divmod(option - 2, NUM_UNIT_TYPES)


def move_option(region: int, unit_type: int) -> int:
    return 1 + region * NUM_UNIT_TYPES + unit_type


def decode_move(option: int) -> tuple[int, int]:
    return divmod(option - 1, NUM_UNIT_TYPES)


def unit_option(faction: int, unit_type: int) -> int:
    """FACE_DANCER and BID unit options (1-based); FORTRESS_VICTIM uses unit_option - 1."""
    return 1 + faction * NUM_UNIT_TYPES + unit_type


def decode_unit(option: int) -> tuple[int, int]:
    return divmod(option - 1, NUM_UNIT_TYPES)


def bid_leader_option(faction: int) -> int:
    return BID_LEADER_BASE + faction


# --- Text -----------------------------------------------------------------------------------

_REGIONS = DEFAULT_MAP.names
_UNIT_NAMES = ("unit", "Sardaukar")


def _unit_text(faction: int, unit_type: int) -> str:
    return f"{FACTION_NAMES[faction]} {_UNIT_NAMES[unit_type]}"


def describe_option(kind: int, option: int) -> str:
    """A stable, unique English name of one option of one decision kind."""
    k = DecisionKind(kind)
    if not 0 <= option < OPTION_COUNTS[k]:
        raise ValueError(f"option {option} is outside 0..{OPTION_COUNTS[k] - 1} for {k.name}")
    if k in (DecisionKind.CHOOSE_FACTION, DecisionKind.BG_PREDICTION):
        return FACTION_NAMES[option]
    if k in (
        DecisionKind.ATREIDES_START,
        DecisionKind.HARKONNEN_START,
        DecisionKind.HARVESTER_DISCARD,
        DecisionKind.MOVE_TARGET,
        DecisionKind.BATTLE_ORDER,
    ):
        return _REGIONS[option]
    if k == DecisionKind.FIX_DICE:
        dice = [str(i) for i in range(NUM_DICE) if option >> i & 1]
        return "fix dice {" + ",".join(dice) + "}"
    if k == DecisionKind.AXOLOTL_SYMBOL:
        return f"symbol {FACTION_NAMES[option]}"
    if k == DecisionKind.ALLY_OFFER:
        if option == 0:
            return "offer nobody"
        target, symbol = decode_offer(option)
        return f"offer {FACTION_NAMES[target]} with symbol {FACTION_NAMES[symbol]}"
    if k == DecisionKind.DICE_SPLIT:
        return f"give {option} dice"
    if k == DecisionKind.RECRUIT:
        return ("stop recruiting", "recruit a unit", "recruit a leader", "recruit a Sardaukar")[
            option
        ]
    if k == DecisionKind.KANLY:
        if option == KANLY_NONE:
            return "no Kanly"
        if option == KANLY_TAKE:
            return "take the token"
        region, faction, unit_type = decode_kanly_kill(option)
        return f"kill {_unit_text(faction, unit_type)} in {_REGIONS[region]}"
    if k in (DecisionKind.SPICE_GIFT, DecisionKind.ALLY_GRANT):
        return f"{option} spice"
    if k == DecisionKind.LAND:
        if option == LAND_STOP:
            return "stop landing"
        if option == LAND_SMUGGLERS_LEADER:
            return f"put {LEADER_NAMES[7]} on the card"
        region, unit_type = decode_land(option)
        return f"land {_UNIT_NAMES[unit_type]} in {_REGIONS[region]}"
    if k == DecisionKind.MOVE:
        if option == 0:
            return "stop moving"
        region, unit_type = decode_move(option)
        return f"move {_UNIT_NAMES[unit_type]} from {_REGIONS[region]}"
    if k == DecisionKind.FORTRESS_VICTIM:
        faction, unit_type = divmod(option, NUM_UNIT_TYPES)
        return f"remove {_unit_text(faction, unit_type)}"
    if k == DecisionKind.FACE_DANCER:
        if option == 0:
            return "no more face dancers"
        faction, unit_type = decode_unit(option)
        return f"replace {_unit_text(faction, unit_type)}"
    if k == DecisionKind.BID:
        if option == BID_DONE:
            return "bid done"
        if option >= BID_LEADER_BASE:
            return f"commit leader of {FACTION_NAMES[option - BID_LEADER_BASE]}"
        faction, unit_type = decode_unit(option)
        return f"commit {_unit_text(faction, unit_type)}"
    if k == DecisionKind.REORGANIZE:
        return "keep property" if option == 0 else f"place {TOKEN_NAMES[option - 1]}"
    # The yes/no kinds.
    return ("no", "yes")[option]
