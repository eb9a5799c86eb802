"""Hand-written engine policies with two documented strategies.

`HeuristicPolicy` holds one handler per `DecisionKind`; the style parameters of a subclass make
it aggressive (`AggressivePolicy`) or economic (`EconomicPolicy`).  Every handler chooses among
the legal options it is given, and reads only what its seat may see: the public state, its own
side's bid in progress, never the other side's bid nor (unless it is the Bene Gesserit) the
Bene Gesserit prediction.  They are fast (a few tens of microseconds per decision) so that they
can play thousands of games and serve as MCTS rollout policies.

Shared ideas of both styles:
- a *target value* per region (`_target_value`): what moving there this turn is worth to the
  mover (taking an empty strategic region, winning a battle, reaching three strategic regions);
  it drives which region-die face to keep, where to land and which target to choose;
- a *bid plan* (`_bid_plan`): if the side can beat the enemy side's maximum strength it commits
  the cheapest set of pieces that surely wins (others' pieces, then leaders, then own units,
  keeping a unit to hold the region); otherwise it commits nothing (economic) or everything
  when the odds are close (aggressive);
- a *threat* per faction: the strategic regions it controls; Kanly, alliance answers and
  consent use it to slow down whoever is closest to winning.
"""

from __future__ import annotations

from ..engine import Game
from ..engine.constants import (
    CARD,
    FACTION_DIE_SYMBOLS,
    NO_ONE,
    NUM_FACTIONS,
    RESERVE,
    SHAI_HULUD_FACE,
    STORM_SPICE_FACES,
    Die,
    Faction,
    KanlyFace,
    Token,
    leaders_strength,
)
from ..engine.decisions import (
    BID_DONE,
    BID_LEADER_BASE,
    KANLY_NONE,
    KANLY_TAKE,
    LAND_SMUGGLERS_LEADER,
    LAND_STOP,
    RECRUIT_ELITE,
    RECRUIT_LEADER,
    RECRUIT_UNIT,
    DecisionKind,
    bid_leader_option,
    decode_kanly_kill,
    decode_land,
    decode_move,
    decode_offer,
    decode_unit,
    unit_option,
)
from ..engine.queries import MAP, POLAR, in_storm, strategic_controlled
from ..engine.state import GameState, Phase
from ..engine.steps.battle import ATTACKER, DEFENDER, side_factions, side_leader_owners
from ..engine.steps.storm import next_sector, storm_moves_west
from ..engine.steps.turn import alliance_regions
from .base import SeededPolicy

NUM_REGIONS = MAP.num_regions
STRATEGIC = tuple(MAP.strategic)
STRATEGIC_REGIONS = MAP.strategic_regions
DESERT = tuple(MAP.desert)
SECTOR = tuple(MAP.sectors)
ADJ = tuple(tuple(sorted(a)) for a in MAP.adjacency)
SECTOR_REGIONS = tuple(MAP.regions_in_sector(s) for s in range(7))
SPICE_BIT = 1 << Die.SPICE
WIN_BONUS = 20.0
KILL_FACES = (KanlyFace.POISON, KanlyFace.CRYSKNIFE, KanlyFace.HUNTER_SEEKER)


# --- small queries on the public state ----------------------------------------------------------


def strength(state: GameState, faction: int, region: int) -> int:
    """Battle strength of a faction's units in a region (DEF-8)."""
    u = state.units[faction]
    i = 2 * region
    if faction == Faction.FREMEN:
        return 2 * (u[i] + u[i + 1])
    return u[i] + 2 * u[i + 1]


def count(state: GameState, faction: int, location: int) -> int:
    return state.count(faction, location)


def leader_power(state: GameState, faction: int) -> int:
    """Strength of the faction's leaders on its card."""
    return leaders_strength(faction, state.leaders[faction][0])


strategic_count = strategic_controlled


def enemy_presence(state: GameState, region: int, friends: tuple[int, int]) -> tuple[int, int]:
    """(unit strength, leader strength on cards) of the factions present other than `friends`."""
    units = 0
    leaders = 0
    for f in state.seat_faction:
        if f == friends[0] or f == friends[1]:
            continue
        s = strength(state, f, region)
        if s:
            units += s
            leaders += leader_power(state, f)
    return units, leaders


def next_storm_sector(state: GameState) -> int:
    """The sector the storm will enter this turn (step 9), or 0 when it stays (STORM-1).

    Only meaningful once the spice and region dice are fixed."""
    if state.dice_faces[Die.SPICE] in STORM_SPICE_FACES:
        return next_sector(state.storm_sector, storm_moves_west(state))
    return 0


# --- the policies -----------------------------------------------------------------------------


