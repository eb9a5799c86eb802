"""Step 5, landing (LAND-1..5): harvester loss, spice gifts, consent, where to land, grants."""

from __future__ import annotations

from ...engine import GameState
from ...engine.constants import CARD, NO_ONE, Faction, Token
from ...engine.decisions import LAND_SMUGGLERS_LEADER, LAND_STOP, decode_land
from ...engine.rules import POLAR, in_storm
from .features import (
    ADJ,
    DESERT,
    SECTOR,
    STRATEGIC,
    STRATEGIC_REGIONS,
    alliance_useful,
    count,
    enemy_presence,
    grant_worthwhile,
    next_storm_sector,
    planned_target,
    strategic_count,
    thin_garrison,
)
from .style import Style


def harvester_discard(style: Style, s: GameState, seat: int, options: list[int]) -> int:
    """Lose the harvester we would miss least: in the storm, else where we are weakest."""
    me = s.seat_faction[seat]
    return min(options, key=lambda r: (not in_storm(s, r), count(s, me, r), r))


def spice_gift(style: Style, s: GameState, seat: int, options: list[int]) -> int:
    me = s.seat_faction[seat]
    active = s.active_faction
    if alliance_useful(style, s, me, active):
        return options[-1]
    return options[0]


def land_consent(style: Style, s: GameState, seat: int, options: list[int]) -> int:
    """Refuse when the active player's landing into our regions could give it three
    strategic regions (control by presence, CL-3)."""
    me = s.seat_faction[seat]
    active = s.active_faction
    gain = sum(
        1
        for r in STRATEGIC_REGIONS
        if count(s, me, r) and not count(s, active, r) and not in_storm(s, r) and not DESERT[r]
    )
    if strategic_count(s, active) + gain >= 3:
        return 0
    return 1 if alliance_useful(style, s, me, active) else 0


def land(style: Style, s: GameState, seat: int, options: list[int]) -> int:
    """Land every unit we can pay for, each where it scores best: next to the planned
    movement target, into strategic regions we hold (more so when a battle is coming, and
    where a garrison is thinner than the style's `garrison`), the Polar Cap as a staging
    area."""
    me = s.seat_faction[seat]
    active = s.active_faction
    friend = s.ally if me == active else active
    plan = planned_target(style, s, active, s.ally)
    if LAND_SMUGGLERS_LEADER in options and s.leaders[me][0] == 0 and s.pool + s.storage[me] >= 3:
        return LAND_SMUGGLERS_LEADER
    best, best_value = LAND_STOP, 0.0
    nxt = next_storm_sector(s)
    for option in options:
        if option < 2:
            continue
        region, unit_type = decode_land(option)
        value = land_value(style, s, me, friend, region, plan, nxt)
        value += 0.01 * unit_type
        if thin_garrison(style, s, me, region):
            value += style.reinforce_bonus
        if me == Faction.SMUGGLERS and region == POLAR and count(s, me, CARD) == 0:
            value -= 0.4  # costs 2 spice from the reserve (SMG-1)
        if value > best_value:
            best, best_value = option, value
    return best


def land_value(
    style: Style, s: GameState, me: int, friend: int, region: int, plan: int, nxt: int
) -> float:
    value = 0.5
    if region == POLAR:
        value = 0.6
    elif STRATEGIC[region]:
        value = 1.5
        if not count(s, me, region):
            value += 3.0  # presence is control (CL-3): a region gained by landing
        enemy_units, enemy_leaders = enemy_presence(s, region, (me, friend))
        if enemy_units:
            value += 1.0 * style.attack_ratio if style.gamble else 0.7
    if s.region_token[region] == Token.HARVESTER:
        value += style.harvester_bonus
    if plan != NO_ONE and plan != region and region in ADJ[plan]:
        value += 1.5
    if nxt and SECTOR[region] == nxt and DESERT[region]:
        value -= 1.0
    return value


def ally_grant(style: Style, s: GameState, seat: int, options: list[int]) -> int:
    """Grant the pool left after our own landing (it would be lost, SPICE-3) when the ally
    is useful; stored spice is kept."""
    me = s.seat_faction[seat]
    ally = s.ally
    if strategic_count(s, ally) >= 2 or not grant_worthwhile(style, s, me, ally):
        return 0
    grant = s.pool
    return grant if grant in options else options[0]
