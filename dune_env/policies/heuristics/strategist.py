"""The `strategist` heuristic: the economic style plus a plan for holding what it takes.

Where it differs from `economic` (every other decision is economic's handler, unchanged):

- **garrisons**: keeps at least `garrison` units in every strategic region it holds when it
  moves out of one, lands and moves reinforcements into a held strategic region whose garrison
  is thinner than that, and enters an empty strategic region with a garrison rather than one
  unit (a sole unit is what Kanly removes);
- **Snooper / Shield**: values taking the Snooper (Poison) or the Shield (Crysknife) by the
  garrisons it would protect, both when fixing the Kanly die and when choosing the effect;
- **Kanly at the leader**: a kill is worth most when it takes a strategic region from the
  player closest to a win (most strategic regions, then units in them), and it breaks thin
  garrisons of that player;
- **timing**: it pushes for a new strategic region when the push completes three at the end of
  its own turn (END-1) or when it enters with a garrison; a lone unit sent to a strategic region
  that cannot be the third is worth little;
- **alliances** (5+ players, ALLY-1..3): offers one when the two together hold three strategic
  regions (an END-2 win within reach); accepts one on the same test, declines one from a player
  holding two (our help would make its solo win, END-1, reachable this turn).

It reads only public information through `dune_env.engine.rules` and its own seat's state.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from mypy_extensions import mypyc_attr

from ...engine import DecisionKind, GameState
from ...engine.constants import (
    CARD,
    NO_ONE,
    Die,
    Faction,
    KanlyFace,
)
from ...engine.decisions import (
    KANLY_NONE,
    KANLY_TAKE,
    LAND_SMUGGLERS_LEADER,
    LAND_STOP,
    MOVE_STOP,
    OFFER_NOBODY,
    SPECS,
    decode_kanly_kill,
    decode_land,
    decode_move,
    decode_offer,
)
from ...engine.rules import (
    NUM_REGIONS,
    POLAR,
    alliance_regions,
    in_storm,
    kanly_protected,
    spice_die_is_worm,
)
from . import HeuristicPolicy, dice, landing, movement
from .features import (
    KILL_FACES,
    STRATEGIC,
    STRATEGIC_REGIONS,
    count,
    enemy_presence,
    next_storm_sector,
    planned_target,
    strategic_count,
    target_value,
)
from .handlers import HANDLERS, Handler
from .style import ECONOMIC, Style


@dataclass(frozen=True, slots=True)
class StrategistStyle(Style):
    """`Style` plus the strategist's own parameters."""

    garrison: int = 2
    """Units wanted in each held strategic region."""
    reinforce_bonus: float = 1.5
    """Value of bringing a thin garrison up to `garrison` (landing or moving)."""
    lone_entry_value: float = 0.6
    """Value of entering an empty strategic region with fewer than `garrison` units when it is
    not the third (economic: 3.0)."""
    protect_weight: float = 1.5
    """Value of the Snooper/Shield per protected unit-at-risk in held strategic regions."""
    leader_kill_bonus: float = 4.0
    """Extra value of a Kanly kill that takes a strategic region from the leading player."""


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
)


def _garrison(style: Style) -> int:
    return style.garrison if isinstance(style, StrategistStyle) else 2


def _st(style: Style) -> StrategistStyle:
    return style if isinstance(style, StrategistStyle) else STRATEGIST


# --- threat ----------------------------------------------------------------------------------


def closeness(s: GameState, f: int) -> float:
    """How close `f` is to a solo win (END-1), from public information: strategic regions
    held first, then units in them (harder to dislodge)."""
    held = 0
    units_held = 0
    for r in STRATEGIC_REGIONS:
        n = count(s, f, r)
        if n:
            held += 1
            units_held += n
    return held + 0.05 * units_held


def leader(s: GameState, me: int) -> int:
    """The opponent (not us, not our ally) closest to a win; NO_ONE when nobody holds a
    strategic region."""
    best, best_value = NO_ONE, 0.0
    for f in s.seat_faction:
        if f == me or f == s.ally:
            continue
        v = closeness(s, f)
        if v > best_value:
            best, best_value = f, v
    return best


# --- Kanly -----------------------------------------------------------------------------------


