"""The observer: fills one flat float32 vector with named slices from a game state.

Three layouts share their first part, the *public* fields (everything every player sees):

- `OBS_LAYOUT` = public fields + the observer's own private fields, **egocentric**: relative
  seat 0 is the observer, relative seat r is absolute seat (observer + r) mod n (clockwise).
- `STATE_LAYOUT` = public fields + every hidden field (both battle bids, the Bene Gesserit
  prediction), in **absolute** seats: the global state for centralised critics.

Both end with `RULES_FIELDS`: the game configuration's rule variants (`rules_variant`), so one
policy can serve every variant.  They come last so that a model trained before they existed
sees exactly the first `LEGACY_OBS_SIZE` entries (`dune_env.policies.sb3` relies on it).

Fields indexed by seat have 8 slots (9 where the last slot is the common supply); slots of seats
past the player count stay 0.  Values are raw numbers divided by the field's scale.

How it stays cheap: the public part is built once per engine decision in absolute seats and
cached; an observation is one gather through a precomputed seat permutation plus the few
private entries.  What it never contains: the Bene Gesserit prediction (except for the Bene
Gesserit), any bid in progress except the observer's own side's (and only for that side's
decider), the history or the event log (they hold chosen options), the decision counter.
"""

from __future__ import annotations

import numpy as np

from ..engine.config import GameConfig
from ..engine.constants import (
    FACTION_DIE_SYMBOLS,
    MAX_ROUNDS,
    NO_ONE,
    NUM_DICE,
    NUM_FACTIONS,
    NUM_LOCATIONS,
    NUM_REGIONS,
    NUM_THUMPERS,
    NUM_TOKEN_TYPES,
    NUM_UNIT_TYPES,
    PROPERTY_TOKENS_PER_TYPE,
    STORAGE_CAP,
    Die,
    Faction,
)
from ..engine.decisions import NUM_DECISION_KINDS
from ..engine.map_data import NUM_SECTORS
from ..engine.records import LastBattle
from ..engine.state import GameState, Phase
from .action_table import KIND_ORDER
from .layout import MAX_SEATS, Field, Layout

S = MAX_SEATS
_LOC = NUM_LOCATIONS * NUM_UNIT_TYPES  # 24 unit counts per faction
_MAX_UNITS = 12
_MAX_LEADERS = 2
_SPICE_SCALE = 10.0
_MAX_SPICE = 99  # the snapshot validator's bound on pool and grant
_NUM_PHASES = len(Phase)

