"""The `strategist` heuristic: the economic style plus a plan for holding what it takes.

It plays every decision with the shared handlers, in a style (`StrategistStyle`) that has the
economic style's weights, a few of its own and its own rules at these hooks (`style.Style`):

- **garrisons** (fields `garrison`, `reinforce_bonus`): keeps at least `garrison` units in
  every strategic region it holds when it moves out of one, lands and moves reinforcements into
  a held strategic region whose garrison is thinner than that, and enters an empty strategic
  region with a garrison rather than one unit (a sole unit is what Kanly removes);
- **timing** (`adjust_target_value`): it pushes for a new strategic region when the push
  completes three at the end of its own turn (END-1) or when it enters with a garrison; a lone
  unit sent to a strategic region that cannot be the third is worth little;
- **Snooper / Shield** (`item_value`): values taking the Snooper (Poison) or the Shield
  (Crysknife) by the garrisons it would protect, both when fixing the Kanly die and when
  choosing the effect;
- **Kanly at the leader** (`kanly_focus`, fields `kill_base`, `focus_kill_bonus`): a kill is
  worth most when it takes a strategic region from the player closest to a win (most strategic
  regions, then units in them), and it breaks thin garrisons of that player;
- **alliances** (5+ players, ALLY-1..3; `offer_value`, `accepts_alliance`): offers one when the
  two together hold three strategic regions (an END-2 win within reach); accepts one on the same
  test, declines one from a player holding two (our help would make its solo win, END-1,
  reachable this turn).

It reads only public information through `dune_env.engine.rules` and its own seat's state.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from mypy_extensions import mypyc_attr

from ...engine import GameState
from ...engine.constants import CARD, Faction, KanlyFace
from ...engine.rules import POLAR, alliance_regions
from . import HeuristicPolicy
from .features import (
    STRATEGIC,
    STRATEGIC_REGIONS,
    closeness,
    count,
    enemy_presence,
    leader,
    movable,
    strategic_count,
)
from .style import ECONOMIC, Style


@dataclass(frozen=True, slots=True)
class StrategistStyle(Style):
    """`Style` with the strategist's own parameters and rules (module docstring)."""

    lone_entry_value: float = 0.6
    """Value of entering an empty strategic region with fewer than `garrison` units when it is
    not the third (economic: 3.0)."""
    protect_weight: float = 1.5
    """Value of the Snooper/Shield per protected unit-at-risk in held strategic regions."""

    def adjust_target_value(
        self, s: GameState, me: int, ally: int, target: int, landing: bool, value: float
    ) -> float:
        """Garrisons and timing: reinforcing a thin garrison is worth something, a lone unit
        into an empty strategic region little unless it is the third."""
        if target == POLAR or not STRATEGIC[target] or value <= -10.0:
            return value
        mine = count(s, me, target)
        enemy_units, _ = enemy_presence(s, target, (me, ally))
        if enemy_units:
            return value
        if mine:
            if mine < self.garrison:
                value += self.reinforce_bonus
            return value
        if strategic_count(s, me) >= 2:
            return value  # the third region: the win bonus decides
        _, movable_units = movable(self, s, me, target)
        if landing:
            movable_units += count(s, me, CARD)
        if movable_units < self.garrison:
            value += self.lone_entry_value - 3.0
        return value

    def kanly_focus(self, s: GameState, me: int) -> int:
        """The opponent closest to a win (`features.leader`)."""
        return leader(s, me)

    def item_value(self, s: GameState, me: int, face: int) -> float:
        """What holding the Snooper (face Snooper: Poison) or the Shield (Crysknife) protects:
        our thin garrisons in strategic regions, more when we are close to a win (KANLY-3)."""
        if face == KanlyFace.SNOOPER:
            if me == Faction.BENE_GESSERIT or s.snooper_holder == me:
                return 0.0
        elif me == Faction.FREMEN or s.shield_holder == me:
            return 0.0
        held = strategic_count(s, me)
        at_risk = sum(
            1.0 if count(s, me, r) == 1 else 0.4 for r in STRATEGIC_REGIONS if count(s, me, r) >= 1
        )
        return 0.3 + self.protect_weight * at_risk * (1.0 + 0.5 * held)

    def offer_value(self, s: GameState, me: int, target: int) -> float:
        """The partner with whom an alliance win is nearest (END-2): together holding three
        strategic regions, or two with one of them ours.  Only the active player can win at the
        end of this turn (END-1), so a strong partner is no danger during our own turn."""
        together = alliance_regions(s, me, target)
        if together < 3 and not (together >= 2 and strategic_count(s, me) >= 1):
            return 0.0
        return together + 0.1 * closeness(s, target)

    def accepts_alliance(self, s: GameState, me: int, active: int, together: int) -> bool:
        """Accept when an alliance win is reachable together (two regions held alone), or
        from a player holding no strategic region."""
        return together >= 2 or strategic_count(s, active) == 0


STRATEGIST: Final = StrategistStyle(
    attack_ratio=ECONOMIC.attack_ratio,
    gamble=ECONOMIC.gamble,
    move_cap=6,
    keep=2,
    kill_weight=ECONOMIC.kill_weight,
    spice_weight=ECONOMIC.spice_weight,
    harvester_bonus=ECONOMIC.harvester_bonus,
    lend=ECONOMIC.lend,
    ally_generosity=ECONOMIC.ally_generosity,
    leader_first=ECONOMIC.leader_first,
    faction_preference=ECONOMIC.faction_preference,
    token_strategic=ECONOMIC.token_strategic,
    token_other=ECONOMIC.token_other,
    garrison=2,
    reinforce_bonus=1.5,
    kill_base=0.4,
    focus_kill_bonus=4.0,
)


# A plain Python class in the compiled build: its base, in the package `__init__`, is one.
@mypyc_attr(native_class=False)
class StrategistPolicy(HeuristicPolicy):
    """Garrisons, Snooper/Shield for them, Kanly at the leader, a timed push for three
    strategic regions and alliances that make an alliance win reachable (module docstring)."""

    name = "strategist"
    style: Style = STRATEGIST
