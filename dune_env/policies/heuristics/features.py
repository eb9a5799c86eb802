"""Evaluation features shared by the handlers: what a region, a move, a kill is worth.

Shared ideas of every style:
- a *target value* per region (`target_value`): what moving there this turn is worth to the
  mover (taking an empty strategic region, winning a battle, reaching three strategic regions);
  it drives which region-die face to keep, where to land and which target to choose;
- a *threat* per faction: the strategic regions it controls (`strategic_count`); Kanly,
  alliance answers and consent use it to slow down whoever is closest to winning, and
  `leader` names the opponent closest to a win (`closeness`).

A style changes these through its fields and hooks (`style.py`), never by copies of them.

Everything reads only the public state through `dune_env.engine.rules`.
"""

from __future__ import annotations

from typing import Final

from ...engine import GameState
from ...engine.constants import CARD, NO_ONE, RESERVE, Die, Faction, KanlyFace, Token, UnitType
from ...engine.rules import (
    ADJACENT,
    MAP,
    NUM_REGIONS,
    POLAR,
    UNIT_STRENGTHS,
    alliance_regions,
    can_move,
    in_storm,
    kanly_protected,
    next_storm_sector,
)
from ...engine.rules import leader_strength as leader_power
from ...engine.rules import strategic_controlled as strategic_count
from ...engine.rules import strength as strength
from ...engine.rules import units as count
from .style import Style

STRATEGIC: Final = tuple(MAP.strategic)
STRATEGIC_REGIONS: Final = MAP.strategic_regions
DESERT: Final = tuple(MAP.desert)
SECTOR: Final = tuple(MAP.sectors)
ADJ: Final = ADJACENT
SECTOR_REGIONS: Final = tuple(MAP.regions_in_sector(s) for s in range(7))
SPICE_BIT: Final = 1 << Die.SPICE
WIN_BONUS: Final = 20.0
KILL_FACES: Final = (KanlyFace.POISON, KanlyFace.CRYSKNIFE, KanlyFace.HUNTER_SEEKER)

__all__ = [
    "ADJ",
    "DESERT",
    "KILL_FACES",
    "SECTOR",
    "SECTOR_REGIONS",
    "SPICE_BIT",
    "STRATEGIC",
    "STRATEGIC_REGIONS",
    "WIN_BONUS",
    "alliance_useful",
    "closeness",
    "count",
    "enemy_presence",
    "grant_worthwhile",
    "keep_in",
    "kill_value",
    "kill_value_at",
    "kill_values",
    "landable_adjacent",
    "leader",
    "leader_power",
    "movable",
    "next_storm_sector",
    "own_target_value",
    "planned_target",
    "strategic_count",
    "strength",
    "target_value",
    "thin_garrison",
]


def enemy_presence(state: GameState, region: int, friends: tuple[int, int]) -> tuple[int, int]:
    """(unit strength, leader strength on cards) of the factions present other than `friends`."""
    units = 0
    leaders = 0
    for f in state.seat_faction:
        if f == friends[0] or f == friends[1]:
            continue
        s = strength(state, f, region)
        if s:
            units += s
            leaders += leader_power(state, f)
    return units, leaders


def closeness(s: GameState, f: int) -> float:
    """How close `f` is to a solo win (END-1), from public information: strategic regions
    held first, then units in them (harder to dislodge)."""
    held = 0
    units_held = 0
    for r in STRATEGIC_REGIONS:
        n = count(s, f, r)
        if n:
            held += 1
            units_held += n
    return held + 0.05 * units_held


def leader(s: GameState, me: int) -> int:
    """The opponent (not us, not our ally) closest to a win; NO_ONE when nobody holds a
    strategic region."""
    best, best_value = NO_ONE, 0.0
    for f in s.seat_faction:
        if f == me or f == s.ally:
            continue
        v = closeness(s, f)
        if v > best_value:
            best, best_value = f, v
    return best


def landable_adjacent(s: GameState, me: int, target: int) -> bool:
    """A region next to `target` that we hold and could land into (not desert, no storm)."""
    for r in ADJ[target]:
        if r != POLAR and count(s, me, r) and not DESERT[r] and not in_storm(s, r):
            return True
    return False


# --- movement --------------------------------------------------------------------------------


def keep_in(style: Style, s: GameState, me: int, src: int) -> int:
    """Units a mover leaves in `src`: all of them in a contested region, `keep` in a
    strategic region, none elsewhere."""
    if src == POLAR:
        return 0
    n = count(s, me, src)
    if STRATEGIC[src]:
        enemy_units, _ = enemy_presence(s, src, (me, s.ally))
        if enemy_units:
            return n
        return min(n, style.keep)
    return 0


def movable(style: Style, s: GameState, me: int, target: int) -> tuple[int, int]:
    """(strength, units) that could move into `target` now, keeping units where needed."""
    total_strength = 0
    total_units = 0
    regular_strength, elite_strength = UNIT_STRENGTHS[me]
    for src in range(NUM_REGIONS):
        n = count(s, me, src)
        if not n or not can_move(s, me, src, target):
            continue
        spare = n - keep_in(style, s, me, src)
        if spare <= 0:
            continue
        elite = min(count(s, me, src, UnitType.ELITE), spare)
        regular = spare - elite
        total_strength += regular * regular_strength + elite_strength * elite
        total_units += spare
    return total_strength, total_units