PUBLIC_FIELDS: tuple[Field, ...] = (
    # --- players -------------------------------------------------------------------------
    Field("seat_in_game", (S,), "1 for each seat that is played", seat_axis=0),
    Field(
        "seat_faction",
        (S, NUM_FACTIONS),
        "one-hot faction id of each seat (all 0 while a seat has not drafted)",
        seat_axis=0,
    ),
    # --- pieces --------------------------------------------------------------------------
    Field(
        "units",
        (S, NUM_LOCATIONS, NUM_UNIT_TYPES),
        "unit counts of each seat's faction by location (10 regions in MAP-1 order, then "
        "card, reserve) and unit type (regular, Sardaukar)",
        scale=_MAX_UNITS,
        max_raw=_MAX_UNITS,
        seat_axis=0,
    ),
    Field(
        "leaders",
        (S, 2),
        "leader tokens of each seat's faction: on its card, in its reserve",
        scale=_MAX_LEADERS,
        max_raw=_MAX_LEADERS,
        seat_axis=0,
    ),
    Field(
        "storage",
        (S,),
        "stored spice of each seat's faction (Corrino, Guild)",
        scale=STORAGE_CAP,
        max_raw=STORAGE_CAP,
        seat_axis=0,
    ),
    Field("thumper", (S,), "1 if the seat holds a Thumper", seat_axis=0),
    Field(
        "shield_holder",
        (S + 1,),
        "one-hot seat holding the Shield; slot 8 = common supply",
        seat_axis=0,
    ),
    Field(
        "snooper_holder",
        (S + 1,),
        "one-hot seat holding the Snooper; slot 8 = common supply",
        seat_axis=0,
    ),
    # --- board ---------------------------------------------------------------------------
    Field(
        "region_token",
        (NUM_REGIONS, NUM_TOKEN_TYPES),
        "one-hot property token of each region (fortress, harvester, ornithopter)",
    ),
    Field(
        "token_supply",
        (NUM_TOKEN_TYPES,),
        "property tokens of each type in the common supply",
        scale=PROPERTY_TOKENS_PER_TYPE,
        max_raw=PROPERTY_TOKENS_PER_TYPE,
    ),
    Field(
        "thumper_supply",
        (1,),
        "Thumpers in the common supply",
        scale=NUM_THUMPERS,
        max_raw=NUM_THUMPERS,
    ),
    Field("storm_sector", (NUM_SECTORS,), "one-hot storm sector 1..6"),
    Field("round", (MAX_ROUNDS,), "one-hot round 1..6"),
    # --- the turn ------------------------------------------------------------------------
    Field("first_seat", (S,), "one-hot first player", seat_axis=0),
    Field("active_seat", (S,), "one-hot active player (whose turn it is)", seat_axis=0),
    Field("phase", (_NUM_PHASES,), "one-hot engine phase (dune_env.engine.Phase order)"),
    Field(
        "faction_dice",
        (4, NUM_FACTIONS),
        "one-hot faction symbol shown by each of the four faction dice",
    ),
    Field("region_die", (NUM_SECTORS,), "one-hot region die face 1..6"),
    Field("spice_die", (6,), "one-hot spice die face: 1..5 spice, then Shai-Hulud"),
    Field(
        "kanly_die",
        (6,),
        "one-hot Kanly die face: Poison, Crysknife, Hunter-seeker, Snooper, Shield, Thumper",
    ),
    Field(
        "dice_fixed",
        (NUM_DICE,),
        "1 for each fixed die (faction 1-4, region, spice, Kanly)",
    ),
    Field("dice_used", (4,), "1 for each faction die already used (recruiting, face dancers)"),
    Field("recruit_dice", (4,), "1 for each faction die left to the current recruiter"),
    Field("ally_dice", (4,), "1 for each faction die reserved for the ally's recruiting"),
    Field(
        "pool",
        (1,),
        "the active player's spice pool",
        scale=_SPICE_SCALE,
        max_raw=_MAX_SPICE,
    ),
    Field("ally_seat", (S,), "one-hot seat of the active player's ally", seat_axis=0),
    Field("offer_target", (S,), "one-hot seat offered an alliance this turn", seat_axis=0),
    Field("offer_symbol", (NUM_FACTIONS,), "one-hot faction symbol of that offer (TLX-3)"),
    Field("axolotl_symbol", (NUM_FACTIONS,), "one-hot symbol chosen by Tleilax (TLX-1)"),
    Field("leader_recruited", (1,), "1 if a leader was recruited this step (ATR-2)"),
    Field("land_consent", (1,), "1 if landing in the ally's regions is allowed (LAND-4)"),
    Field(
        "grant",
        (1,),
        "spice the ally may still spend landing (CL-7)",
        scale=_SPICE_SCALE,
        max_raw=_MAX_SPICE,
    ),
    Field(
        "guild_paid",
        (S,),
        "1 for each seat whose landing already paid the Guild this turn (GLD-1)",
        seat_axis=0,
    ),
    Field("target_region", (NUM_REGIONS,), "one-hot movement target region (MOVE-1)"),
    # --- the pending decision and its context --------------------------------------------
    Field(
        "decision_kind",
        (NUM_DECISION_KINDS,),
        "one-hot kind of the pending decision (action-table block order)",
    ),
    Field("decision_seat", (S,), "one-hot seat that must decide now", seat_axis=0),
    Field("ghola_declined", (1,), "1 if the ghola was declined on this occasion (TLX-5)"),
    Field("battle_region", (NUM_REGIONS,), "one-hot region of the current battle"),
    Field("battle_defender", (S,), "one-hot seat of the current battle's defender", seat_axis=0),
    Field("fortress_stage", (3,), "one-hot fortress stage: to decide, declined, done"),
    Field("face_dancer_done", (1,), "1 once Tleilax stopped replacing units this battle"),
    Field("lend_queue", (S,), "1 for each seat still to be asked to lend a leader", seat_axis=0),
    Field("lent", (S,), "1 for each seat that lent its leader this battle", seat_axis=0),
    # --- the last battle, revealed -------------------------------------------------------
    Field("last_battle_valid", (1,), "1 once a battle has been resolved"),
    Field("last_battle_region", (NUM_REGIONS,), "one-hot region of the last battle"),
    Field("last_battle_attacker", (S,), "one-hot attacker seat of the last battle", seat_axis=0),
    Field("last_battle_defender", (S,), "one-hot defender seat of the last battle", seat_axis=0),
    Field(
        "last_battle_strength",
        (2,),
        "revealed strengths: attacker, defender",
        scale=_SPICE_SCALE,
        max_raw=_MAX_SPICE,
    ),
    Field("last_battle_winner", (2,), "one-hot winner side: attacker, defender"),
    Field(
        "last_battle_units",
        (2, S, NUM_UNIT_TYPES),
        "revealed bids: units committed by side (attacker, defender), owner seat, unit type",
        scale=_MAX_UNITS,
        max_raw=_MAX_UNITS,
        seat_axis=1,
    ),
    Field(
        "last_battle_leaders",
        (2, S),
        "revealed bids: leader tokens committed by side and owner seat",
        scale=_MAX_LEADERS,
        max_raw=_MAX_LEADERS,
        seat_axis=1,
    ),
)

