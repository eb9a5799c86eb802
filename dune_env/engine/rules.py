"""The public rules API: read-only questions about a position, answered as the rules do.

Bots, tools and the engine's own steps ask these functions (one place for each idea): who is
present and who controls a region, how strong a faction's units are, whom a Kanly face cannot
harm, where the storm is and where it goes, where units can move from, who fights on each side
of a battle and how strong each side can be.  Every function reads a `GameState` (`game.state`
of a `Game`) and never changes it; rule IDs refer to docs/rules.md.

Everything here is public information except what the state itself hides from a seat (the
bids in progress, the Bene Gesserit prediction): no function here reads those.
"""

from __future__ import annotations

from typing import Final

from .constants import (
    NO_ONE,
    NUM_FACTIONS,
    NUM_UNIT_TYPES,
    SHAI_HULUD_FACE,
    STORM_SPICE_FACES,
    Die,
    Faction,
    KanlyFace,
    Token,
    leaders_strength,
    unit_strength,
)
from .map_data import DEFAULT_MAP, NUM_SECTORS
from .state import GameState

MAP: Final = DEFAULT_MAP
POLAR: Final = MAP.polar_cap
NUM_REGIONS: Final = MAP.num_regions
REGIONS: Final = range(NUM_REGIONS)
STRATEGIC_REGIONS: Final[tuple[int, ...]] = MAP.strategic_regions
ADJACENT: Final[tuple[tuple[int, ...], ...]] = tuple(tuple(sorted(a)) for a in MAP.adjacency)
"""ADJACENT[region]: the regions sharing a border with `region` (MAP-2), ascending."""

ATTACKER, DEFENDER = 0, 1
"""The two sides of a battle (BATTLE-2), as indexed in `state.bid_units` / `bid_leaders`."""

UNIT_STRENGTHS: Final[tuple[tuple[int, int], ...]] = tuple(
    (unit_strength(f, 0), unit_strength(f, 1)) for f in range(NUM_FACTIONS)
)
"""UNIT_STRENGTHS[faction][unit_type]: `unit_strength` tabulated (DEF-8), for hot loops."""

__all__ = [
    "legal_prediction",
    "ADJACENT",
    "ATTACKER",
    "DEFENDER",
    "MAP",
    "NUM_REGIONS",
    "POLAR",
    "REGIONS",
    "STRATEGIC_REGIONS",
    "UNIT_STRENGTHS",
    "alliance_regions",
    "attacker_side",
    "battle_regions",
    "can_move",
    "controls",
    "defender_of",
    "defender_side",
    "factions_in",
    "in_storm",
    "is_enemy",
    "kanly_protected",
    "leader_strength",
    "leaders_strength",
    "move_sources",
    "next_sector",
    "next_storm_sector",
    "occupied",
    "present",
    "regions_in_storm",
    "seat_order_ccw",
    "side_factions",
    "side_leader_owners",
    "side_max_strength",
    "spice_die_is_worm",
    "storm_moves_west",
    "storm_will_move",
    "strategic_controlled",
    "strength",
    "unit_strength",
    "units",
    "units_on_map",
]


# --- presence and control ------------------------------------------------------------------


def units(state: GameState, faction: int, location: int, unit_type: int | None = None) -> int:
    """A faction's units at a location (a region, `CARD` or `RESERVE`), of one type or all."""
    u = state.units[faction]
    i = location * NUM_UNIT_TYPES
    if unit_type is None:
        return u[i] + u[i + 1]
    return u[i + unit_type]


def units_on_map(state: GameState, faction: int) -> int:
    """A faction's units in all regions together (neither on its card nor in its reserve)."""
    return sum(state.units[faction][: NUM_REGIONS * NUM_UNIT_TYPES])


def present(state: GameState, faction: int, region: int) -> bool:
    """DEF-5: the faction has at least one unit in the region."""
    u = state.units[faction]
    i = region * NUM_UNIT_TYPES
    return u[i] + u[i + 1] > 0


def factions_in(state: GameState, region: int) -> list[int]:
    """Factions present in a region, in faction order."""
    i = region * NUM_UNIT_TYPES
    return [f for f in range(NUM_FACTIONS) if state.units[f][i] + state.units[f][i + 1] > 0]


