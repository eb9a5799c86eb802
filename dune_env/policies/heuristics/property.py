"""Step 8, property (PROP-1): the token wanted in the target region."""

from __future__ import annotations

from ...engine import GameState
from ...engine.constants import NO_ONE
from .features import STRATEGIC
from .style import Style


def reorganize(style: Style, s: GameState, seat: int, options: list[int]) -> int:
    target = s.target
    wanted = style.token_strategic if STRATEGIC[target] else style.token_other
    current = s.region_token[target]
    if current == wanted:
        return 0
    if 1 + wanted in options:
        return 1 + wanted
    if current == NO_ONE:
        return max(options)
    return 0