def kill_value(style: Style, s: GameState, me: int, region: int, victim: int, top: int) -> float:
    """Value of one Kanly kill (KANLY-1): a sole unit in a strategic region of the leading
    player is worth most (it takes a region away), then thin garrisons of the leader."""
    st = _st(style)
    threat = strategic_count(s, victim)
    n = count(s, victim, region)
    value = 0.4 + 0.3 * threat
    if STRATEGIC[region]:
        if n == 1:
            value = 2.0 + 2.0 * threat + (10.0 if threat >= 2 else 0.0)
            if victim == top:
                value += st.leader_kill_bonus
        elif n == 2 and victim == top:
            value += 0.8 + 0.4 * threat
        else:
            value += 0.3
    if count(s, me, region):
        value += 0.5  # weakens a battle of ours
    return value * style.kill_weight


def kill_values(style: Style, s: GameState, me: int) -> list[float]:
    top = leader(s, me)
    best = [0.0, 0.0, 0.0]
    for region in range(NUM_REGIONS):
        if in_storm(s, region):
            continue
        for f in s.seat_faction:
            if f == me or f == s.ally or not count(s, f, region):
                continue
            v = kill_value(style, s, me, region, f, top)
            for face in KILL_FACES:
                if v > best[face] and not kanly_protected(s, face, f):
                    best[face] = v
    return best


def protection_value(style: Style, s: GameState, me: int, face: int) -> float:
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
    return 0.3 + _st(style).protect_weight * at_risk * (1.0 + 0.5 * held)


def kanly(style: Style, s: GameState, seat: int, options: list[int]) -> int:
    """The kill worth most (aimed at the leader), or the Snooper/Shield when it protects our
    garrisons more."""
    me = s.seat_faction[seat]
    top = leader(s, me)
    best, best_value = KANLY_NONE, 0.0
    face = s.dice_faces[Die.KANLY]
    for option in options:
        if option == KANLY_NONE:
            continue
        if option == KANLY_TAKE:
            if face in (KanlyFace.SNOOPER, KanlyFace.SHIELD):
                value = protection_value(style, s, me, face)
            else:
                value = 0.2
        else:
            region, victim, unit_type = decode_kanly_kill(option)
            value = kill_value(style, s, me, region, victim, top) + 0.1 * unit_type
        if value > best_value:
            best, best_value = option, value
    return best


# --- the dice --------------------------------------------------------------------------------


def kanly_die_table(
    style: Style,
    s: GameState,
    me: int,
    piter_turn: bool = True,
    base: list[float] | None = None,
) -> list[float]:
    """The Kanly die's face values: `kanly_base_table` (or a copy of `base`, that table
    computed earlier in the same turn) and the Thumper face, which a Thumper returned during
    the turn's rolls can change (ROLL-4)."""
    table = kanly_base_table(style, s, me, piter_turn) if base is None else base[:]
    table[KanlyFace.THUMPER] = max(
        table[KanlyFace.THUMPER], 0.2 * (s.thumpers[me] == 0 and s.thumper_supply > 0)
    )
    return table


def kanly_base_table(style: Style, s: GameState, me: int, piter_turn: bool) -> list[float]:
    """The Kanly die's face values from kills and protection, without the Thumper face."""
    table = [0.0] * 6
    kills = kill_values(style, s, me)
    for face in KILL_FACES:
        table[face] = kills[face]
    if piter_turn and me == Faction.HARKONNEN:  # HAR-1
        for i in range(6):
            table[i] = max(table[i], kills[KanlyFace.POISON])
    for face in (KanlyFace.SNOOPER, KanlyFace.SHIELD):
        table[face] = max(table[face], protection_value(style, s, me, face))
    return table


def region_die_table(style: Style, s: GameState, me: int) -> list[float]:
    ally = s.ally
    polar = strategic_target_value(style, s, me, ally, POLAR, landing=True)
    table = []
    for sector in range(1, 7):
        best = polar
        for r in dice.SECTOR_REGIONS[sector]:
            if not in_storm(s, r):
                v = strategic_target_value(style, s, me, ally, r, landing=True)
                if v > best:
                    best = v
        table.append(best - polar)
    return table


# The tables `fix_dice_in_turn` keeps for a turn, by key.
_TURN_REGION: Final = 0
_TURN_REGION_WORM: Final = 1  # the spice die shows Shai-Hulud
_TURN_KANLY: Final = 2  # the Kanly table without its Thumper face