def occupied(state: GameState, region: int) -> bool:
    """Any faction is present in the region."""
    i = region * NUM_UNIT_TYPES
    return any(u[i] + u[i + 1] for u in state.units)


def is_enemy(state: GameState, faction: int) -> bool:
    """DEF-4: an enemy of the active player (neither the active player nor its ally)."""
    return faction != state.active_faction and faction != state.ally


def seat_order_ccw(state: GameState, from_seat: int) -> list[int]:
    """DEF-9: seats counter-clockwise from `from_seat` (exclusive), nearest first."""
    n = state.num_players
    return [(from_seat - k) % n for k in range(1, n)]


def controls(state: GameState, faction: int, region: int, ally: int = NO_ONE) -> bool:
    """DEF-6 / CL-3: presence is control (never of the Polar Cap, MAP-4).  With the
    strict_control variant no other faction except `ally` may be present."""
    if region == POLAR or not present(state, faction, region):
        return False
    if state.config.strict_control:
        for other in factions_in(state, region):
            if other != faction and other != ally:
                return False
    return True


def strategic_controlled(state: GameState, faction: int) -> int:
    """The number of strategic regions the faction controls (END-1 needs three)."""
    return sum(1 for r in STRATEGIC_REGIONS if controls(state, faction, r))


def alliance_regions(state: GameState, a: int, b: int) -> int:
    """END-2: strategic regions held by a or b with no third faction present.  With
    strict_alliance_victory [variant], 0 while a or b shares any strategic region with a
    third faction."""
    total = 0
    strict = state.config.strict_alliance_victory
    for region in STRATEGIC_REGIONS:
        there = factions_in(state, region)
        if there and all(f == a or f == b for f in there):
            total += 1
        elif strict and (a in there or b in there):
            return 0
    return total


# --- strength --------------------------------------------------------------------------------


def strength(state: GameState, faction: int, region: int) -> int:
    """DEF-8: battle strength of a faction's units in a region (leaders not included)."""
    u = state.units[faction]
    i = region * NUM_UNIT_TYPES
    regular, elite = UNIT_STRENGTHS[faction]
    return u[i] * regular + u[i + 1] * elite


def leader_strength(state: GameState, faction: int) -> int:
    """ATR-1 / BATTLE-5: strength of all the faction's leader tokens on its card."""
    return leaders_strength(faction, state.leaders[faction][0])


# --- Kanly -----------------------------------------------------------------------------------


def kanly_protected(state: GameState, face: int, faction: int) -> bool:
    """KANLY-3: Poison spares the Snooper's holder and the Bene Gesserit (BG-3); Crysknife
    spares the Shield's holder and the Fremen (FRE-2); the Hunter-seeker spares no one."""
    if face == KanlyFace.POISON:
        return faction == state.snooper_holder or faction == Faction.BENE_GESSERIT
    if face == KanlyFace.CRYSKNIFE:
        return faction == state.shield_holder or faction == Faction.FREMEN
    return False


# --- storm -----------------------------------------------------------------------------------


def in_storm(state: GameState, region: int) -> bool:
    """DEF-7, MAP-4: the regions of the sector under the storm marker (never the Polar Cap)."""
    return MAP.sectors[region] == state.storm_sector


def regions_in_storm(state: GameState) -> tuple[int, ...]:
    """DEF-7: every region of the storm's current sector."""
    return MAP.regions_in_sector(state.storm_sector)


def spice_die_is_worm(state: GameState) -> bool:
    """The spice die shows Shai-Hulud (LAND-1, FRE-3)."""
    return state.dice_faces[Die.SPICE] == SHAI_HULUD_FACE


def storm_will_move(state: GameState) -> bool:
    """STORM-1: the spice die shows a storm symbol (3, 4 or 5 spice)."""
    return state.dice_faces[Die.SPICE] in STORM_SPICE_FACES


def storm_moves_west(state: GameState) -> bool:
    """CL-1: the region-die faces listed in the configuration show W, the others E."""
    return state.dice_faces[Die.REGION] + 1 in state.config.region_die_west_faces


