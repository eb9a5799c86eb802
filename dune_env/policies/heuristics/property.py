"""Step 8, property (PROP-1): the token wanted in the target region."""

from __future__ import annotations

from ...engine import GameState
from ...engine.constants import NO_ONE
from ...engine.decisions import KEEP_PROPERTY, REORGANIZE_CODEC
from .features import STRATEGIC
from .style import Style


def reorganize(style: Style, s: GameState, seat: int, options: list[int]) -> int:
    target = s.target
    wanted = style.token_strategic if STRATEGIC[target] else style.token_other
    current = s.region_token[target]
    if current == wanted:
        return KEEP_PROPERTY
    place_wanted = REORGANIZE_CODEC.encode("place", wanted)
    if place_wanted in options:
        return place_wanted
    if current == NO_ONE:
        return max(options)
    return KEEP_PROPERTY
