"""Enumerations and fixed numbers of the game (RULES.md §1, §3, §7).

Everything here is a small integer so that the state is plain lists of ints: cheap to clone and
trivially JSON-serialisable.  The order of every enum is part of the public contract (snapshots
and the environment's action table depend on it) and is pinned by golden tests.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Final


class Faction(IntEnum):
    """The eight factions, numbered in setup order (COMP-3 number minus one)."""

    ATREIDES = 0
    HARKONNEN = 1
    FREMEN = 2
    TLEILAX = 3
    CORRINO = 4
    GUILD = 5
    BENE_GESSERIT = 6
    SMUGGLERS = 7


NUM_FACTIONS: Final = 8

FACTION_NAMES: Final = (
    "Atreides",
    "Harkonnen",
    "Fremen",
    "Bene Tleilax",
    "Corrino",
    "Spacing Guild",
    "Bene Gesserit",
    "Smugglers",
)


class UnitType(IntEnum):
    """Unit types.  Only Corrino has ELITE units (Sardaukar, COR-1)."""

    REGULAR = 0
    ELITE = 1


NUM_UNIT_TYPES: Final = 2


class Token(IntEnum):
    """Property tokens (COMP-2)."""

    FORTRESS = 0
    HARVESTER = 1
    ORNITHOPTER = 2


NUM_TOKEN_TYPES: Final = 3
TOKEN_NAMES: Final = ("Fortress", "Harvester", "Ornithopter")
PROPERTY_TOKENS_PER_TYPE: Final = 2  # COMP-2: 2 of each, 6 in all
NUM_THUMPERS: Final = 4  # COMP-2

NO_ONE: Final = -1  # holder / faction / region sentinel meaning "nobody" or "common supply"

# --- Dice (COMP-1) --------------------------------------------------------------------------


class Die(IntEnum):
    """Index of each of the seven dice."""

    FACTION_1 = 0
    FACTION_2 = 1
    FACTION_3 = 2
    FACTION_4 = 3
    REGION = 4
    SPICE = 5
    KANLY = 6


NUM_DICE: Final = 7
FACTION_DICE: Final = (0, 1, 2, 3)
FACES_PER_DIE: Final = 6

# Faction-die faces, left to right as the rulebook lists them (COMP-1).
FACTION_DIE_SYMBOLS: Final[tuple[int, ...]] = (
    Faction.ATREIDES,
    Faction.CORRINO,
    Faction.HARKONNEN,
    Faction.GUILD,
    Faction.BENE_GESSERIT,
    Faction.FREMEN,
)
SYMBOL_FACTIONS: Final = frozenset(FACTION_DIE_SYMBOLS)

# Spice die: faces 0..4 give 1..5 spice, face 5 is Shai-Hulud; faces 2,3,4 (3,4,5 spice) show
# the storm symbol (COMP-1, STORM-1).
SHAI_HULUD_FACE: Final = 5
STORM_SPICE_FACES: Final = frozenset({2, 3, 4})


class KanlyFace(IntEnum):
    POISON = 0
    CRYSKNIFE = 1
    HUNTER_SEEKER = 2
    SNOOPER = 3
    SHIELD = 4
    THUMPER = 5


KANLY_NAMES: Final = ("Poison", "Crysknife", "Hunter-seeker", "Snooper", "Shield", "Thumper")

# --- Factions' pieces (COMP-3) ----------------------------------------------------------------

# units[faction] = (regular units, elite units)
UNIT_COUNTS: Final[tuple[tuple[int, int], ...]] = (
    (12, 0),  # Atreides
    (12, 0),  # Harkonnen
    (8, 0),  # Fremen
    (12, 0),  # Tleilax
    (8, 4),  # Corrino: 8 + 4 Sardaukar
    (12, 0),  # Guild
    (12, 0),  # Bene Gesserit
    (12, 0),  # Smugglers
)
LEADER_COUNTS: Final = (2, 1, 1, 1, 1, 1, 1, 1)  # Atreides: Leto + Duncan Idaho (ATR-1)
LEADER_STRENGTHS: Final = (3, 4, 3, 2, 3, 2, 3, 3)
ATREIDES_TWO_LEADERS_STRENGTH: Final = 5  # ATR-1: one token is 3, both are 5
LEADER_NAMES: Final = (
    "Leto",
    "Baron Vladimir",
    "Liet Kynes",
    "Scytale",
    "Shaddam IV",
    "Edrik",
    "Mohiam",
    "Esmar Tuek",
)
STORAGE_CAP: Final = 5  # COR-2, GLD-1
STORAGE_FACTIONS: Final = frozenset({Faction.CORRINO, Faction.GUILD})  # the factions with a storage


def unit_strength(faction: int, unit_type: int) -> int:
    """DEF-8: 1; a Fremen unit 2; a Sardaukar 2."""
    if faction == Faction.FREMEN or unit_type == UnitType.ELITE:
        return 2
    return 1


def leaders_strength(faction: int, count: int) -> int:
    """Strength of `count` committed leader tokens of one faction (ATR-1 for Atreides)."""
    if count <= 0:
        return 0
    if faction == Faction.ATREIDES and count >= 2:
        return ATREIDES_TWO_LEADERS_STRENGTH
    return LEADER_STRENGTHS[faction]


# --- Player counts (SETUP-5) ------------------------------------------------------------------

MIN_PLAYERS: Final = 3
MAX_PLAYERS: Final = 8
MAX_ROUNDS: Final = 6  # DEF-3
ALLIANCE_MIN_PLAYERS: Final = 5  # ALLY-1

_BASE_FACTIONS: Final = (
    Faction.ATREIDES,
    Faction.HARKONNEN,
    Faction.FREMEN,
    Faction.CORRINO,
    Faction.GUILD,
)


def available_factions(num_players: int) -> tuple[int, ...]:
    """SETUP-5: the factions that may be played at this player count, in setup order."""
    if not MIN_PLAYERS <= num_players <= MAX_PLAYERS:
        raise ValueError(
            f"num_players={num_players} is not allowed: the game is for "
            f"{MIN_PLAYERS} to {MAX_PLAYERS} players"
        )
    allowed = set(_BASE_FACTIONS)
    if num_players >= 5:
        allowed.add(Faction.BENE_GESSERIT)
    if num_players >= 6:
        allowed.update((Faction.TLEILAX, Faction.SMUGGLERS))
    return tuple(sorted(int(f) for f in allowed))


# --- Locations ---------------------------------------------------------------------------------
# A piece's location is a region index 0..9, or CARD or RESERVE (DEF-1, DEF-2).
NUM_REGIONS: Final = 10
CARD: Final = 10
RESERVE: Final = 11
NUM_LOCATIONS: Final = 12
