"""The two playing styles as parameter sets: one `Style` value each, read by every handler."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from ...engine.constants import Faction, Token


@dataclass(frozen=True, slots=True)
class Style:
    """Weights and thresholds of a heuristic policy (defaults: the plain `HeuristicPolicy`)."""

    attack_ratio: float = 1.0
    """Attack when the movable strength >= ratio * the enemy's maximum (+1)."""
    gamble: bool = False
    """Commit everything in a battle that cannot be won for sure but is close."""
    move_cap: int = 3
    """Units moved into an empty strategic target."""
    keep: int = 1
    """Units kept in each strategic region held when moving out of it."""
    kill_weight: float = 1.0
    """Scale of the value of a Kanly kill."""
    spice_weight: float = 0.8
    """Value of one needed spice on the spice die."""
    harvester_bonus: float = 0.3
    """Value of a harvester in a region landed or moved into."""
    lend: bool = True
    """Lend leaders to battles (BATTLE-4)."""
    ally_generosity: bool = True
    """Consent, grants and gifts to an ally whenever it is safe."""
    leader_first: bool = False
    """Recruit the leader before units whenever possible (otherwise only with none on the
    card and a unit there)."""
    faction_preference: tuple[int, ...] = (
        Faction.HARKONNEN,
        Faction.FREMEN,
        Faction.ATREIDES,
        Faction.CORRINO,
        Faction.GUILD,
        Faction.BENE_GESSERIT,
        Faction.TLEILAX,
        Faction.SMUGGLERS,
    )
    """Faction draft order, most wanted first."""
    token_strategic: int = Token.FORTRESS
    """Property token wanted in a strategic region (PROP-1)."""
    token_other: int = Token.HARVESTER
    """Property token wanted elsewhere."""


BASE: Final = Style()

AGGRESSIVE: Final = Style(
    attack_ratio=0.75,
    gamble=True,
    move_cap=99,
    keep=1,
    kill_weight=1.5,
    spice_weight=0.7,
    harvester_bonus=0.1,
    lend=False,
    ally_generosity=False,
    leader_first=True,
    token_strategic=Token.FORTRESS,
    token_other=Token.ORNITHOPTER,
    faction_preference=(
        Faction.HARKONNEN,
        Faction.FREMEN,
        Faction.ATREIDES,
        Faction.CORRINO,
        Faction.SMUGGLERS,
        Faction.TLEILAX,
        Faction.BENE_GESSERIT,
        Faction.GUILD,
    ),
)

ECONOMIC: Final = Style(
    attack_ratio=1.0,
    gamble=False,
    move_cap=3,
    keep=2,
    kill_weight=1.0,
    spice_weight=1.0,
    harvester_bonus=0.6,
    lend=True,
    ally_generosity=True,
    token_strategic=Token.FORTRESS,
    token_other=Token.HARVESTER,
    faction_preference=(
        Faction.GUILD,
        Faction.CORRINO,
        Faction.ATREIDES,
        Faction.HARKONNEN,
        Faction.FREMEN,
        Faction.BENE_GESSERIT,
        Faction.TLEILAX,
        Faction.SMUGGLERS,
    ),
)
