"""Step 4, Kanly (KANLY-1..5): the kill or the item worth most."""

from __future__ import annotations

from ...engine import GameState
from ...engine.constants import Die, KanlyFace
from ...engine.decisions import KANLY_NONE, KANLY_TAKE, decode_kanly_kill
from .features import kill_value
from .style import Style


def kanly(style: Style, s: GameState, seat: int, options: list[int]) -> int:
    me = s.seat_faction[seat]
    best, best_value = KANLY_NONE, 0.0
    face = s.dice_faces[Die.KANLY]
    for option in options:
        if option == KANLY_NONE:
            continue
        if option == KANLY_TAKE:
            value = 0.2 if face == KanlyFace.THUMPER else 0.3
        else:
            region, victim, unit_type = decode_kanly_kill(option)
            value = kill_value(style, s, me, region, victim) + 0.1 * unit_type
        if value > best_value:
            best, best_value = option, value
    return best
