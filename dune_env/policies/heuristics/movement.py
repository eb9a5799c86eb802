"""Step 6, movement (MOVE-1..4): the target and the units moved into it."""

from __future__ import annotations

from ...engine import GameState
from ...engine.constants import NO_ONE, Token
from ...engine.decisions import MOVE_STOP, decode_move
from ...engine.rules import POLAR
from .features import (
    STRATEGIC,
    count,
    enemy_presence,
    keep_in,
    leader_power,
    movable,
    own_target_value,
    strength,
)
from .style import Style


def move_target(style: Style, s: GameState, seat: int, options: list[int]) -> int:
    me = s.seat_faction[seat]
    return max(options, key=lambda r: own_target_value(style, s, me, s.ally, r, landing=False))


def move(style: Style, s: GameState, seat: int, options: list[int]) -> int:
    """Move units one at a time until the planned strength (at least the style's `garrison`
    in a strategic target) is in the target."""
    me = s.seat_faction[seat]
    target = s.target
    active = s.active_faction
    friend = s.ally if me == active else active
    wanted = wanted_in_target(style, s, me, friend, target, me == active)
    if me == active and STRATEGIC[target] and wanted:
        wanted = max(wanted, style.garrison)  # enter or reinforce with a garrison
    have = strength(s, me, target)
    if have >= wanted:
        return MOVE_STOP
    # Choose a source: the one with most spare units, non-strategic first.
    best, best_key = MOVE_STOP, (-1.0, 0.0)
    for option in options:
        if option == MOVE_STOP:
            continue
        src, unit_type = decode_move(option)
        spare = count(s, me, src) - keep_in(style, s, me, src)
        if spare <= 0:
            continue
        key = (0.0 if STRATEGIC[src] else 1.0, spare + 0.5 * unit_type)
        if key > best_key:
            best, best_key = option, key
    return best


def wanted_in_target(
    style: Style, s: GameState, me: int, friend: int, target: int, active: bool
) -> int:
    """Strength we want in the target after moving."""
    if target == POLAR:
        return 0 if not active else 99 if style.gamble else 0
    enemy_units, enemy_leaders = enemy_presence(s, target, (me, friend))
    if not active:
        # MOVE-3 as the ally: one unit for presence in a strategic region, if safe.
        if STRATEGIC[target] and not enemy_units and not count(s, me, target):
            return 1
        return 0
    if enemy_units:
        need = enemy_units + enemy_leaders + 1 - leader_power(s, me)
        if friend != NO_ONE:
            need -= strength(s, friend, target)
        mov, _ = movable(style, s, me, target)
        mine = strength(s, me, target)
        if mine + mov < need and not (
            style.gamble
            and mine + mov + leader_power(s, me)
            >= style.attack_ratio * (enemy_units + enemy_leaders)
        ):
            return 0
        return max(need, 1) + 1  # one more to hold the region after the battle
    if STRATEGIC[target]:
        return style.move_cap
    return 1 if s.region_token[target] == Token.HARVESTER else 0
