"""Step 1, the dice: which dice to fix (ROLL-2), Piter de Vries (HAR-1), the axolotl symbol
(TLX-1)."""

from __future__ import annotations

from typing import Final

from ...engine import GameState
from ...engine.constants import (
    CARD,
    FACTION_DIE_SYMBOLS,
    RESERVE,
    SHAI_HULUD_FACE,
    Die,
    Faction,
    KanlyFace,
    Token,
)
from ...engine.rules import NUM_REGIONS, POLAR, in_storm, spice_die_is_worm
from .features import (
    KILL_FACES,
    SECTOR_REGIONS,
    SPICE_BIT,
    count,
    kill_values,
    own_target_value,
)
from .style import Style

# The tables `fix_dice_in_turn` keeps for a turn, by key.
_TURN_REGION: Final = 0
_TURN_REGION_WORM: Final = 1  # the spice die shows Shai-Hulud
_TURN_KANLY: Final = 2  # the Kanly table without its Thumper face
_TURN_KANLY_FULL: Final = 3  # the Kanly table, +1 when a Thumper would be worth taking
_TURN_SPICE: Final = 5  # [spice needed before recruits, the Shai-Hulud face's value]


def fix_dice(style: Style, s: GameState, seat: int, options: list[int]) -> int:
    """Fix every die showing a good face; if none, fix the die whose reroll gains least."""
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
    return choose_fixed(s, me, rolled, die_values(style, s, me, rolled, turn), options)


def choose_fixed(
    s: GameState, me: int, rolled: list[int], values: dict[int, list[float]], options: list[int]
) -> int:
    """The dice to fix, given each rolled die's value per face (`values[die][face]`)."""
    k = len(rolled)
    frac = 0.5 if k >= 4 else (0.25 if k >= 2 else 0.0)
    worm = s.dice_faces[Die.SPICE] == SHAI_HULUD_FACE and Die.SPICE in rolled
    mask = 0
    # If no die is good, the die whose reroll gains least (mean - value; the lowest die among
    # equals), never a spice die showing Shai-Hulud.
    fallback = -1
    fallback_gain = 0.0
    for d in rolled:
        table = values[d]
        face = s.dice_faces[d]
        # max(table) and sum(table) / 6, added in the same order (the same floats), without
        # two generic calls at every die of every dice decision of a rollout.
        best = table[0]
        total = 0.0
        for x in table:
            if x > best:
                best = x
            total += x
        mean = total / 6.0
        value = table[face]
        if best - mean > 1e-9 and value >= mean + frac * (best - mean) - 1e-9:
            mask |= 1 << d
        gain = mean - value
        if (fallback < 0 or gain < fallback_gain) and not (d == Die.SPICE and worm):
            fallback, fallback_gain = d, gain
    if worm and not mask & SPICE_BIT:
        thumper = s.thumpers[me] > 0 and k > 1 and values[Die.SPICE][SHAI_HULUD_FACE] < 0
        if not thumper:
            mask |= SPICE_BIT
    if mask == 0 and fallback >= 0:
        mask = 1 << fallback
    if not is_option(options, mask):
        mask |= SPICE_BIT if worm else 0
    if not is_option(options, mask):  # pragma: no cover - defensive: every subset above is legal
        return options[-1]
    return mask


def is_option(options: list[int], mask: int) -> bool:
    """`mask in options`: found by bisection in the engine's ascending list of up to 127 masks
    (cheaper than a scan, at every FIX_DICE decision of an MCTS rollout; a loop here rather
    than `bisect.bisect_left`, whose generic call cost as much as the search); a list in
    another order is scanned."""
    lo, hi = 0, len(options)
    while lo < hi:
        mid = (lo + hi) // 2
        if options[mid] < mask:
            lo = mid + 1
        else:
            hi = mid
    return (lo < len(options) and options[lo] == mask) or mask in options


def die_values(
    style: Style,
    s: GameState,
    me: int,
    rolled: list[int],
    turn: dict[int, list[float]] | None = None,
) -> dict[int, list[float]]:
    """Value of each face of each rolled die for the active faction `me`.  `turn` (see
    `fix_dice_in_turn`) keeps for the turn's next dice decisions what the dice do not decide:
    the region table, the Kanly table (by whether a Thumper is worth taking) and the spice
    table's parts."""
    values: dict[int, list[float]] = {}
    if rolled and rolled[0] < 4:  # `rolled` ascends: a faction die is rolled
        table = faction_die_table(s, me)
        for d in rolled:
            if d >= 4:
                break
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
        values[Die.SPICE] = spice_die_table(style, s, me, turn)
    if Die.KANLY in rolled:
        if turn is None:
            values[Die.KANLY] = kanly_die_table(style, s, me)
        else:
            key = _TURN_KANLY_FULL + thumper_wanted(s, me)
            kanly = turn.get(key)
            if kanly is None:
                base = turn.get(_TURN_KANLY)
                if base is None:
                    base = turn[_TURN_KANLY] = kanly_base_table(style, s, me, True)
                kanly = turn[key] = kanly_die_table(style, s, me, base=base)
            values[Die.KANLY] = kanly
    return values


