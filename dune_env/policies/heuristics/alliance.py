"""Step 2, alliances (ALLY-1..4): the offer, the answer, the split of the shared dice."""

from __future__ import annotations

from ...engine import GameState
from ...engine.decisions import OFFER_NOBODY, decode_offer
from ...engine.rules import alliance_regions
from .features import strategic_count
from .style import Style


def ally_offer(style: Style, s: GameState, seat: int, options: list[int]) -> int:
    """The partner worth most to offer an alliance to (`Style.offer_value`), or nobody."""
    me = s.seat_faction[seat]
    best, best_value = OFFER_NOBODY, 0.0
    for option in options:
        if option == OFFER_NOBODY:
            continue
        target, _symbol = decode_offer(option)
        value = style.offer_value(s, me, target)
        if value > best_value:
            best, best_value = option, value
    return best


def ally_answer(style: Style, s: GameState, seat: int, options: list[int]) -> int:
    """Accept when the two hold four strategic regions (an END-2 win at the end of this turn);
    decline when the offering player holds two (our help would make its solo win, END-1,
    reachable); otherwise as the style decides (`Style.accepts_alliance`)."""
    me = s.seat_faction[seat]
    active = s.active_faction
    together = alliance_regions(s, me, active)
    if together >= 4:
        return 1  # END-2 at the end of this turn unless something changes
    if strategic_count(s, active) >= 2:
        return 0
    return 1 if style.accepts_alliance(s, me, active, together) else 0


def dice_split(style: Style, s: GameState, seat: int, options: list[int]) -> int:
    return options[0]  # give the ally as few shared dice as allowed
