"""The playing styles: one `Style` value each, read by every handler.

A style is its weights and thresholds (the fields) and its hooks (the methods): the few rules
on which styles differ, called by the shared handlers where the rule applies.  The hooks'
bodies here are the rules the aggressive and economic styles share; a style with rules of its
own overrides them in a subclass (`strategist.StrategistStyle`), so each rule is written once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from mypy_extensions import mypyc_attr

from ...engine import GameState
from ...engine.constants import NO_ONE, Faction, KanlyFace, Token
from ...engine.rules import alliance_regions
from ...engine.rules import strategic_controlled as strategic_count


# Interpreted subclasses allowed: a style with rules of its own may be written outside the
# package (its hooks overridden in Python) and still play the compiled handlers.
@mypyc_attr(allow_interpreted_subclasses=True)
@dataclass(frozen=True, slots=True)
class Style:
    """Weights, thresholds and hooks of a heuristic policy (defaults: the plain
    `HeuristicPolicy`)."""

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
    garrison: int = 0
    """Units wanted in each held strategic region (0: no garrisons): the active player moves
    at least that many into a strategic target, and a landing that brings a thinner garrison
    up scores `reinforce_bonus`."""
    reinforce_bonus: float = 0.0
    """Value of bringing a thin garrison up to `garrison` (landing or moving)."""
    kill_base: float = 0.5
    """Value of a Kanly kill before its bonuses (`features.kill_value`)."""
    focus_kill_bonus: float = 0.0
    """Extra value of a Kanly kill that takes a strategic region from the style's Kanly focus
    (`kanly_focus`)."""

    # --- hooks -----------------------------------------------------------------------------

    def adjust_target_value(
        self, s: GameState, me: int, ally: int, target: int, landing: bool, value: float
    ) -> float:
        """The style's own value of moving into `target` this turn, given the shared estimate
        `value` (`features.target_value`): what the region die's faces and the movement target
        are chosen by.  Unchanged here."""
        return value

    def kanly_focus(self, s: GameState, me: int) -> int:
        """The opponent whose kills are worth `focus_kill_bonus` more (KANLY-1); NO_ONE here."""
        return NO_ONE

    def item_value(self, s: GameState, me: int, face: int) -> float:
        """What taking the Snooper (`face` SNOOPER) or the Shield (SHIELD) is worth to `me`,
        both when fixing the Kanly die and when choosing its effect (KANLY-3, KANLY-4): a
        little, unless we hold it."""
        holder = s.snooper_holder if face == KanlyFace.SNOOPER else s.shield_holder
        return 0.3 * (holder != me)

    def offer_value(self, s: GameState, me: int, target: int) -> float:
        """What offering an alliance to `target` is worth (ALLY-2; 0 or less: no offer): the
        two together holding three or more strategic regions alone (END-2), never with a
        partner close to winning alone; a generous style also asks a Corrino with stored
        spice (COR-3)."""
        if strategic_count(s, target) >= 2:
            return 0.0
        together = alliance_regions(s, me, target)
        if together >= 3:
            return float(together)
        if self.ally_generosity and target == Faction.CORRINO and s.storage[target] >= 3:
            return 1.0
        return 0.0

    def accepts_alliance(self, s: GameState, me: int, active: int, together: int) -> bool:
        """Whether to accept the `active` player's offer (ALLY-3) when the shared tests leave
        it open (`alliance.ally_answer`: no END-2 win this turn, and the offering player not
        two regions from a solo win); `together`: the strategic regions the two hold alone.
        Accept here."""
        return True


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