def die_values(
    style: Style,
    s: GameState,
    me: int,
    rolled: list[int],
    turn: dict[int, list[float]] | None = None,
) -> dict[int, list[float]]:
    """Each rolled die's face values.  `turn` (see `fix_dice_in_turn`) keeps the region table
    and the Kanly table's base for the turn's next dice decisions."""
    values: dict[int, list[float]] = {}
    faction_dice = [d for d in rolled if d < 4]
    if faction_dice:
        table = dice.faction_die_table(s, me)
        for d in faction_dice:
            values[d] = table
    if Die.REGION in rolled:
        # Fremen worm riding (FRE-3) makes the region table depend on the spice die.
        key = _TURN_REGION_WORM if spice_die_is_worm(s) else _TURN_REGION
        region = None if turn is None else turn.get(key)
        if region is None:
            region = region_die_table(style, s, me)
            if turn is not None:
                turn[key] = region
        values[Die.REGION] = region
    if Die.SPICE in rolled:
        values[Die.SPICE] = dice.spice_die_table(style, s, me)
    if Die.KANLY in rolled:
        base = None if turn is None else turn.get(_TURN_KANLY)
        if base is None and turn is not None:
            base = turn[_TURN_KANLY] = kanly_base_table(style, s, me, True)
        values[Die.KANLY] = kanly_die_table(style, s, me, base=base)
    return values


def fix_dice(style: Style, s: GameState, seat: int, options: list[int]) -> int:
    """As `dice.fix_dice` (fix the good faces), with the strategist's face values."""
    return fix_dice_in_turn(style, s, seat, options, None)


def fix_dice_in_turn(
    style: Style,
    s: GameState,
    seat: int,
    options: list[int],
    turn: dict[int, list[float]] | None,
) -> int:
    """`fix_dice`, keeping in `turn` (a dict the caller starts empty at the turn's first dice
    decision and passes to every other of that turn) the die tables that the dice do not
    decide: between two dice decisions of a turn only the dice, the chance generator and the
    Thumpers (ROLL-4) change (ROLL-2..5), so the Kanly table is kept without its Thumper face
    and the region table per face of the spice die that matters (Shai-Hulud: Fremen worm
    riding).  MCTS rollouts use it (the two tables were over a quarter of a rollout)."""
    me = s.seat_faction[seat]
    rolled = [d for d in range(7) if not s.dice_fixed[d]]
    return dice.choose_fixed(s, me, rolled, die_values(style, s, me, rolled, turn), options)


def piter(style: Style, s: GameState, seat: int, options: list[int]) -> int:
    """HAR-1: turn the Kanly die to Poison when Poison is worth more than its face."""
    me = s.seat_faction[seat]
    table = kanly_die_table(style, s, me, piter_turn=False)
    return 1 if table[KanlyFace.POISON] > table[s.dice_faces[Die.KANLY]] else 0


# --- where to go -----------------------------------------------------------------------------


def strategic_target_value(
    style: Style, s: GameState, me: int, ally: int, target: int, landing: bool
) -> float:
    """`features.target_value` with garrisons and timing: reinforcing a thin garrison is
    worth something, a lone unit into an empty strategic region little unless it is the
    third."""
    value = target_value(style, s, me, ally, target, landing)
    if target == POLAR or not STRATEGIC[target] or value <= -10.0:
        return value
    st = _st(style)
    mine = count(s, me, target)
    enemy_units, _ = enemy_presence(s, target, (me, ally))
    if enemy_units:
        return value
    if mine:
        if mine < st.garrison:
            value += st.reinforce_bonus
        return value
    if strategic_count(s, me) >= 2:
        return value  # the third region: the win bonus decides
    _, movable_units = movement.movable(style, s, me, target)
    if landing:
        movable_units += count(s, me, CARD)
    if movable_units < st.garrison:
        value += st.lone_entry_value - 3.0
    return value


def move_target(style: Style, s: GameState, seat: int, options: list[int]) -> int:
    me = s.seat_faction[seat]
    return max(
        options, key=lambda r: strategic_target_value(style, s, me, s.ally, r, landing=False)
    )


def move(style: Style, s: GameState, seat: int, options: list[int]) -> int:
    """As `movement.move`, wanting a garrison of `garrison` units in a strategic target."""
    me = s.seat_faction[seat]
    target = s.target
    active = s.active_faction
    friend = s.ally if me == active else active
    wanted = movement.wanted_in_target(style, s, me, friend, target, me == active)
    if me == active and STRATEGIC[target] and wanted:
        wanted = max(wanted, _garrison(style))
    have = movement.strength(s, me, target)
    if have >= wanted:
        return MOVE_STOP
    best, best_key = MOVE_STOP, (-1.0, 0.0)
    for option in options:
        if option == MOVE_STOP:
            continue
        src, unit_type = decode_move(option)
        spare = count(s, me, src) - movement.keep_in(style, s, me, src)
        if spare <= 0:
            continue
        key = (0.0 if STRATEGIC[src] else 1.0, spare + 0.5 * unit_type)
        if key > best_key:
            best, best_key = option, key
    return best


