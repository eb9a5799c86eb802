"""Step 3, recruitment (RECRUIT-1..3) and the Tleilax ghola (TLX-5)."""

from __future__ import annotations

from ...engine import GameState, Phase
from ...engine.constants import CARD
from ...engine.decisions import RECRUIT_ELITE, RECRUIT_LEADER, RECRUIT_UNIT
from .features import count
from .style import Style


def recruit(style: Style, s: GameState, seat: int, options: list[int]) -> int:
    me = s.seat_faction[seat]
    if RECRUIT_LEADER in options and wants_leader(style, s, me):
        return RECRUIT_LEADER
    if RECRUIT_UNIT in options:
        return RECRUIT_UNIT
    if RECRUIT_ELITE in options:
        return RECRUIT_ELITE
    if RECRUIT_LEADER in options:
        return RECRUIT_LEADER
    return options[0]


def wants_leader(style: Style, s: GameState, me: int) -> bool:
    """The leader before units: always (`leader_first`) or with none on the card and a unit."""
    return style.leader_first or (s.leaders[me][0] == 0 and count(s, me, CARD) >= 1)


def ghola(style: Style, s: GameState, seat: int, options: list[int]) -> int:
    me = s.seat_faction[seat]
    spice = s.pool + s.storage[me]
    if s.phase == Phase.BATTLE_GHOLA:
        return 1  # the spice left after landing has no other use
    return 1 if spice > count(s, me, CARD) else 0