PRIVATE_FIELDS: tuple[Field, ...] = (
    Field(
        "own_bid_units",
        (S, NUM_UNIT_TYPES),
        "the bid in progress of the side the observer decides for (attacker = active seat, "
        "defender = defender seat): units committed by owner seat and type; 0 for everyone "
        "else",
        scale=_MAX_UNITS,
        max_raw=_MAX_UNITS,
        seat_axis=0,
    ),
    Field(
        "own_bid_leaders",
        (S,),
        "that bid's leader tokens by owner seat",
        scale=_MAX_LEADERS,
        max_raw=_MAX_LEADERS,
        seat_axis=0,
    ),
    Field(
        "bg_prediction",
        (NUM_FACTIONS,),
        "one-hot faction predicted by the Bene Gesserit (BG-0); only in the Bene Gesserit's "
        "own observation",
    ),
)

HIDDEN_FIELDS: tuple[Field, ...] = (
    Field(
        "bid_units",
        (2, S, NUM_UNIT_TYPES),
        "both bids in progress: units by side (attacker, defender), owner seat, unit type",
        scale=_MAX_UNITS,
        max_raw=_MAX_UNITS,
        seat_axis=1,
    ),
    Field(
        "bid_leaders",
        (2, S),
        "both bids in progress: leader tokens by side and owner seat",
        scale=_MAX_LEADERS,
        max_raw=_MAX_LEADERS,
        seat_axis=1,
    ),
    Field("bg_prediction", (NUM_FACTIONS,), "one-hot faction predicted by the Bene Gesserit"),
)

# The entries of `rules_variant`, in order: every GameConfig option that changes the rules.
# (Rewards, skip_forced_decisions and record_events do not change what is legal.)
RULES_VARIANT_ENTRIES: tuple[str, ...] = (
    *(f"region_die_west_faces has {sector}" for sector in range(1, NUM_SECTORS + 1)),
    "strict_control",
    "desert_landing",
    "face_dancers == 'spice'",
    "guild_income_per_lander",
    "strict_alliance_victory",
    "smugglers_land_anywhere",
)

