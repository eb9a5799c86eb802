"""The game state: plain lists of ints, cheap to clone, and a JSON snapshot of it.

No string keys: factions, regions, tokens and dice are all indices (see constants.py).
"""

from __future__ import annotations

from enum import IntEnum
from typing import Any, Final, NamedTuple

from .config import GameConfig
from .constants import (
    CARD,
    FACES_PER_DIE,
    LEADER_COUNTS,
    NO_ONE,
    NUM_DICE,
    NUM_FACTIONS,
    NUM_LOCATIONS,
    NUM_REGIONS,
    NUM_THUMPERS,
    NUM_TOKEN_TYPES,
    NUM_UNIT_TYPES,
    PROPERTY_TOKENS_PER_TYPE,
    RESERVE,
    STORAGE_CAP,
    UNIT_COUNTS,
)
from .decision_spec import DecisionKind
from .records import ANY_LENGTH, HistoryRow, LastBattle, frozen_history, history_row
from .rng import ChanceRng

SNAPSHOT_VERSION: Final = 2  # 2: counter-based chance, rng {seed, turn_roll, forced}


class Phase(IntEnum):
    """Where the engine stands: set-up, then steps 1-10 of a turn (RULES.md §6), in play order."""

    SETUP_DRAFT = 0
    SETUP_PLACE = 1
    ROLL = 2
    PITER = 3
    AXOLOTL = 4
    ALLY_OFFER = 5
    ALLY_ANSWER = 6
    ALLY_SPLIT = 7
    RECRUIT_ACTIVE = 8
    RECRUIT_ALLY = 9
    GHOLA = 10
    KANLY = 11
    LAND_START = 12
    LAND_HARVESTER = 13
    LAND_GIFT = 14
    LAND_CONSENT = 15
    LAND_ACTIVE = 16
    LAND_GRANT = 17
    LAND_ALLY = 18
    MOVE_TARGET = 19
    MOVE_ACTIVE = 20
    MOVE_ALLY = 21
    BATTLE_SELECT = 22
    BATTLE_GHOLA = 23
    BATTLE_FORTRESS = 24
    BATTLE_FACE_DANCERS = 25
    BATTLE_LEND = 26
    BATTLE_BID_ATTACKER = 27
    BATTLE_BID_DEFENDER = 28
    PROPERTY = 29
    STORM = 30
    END_TURN = 31
    GAME_OVER = 32


def uidx(location: int, unit_type: int) -> int:
    """Index into a faction's unit-count list."""
    return location * NUM_UNIT_TYPES + unit_type


class StateField(NamedTuple):
    """One snapshot field of `GameState`: its name, its kind (how it is copied, written and
    checked) and, for ints, its bounds.  `length` is a list's length (ANY_LENGTH: any), `rows`
    a nested list's row count; bounds and lengths equal to PER_SEAT mean the player count,
    LAST_SEAT the last seat."""

    name: str
    kind: int
    lo: int = 0
    hi: int = 0
    length: int = ANY_LENGTH
    rows: int = 0


# Field kinds.
INT: Final = 0
FLAG: Final = 1
INTS: Final = 2
FLAGS: Final = 3
NESTED: Final = 4
FLOATS: Final = 5
LAST_BATTLE: Final = 6
# Sizes that depend on the player count.
PER_SEAT: Final = -2
LAST_SEAT: Final = -3

