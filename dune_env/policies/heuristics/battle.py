"""Step 7, battles (BATTLE-1..7, HAR-2, TLX-4, ATR-1): order, fortress, face dancers, lending
and the bid.

The *bid plan* (`bid_plan`): if the side can beat the enemy side's maximum strength it commits
the cheapest set of pieces that surely wins (others' pieces, then leaders, then own units,
keeping a unit to hold the region); otherwise it commits nothing (economic) or everything
when the odds are close (aggressive).  It reads our own side's bid, never the other side's.
"""

from __future__ import annotations

from ...engine import GameState, Phase
from ...engine.constants import NO_ONE, NUM_UNIT_TYPES, Faction, leaders_strength
from ...engine.decisions import (
    BID_CODEC,
    BID_DONE,
    BID_LEADER_BASE,
    FACE_DANCER_STOP,
    VICTIM_CODEC,
    bid_leader_option,
    decode_unit,
    unit_option,
)
from ...engine.rules import (
    ATTACKER,
    DEFENDER,
    UNIT_STRENGTHS,
    side_factions,
    side_leader_owners,
    side_max_strength,
)
from .features import STRATEGIC, count, enemy_presence, strategic_count, strength
from .style import Style

Piece = tuple[float, int, int]
"""A piece a side may commit: (cost per strength, strength, bid option)."""


def battle_order(style: Style, s: GameState, seat: int, options: list[int]) -> int:
    me = s.seat_faction[seat]

    def advantage(r: int) -> float:
        enemy_units, enemy_leaders = enemy_presence(s, r, (me, s.ally))
        mine = strength(s, me, r) + (strength(s, s.ally, r) if s.ally != NO_ONE else 0)
        return (mine - enemy_units) + (1.0 if STRATEGIC[r] else 0.0)

    return max(options, key=advantage)


def infiltration(style: Style, s: GameState, seat: int, options: list[int]) -> int:
    return 1  # HAR-2: no unit lost and the fortress stays for us


def fortress_victim(style: Style, s: GameState, seat: int, options: list[int]) -> int:
    """Lose the ally's unit before ours, a regular unit before a Sardaukar (BATTLE-3)."""
    me = s.seat_faction[seat]
    victims = VICTIM_CODEC.value_table  # option -> (faction, unit type)
    return min(options, key=lambda o: (victims[o][0] == me, victims[o][1]))


def face_dancer(style: Style, s: GameState, seat: int, options: list[int]) -> int:
    """Replace the strongest enemy unit first (always worth it)."""
    best, best_value = FACE_DANCER_STOP, 0.0
    for option in options:
        if option == FACE_DANCER_STOP:
            continue
        faction, unit_type = decode_unit(option)
        value = 1.0 + (1.0 if faction == Faction.FREMEN or unit_type else 0.0)
        value += 0.1 * strategic_count(s, faction)
        if value > best_value:
            best, best_value = option, value
    return best


def lend_leader(style: Style, s: GameState, seat: int, options: list[int]) -> int:
    """Lend when our own units are at stake (defender's side) or the active ally could
    win with us; never to an ally that could win alone."""
    me = s.seat_faction[seat]
    active = s.active_faction
    if me == s.ally:
        if not style.lend or strategic_count(s, active) >= 2:
            return 0
        return 1 if STRATEGIC[s.battle_region] else 0
    return 1 if style.lend or strategic_count(s, active) >= 2 else 0


def bid(style: Style, s: GameState, seat: int, options: list[int]) -> int:
    side = ATTACKER if s.phase == Phase.BATTLE_BID_ATTACKER else DEFENDER
    plan = bid_plan(style, s, seat, side)
    committed_units = s.bid_units[side]  # our own side's bid: ours to know
    committed_leaders = s.bid_leaders[side]
    for option in plan:
        if option >= BID_LEADER_BASE:
            (f,) = BID_CODEC.values(option)
            # plan lists a leader option once per token
            if committed_leaders[f] < plan.count(option) and option in options:
                return option
        else:
            f, t = decode_unit(option)
            if committed_units[f * NUM_UNIT_TYPES + t] < plan.count(option) and option in options:
                return option
    return BID_DONE


def bid_plan(style: Style, s: GameState, seat: int, side: int) -> list[int]:
    """The full bid (one option per committed piece), from public information and our own
    side only: the enemy side's maximum strength is known, its bid is not."""
    me = s.seat_faction[seat]
    region = s.battle_region
    other = DEFENDER if side == ATTACKER else ATTACKER
    enemy_max = side_max_strength(s, other)
    need = enemy_max + 1 if side == ATTACKER else enemy_max
    # Our pieces, cheapest first: (cost, strength, option).
    pieces: list[Piece] = []
    for f in side_factions(s, side):
        own = f == me
        for t in range(NUM_UNIT_TYPES):
            n = count(s, f, region, t)
            st = UNIT_STRENGTHS[f][t]
            for _ in range(n):
                pieces.append(((2.0 if own else 0.6) / st, st, unit_option(f, t)))
    for f in side_leader_owners(s, side):
        tokens = s.leaders[f][0]
        own = f == me
        for k in range(tokens):
            st = leaders_strength(f, k + 1) - leaders_strength(f, k)
            pieces.append(((1.0 if own else 0.3) / max(st, 1), st, bid_leader_option(f)))
    pieces.sort()
    total = sum(p[1] for p in pieces)
    if need <= 0:
        return []
    if total < need:
        if style.gamble and total >= style.attack_ratio * need - 1:
            return [p[2] for p in pieces]
        return []
    chosen: list[Piece] = []
    acc = 0
    # Keep one of our own units uncommitted when possible, to hold the region.
    own_units = [p for p in pieces if p[2] < BID_LEADER_BASE and decode_unit(p[2])[0] == me]
    reserve_one = own_units[-1] if own_units and total - own_units[-1][1] >= need else None
    for p in pieces:
        if acc >= need:
            break
        if reserve_one is not None and p is reserve_one:
            continue
        chosen.append(p)
        acc += p[1]
    # Trim overshoot: drop pieces (most expensive first) while still winning.
    for p in sorted(chosen, reverse=True):
        if acc - p[1] >= need and droppable(p, chosen):
            chosen.remove(p)
            acc -= p[1]
    return [p[2] for p in chosen]


def droppable(piece: Piece, chosen: list[Piece]) -> bool:
    """An Atreides leader token may be dropped only as the second one (ATR-1 strengths)."""
    if piece[2] == bid_leader_option(Faction.ATREIDES):
        same = [p for p in chosen if p[2] == piece[2]]
        return len(same) == 1 or piece[1] == 2
    return True
