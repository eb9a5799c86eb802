"""Step 2, alliances (ALLY-1..4): the offer, the answer, the split of the shared dice."""

from __future__ import annotations

from ...engine import GameState
from ...engine.constants import Faction
from ...engine.decisions import OFFER_NOBODY, decode_offer
from ...engine.rules import alliance_regions
from .features import strategic_count
from .style import Style


def ally_offer(style: Style, s: GameState, seat: int, options: list[int]) -> int:
    """Offer an alliance only when the two could hold four strategic regions alone soon
    (END-2), to a partner not close to winning alone; the economic style also asks a
    Corrino with stored spice (COR-3)."""
    me = s.seat_faction[seat]
    best, best_value = OFFER_NOBODY, 0.0
    for option in options:
        if option == OFFER_NOBODY:
            continue
        target, _symbol = decode_offer(option)
        if strategic_count(s, target) >= 2:
            continue
        together = alliance_regions(s, me, target)
        value = 0.0
        if together >= 3:
            value = float(together)
        elif style.ally_generosity and target == Faction.CORRINO and s.storage[target] >= 3:
            value = 1.0
        if value > best_value:
            best, best_value = option, value
    return best


def ally_answer(style: Style, s: GameState, seat: int, options: list[int]) -> int:
    """Accept unless the offering player is close to winning alone and the alliance could
    not win for us too."""
    me = s.seat_faction[seat]
    active = s.active_faction
    if alliance_regions(s, me, active) >= 4:
        return 1  # END-2 at the end of this turn unless something changes
    if strategic_count(s, active) >= 2:
        return 0
    return 1


def dice_split(style: Style, s: GameState, seat: int, options: list[int]) -> int:
    return options[0]  # give the ally as few shared dice as allowed