_F: Final = NUM_FACTIONS - 1
# The registry, in snapshot order (after "version", "config" and "rng"; before "history" and
# "events").  Snapshot writing and reading, and the clone test, derive from it.
STATE_FIELDS: Final = (
    StateField("shield_holder", INT, NO_ONE, _F),
    StateField("snooper_holder", INT, NO_ONE, _F),
    StateField("thumper_supply", INT, 0, NUM_THUMPERS),
    StateField("bg_prediction", INT, NO_ONE, _F),
    StateField("storm_sector", INT, 1, 6),
    StateField("round", INT, 1, 6),
    StateField("first_seat", INT, 0, LAST_SEAT),
    StateField("active_seat", INT, 0, LAST_SEAT),
    StateField("phase", INT, 0, max(Phase)),
    StateField("pool", INT, 0, 99),
    StateField("ally", INT, NO_ONE, _F),
    StateField("offer_target", INT, NO_ONE, _F),
    StateField("offer_symbol", INT, NO_ONE, _F),
    StateField("axolotl_symbol", INT, NO_ONE, _F),
    StateField("leader_recruited", FLAG),
    StateField("ghola_declined", FLAG),
    StateField("land_consent", FLAG),
    StateField("grant", INT, 0, 99),
    StateField("target", INT, NO_ONE, NUM_REGIONS - 1),
    StateField("battle_region", INT, NO_ONE, NUM_REGIONS - 1),
    StateField("battle_defender", INT, NO_ONE, _F),
    StateField("battle_fortress_stage", INT, 0, 2),
    StateField("setup_index", INT, 0, NUM_FACTIONS),
    StateField("face_dancer_done", FLAG),
    StateField("pending_kind", INT, NO_ONE, len(DecisionKind) - 1),
    StateField("pending_seat", INT, NO_ONE, LAST_SEAT),
    StateField("decision_count", INT, 0, 1 << 40),
    StateField("seat_faction", INTS, NO_ONE, _F, PER_SEAT),
    StateField("faction_seat", INTS, NO_ONE, LAST_SEAT, NUM_FACTIONS),
    StateField("region_token", INTS, NO_ONE, NUM_TOKEN_TYPES - 1, NUM_REGIONS),
    StateField("token_supply", INTS, 0, PROPERTY_TOKENS_PER_TYPE, NUM_TOKEN_TYPES),
    StateField("thumpers", INTS, 0, 1, NUM_FACTIONS),
    StateField("storage", INTS, 0, STORAGE_CAP, NUM_FACTIONS),
    StateField("dice_faces", INTS, 0, FACES_PER_DIE - 1, NUM_DICE),
    StateField("dice_fixed", FLAGS, length=NUM_DICE),
    StateField("dice_used", FLAGS, length=4),
    StateField("recruit_dice", INTS, 0, 3),
    StateField("ally_dice", INTS, 0, 3),
    StateField("guild_paid", FLAGS, length=NUM_FACTIONS),
    StateField("lend_queue", INTS, 0, _F),
    StateField("lent", FLAGS, length=NUM_FACTIONS),
    StateField("last_battle", LAST_BATTLE),
    StateField("winners", INTS, 0, LAST_SEAT),
    StateField("rewards", FLOATS, length=PER_SEAT),
    StateField("units", NESTED, 0, 12, NUM_LOCATIONS * NUM_UNIT_TYPES, NUM_FACTIONS),
    StateField("leaders", NESTED, 0, 2, 2, NUM_FACTIONS),
    StateField("bid_units", NESTED, 0, 12, NUM_FACTIONS * NUM_UNIT_TYPES, 2),
    StateField("bid_leaders", NESTED, 0, 12, NUM_FACTIONS, 2),
)
# Fields outside the registry: the configuration, the chance generator, the records' logs,
# and the cache of legal options (derived, never in a snapshot).
OTHER_FIELDS: Final = ("config", "rng", "history", "events", "legal_cache")