def target_value(
    style: Style, s: GameState, me: int, ally: int, target: int, landing: bool
) -> float:
    """What moving into `target` this turn is worth to `me` (scale: one unit ~ 1)."""
    if in_storm(s, target):
        return -10.0
    mov, movable_units = movable(style, s, me, target)
    if landing:  # units on the card can still land next to the target first
        card = count(s, me, CARD) if me != Faction.SMUGGLERS else count(s, me, RESERVE)
        if card and target != POLAR and (POLAR in ADJ[target] or landable_adjacent(s, me, target)):
            spice = s.pool + s.storage[me] if s.pool else 2
            extra = min(card, max(spice, 1))
            mov += extra * UNIT_STRENGTHS[me][UnitType.REGULAR]
            movable_units += extra
    if target == POLAR:
        return 0.05 * movable_units
    if not movable_units:
        return 0.0
    mine = count(s, me, target)
    enemy_units, enemy_leaders = enemy_presence(s, target, (me, ally))
    value = 0.0
    if STRATEGIC[target]:
        if enemy_units:
            my_power = mov + strength(s, me, target) + leader_power(s, me)
            if my_power > enemy_units + enemy_leaders:
                value = 3.0 + 0.5 * enemy_units
                if not mine and strategic_count(s, me) >= 2:
                    value += WIN_BONUS
            elif style.gamble and my_power >= style.attack_ratio * (enemy_units + enemy_leaders):
                value = 1.0
            else:
                value = -2.0
        elif mine:
            value = 0.3
        else:
            value = 3.0
            if strategic_count(s, me) >= 2:
                value += WIN_BONUS
    else:
        if enemy_units:
            my_power = mov + strength(s, me, target) + leader_power(s, me)
            value = 0.5 if my_power > enemy_units + enemy_leaders else -1.0
        else:
            value = 0.1
        if s.region_token[target] == Token.HARVESTER:
            value += style.harvester_bonus
    nxt = next_storm_sector(s) if not landing else 0
    if nxt and SECTOR[target] == nxt and DESERT[target]:
        if s.region_token[target] != Token.FORTRESS:
            value -= 0.5
    return value


def own_target_value(
    style: Style, s: GameState, me: int, ally: int, target: int, landing: bool
) -> float:
    """What moving into `target` is worth to `me` choosing its own region die face or target:
    `target_value` as the style sees it (`Style.adjust_target_value`).  Predicting another
    player's target (`planned_target`) uses `target_value` alone."""
    value = target_value(style, s, me, ally, target, landing)
    return style.adjust_target_value(s, me, ally, target, landing, value)


def thin_garrison(style: Style, s: GameState, me: int, region: int) -> bool:
    """`region` is a strategic region we hold with fewer units than `style.garrison`."""
    return STRATEGIC[region] and 0 < count(s, me, region) < style.garrison


def planned_target(style: Style, s: GameState, me: int, ally: int) -> int:
    """The target the active player will probably choose (its region die is fixed)."""
    sector = s.dice_faces[Die.REGION] + 1
    best, best_value = POLAR, target_value(style, s, me, ally, POLAR, landing=True)
    for r in SECTOR_REGIONS[sector]:
        if in_storm(s, r):
            continue
        v = target_value(style, s, me, ally, r, landing=True)
        if v > best_value:
            best, best_value = r, v
    return best


# --- Kanly -----------------------------------------------------------------------------------


def kill_value(style: Style, s: GameState, me: int, region: int, victim: int, focus: int) -> float:
    """Value of killing one `victim` unit in `region` (KANLY-1): more for a sole unit in a
    strategic region of a faction close to winning, more again when it is the style's `focus`
    (`Style.kanly_focus`), whose thin garrisons are worth breaking too."""
    return kill_value_at(style, s, me, region, victim, focus, strategic_count(s, victim))


def kill_value_at(
    style: Style, s: GameState, me: int, region: int, victim: int, focus: int, threat: int
) -> float:
    """`kill_value`, given the victim's `threat` (its `strategic_count`, which `kill_values`
    counts once a victim rather than once a region)."""
    n = count(s, victim, region)
    value = style.kill_base + 0.3 * threat
    if STRATEGIC[region]:
        if n == 1:
            value = 2.0 + 2.0 * threat + (10.0 if threat >= 2 else 0.0)
            if victim == focus:
                value += style.focus_kill_bonus
        elif n == 2 and victim == focus:
            value += 0.8 + 0.4 * threat
        else:
            value += 0.3
    if count(s, me, region):
        value += 0.5  # weakens a battle of ours
    return value * style.kill_weight


def kill_values(style: Style, s: GameState, me: int) -> list[float]:
    """Best Kanly kill value under each kill face (KANLY-1..3)."""
    focus = style.kanly_focus(s, me)
    best = [0.0, 0.0, 0.0]
    threats = [-1] * len(s.seat_faction)  # by seat: the faction's strategic_count, once known
    for region in range(NUM_REGIONS):
        if in_storm(s, region):
            continue
        for seat, f in enumerate(s.seat_faction):
            if f == me or f == s.ally or not count(s, f, region):
                continue
            threat = threats[seat]
            if threat < 0:
                threat = threats[seat] = strategic_count(s, f)
            v = kill_value_at(style, s, me, region, f, focus, threat)
            for face in KILL_FACES:
                if v > best[face] and not kanly_protected(s, face, f):
                    best[face] = v
    return best


# --- alliances -------------------------------------------------------------------------------


def alliance_useful(style: Style, s: GameState, me: int, active: int) -> bool:
    """Helping the active ally is worth it if the two could win together and it is not
    about to win alone (a solo win would leave us losing)."""
    if strategic_count(s, active) >= 2:
        return False
    return style.ally_generosity or alliance_regions(s, me, active) >= 3


def grant_worthwhile(style: Style, s: GameState, me: int, ally: int) -> bool:
    return style.ally_generosity or alliance_regions(s, me, ally) >= 3