RULES_FIELDS: tuple[Field, ...] = (
    Field(
        "rules_variant",
        (len(RULES_VARIANT_ENTRIES),),
        "the game's rule variants (GameConfig), 1 = on: entries 0-5 region-die faces 1..6 "
        "showing W (CL-1 `region_die_west_faces`), 6 `strict_control` (CL-3), 7 "
        "`desert_landing` (CL-6), 8 `face_dancers` is 'spice' (TLX-4), 9 "
        "`guild_income_per_lander` (GLD-1), 10 `strict_alliance_victory` (END-2), 11 "
        "`smugglers_land_anywhere` (SMG-1); see docs/rules.md",
    ),
)


def rules_variant_values(config: GameConfig) -> list[float]:
    """The `rules_variant` entries of a configuration (RULES_VARIANT_ENTRIES order)."""
    west = config.region_die_west_faces
    return [float(sector in west) for sector in range(1, NUM_SECTORS + 1)] + [
        float(config.strict_control),
        float(config.desert_landing),
        float(config.face_dancers == "spice"),
        float(config.guild_income_per_lander),
        float(config.strict_alliance_victory),
        float(config.smugglers_land_anywhere),
    ]


PUBLIC_LAYOUT = Layout("public", PUBLIC_FIELDS)
OBS_LAYOUT = Layout("observation", PUBLIC_FIELDS + PRIVATE_FIELDS + RULES_FIELDS)
STATE_LAYOUT = Layout("state", PUBLIC_FIELDS + HIDDEN_FIELDS + RULES_FIELDS)
PUBLIC_SIZE = PUBLIC_LAYOUT.size
OBS_SIZE = OBS_LAYOUT.size
STATE_SIZE = STATE_LAYOUT.size
RULES_SIZE = sum(f.size for f in RULES_FIELDS)
LEGACY_OBS_SIZE = OBS_SIZE - RULES_SIZE  # the observation before `rules_variant` existed


def _o(name: str, layout: Layout = PUBLIC_LAYOUT) -> int:
    return layout[name].start


# Offsets, resolved once (the builder is the hot path of the environment).
_SEAT_IN_GAME = _o("seat_in_game")
_SEAT_FACTION = _o("seat_faction")
_UNITS = _o("units")
_LEADERS = _o("leaders")
_STORAGE = _o("storage")
_THUMPER = _o("thumper")
_SHIELD = _o("shield_holder")
_SNOOPER = _o("snooper_holder")
_REGION_TOKEN = _o("region_token")
_TOKEN_SUPPLY = _o("token_supply")
_THUMPER_SUPPLY = _o("thumper_supply")
_STORM = _o("storm_sector")
_ROUND = _o("round")
_FIRST = _o("first_seat")
_ACTIVE = _o("active_seat")
_PHASE = _o("phase")
_FACTION_DICE = _o("faction_dice")
_REGION_DIE = _o("region_die")
_SPICE_DIE = _o("spice_die")
_KANLY_DIE = _o("kanly_die")
_DICE_FIXED = _o("dice_fixed")
_DICE_USED = _o("dice_used")
_RECRUIT_DICE = _o("recruit_dice")
_ALLY_DICE = _o("ally_dice")
_POOL = _o("pool")
_ALLY = _o("ally_seat")
_OFFER_TARGET = _o("offer_target")
_OFFER_SYMBOL = _o("offer_symbol")
_AXOLOTL = _o("axolotl_symbol")
_LEADER_RECRUITED = _o("leader_recruited")
_LAND_CONSENT = _o("land_consent")
_GRANT = _o("grant")
_GUILD_PAID = _o("guild_paid")
_TARGET = _o("target_region")
_KIND = _o("decision_kind")
_DECISION_SEAT = _o("decision_seat")
_GHOLA_DECLINED = _o("ghola_declined")
_BATTLE_REGION = _o("battle_region")
_BATTLE_DEFENDER = _o("battle_defender")
_FORTRESS_STAGE = _o("fortress_stage")
_FACE_DANCER_DONE = _o("face_dancer_done")
_LEND_QUEUE = _o("lend_queue")
_LENT = _o("lent")
_LB_VALID = _o("last_battle_valid")
_LB_REGION = _o("last_battle_region")
_LB_ATTACKER = _o("last_battle_attacker")
_LB_DEFENDER = _o("last_battle_defender")
_LB_STRENGTH = _o("last_battle_strength")
_LB_WINNER = _o("last_battle_winner")
_LB_UNITS = _o("last_battle_units")
_LB_LEADERS = _o("last_battle_leaders")
_OWN_BID_UNITS = _o("own_bid_units", OBS_LAYOUT)
_OWN_BID_LEADERS = _o("own_bid_leaders", OBS_LAYOUT)
_OBS_PREDICTION = _o("bg_prediction", OBS_LAYOUT)
_BID_UNITS = _o("bid_units", STATE_LAYOUT)
_BID_LEADERS = _o("bid_leaders", STATE_LAYOUT)
_STATE_PREDICTION = _o("bg_prediction", STATE_LAYOUT)
_OBS_RULES = OBS_LAYOUT.slices["rules_variant"]
_STATE_RULES = STATE_LAYOUT.slices["rules_variant"]