class GameState:
    """The complete state.  All fields are public plain data; the engine functions mutate it.

    Units: `units[faction][uidx(location, type)]` counts, locations 0..9 regions, CARD, RESERVE.
    Leaders: `leaders[faction] = [on card, in reserve]` (token counts; Atreides has two).
    Every field but those of OTHER_FIELDS is described by STATE_FIELDS.
    """

    __slots__ = (
        "config",
        "rng",
        "seat_faction",
        "faction_seat",
        "units",
        "leaders",
        "region_token",
        "token_supply",
        "shield_holder",
        "snooper_holder",
        "thumpers",
        "thumper_supply",
        "storage",
        "bg_prediction",
        "storm_sector",
        "round",
        "first_seat",
        "active_seat",
        "phase",
        "dice_faces",
        "dice_fixed",
        "pool",
        "ally",
        "offer_target",
        "offer_symbol",
        "axolotl_symbol",
        "dice_used",
        "recruit_dice",
        "ally_dice",
        "leader_recruited",
        "ghola_declined",
        "land_consent",
        "grant",
        "guild_paid",
        "target",
        "battle_region",
        "battle_defender",
        "battle_fortress_stage",
        "setup_index",
        "face_dancer_done",
        "lend_queue",
        "lent",
        "bid_units",
        "bid_leaders",
        "last_battle",
        "pending_kind",
        "pending_seat",
        "winners",
        "rewards",
        "history",
        "events",
        "decision_count",
        "legal_cache",
    )

    def __init__(self, config: GameConfig, seed: int, source: GameState | None = None) -> None:
        """A fresh state of `config` with chance from `seed`, or, given `source`, an
        independent copy of it (`clone`; `config` and `seed` are then ignored)."""
        if source is not None:
            self._copy(source)
            return
        n = config.num_players
        self.config = config
        self.rng = ChanceRng(seed)
        self.seat_faction: list[int] = [NO_ONE] * n
        self.faction_seat: list[int] = [NO_ONE] * NUM_FACTIONS
        self.units: list[list[int]] = [
            [0] * (NUM_LOCATIONS * NUM_UNIT_TYPES) for _ in range(NUM_FACTIONS)
        ]
        self.leaders: list[list[int]] = [[0, 0] for _ in range(NUM_FACTIONS)]
        self.region_token: list[int] = [NO_ONE] * NUM_REGIONS
        self.token_supply: list[int] = [PROPERTY_TOKENS_PER_TYPE] * NUM_TOKEN_TYPES
        self.shield_holder = NO_ONE
        self.snooper_holder = NO_ONE
        self.thumpers: list[int] = [0] * NUM_FACTIONS
        self.thumper_supply = NUM_THUMPERS
        self.storage: list[int] = [0] * NUM_FACTIONS
        self.bg_prediction = NO_ONE
        self.storm_sector = 1
        self.round = 1
        self.first_seat = 0
        self.active_seat = 0
        self.phase = int(Phase.SETUP_DRAFT)
        self.dice_faces: list[int] = [0] * NUM_DICE
        self.dice_fixed: list[bool] = [False] * NUM_DICE
        self.pool = 0
        self.ally = NO_ONE
        self.offer_target = NO_ONE
        self.offer_symbol = NO_ONE
        self.axolotl_symbol = NO_ONE
        self.dice_used: list[bool] = [False] * 4  # faction dice spent on recruiting (TLX-4)
        self.recruit_dice: list[int] = []  # faction dice left to the current recruiter
        self.ally_dice: list[int] = []  # faction dice reserved for the ally's recruiting
        self.leader_recruited = False  # ATR-2
        self.ghola_declined = False  # TLX-5 / CL-9: asked once per occasion
        self.land_consent = False  # LAND-4
        self.grant = 0  # LAND-5 / CL-7: spice the ally may still spend
        self.guild_paid: list[bool] = [False] * NUM_FACTIONS  # GLD-1, per lander per turn
        self.target = NO_ONE  # MOVE-1 target region of this turn
        self.battle_region = NO_ONE
        self.battle_defender = NO_ONE
        self.battle_fortress_stage = 0  # 0 to decide, 1 infiltration declined, 2 done
        self.setup_index = 0  # next faction (setup order) to set up, SETUP-6
        self.face_dancer_done = False
        self.lend_queue: list[int] = []  # factions still to be asked to lend (BATTLE-4)
        self.lent: list[bool] = [False] * NUM_FACTIONS
        # Bids: index 0 attacker, 1 defender (BATTLE-5).  Hidden until both are in.
        self.bid_units: list[list[int]] = [[0] * (NUM_FACTIONS * NUM_UNIT_TYPES) for _ in (0, 1)]
        self.bid_leaders: list[list[int]] = [[0] * NUM_FACTIONS for _ in (0, 1)]
        self.last_battle: LastBattle | None = None  # None before any battle
        self.pending_kind = NO_ONE
        self.pending_seat = NO_ONE
        self.winners: list[int] = []  # seats
        self.rewards: list[float] = [0.0] * n
        # Rows are immutable records shared by clones, except the chance list of the last row
        # once an outcome has been drawn after it (records.HistoryRow).
        self.history: list[HistoryRow] = []
        self.events: list[tuple[int, ...]] = []  # tuples of ints (events.py)
        self.decision_count = 0
        # The pending decision's legal options, computed once (not part of snapshots).  Engine
        # transitions reset it; code that edits a state by hand must call `invalidate()`.
        self.legal_cache: list[int] | None = None

    def _copy(self, source: GameState) -> None:
        """Copy every field of `source`, field by field (much faster than copy.deepcopy or a
        loop over names).  Records and finished history rows are immutable and shared; a test
        (tests/test_engine_clone.py) checks that every registry field is copied deeply."""
        self.config = source.config
        self.rng = source.rng.clone()
        self.seat_faction = source.seat_faction[:]
        self.faction_seat = source.faction_seat[:]
        self.units = list(map(list.copy, source.units))
        self.leaders = list(map(list.copy, source.leaders))
        self.region_token = source.region_token[:]
        self.token_supply = source.token_supply[:]
        self.shield_holder = source.shield_holder
        self.snooper_holder = source.snooper_holder
        self.thumpers = source.thumpers[:]
        self.thumper_supply = source.thumper_supply
        self.storage = source.storage[:]
        self.bg_prediction = source.bg_prediction
        self.storm_sector = source.storm_sector
        self.round = source.round
        self.first_seat = source.first_seat
        self.active_seat = source.active_seat
        self.phase = source.phase
        self.dice_faces = source.dice_faces[:]
        self.dice_fixed = source.dice_fixed[:]
        self.pool = source.pool
        self.ally = source.ally
        self.offer_target = source.offer_target
        self.offer_symbol = source.offer_symbol
        self.axolotl_symbol = source.axolotl_symbol
        self.dice_used = source.dice_used[:]
        self.recruit_dice = source.recruit_dice[:]
        self.ally_dice = source.ally_dice[:]
        self.leader_recruited = source.leader_recruited
        self.ghola_declined = source.ghola_declined
        self.land_consent = source.land_consent
        self.grant = source.grant
        self.guild_paid = source.guild_paid[:]
        self.target = source.target
        self.battle_region = source.battle_region
        self.battle_defender = source.battle_defender
        self.battle_fortress_stage = source.battle_fortress_stage
        self.setup_index = source.setup_index
        self.face_dancer_done = source.face_dancer_done
        self.lend_queue = source.lend_queue[:]
        self.lent = source.lent[:]
        self.bid_units = list(map(list.copy, source.bid_units))
        self.bid_leaders = list(map(list.copy, source.bid_leaders))
        self.last_battle = source.last_battle
        self.pending_kind = source.pending_kind
        self.pending_seat = source.pending_seat
        self.winners = source.winners[:]
        self.rewards = source.rewards[:]
        history = source.history[:]
        if history:
            last = history[-1]
            if isinstance(last.chance, list):  # the open row, which draws append to
                history[-1] = history_row(
                    last.seat, last.kind, last.option, last.forced, [*last.chance]
                )
        self.history = history
        self.events = source.events[:]
        self.decision_count = source.decision_count
        self.legal_cache = None

    # --- convenience ---------------------------------------------------------------------

    @property
    def num_players(self) -> int:
        return self.config.num_players

    @property
    def active_faction(self) -> int:
        return self.seat_faction[self.active_seat]

    @property
    def terminal(self) -> bool:
        return self.phase == Phase.GAME_OVER

    def in_game(self, faction: int) -> bool:
        return self.faction_seat[faction] != NO_ONE

    def count(self, faction: int, location: int) -> int:
        u = self.units[faction]
        i = location * NUM_UNIT_TYPES
        return u[i] + u[i + 1]

    def move_units(self, faction: int, unit_type: int, src: int, dst: int, n: int = 1) -> None:
        u = self.units[faction]
        i = src * NUM_UNIT_TYPES + unit_type
        if u[i] < n:
            raise AssertionError(
                f"engine bug: moving {n} units of faction {faction} type {unit_type} from "
                f"location {src} which holds {u[i]}"
            )
        u[i] -= n
        u[dst * NUM_UNIT_TYPES + unit_type] += n

    def invalidate(self) -> None:
        """Forget cached derived values after editing the state by hand."""
        self.legal_cache = None

    # --- clone ---------------------------------------------------------------------------

    def clone(self) -> GameState:
        """An independent copy, much cheaper than copy.deepcopy."""
        return GameState(self.config, 0, self)

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickle and deepcopy: a compiled class cannot be rebuilt field by field without it.
        names = (*(f.name for f in STATE_FIELDS), "history", "events", "rng")
        return _state_from_fields, (self.config, {name: getattr(self, name) for name in names})

    # --- snapshot ------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The JSON snapshot (schema: docs/snapshot.md)."""
        data: dict[str, Any] = {"version": SNAPSHOT_VERSION, "config": self.config.to_dict()}
        data["rng"] = {
            "seed": self.rng.seed,
            "turn_roll": self.rng.turn_roll,
            "forced": list(self.rng.forced),
        }
        for field in STATE_FIELDS:
            value = getattr(self, field.name)
            if field.kind == NESTED:
                data[field.name] = [list(row) for row in value]
            elif field.kind == LAST_BATTLE:
                data[field.name] = [] if value is None else value.to_list()
            elif field.kind in (INT, FLAG):
                data[field.name] = value
            else:
                data[field.name] = list(value)
        data["history"] = [row.to_list() for row in self.history]
        data["events"] = [list(e) for e in self.events]
        return data

    @classmethod
    def from_dict(cls, data: Any) -> GameState:
        from .validate import validate_snapshot

        return validate_snapshot(data)


def _state_from_fields(config: GameConfig, fields: dict[str, Any]) -> GameState:
    """The state `GameState.__reduce__` describes (for pickle and deepcopy)."""
    state = GameState(config, 0)
    for name, value in fields.items():
        setattr(state, name, value)
    return state


def initial_pieces(state: GameState, faction: int) -> None:
    """Put all of a faction's pieces in its reserve (the starting point of SETUP-6)."""
    regular, elite = UNIT_COUNTS[faction]
    u = state.units[faction]
    for i in range(len(u)):
        u[i] = 0
    u[uidx(RESERVE, 0)] = regular
    u[uidx(RESERVE, 1)] = elite
    state.leaders[faction] = [0, LEADER_COUNTS[faction]]


__all__ = [
    "GameState",
    "Phase",
    "STATE_FIELDS",
    "StateField",
    "uidx",
    "initial_pieces",
    "frozen_history",
    "CARD",
    "RESERVE",
]