def land(style: Style, s: GameState, seat: int, options: list[int]) -> int:
    """As `landing.land`, plus reinforcing thin garrisons in held strategic regions."""
    me = s.seat_faction[seat]
    active = s.active_faction
    friend = s.ally if me == active else active
    plan = planned_target(style, s, active, s.ally)
    if LAND_SMUGGLERS_LEADER in options and s.leaders[me][0] == 0 and s.pool + s.storage[me] >= 3:
        return LAND_SMUGGLERS_LEADER
    best, best_value = LAND_STOP, 0.0
    nxt = next_storm_sector(s)
    garrison = _garrison(style)
    bonus = _st(style).reinforce_bonus
    for option in options:
        if option < 2:
            continue
        region, unit_type = decode_land(option)
        value = landing.land_value(style, s, me, friend, region, plan, nxt)
        value += 0.01 * unit_type
        if STRATEGIC[region] and 0 < count(s, me, region) < garrison:
            value += bonus
        if me == Faction.SMUGGLERS and region == POLAR and count(s, me, CARD) == 0:
            value -= 0.4  # costs 2 spice from the reserve (SMG-1)
        if value > best_value:
            best, best_value = option, value
    return best


# --- alliances -------------------------------------------------------------------------------


def alliance_reachable(s: GameState, me: int, other: int) -> bool:
    """END-2 within reach: together the two hold (alone) three or more strategic regions."""
    return alliance_regions(s, me, other) >= 3


def ally_offer(style: Style, s: GameState, seat: int, options: list[int]) -> int:
    """Offer to the partner with whom an alliance win is nearest (END-2): together holding
    three strategic regions, or two with one of them ours.  Only the active player can win at
    the end of this turn (END-1), so a strong partner is no danger during our own turn."""
    me = s.seat_faction[seat]
    best, best_value = OFFER_NOBODY, 0.0
    for option in options:
        if option == OFFER_NOBODY:
            continue
        target, _symbol = decode_offer(option)
        together = alliance_regions(s, me, target)
        if together < 3 and not (together >= 2 and strategic_count(s, me) >= 1):
            continue
        value = together + 0.1 * closeness(s, target)
        if value > best_value:
            best, best_value = option, value
    return best


def ally_answer(style: Style, s: GameState, seat: int, options: list[int]) -> int:
    """Accept when an alliance win is reachable together; decline when the offering player
    is closer to a solo win than the two of us to an alliance win."""
    me = s.seat_faction[seat]
    active = s.active_faction
    together = alliance_regions(s, me, active)
    if together >= 4:
        return 1  # END-2 at the end of this turn unless something changes
    if strategic_count(s, active) >= 2:
        return 0  # our help would make its solo win reachable
    if together >= 2:
        return 1
    return 1 if strategic_count(s, active) == 0 else 0


# --- the policy ------------------------------------------------------------------------------

OVERRIDES: Final[dict[DecisionKind, Handler]] = {
    DecisionKind.FIX_DICE: fix_dice,
    DecisionKind.PITER_DE_VRIES: piter,
    DecisionKind.KANLY: kanly,
    DecisionKind.LAND: land,
    DecisionKind.MOVE_TARGET: move_target,
    DecisionKind.MOVE: move,
    DecisionKind.ALLY_OFFER: ally_offer,
    DecisionKind.ALLY_ANSWER: ally_answer,
}


def strategist_handlers() -> tuple[Handler, ...]:
    table = dict(HANDLERS)
    table.update(OVERRIDES)
    return tuple(table[spec.kind] for spec in SPECS)


# A plain Python class in the compiled build: its base, in the package `__init__`, is one.
@mypyc_attr(native_class=False)
class StrategistPolicy(HeuristicPolicy):
    """Garrisons, Snooper/Shield for them, Kanly at the leader, a timed push for three
    strategic regions and alliances that make an alliance win reachable (module docstring)."""

    name = "strategist"
    style: Style = STRATEGIST

    def handler_table(self) -> tuple[Handler, ...]:
        return strategist_handlers()