def next_sector(sector: int, west: bool) -> int:
    """MAP-3: E moves the storm to sector - 1 (1 -> 6), W to sector + 1 (6 -> 1)."""
    if west:
        return sector % NUM_SECTORS + 1
    return (sector - 2) % NUM_SECTORS + 1


def next_storm_sector(state: GameState) -> int:
    """The sector the storm enters at step 9 of this turn, or 0 when it stays (STORM-1).

    Only meaningful once the spice and region dice are fixed."""
    if storm_will_move(state):
        return next_sector(state.storm_sector, storm_moves_west(state))
    return 0


# --- movement --------------------------------------------------------------------------------


def can_move(state: GameState, faction: int, source: int, target: int) -> bool:
    """MOVE-2/4, PROP-4, FRE-3: the faction's units in `source` may move into `target`: an
    adjacent region, or from an ornithopter's region, or anywhere by worm riding (the Fremen
    when the spice die shows Shai-Hulud); never out of the storm.  Presence is not checked."""
    if source == target or in_storm(state, source):
        return False
    if source in MAP.adjacency[target] or state.region_token[source] == Token.ORNITHOPTER:
        return True
    return faction == Faction.FREMEN and spice_die_is_worm(state)


def move_sources(state: GameState, faction: int, target: int) -> list[int]:
    """The regions holding units of `faction` that could move into `target` this turn."""
    return [
        r for r in REGIONS if present(state, faction, r) and can_move(state, faction, r, target)
    ]


# --- battles ---------------------------------------------------------------------------------


def battle_regions(state: GameState) -> list[int]:
    """BATTLE-1: regions (not the Polar Cap, not the storm) where the active player's units
    share the region with an enemy's."""
    active = state.active_faction
    return [
        r
        for r in REGIONS
        if r != POLAR
        and not in_storm(state, r)
        and present(state, active, r)
        and any(is_enemy(state, f) for f in factions_in(state, r))
    ]


def defender_of(state: GameState, region: int) -> int:
    """BATTLE-2: the enemy present that most recently finished its turn (nearest ccw)."""
    for seat in seat_order_ccw(state, state.active_seat):
        faction = state.seat_faction[seat]
        if is_enemy(state, faction) and present(state, faction, region):
            return faction
    return NO_ONE


def attacker_side(state: GameState) -> list[int]:
    """BATTLE-2: the active player and its ally, if any."""
    return [f for f in (state.active_faction, state.ally) if f != NO_ONE]


def defender_side(state: GameState) -> list[int]:
    """BATTLE-2: every enemy present in the battle region fights on the defender's side."""
    return [f for f in factions_in(state, state.battle_region) if is_enemy(state, f)]


def side_factions(state: GameState, side: int) -> list[int]:
    """The factions whose units fight on `side` (ATTACKER or DEFENDER) of the current battle."""
    return attacker_side(state) if side == ATTACKER else defender_side(state)


def side_leader_owners(state: GameState, side: int) -> list[int]:
    """Leaders a side may commit: its decider's own and those lent to it (BATTLE-4)."""
    owner = state.active_faction if side == ATTACKER else state.battle_defender
    owners = [owner]
    for faction in attacker_side(state) if side == ATTACKER else defender_side(state):
        if faction != owner and state.lent[faction]:
            owners.append(faction)
    if side == ATTACKER and state.ally != NO_ONE and state.lent[state.ally]:
        if state.ally not in owners:
            owners.append(state.ally)
    return owners


def side_max_strength(state: GameState, side: int) -> int:
    """BATTLE-5/6: the most a side of the current battle can bid: every unit of its factions
    in the region and every leader it may commit.  Public, unlike the bid itself."""
    region = state.battle_region
    total = 0
    for faction in side_factions(state, side):
        total += strength(state, faction, region)
    for faction in side_leader_owners(state, side):
        total += leader_strength(state, faction)
    return total


def legal_prediction(state: GameState) -> list[int]:
    """BG-0: any faction in the game other than BG, or the Guild even when nobody plays it."""
    options = {f for f in state.seat_faction if f != Faction.BENE_GESSERIT}
    options.add(int(Faction.GUILD))
    return sorted(options)