def faction_die_table(s: GameState, me: int) -> list[float]:
    table = [0.0] * 6
    if me == Faction.SMUGGLERS:
        return table
    reserve_units = count(s, me, RESERVE)
    reserve_leaders = s.leaders[me][1]
    if me == Faction.TLEILAX:
        # TLX-1: any symbol may become ours; value the symbol already fixed most often.
        if reserve_units + reserve_leaders == 0:
            return table
        fixed_symbols = [FACTION_DIE_SYMBOLS[s.dice_faces[d]] for d in range(4) if s.dice_fixed[d]]
        if not fixed_symbols:
            return [0.5] * 6  # no variance: kept as a reroll token
        best = max(set(fixed_symbols), key=fixed_symbols.count)
        room = reserve_units + reserve_leaders - fixed_symbols.count(best)
        for face, symbol in enumerate(FACTION_DIE_SYMBOLS):
            table[face] = 1.0 if symbol == best and room > 0 else 0.0
        return table
    used = fixed_symbol_count(s, me)
    per = 2 if me == Faction.FREMEN else 1
    if used // per < reserve_units or (used == 0 and reserve_leaders):
        for face, symbol in enumerate(FACTION_DIE_SYMBOLS):
            if symbol == me:
                table[face] = 1.0
    return table


def fixed_symbol_count(s: GameState, symbol: int) -> int:
    """Fixed faction dice showing `symbol`."""
    n = 0
    for d in range(4):
        if s.dice_fixed[d] and FACTION_DIE_SYMBOLS[s.dice_faces[d]] == symbol:
            n += 1
    return n


def spice_need(s: GameState, me: int) -> int:
    """Spice still needed this turn to land the card and recruit with the fixed dice."""
    return max(0, spice_need_before_recruits(s, me) + fixed_recruits(s, me))


def spice_need_before_recruits(s: GameState, me: int) -> int:
    """`spice_need` without the recruits of the fixed dice (which change between a turn's dice
    decisions; this does not)."""
    if me == Faction.SMUGGLERS:
        return min(6, count(s, me, RESERVE) + count(s, me, CARD)) + (2 if s.leaders[me][1] else 0)
    harvest = 2 * sum(
        1
        for r in range(NUM_REGIONS)
        if s.region_token[r] == Token.HARVESTER and count(s, me, r) and not in_storm(s, r)
    )
    return count(s, me, CARD) + 1 - harvest - s.storage[me]


def fixed_recruits(s: GameState, me: int) -> int:
    """Recruits the fixed faction dice give `me` (two symbols a unit for the Fremen; none for
    the Smugglers, whose need does not count them)."""
    if me == Faction.SMUGGLERS:
        return 0
    recruits = fixed_symbol_count(s, me)
    return recruits // 2 if me == Faction.FREMEN else recruits


def spice_die_table(
    style: Style, s: GameState, me: int, turn: dict[int, list[float]] | None = None
) -> list[float]:
    """The spice die's face values: spice up to what is still needed, and Shai-Hulud.  `turn`
    (see `fix_dice_in_turn`) keeps what the dice do not change."""
    kept = None if turn is None else turn.get(_TURN_SPICE)
    if kept is None:
        kept = [float(spice_need_before_recruits(s, me)), spice_worm_value(s, me)]
        if turn is not None:
            turn[_TURN_SPICE] = kept
    need = max(0, int(kept[0]) + fixed_recruits(s, me))
    w = style.spice_weight
    table = [w * min(face + 1, need) + 0.05 * (face + 1) for face in range(5)]
    table.append(kept[1])
    return table


def spice_worm_value(s: GameState, me: int) -> float:
    """The value of the spice die's Shai-Hulud face."""
    worm = -0.3
    if any(s.region_token[r] == Token.HARVESTER and count(s, me, r) for r in range(NUM_REGIONS)):
        worm -= 1.5  # LAND-1: no harvest and a harvester lost
    if me == Faction.FREMEN:
        worm += 1.0  # FRE-3 worm riding
    return worm


def region_die_table(style: Style, s: GameState, me: int) -> list[float]:
    """Each region-die face's best target (`own_target_value`), above the Polar Cap's."""
    ally = s.ally
    polar = own_target_value(style, s, me, ally, POLAR, landing=True)
    table = []
    for sector in range(1, 7):
        best = polar
        for r in SECTOR_REGIONS[sector]:
            if not in_storm(s, r):
                v = own_target_value(style, s, me, ally, r, landing=True)
                if v > best:
                    best = v
        table.append(best - polar)
    return table


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
    table[KanlyFace.THUMPER] = max(table[KanlyFace.THUMPER], 0.2 * thumper_wanted(s, me))
    return table


def thumper_wanted(s: GameState, me: int) -> bool:
    """A Thumper is worth taking (a little): `me` has none and the supply has one (ROLL-4)."""
    return s.thumpers[me] == 0 and s.thumper_supply > 0


def kanly_base_table(style: Style, s: GameState, me: int, piter_turn: bool) -> list[float]:
    """The Kanly die's face values from kills and items (`Style.item_value`), without the
    Thumper face; on a turn where Piter can still turn the die to Poison (`piter_turn`, HAR-1),
    every face is worth at least the Poison."""
    table = [0.0] * 6
    kills = kill_values(style, s, me)
    for face in KILL_FACES:
        table[face] = kills[face]
    if piter_turn and me == Faction.HARKONNEN:  # HAR-1
        for i in range(6):
            table[i] = max(table[i], kills[KanlyFace.POISON])
    for face in (KanlyFace.SNOOPER, KanlyFace.SHIELD):
        table[face] = max(table[face], style.item_value(s, me, face))
    return table


def piter(style: Style, s: GameState, seat: int, options: list[int]) -> int:
    """HAR-1: turn the Kanly die to Poison when Poison is worth more than its face."""
    me = s.seat_faction[seat]
    table = kanly_die_table(style, s, me, piter_turn=False)
    return 1 if table[KanlyFace.POISON] > table[s.dice_faces[Die.KANLY]] else 0


def axolotl(style: Style, s: GameState, seat: int, options: list[int]) -> int:
    """TLX-1: the symbol showing on most faction dice."""
    symbols = [FACTION_DIE_SYMBOLS[s.dice_faces[d]] for d in range(4)]
    return max(options, key=lambda o: (symbols.count(o), -o))