class HeuristicPolicy(SeededPolicy):
    """Common machinery of the hand-written policies; subclasses set the style parameters."""

    name = "heuristic"

    # Style parameters (overridden by the subclasses).
    attack_ratio = 1.0  # attack when movable strength >= ratio * enemy maximum (+1)
    gamble = False  # commit everything in a battle that cannot be won for sure but is close
    move_cap = 3  # units moved into an empty strategic target
    keep = 1  # units kept in each strategic region held when moving out of it
    kill_weight = 1.0
    spice_weight = 0.8
    harvester_bonus = 0.3
    lend = True
    ally_generosity = True  # consent, grants and gifts to an ally whenever it is safe
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
    token_strategic = Token.FORTRESS
    token_other = Token.HARVESTER

    def __init__(self, seed: int = 0) -> None:
        super().__init__(seed)
        self._handlers = [getattr(self, HANDLER_NAMES[kind]) for kind in DecisionKind]

    def act(self, game: Game, seat: int) -> int:
        state = game.state
        options = game.legal_options()
        if len(options) == 1:
            return options[0]
        option: int = self._handlers[state.pending_kind](state, seat, options)
        return option

    # --- set-up -------------------------------------------------------------------------------

    def choose_faction(self, s: GameState, seat: int, options: list[int]) -> int:
        rank = {f: i for i, f in enumerate(self.faction_preference)}
        return min(options, key=lambda f: rank.get(f, NUM_FACTIONS))

    def start_region(self, s: GameState, seat: int, options: list[int]) -> int:
        """A non-desert region to land into and next to many strategic regions, out of the
        storm."""

        def score(r: int) -> float:
            value = 2.0 * sum(1 for a in ADJ[r] if STRATEGIC[a]) + (0.0 if DESERT[r] else 3.0)
            if in_storm(s, r):
                value -= 2.0
            return value

        return max(options, key=score)

    def bg_prediction(self, s: GameState, seat: int, options: list[int]) -> int:
        """The Guild wins every game that times out (END-5), the most common single winner
        among careful players; otherwise the first legal option."""
        return Faction.GUILD if Faction.GUILD in options else options[0]

    # --- step 1 --------------------------------------------------------------------------------

    def fix_dice(self, s: GameState, seat: int, options: list[int]) -> int:
        """Fix every die showing a good face; if none, fix the die whose reroll gains least."""
        me = s.seat_faction[seat]
        rolled = [d for d in range(7) if not s.dice_fixed[d]]
        values = self._die_values(s, me, rolled)
        k = len(rolled)
        frac = 0.5 if k >= 4 else (0.25 if k >= 2 else 0.0)
        mask = 0
        gains = []
        for d in rolled:
            table = values[d]
            face = s.dice_faces[d]
            best = max(table)
            mean = sum(table) / 6.0
            value = table[face]
            gains.append((mean - value, d))
            if best - mean > 1e-9 and value >= mean + frac * (best - mean) - 1e-9:
                mask |= 1 << d
        worm = s.dice_faces[Die.SPICE] == SHAI_HULUD_FACE and Die.SPICE in rolled
        if worm and not mask & SPICE_BIT:
            thumper = s.thumpers[me] > 0 and k > 1 and values[Die.SPICE][SHAI_HULUD_FACE] < 0
            if not thumper:
                mask |= SPICE_BIT
        if mask == 0:
            gains.sort()
            for _, d in gains:
                if d == Die.SPICE and worm:
                    continue
                mask |= 1 << d
                break
        if mask not in options:
            mask |= SPICE_BIT if worm else 0
        if mask not in options:  # pragma: no cover - defensive: every subset above is legal
            return options[-1]
        return mask

    def _die_values(self, s: GameState, me: int, rolled: list[int]) -> dict[int, list[float]]:
        """Value of each face of each rolled die for the active faction `me`."""
        values: dict[int, list[float]] = {}
        faction_dice = [d for d in rolled if d < 4]
        if faction_dice:
            table = self._faction_die_table(s, me)
            for d in faction_dice:
                values[d] = table
        if Die.REGION in rolled:
            values[Die.REGION] = self._region_die_table(s, me)
        if Die.SPICE in rolled:
            values[Die.SPICE] = self._spice_die_table(s, me)
        if Die.KANLY in rolled:
            values[Die.KANLY] = self._kanly_die_table(s, me)
        return values

    def _faction_die_table(self, s: GameState, me: int) -> list[float]:
        table = [0.0] * 6
        if me == Faction.SMUGGLERS:
            return table
        reserve_units = count(s, me, RESERVE)
        reserve_leaders = s.leaders[me][1]
        fixed_symbols = [FACTION_DIE_SYMBOLS[s.dice_faces[d]] for d in range(4) if s.dice_fixed[d]]
        if me == Faction.TLEILAX:
            # TLX-1: any symbol may become ours; value the symbol already fixed most often.
            if reserve_units + reserve_leaders == 0:
                return table
            if not fixed_symbols:
                return [0.5] * 6  # no variance: kept as a reroll token
            best = max(set(fixed_symbols), key=fixed_symbols.count)
            room = reserve_units + reserve_leaders - fixed_symbols.count(best)
            for face, symbol in enumerate(FACTION_DIE_SYMBOLS):
                table[face] = 1.0 if symbol == best and room > 0 else 0.0
            return table
        used = fixed_symbols.count(me)
        per = 2 if me == Faction.FREMEN else 1
        if used // per < reserve_units or (used == 0 and reserve_leaders):
            for face, symbol in enumerate(FACTION_DIE_SYMBOLS):
                if symbol == me:
                    table[face] = 1.0
        return table

    def _spice_need(self, s: GameState, me: int) -> int:
        if me == Faction.SMUGGLERS:
            return min(6, count(s, me, RESERVE) + count(s, me, CARD)) + (
                2 if s.leaders[me][1] else 0
            )
        recruits = sum(
            1 for d in range(4) if s.dice_fixed[d] and FACTION_DIE_SYMBOLS[s.dice_faces[d]] == me
        )
        if me == Faction.FREMEN:
            recruits //= 2
        need = count(s, me, CARD) + recruits + 1
        harvest = 2 * sum(
            1
            for r in range(NUM_REGIONS)
            if s.region_token[r] == Token.HARVESTER and count(s, me, r) and not in_storm(s, r)
        )
        return max(0, need - harvest - s.storage[me])

    def _spice_die_table(self, s: GameState, me: int) -> list[float]:
        need = self._spice_need(s, me)
        w = self.spice_weight
        table = [w * min(face + 1, need) + 0.05 * (face + 1) for face in range(5)]
        worm = -0.3
        if any(
            s.region_token[r] == Token.HARVESTER and count(s, me, r) for r in range(NUM_REGIONS)
        ):
            worm -= 1.5  # LAND-1: no harvest and a harvester lost
        if me == Faction.FREMEN:
            worm += 1.0  # FRE-3 worm riding
        table.append(worm)
        return table

    def _region_die_table(self, s: GameState, me: int) -> list[float]:
        ally = s.ally
        polar = self._target_value(s, me, ally, POLAR, landing=True)
        table = []
        for sector in range(1, 7):
            best = polar
            for r in SECTOR_REGIONS[sector]:
                if not in_storm(s, r):
                    v = self._target_value(s, me, ally, r, landing=True)
                    if v > best:
                        best = v
            table.append(best - polar)
        return table

    def _kanly_die_table(self, s: GameState, me: int) -> list[float]:
        table = [0.0] * 6
        kills = self._kill_values(s, me)
        for face in KILL_FACES:
            table[face] = kills[face]
        if me == Faction.HARKONNEN:  # HAR-1: the die can be turned to Poison later
            for i in range(6):
                table[i] = max(table[i], kills[KanlyFace.POISON])
        table[KanlyFace.SNOOPER] = max(table[KanlyFace.SNOOPER], 0.3 * (s.snooper_holder != me))
        table[KanlyFace.SHIELD] = max(table[KanlyFace.SHIELD], 0.3 * (s.shield_holder != me))
        table[KanlyFace.THUMPER] = max(
            table[KanlyFace.THUMPER], 0.2 * (s.thumpers[me] == 0 and s.thumper_supply > 0)
        )
        return table

    def _kill_values(self, s: GameState, me: int) -> list[float]:
        """Best Kanly kill value under each kill face (KANLY-1..3)."""
        best = [0.0, 0.0, 0.0]
        for region in range(NUM_REGIONS):
            if in_storm(s, region):
                continue
            for f in s.seat_faction:
                if f == me or f == s.ally or not count(s, f, region):
                    continue
                v = self._kill_value(s, me, region, f)
                for face in KILL_FACES:
                    if v > best[face] and not _protected(s, face, f):
                        best[face] = v
        return best

    def _kill_value(self, s: GameState, me: int, region: int, victim: int) -> float:
        threat = strategic_count(s, victim)
        n = count(s, victim, region)
        value = 0.5 + 0.3 * threat
        if STRATEGIC[region]:
            if n == 1:
                value = 2.0 + 2.0 * threat + (10.0 if threat >= 2 else 0.0)
            else:
                value += 0.3
        if count(s, me, region):
            value += 0.5  # weakens a battle of ours
        return value * self.kill_weight

    def piter(self, s: GameState, seat: int, options: list[int]) -> int:
        me = s.seat_faction[seat]
        table = self._kanly_die_table_plain(s, me)
        return 1 if table[KanlyFace.POISON] > table[s.dice_faces[Die.KANLY]] else 0

    def _kanly_die_table_plain(self, s: GameState, me: int) -> list[float]:
        kills = self._kill_values(s, me)
        table = [0.0] * 6
        for face in KILL_FACES:
            table[face] = kills[face]
        table[KanlyFace.SNOOPER] = 0.3 * (s.snooper_holder != me)
        table[KanlyFace.SHIELD] = 0.3 * (s.shield_holder != me)
        table[KanlyFace.THUMPER] = 0.2 * (s.thumpers[me] == 0 and s.thumper_supply > 0)
        return table

    def axolotl(self, s: GameState, seat: int, options: list[int]) -> int:
        symbols = [FACTION_DIE_SYMBOLS[s.dice_faces[d]] for d in range(4)]
        return max(options, key=lambda o: (symbols.count(o), -o))

    # --- step 2 ----------------------------------------------------------------------------------

    def ally_offer(self, s: GameState, seat: int, options: list[int]) -> int:
        """Offer an alliance only when the two could hold four strategic regions alone soon
        (END-2), to a partner not close to winning alone; the economic style also asks a
        Corrino with stored spice (COR-3)."""
        me = s.seat_faction[seat]
        best, best_value = 0, 0.0
        for option in options:
            if option == 0:
                continue
            target, _symbol = decode_offer(option)
            if strategic_count(s, target) >= 2:
                continue
            together = alliance_regions(s, me, target)
            value = 0.0
            if together >= 3:
                value = together
            elif self.ally_generosity and target == Faction.CORRINO and s.storage[target] >= 3:
                value = 1.0
            if value > best_value:
                best, best_value = option, value
        return best

    def ally_answer(self, s: GameState, seat: int, options: list[int]) -> int:
        """Accept unless the offering player is close to winning alone and the alliance could
        not win for us too."""
        me = s.seat_faction[seat]
        active = s.active_faction
        if alliance_regions(s, me, active) >= 4:
            return 1  # END-2 at the end of this turn unless something changes
        if strategic_count(s, active) >= 2:
            return 0
        return 1

    def dice_split(self, s: GameState, seat: int, options: list[int]) -> int:
        return options[0]  # give the ally as few shared dice as allowed

    # --- step 3 ------------------------------------------------------------------------------

    def recruit(self, s: GameState, seat: int, options: list[int]) -> int:
        me = s.seat_faction[seat]
        if RECRUIT_LEADER in options and self._wants_leader(s, me):
            return RECRUIT_LEADER
        if RECRUIT_UNIT in options:
            return RECRUIT_UNIT
        if RECRUIT_ELITE in options:
            return RECRUIT_ELITE
        if RECRUIT_LEADER in options:
            return RECRUIT_LEADER
        return options[0]

    def _wants_leader(self, s: GameState, me: int) -> bool:
        return s.leaders[me][0] == 0 and count(s, me, CARD) >= 1

    def ghola(self, s: GameState, seat: int, options: list[int]) -> int:
        me = s.seat_faction[seat]
        spice = s.pool + s.storage[me]
        if s.phase == Phase.BATTLE_GHOLA:
            return 1  # the spice left after landing has no other use
        return 1 if spice > count(s, me, CARD) else 0

    # --- step 4 --------------------------------------------------------------------------------

    def kanly(self, s: GameState, seat: int, options: list[int]) -> int:
        me = s.seat_faction[seat]
        best, best_value = KANLY_NONE, 0.0
        face = s.dice_faces[Die.KANLY]
        for option in options:
            if option == KANLY_NONE:
                continue
            if option == KANLY_TAKE:
                value = 0.2 if face == KanlyFace.THUMPER else 0.3
            else:
                region, victim, unit_type = decode_kanly_kill(option)
                value = self._kill_value(s, me, region, victim) + 0.1 * unit_type
            if value > best_value:
                best, best_value = option, value
        return best

    # --- step 5 --------------------------------------------------------------------------------

    def harvester_discard(self, s: GameState, seat: int, options: list[int]) -> int:
        """Lose the harvester we would miss least: in the storm, else where we are weakest."""
        me = s.seat_faction[seat]
        return min(options, key=lambda r: (not in_storm(s, r), count(s, me, r), r))

    def spice_gift(self, s: GameState, seat: int, options: list[int]) -> int:
        me = s.seat_faction[seat]
        active = s.active_faction
        if self._alliance_useful(s, me, active):
            return options[-1]
        return options[0]

    def _alliance_useful(self, s: GameState, me: int, active: int) -> bool:
        """Helping the active ally is worth it if the two could win together and it is not
        about to win alone (a solo win would leave us losing)."""
        if strategic_count(s, active) >= 2:
            return False
        return self.ally_generosity or alliance_regions(s, me, active) >= 3

    def land_consent(self, s: GameState, seat: int, options: list[int]) -> int:
        """Refuse when the active player's landing into our regions could give it three
        strategic regions (control by presence, CL-3)."""
        me = s.seat_faction[seat]
        active = s.active_faction
        gain = sum(
            1
            for r in STRATEGIC_REGIONS
            if count(s, me, r) and not count(s, active, r) and not in_storm(s, r) and not DESERT[r]
        )
        if strategic_count(s, active) + gain >= 3:
            return 0
        return 1 if self._alliance_useful(s, me, active) else 0

    def land(self, s: GameState, seat: int, options: list[int]) -> int:
        """Land every unit we can pay for, each where it scores best: next to the planned
        movement target, into strategic regions we hold (more so when a battle is coming),
        the Polar Cap as a staging area."""
        me = s.seat_faction[seat]
        active = s.active_faction
        friend = s.ally if me == active else active
        plan = self._planned_target(s, active, s.ally)
        if (
            LAND_SMUGGLERS_LEADER in options
            and s.leaders[me][0] == 0
            and s.pool + s.storage[me] >= 3
        ):
            return LAND_SMUGGLERS_LEADER
        best, best_value = LAND_STOP, 0.0
        nxt = next_storm_sector(s)
        for option in options:
            if option < 2:
                continue
            region, unit_type = decode_land(option)
            value = self._land_value(s, me, friend, region, plan, nxt)
            value += 0.01 * unit_type
            if me == Faction.SMUGGLERS and region == POLAR and count(s, me, CARD) == 0:
                value -= 0.4  # costs 2 spice from the reserve (SMG-1)
            if value > best_value:
                best, best_value = option, value
        return best

    def _land_value(
        self, s: GameState, me: int, friend: int, region: int, plan: int, nxt: int
    ) -> float:
        value = 0.5
        if region == POLAR:
            value = 0.6
        elif STRATEGIC[region]:
            value = 1.5
            if not count(s, me, region):
                value += 3.0  # presence is control (CL-3): a region gained by landing
            enemy_units, enemy_leaders = enemy_presence(s, region, (me, friend))
            if enemy_units:
                value += 1.0 * self.attack_ratio if self.gamble else 0.7
        if s.region_token[region] == Token.HARVESTER:
            value += self.harvester_bonus
        if plan != NO_ONE and plan != region and region in ADJ[plan]:
            value += 1.5
        if nxt and SECTOR[region] == nxt and DESERT[region]:
            value -= 1.0
        return value

    def ally_grant(self, s: GameState, seat: int, options: list[int]) -> int:
        """Grant the pool left after our own landing (it would be lost, SPICE-3) when the ally
        is useful; stored spice is kept."""
        me = s.seat_faction[seat]
        ally = s.ally
        if strategic_count(s, ally) >= 2 or not self._grant_worthwhile(s, me, ally):
            return 0
        grant = s.pool
        return grant if grant in options else options[0]

    def _grant_worthwhile(self, s: GameState, me: int, ally: int) -> bool:
        return self.ally_generosity or alliance_regions(s, me, ally) >= 3

    # --- step 6 --------------------------------------------------------------------------------

    def move_target(self, s: GameState, seat: int, options: list[int]) -> int:
        me = s.seat_faction[seat]
        return max(options, key=lambda r: self._target_value(s, me, s.ally, r, landing=False))

    def _planned_target(self, s: GameState, me: int, ally: int) -> int:
        """The target the active player will probably choose (its region die is fixed)."""
        sector = s.dice_faces[Die.REGION] + 1
        best, best_value = POLAR, self._target_value(s, me, ally, POLAR, landing=True)
        for r in SECTOR_REGIONS[sector]:
            if in_storm(s, r):
                continue
            v = self._target_value(s, me, ally, r, landing=True)
            if v > best_value:
                best, best_value = r, v
        return best

    def _movable(self, s: GameState, me: int, target: int) -> tuple[int, int]:
        """(strength, units) that could move into `target` now, keeping units where needed."""
        worm = s.dice_faces[Die.SPICE] == SHAI_HULUD_FACE and me == Faction.FREMEN
        total_strength = 0
        total_units = 0
        u = s.units[me]
        unit_str = 2 if me == Faction.FREMEN else 1
        for src in range(NUM_REGIONS):
            n = u[2 * src] + u[2 * src + 1]
            if not n or src == target or in_storm(s, src):
                continue
            if not (worm or target in ADJ[src] or s.region_token[src] == Token.ORNITHOPTER):
                continue
            spare = n - self._keep(s, me, src)
            if spare <= 0:
                continue
            elite = min(u[2 * src + 1], spare)
            regular = spare - elite
            total_strength += regular * unit_str + 2 * elite
            total_units += spare
        return total_strength, total_units

    def _keep(self, s: GameState, me: int, src: int) -> int:
        """Units a mover leaves in `src`: all of them in a contested region, `keep` in a
        strategic region, none elsewhere."""
        if src == POLAR:
            return 0
        n = count(s, me, src)
        if STRATEGIC[src]:
            enemy_units, _ = enemy_presence(s, src, (me, s.ally))
            if enemy_units:
                return n
            return min(n, self.keep)
        return 0

    def _target_value(self, s: GameState, me: int, ally: int, target: int, landing: bool) -> float:
        """What moving into `target` this turn is worth to `me` (scale: one unit ~ 1)."""
        if in_storm(s, target):
            return -10.0
        movable, movable_units = self._movable(s, me, target)
        if landing:  # units on the card can still land next to the target first
            card = count(s, me, CARD) if me != Faction.SMUGGLERS else count(s, me, RESERVE)
            if (
                card
                and target != POLAR
                and (POLAR in ADJ[target] or _landable_adjacent(s, me, target))
            ):
                spice = s.pool + s.storage[me] if s.pool else 2
                extra = min(card, max(spice, 1))
                movable += extra * (2 if me == Faction.FREMEN else 1)
                movable_units += extra
        if target == POLAR:
            return 0.05 * movable_units
        if not movable_units:
            return 0.0
        mine = count(s, me, target)
        enemy_units, enemy_leaders = enemy_presence(s, target, (me, ally))
        value = 0.0
        if STRATEGIC[target]:
            if enemy_units:
                my_power = movable + strength(s, me, target) + leader_power(s, me)
                if my_power > enemy_units + enemy_leaders:
                    value = 3.0 + 0.5 * enemy_units
                    if not mine and strategic_count(s, me) >= 2:
                        value += WIN_BONUS
                elif self.gamble and my_power >= self.attack_ratio * (enemy_units + enemy_leaders):
                    value = 1.0
                else:
                    value = -2.0
            elif mine:
                value = 0.3
            else:
                value = 3.0
                if strategic_count(s, me) >= 2:
                    value += WIN_BONUS
        else:
            if enemy_units:
                my_power = movable + strength(s, me, target) + leader_power(s, me)
                value = 0.5 if my_power > enemy_units + enemy_leaders else -1.0
            else:
                value = 0.1
            if s.region_token[target] == Token.HARVESTER:
                value += self.harvester_bonus
        nxt = next_storm_sector(s) if not landing else 0
        if nxt and SECTOR[target] == nxt and DESERT[target]:
            if s.region_token[target] != Token.FORTRESS:
                value -= 0.5
        return value

    def move(self, s: GameState, seat: int, options: list[int]) -> int:
        """Move units one at a time until the planned strength is in the target."""
        me = s.seat_faction[seat]
        target = s.target
        active = s.active_faction
        friend = s.ally if me == active else active
        wanted = self._wanted_in_target(s, me, friend, target, me == active)
        have = strength(s, me, target)
        if have >= wanted:
            return 0
        # Choose a source: the one with most spare units, non-strategic first.
        best, best_key = 0, (-1.0, 0.0)
        for option in options:
            if option == 0:
                continue
            src, unit_type = decode_move(option)
            spare = count(s, me, src) - self._keep(s, me, src)
            if spare <= 0:
                continue
            key = (0.0 if STRATEGIC[src] else 1.0, spare + 0.5 * unit_type)
            if key > best_key:
                best, best_key = option, key
        return best

    def _wanted_in_target(
        self, s: GameState, me: int, friend: int, target: int, active: bool
    ) -> int:
        """Strength we want in the target after moving."""
        if target == POLAR:
            return 0 if not active else 99 if self.gamble else 0
        enemy_units, enemy_leaders = enemy_presence(s, target, (me, friend))
        if not active:
            # MOVE-3 as the ally: one unit for presence in a strategic region, if safe.
            if STRATEGIC[target] and not enemy_units and not count(s, me, target):
                return 1
            return 0
        if enemy_units:
            need = enemy_units + enemy_leaders + 1 - leader_power(s, me)
            if friend != NO_ONE:
                need -= strength(s, friend, target)
            movable, _ = self._movable(s, me, target)
            mine = strength(s, me, target)
            if mine + movable < need and not (
                self.gamble
                and mine + movable + leader_power(s, me)
                >= self.attack_ratio * (enemy_units + enemy_leaders)
            ):
                return 0
            return max(need, 1) + 1  # one more to hold the region after the battle
        if STRATEGIC[target]:
            return self.move_cap
        return 1 if s.region_token[target] == Token.HARVESTER else 0

    # --- step 7 --------------------------------------------------------------------------------

    def battle_order(self, s: GameState, seat: int, options: list[int]) -> int:
        me = s.seat_faction[seat]

        def advantage(r: int) -> float:
            enemy_units, enemy_leaders = enemy_presence(s, r, (me, s.ally))
            mine = strength(s, me, r) + (strength(s, s.ally, r) if s.ally != NO_ONE else 0)
            return (mine - enemy_units) + (1.0 if STRATEGIC[r] else 0.0)

        return max(options, key=advantage)

    def infiltration(self, s: GameState, seat: int, options: list[int]) -> int:
        return 1  # HAR-2: no unit lost and the fortress stays for us

    def fortress_victim(self, s: GameState, seat: int, options: list[int]) -> int:
        """Lose the ally's unit before ours, a regular unit before a Sardaukar."""
        me = s.seat_faction[seat]
        return min(options, key=lambda o: (o // 2 == me, o % 2))

    def face_dancer(self, s: GameState, seat: int, options: list[int]) -> int:
        """Replace the strongest enemy unit first (always worth it)."""
        best, best_value = 0, 0.0
        for option in options:
            if option == 0:
                continue
            faction, unit_type = decode_unit(option)
            value = 1.0 + (1.0 if faction == Faction.FREMEN or unit_type else 0.0)
            value += 0.1 * strategic_count(s, faction)
            if value > best_value:
                best, best_value = option, value
        return best

    def lend_leader(self, s: GameState, seat: int, options: list[int]) -> int:
        """Lend when our own units are at stake (defender's side) or the active ally could
        win with us; never to an ally that could win alone."""
        me = s.seat_faction[seat]
        active = s.active_faction
        if me == s.ally:
            if not self.lend or strategic_count(s, active) >= 2:
                return 0
            return 1 if STRATEGIC[s.battle_region] else 0
        return 1 if self.lend or strategic_count(s, active) >= 2 else 0

    def bid(self, s: GameState, seat: int, options: list[int]) -> int:
        side = ATTACKER if s.phase == Phase.BATTLE_BID_ATTACKER else DEFENDER
        plan = self._bid_plan(s, seat, side)
        committed_units = s.bid_units[side]  # our own side's bid: ours to know
        committed_leaders = s.bid_leaders[side]
        for option in plan:
            if option >= BID_LEADER_BASE:
                f = option - BID_LEADER_BASE
                # plan lists a leader option once per token
                if committed_leaders[f] < plan.count(option) and option in options:
                    return option
            else:
                f, t = decode_unit(option)
                if committed_units[2 * f + t] < plan.count(option) and option in options:
                    return option
        return BID_DONE

    def _bid_plan(self, s: GameState, seat: int, side: int) -> list[int]:
        """The full bid (one option per committed piece), from public information and our own
        side only: the enemy side's maximum strength is known, its bid is not."""
        me = s.seat_faction[seat]
        region = s.battle_region
        other = DEFENDER if side == ATTACKER else ATTACKER
        enemy_max = 0
        for f in side_factions(s, other):
            enemy_max += strength(s, f, region)
        for f in side_leader_owners(s, other):
            enemy_max += leader_power(s, f)
        need = enemy_max + 1 if side == ATTACKER else enemy_max
        # Our pieces, cheapest first: (cost, strength, option).
        pieces: list[tuple[float, int, int]] = []
        for f in side_factions(s, side):
            u = s.units[f]
            unit_str = 2 if f == Faction.FREMEN else 1
            own = f == me
            for t in (0, 1):
                n = u[2 * region + t]
                st = 2 if t else unit_str
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
            if self.gamble and total >= self.attack_ratio * need - 1:
                return [p[2] for p in pieces]
            return []
        chosen: list[tuple[float, int, int]] = []
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
            if acc - p[1] >= need and _droppable(p, chosen):
                chosen.remove(p)
                acc -= p[1]
        return [p[2] for p in chosen]

    # --- step 8 --------------------------------------------------------------------------------

    def reorganize(self, s: GameState, seat: int, options: list[int]) -> int:
        target = s.target
        wanted = self.token_strategic if STRATEGIC[target] else self.token_other
        current = s.region_token[target]
        if current == wanted:
            return 0
        if 1 + wanted in options:
            return 1 + wanted
        if current == NO_ONE:
            return max(options)
        return 0


def _droppable(piece: tuple[float, int, int], chosen: list[tuple[float, int, int]]) -> bool:
    """An Atreides leader token may be dropped only as the second one (ATR-1 strengths)."""
    if piece[2] >= BID_LEADER_BASE and piece[2] - BID_LEADER_BASE == Faction.ATREIDES:
        same = [p for p in chosen if p[2] == piece[2]]
        return len(same) == 1 or piece[1] == 2
    return True


def _landable_adjacent(s: GameState, me: int, target: int) -> bool:
    for r in ADJ[target]:
        if r != POLAR and count(s, me, r) and not DESERT[r] and not in_storm(s, r):
            return True
    return False


def _protected(s: GameState, face: int, faction: int) -> bool:
    """KANLY-3 protections."""
    if face == KanlyFace.POISON:
        return faction == s.snooper_holder or faction == Faction.BENE_GESSERIT
    if face == KanlyFace.CRYSKNIFE:
        return faction == s.shield_holder or faction == Faction.FREMEN
    return False


class AggressivePolicy(HeuristicPolicy):
    """Seize strategic regions and fight for them.

    Keeps the region-die face that lets it move into a strategic region, lands next to that
    target, moves all spare units in, attacks even when the battle is only close, commits
    everything in such close battles (the minimal sure win otherwise), uses Kanly on the
    leading opponent's sole unit in a strategic region, recruits its leader first, places
    fortresses in strategic regions and ornithopters elsewhere, and gives allies little.
    """

    name = "aggressive"
    attack_ratio = 0.75
    gamble = True
    move_cap = 99
    keep = 1
    kill_weight = 1.5
    spice_weight = 0.7
    harvester_bonus = 0.1
    lend = False
    ally_generosity = False
    token_strategic = Token.FORTRESS
    token_other = Token.ORNITHOPTER
    faction_preference = (
        Faction.HARKONNEN,
        Faction.FREMEN,
        Faction.ATREIDES,
        Faction.CORRINO,
        Faction.SMUGGLERS,
        Faction.TLEILAX,
        Faction.BENE_GESSERIT,
        Faction.GUILD,
    )

    def _wants_leader(self, s: GameState, me: int) -> bool:
        return True


class EconomicPolicy(HeuristicPolicy):
    """Grow steadily and avoid losing fights.

    Values spice and harvesters (keeps high spice faces, lands everything, places harvesters
    outside strategic regions and fortresses in them), moves a few units into empty strategic
    regions and attacks only battles it surely wins, commits nothing in battles it cannot win
    (saving its leader), lends leaders to protect its units, and uses alliances: gifts,
    consent and grants to an ally that could win with it, never to one about to win alone.
    """

    name = "economic"
    attack_ratio = 1.0
    gamble = False
    move_cap = 3
    keep = 2
    kill_weight = 1.0
    spice_weight = 1.0
    harvester_bonus = 0.6
    lend = True
    ally_generosity = True
    token_strategic = Token.FORTRESS
    token_other = Token.HARVESTER
    faction_preference = (
        Faction.GUILD,
        Faction.CORRINO,
        Faction.ATREIDES,
        Faction.HARKONNEN,
        Faction.FREMEN,
        Faction.BENE_GESSERIT,
        Faction.TLEILAX,
        Faction.SMUGGLERS,
    )


HANDLER_NAMES: dict[int, str] = {
    DecisionKind.CHOOSE_FACTION: "choose_faction",
    DecisionKind.ATREIDES_START: "start_region",
    DecisionKind.HARKONNEN_START: "start_region",
    DecisionKind.BG_PREDICTION: "bg_prediction",
    DecisionKind.FIX_DICE: "fix_dice",
    DecisionKind.PITER_DE_VRIES: "piter",
    DecisionKind.AXOLOTL_SYMBOL: "axolotl",
    DecisionKind.ALLY_OFFER: "ally_offer",
    DecisionKind.ALLY_ANSWER: "ally_answer",
    DecisionKind.DICE_SPLIT: "dice_split",
    DecisionKind.RECRUIT: "recruit",
    DecisionKind.GHOLA: "ghola",
    DecisionKind.KANLY: "kanly",
    DecisionKind.HARVESTER_DISCARD: "harvester_discard",
    DecisionKind.SPICE_GIFT: "spice_gift",
    DecisionKind.LAND_CONSENT: "land_consent",
    DecisionKind.LAND: "land",
    DecisionKind.ALLY_GRANT: "ally_grant",
    DecisionKind.MOVE_TARGET: "move_target",
    DecisionKind.MOVE: "move",
    DecisionKind.BATTLE_ORDER: "battle_order",
    DecisionKind.INFILTRATION: "infiltration",
    DecisionKind.FORTRESS_VICTIM: "fortress_victim",
    DecisionKind.FACE_DANCER: "face_dancer",
    DecisionKind.LEND_LEADER: "lend_leader",
    DecisionKind.BID: "bid",
    DecisionKind.REORGANIZE: "reorganize",
}
assert len(HANDLER_NAMES) == len(DecisionKind)

__all__ = ["AggressivePolicy", "EconomicPolicy", "HeuristicPolicy"]
