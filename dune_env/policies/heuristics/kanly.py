"""Step 4, Kanly (KANLY-1..5): the kill or the item worth most."""

from __future__ import annotations

from ...engine import GameState
from ...engine.constants import Die, KanlyFace
from ...engine.decisions import KANLY_NONE, KANLY_TAKE, decode_kanly_kill
from .features import kill_value
from .style import Style


def kanly(style: Style, s: GameState, seat: int, options: list[int]) -> int:
    """The kill worth most (`features.kill_value`, aimed at the style's `kanly_focus`), or
    the item when it is worth more (`Style.item_value`; a Thumper a little)."""
    me = s.seat_faction[seat]
    focus = style.kanly_focus(s, me)
    best, best_value = KANLY_NONE, 0.0
    face = s.dice_faces[Die.KANLY]
    for option in options:
        if option == KANLY_NONE:
            continue
        if option == KANLY_TAKE:
            if face in (KanlyFace.SNOOPER, KanlyFace.SHIELD):
                value = style.item_value(s, me, face)
            else:
                value = 0.2
        else:
            region, victim, unit_type = decode_kanly_kill(option)
            value = kill_value(style, s, me, region, victim, focus) + 0.1 * unit_type
        if value > best_value:
            best, best_value = option, value
    return best
