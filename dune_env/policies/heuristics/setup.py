"""Set-up decisions: faction draft, Atreides/Harkonnen start regions, Bene Gesserit
prediction."""

from __future__ import annotations

from ...engine import GameState
from ...engine.constants import NUM_FACTIONS, Faction
from ...engine.rules import in_storm
from .features import ADJ, DESERT, STRATEGIC
from .style import Style


def choose_faction(style: Style, s: GameState, seat: int, options: list[int]) -> int:
    rank = {f: i for i, f in enumerate(style.faction_preference)}
    return min(options, key=lambda f: rank.get(f, NUM_FACTIONS))


def start_region(style: Style, s: GameState, seat: int, options: list[int]) -> int:
    """A non-desert region to land into and next to many strategic regions, out of the
    storm (ATR-0, HAR-0)."""

    def score(r: int) -> float:
        value = 2.0 * sum(1 for a in ADJ[r] if STRATEGIC[a]) + (0.0 if DESERT[r] else 3.0)
        if in_storm(s, r):
            value -= 2.0
        return value

    return max(options, key=score)


def bg_prediction(style: Style, s: GameState, seat: int, options: list[int]) -> int:
    """The Guild wins every game that times out (END-5), the most common single winner
    among careful players; otherwise the first legal option."""
    return Faction.GUILD if Faction.GUILD in options else options[0]