_KIND_INDEX = {int(k): i for i, k in enumerate(KIND_ORDER)}
_SYMBOL_OF_FACE = tuple(int(f) for f in FACTION_DIE_SYMBOLS)
_ZERO_UNITS = [0] * _LOC
_BID_PHASES = (Phase.BATTLE_BID_ATTACKER, Phase.BATTLE_BID_DEFENDER)
_INV_SCALE = PUBLIC_LAYOUT.inv_scale
_UNIT_SCALE = np.float32(1.0 / _MAX_UNITS)
_LEADER_SCALE = np.float32(1.0 / _MAX_LEADERS)


class Observer:
    """Builds observations and global states for games of one player count.

    `public(state, key)` returns the absolute public vector, rebuilt only when `key` changes
    (the environment passes the decision count, and calls `invalidate()` for a new game).
    The rebuild itself is incremental: each group of entries is compared with the values it
    was last written from and rewritten only if they differ.  `observe` and `global_state`
    return fresh arrays.
    """

    def __init__(self, num_players: int) -> None:
        n = num_players
        self.num_players = n
        # Gather indices of whole observations: the public part permuted, the private tail
        # (always 0 in the buffer, filled per observer) in place.
        tail = np.arange(PUBLIC_SIZE, OBS_SIZE)
        self._perms = [
            np.concatenate([PUBLIC_LAYOUT.seat_permutation(n, o), tail]) for o in range(n)
        ]
        self._key: object = None
        self._buffer = np.zeros(OBS_SIZE, dtype=np.float32)
        self._public = self._buffer[:PUBLIC_SIZE]
        self._public[_SEAT_IN_GAME : _SEAT_IN_GAME + n] = 1.0
        # The values each group of entries was last written from (see _build_public); None
        # until first written.
        self._units_source: list[list[int] | None] = [None] * n
        self._sf_source: list[int] | None = None
        self._fs_source: list[int] | None = None
        self._leaders_source: list[list[int]] | None = None
        self._storage_source: list[int] | None = None
        self._thumpers_source: list[int] | None = None
        self._guild_paid_source: list[bool] | None = None
        self._lent_source: list[bool] | None = None
        self._token_supply_source: list[int] | None = None
        self._thumper_supply_source: int | None = None
        self._region_token_source: list[int] | None = None
        self._shield_source: int | None = None
        self._snooper_source: int | None = None
        self._storm_source: int | None = None
        self._round_source: int | None = None
        self._first_source: int | None = None
        self._turn_source: list[int] = []
        self._slow_ones: list[int] = []
        self._fast_ones: list[int] = []
        self._slow_array = np.zeros(0, dtype=np.intp)
        self._fast_array = np.zeros(0, dtype=np.intp)
        self._lb_source: LastBattle | None = None
        self._lb_index: list[int] = []
        self._config_source: GameConfig | None = None
        self._rules = np.zeros(RULES_SIZE, dtype=np.float32)
        # Positions of the per-seat scalars, in the order `_build_public` lists them.
        index: list[int] = []
        for seat in range(n):
            index += [_LEADERS + 2 * seat, _LEADERS + 2 * seat + 1]
        for start in (_STORAGE, _THUMPER, _GUILD_PAID, _LENT):
            index += [start + seat for seat in range(n)]
        index += list(range(_TOKEN_SUPPLY, _TOKEN_SUPPLY + NUM_TOKEN_TYPES))
        index.append(_THUMPER_SUPPLY)
        self._seat_index = np.array(index, dtype=np.intp)
        self._seat_scale = _INV_SCALE[self._seat_index].copy()
        # ... and of the turn's scalars.
        index = list(range(_DICE_FIXED, _DICE_FIXED + NUM_DICE))
        index += list(range(_DICE_USED, _DICE_USED + 4))
        index += [_POOL, _GRANT, _LEADER_RECRUITED, _LAND_CONSENT, _GHOLA_DECLINED]
        index += [_FACE_DANCER_DONE, _LB_STRENGTH, _LB_STRENGTH + 1]
        self._turn_index = np.array(index, dtype=np.intp)
        self._turn_scale = _INV_SCALE[self._turn_index].copy()

    def invalidate(self) -> None:
        """Forget the cache key (a new game or a restored position)."""
        self._key = None

    # --- public part ---------------------------------------------------------------------

    def public(self, state: GameState, key: object) -> np.ndarray:
        """The public fields in absolute seats (cached; do not modify the result)."""
        if key != self._key or key is None:
            self._build_public(state)
            self._key = key
        if state.config is not self._config_source:
            # The rule variants live past the public part (in the observation's tail, which
            # `observe` gathers in place); they change only with the configuration.
            self._rules[:] = rules_variant_values(state.config)
            self._buffer[_OBS_RULES] = self._rules
            self._config_source = state.config
        return self._public

    def _build_public(self, s: GameState) -> None:
        """Write the public vector.  Entries come in groups (unit counts, per-seat scalars,
        turn scalars, slow and fast one-hots, last battle); each group is rewritten only when
        the values it was written from changed, since most decisions change few of them."""
        buf = self._public
        sf = s.seat_faction
        fs = s.faction_seat
        lb = s.last_battle
        lb_changed = lb is not self._lb_source  # (records are immutable: replaced, not edited)

        # Unit counts, row by row (a decision moves the units of one or two factions).
        rows = self._units_source
        for seat, f in enumerate(sf):
            row = s.units[f] if f >= 0 else _ZERO_UNITS
            if row != rows[seat]:
                start = _UNITS + seat * _LOC
                block = buf[start : start + _LOC]
                block[:] = row
                block *= _UNIT_SCALE
                rows[seat] = row[:]

        # Per-seat scalars: compared in the engine's faction order, rebuilt in seat order.
        if (
            sf != self._sf_source
            or s.leaders != self._leaders_source
            or s.storage != self._storage_source
            or s.thumpers != self._thumpers_source
            or s.guild_paid != self._guild_paid_source
            or s.lent != self._lent_source
            or s.token_supply != self._token_supply_source
            or s.thumper_supply != self._thumper_supply_source
        ):
            if NO_ONE in sf:  # seats that have not drafted yet have no pieces
                values = [x for f in sf for x in (s.leaders[f] if f >= 0 else (0, 0))]
                values += [s.storage[f] if f >= 0 else 0 for f in sf]
                values += [s.thumpers[f] if f >= 0 else 0 for f in sf]
                values += [s.guild_paid[f] if f >= 0 else False for f in sf]
                values += [s.lent[f] if f >= 0 else False for f in sf]
            else:
                values = [x for f in sf for x in s.leaders[f]]
                values += [s.storage[f] for f in sf]
                values += [s.thumpers[f] for f in sf]
                values += [s.guild_paid[f] for f in sf]
                values += [s.lent[f] for f in sf]
            values += s.token_supply
            values.append(s.thumper_supply)
            buf[self._seat_index] = np.multiply(values, self._seat_scale, dtype=np.float32)
            self._leaders_source = [pair[:] for pair in s.leaders]
            self._storage_source = s.storage[:]
            self._thumpers_source = s.thumpers[:]
            self._guild_paid_source = s.guild_paid[:]
            self._lent_source = s.lent[:]
            self._token_supply_source = s.token_supply[:]
            self._thumper_supply_source = s.thumper_supply

        turn: list[int] = [
            *s.dice_fixed,
            *s.dice_used,
            s.pool,
            s.grant,
            s.leader_recruited,
            s.land_consent,
            s.ghola_declined,
            s.face_dancer_done and s.battle_region >= 0,
            lb.attacker_strength if lb is not None else 0,
            lb.defender_strength if lb is not None else 0,
        ]
        if turn != self._turn_source:
            buf[self._turn_index] = np.multiply(turn, self._turn_scale, dtype=np.float32)
            self._turn_source = turn

        # One-hots that change a few times per game...
        if (
            lb_changed
            or sf != self._sf_source
            or fs != self._fs_source
            or s.region_token != self._region_token_source
            or s.shield_holder != self._shield_source
            or s.snooper_holder != self._snooper_source
            or s.storm_sector != self._storm_source
            or s.round != self._round_source
            or s.first_seat != self._first_source
        ):
            slow = [_SEAT_FACTION + seat * NUM_FACTIONS + f for seat, f in enumerate(sf) if f >= 0]
            slow += [
                _REGION_TOKEN + region * NUM_TOKEN_TYPES + token
                for region, token in enumerate(s.region_token)
                if token >= 0
            ]
            slow += (
                _SHIELD + (fs[s.shield_holder] if s.shield_holder >= 0 else S),
                _SNOOPER + (fs[s.snooper_holder] if s.snooper_holder >= 0 else S),
                _STORM + s.storm_sector - 1,
                _ROUND + s.round - 1,
                _FIRST + s.first_seat,
            )
            if lb is not None:
                slow += (
                    _LB_VALID,
                    _LB_REGION + lb.region,
                    _LB_ATTACKER + fs[lb.attacker],
                    _LB_DEFENDER + fs[lb.defender],
                    _LB_WINNER + lb.winner_side,
                )
            if slow != self._slow_ones:
                buf[self._slow_array] = 0.0
                self._slow_array = np.array(slow, dtype=np.intp)
                buf[self._slow_array] = 1.0
                self._slow_ones = slow
            self._region_token_source = s.region_token[:]
            self._shield_source = s.shield_holder
            self._snooper_source = s.snooper_holder
            self._storm_source = s.storm_sector
            self._round_source = s.round
            self._first_source = s.first_seat

        # ... and those that change at almost every decision.
        faces = s.dice_faces
        fast = [
            _ACTIVE + s.active_seat,
            _PHASE + s.phase,
            _FACTION_DICE + _SYMBOL_OF_FACE[faces[0]],
            _FACTION_DICE + NUM_FACTIONS + _SYMBOL_OF_FACE[faces[1]],
            _FACTION_DICE + 2 * NUM_FACTIONS + _SYMBOL_OF_FACE[faces[2]],
            _FACTION_DICE + 3 * NUM_FACTIONS + _SYMBOL_OF_FACE[faces[3]],
            _REGION_DIE + faces[Die.REGION],
            _SPICE_DIE + faces[Die.SPICE],
            _KANLY_DIE + faces[Die.KANLY],
        ]
        add = fast.append
        if s.pending_kind >= 0:
            add(_KIND + _KIND_INDEX[s.pending_kind])
            add(_DECISION_SEAT + s.pending_seat)
        for die in s.recruit_dice:
            add(_RECRUIT_DICE + die)
        for die in s.ally_dice:
            add(_ALLY_DICE + die)
        if s.ally >= 0:
            add(_ALLY + fs[s.ally])
        if s.offer_target >= 0:
            add(_OFFER_TARGET + fs[s.offer_target])
        if s.offer_symbol >= 0:
            add(_OFFER_SYMBOL + s.offer_symbol)
        if s.axolotl_symbol >= 0:
            add(_AXOLOTL + s.axolotl_symbol)
        if s.target >= 0:
            add(_TARGET + s.target)
        if s.battle_region >= 0:
            add(_BATTLE_REGION + s.battle_region)
            add(_FORTRESS_STAGE + s.battle_fortress_stage)
        if s.battle_defender >= 0:
            add(_BATTLE_DEFENDER + fs[s.battle_defender])
        for f in s.lend_queue:
            add(_LEND_QUEUE + fs[f])
        if fast != self._fast_ones:
            buf[self._fast_array] = 0.0
            self._fast_array = np.array(fast, dtype=np.intp)
            buf[self._fast_array] = 1.0
            self._fast_ones = fast

        # The last battle's revealed bids.
        if lb_changed:
            buf[self._lb_index] = 0.0
            index, values = _last_battle_bids(lb, fs) if lb is not None else ([], [])
            buf[index] = np.multiply(values, _INV_SCALE[index], dtype=np.float32)
            self._lb_source = lb
            self._lb_index = index
        if sf != self._sf_source or fs != self._fs_source:
            self._sf_source = sf[:]
            self._fs_source = fs[:]

    # --- observations and states -----------------------------------------------------------

    def observe(
        self, state: GameState, key: object, observer: int, out: np.ndarray | None = None
    ) -> np.ndarray:
        """A fresh egocentric observation vector for seat `observer` (written into `out`, a
        float32 array of OBS_SIZE, if given: the batched environments fill their rows)."""
        self.public(state, key)
        obs = self._buffer.take(self._perms[observer], out=out)
        s = state
        if s.phase in _BID_PHASES:
            side = -1
            if observer == s.active_seat:
                side = 0
            elif (
                s.phase == Phase.BATTLE_BID_DEFENDER
                and s.faction_seat[s.battle_defender] == observer
            ):
                side = 1
            if side >= 0:
                n = self.num_players
                fs = s.faction_seat
                units = s.bid_units[side]
                for i, count in enumerate(units):
                    if count:
                        rel = (fs[i >> 1] - observer) % n
                        obs[_OWN_BID_UNITS + rel * 2 + (i & 1)] = count * _UNIT_SCALE
                for f, count in enumerate(s.bid_leaders[side]):
                    if count:
                        rel = (fs[f] - observer) % n
                        obs[_OWN_BID_LEADERS + rel] = count * _LEADER_SCALE
        if s.bg_prediction >= 0 and s.seat_faction[observer] == Faction.BENE_GESSERIT:
            obs[_OBS_PREDICTION + s.bg_prediction] = 1.0
        return obs

    def global_state(self, state: GameState, key: object) -> np.ndarray:
        """A fresh global state vector: public fields and every hidden one, absolute seats."""
        out = np.zeros(STATE_SIZE, dtype=np.float32)
        out[:PUBLIC_SIZE] = self.public(state, key)
        out[_STATE_RULES] = self._rules
        s = state
        fs = s.faction_seat
        for side in (0, 1):
            for i, count in enumerate(s.bid_units[side]):
                if count:
                    out[_BID_UNITS + side * S * 2 + fs[i >> 1] * 2 + (i & 1)] = count * _UNIT_SCALE
            for f, count in enumerate(s.bid_leaders[side]):
                if count:
                    out[_BID_LEADERS + side * S + fs[f]] = count * _LEADER_SCALE
        if s.bg_prediction >= 0:
            out[_STATE_PREDICTION + s.bg_prediction] = 1.0
        return out


def _last_battle_bids(lb: LastBattle, fs: list[int]) -> tuple[list[int], list[int]]:
    """Positions (absolute seats) and raw counts of the last battle's revealed bids."""
    index: list[int] = []
    values: list[int] = []
    for side, (units, leaders) in enumerate(
        ((lb.attacker_units, lb.attacker_leaders), (lb.defender_units, lb.defender_leaders))
    ):
        for i, count in enumerate(units):
            if count:
                index.append(_LB_UNITS + side * S * 2 + fs[i >> 1] * 2 + (i & 1))
                values.append(count)
        for f, count in enumerate(leaders):
            if count:
                index.append(_LB_LEADERS + side * S + fs[f])
                values.append(count)
    return index, values
