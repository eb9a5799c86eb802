"""The game state: plain lists of ints, cheap to clone, and a JSON snapshot of it.

No string keys: factions, regions, tokens and dice are all indices (see constants.py).
"""

from __future__ import annotations

from enum import IntEnum
from typing import Any

from .config import GameConfig
from .constants import (
    CARD,
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
    UNIT_COUNTS,
)
from .rng import ChanceRng

SNAPSHOT_VERSION = 2  # 2: counter-based chance, rng {seed, turn_roll, forced}


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


class GameState:
    """The complete state.  All fields are public plain data; the engine functions mutate it.

    Units: `units[faction][uidx(location, type)]` counts, locations 0..9 regions, CARD, RESERVE.
    Leaders: `leaders[faction] = [on card, in reserve]` (token counts; Atreides has two).
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
        self.units: list[list[int]] = [[0] * (NUM_LOCATIONS * NUM_UNIT_TYPES) for _ in range(8)]
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
        # The last revealed battle: [region, attacker, defender, att strength, def strength,
        #   winner side (0 attacker / 1 defender), att units by faction*2+type..., def ...,
        #   att leaders by faction..., def leaders by faction...] or [] before any battle.
        self.last_battle: list[int] = []
        self.pending_kind = NO_ONE
        self.pending_seat = NO_ONE
        self.winners: list[int] = []  # seats
        self.rewards: list[float] = [0.0] * n
        # history rows: [seat, kind, option, forced(0/1), chance outcomes...]; the last row is a
        # list (chance outcomes are appended to it), earlier rows are frozen into tuples.
        self.history: list[Any] = []
        self.events: list[tuple[int, ...]] = []
        self.decision_count = 0
        # The pending decision's legal options, computed once (not part of snapshots).  Engine
        # transitions reset it; code that edits a state by hand must call `invalidate()`.
        self.legal_cache: list[int] | None = None

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

    def _copy(self, source: GameState) -> None:
        # (Through __init__: a compiled class cannot be instantiated with `__new__` alone.)
        for name in _SCALAR_FIELDS:
            setattr(self, name, getattr(source, name))
        for name in _LIST_FIELDS:
            setattr(self, name, list(getattr(source, name)))
        for name in _NESTED_FIELDS:
            setattr(self, name, [list(x) for x in getattr(source, name)])
        # Finished rows are tuples (see `frozen_history`), shared safely; the last row, still
        # open to chance outcomes, is copied.
        self.history = list(source.history)
        if self.history:
            self.history[-1] = list(self.history[-1])
        self.events = list(source.events)
        self.rng = source.rng.clone()
        self.legal_cache = None

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickle and deepcopy: a compiled class cannot be rebuilt field by field without it.
        names = (*_SCALAR_FIELDS[1:], *_LIST_FIELDS, *_NESTED_FIELDS, "history", "events", "rng")
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
        for name in _SCALAR_FIELDS:
            if name != "config":
                data[name] = getattr(self, name)
        for name in _LIST_FIELDS:
            data[name] = list(getattr(self, name))
        for name in _NESTED_FIELDS:
            data[name] = [list(x) for x in getattr(self, name)]
        data["history"] = [list(row) for row in self.history]
        data["events"] = [list(e) for e in self.events]
        return data

    @classmethod
    def from_dict(cls, data: Any) -> GameState:
        from .validate import validate_snapshot

        return validate_snapshot(data)


_SCALAR_FIELDS = (
    "config",
    "shield_holder",
    "snooper_holder",
    "thumper_supply",
    "bg_prediction",
    "storm_sector",
    "round",
    "first_seat",
    "active_seat",
    "phase",
    "pool",
    "ally",
    "offer_target",
    "offer_symbol",
    "axolotl_symbol",
    "leader_recruited",
    "ghola_declined",
    "land_consent",
    "grant",
    "target",
    "battle_region",
    "battle_defender",
    "battle_fortress_stage",
    "setup_index",
    "face_dancer_done",
    "pending_kind",
    "pending_seat",
    "decision_count",
)
_LIST_FIELDS = (
    "seat_faction",
    "faction_seat",
    "region_token",
    "token_supply",
    "thumpers",
    "storage",
    "dice_faces",
    "dice_fixed",
    "dice_used",
    "recruit_dice",
    "ally_dice",
    "guild_paid",
    "lend_queue",
    "lent",
    "last_battle",
    "winners",
    "rewards",
)
_NESTED_FIELDS = ("units", "leaders", "bid_units", "bid_leaders")

SCALAR_FIELDS = _SCALAR_FIELDS
LIST_FIELDS = _LIST_FIELDS
NESTED_FIELDS = _NESTED_FIELDS


def _state_from_fields(config: GameConfig, fields: dict[str, Any]) -> GameState:
    """The state `GameState.__reduce__` describes (for pickle and deepcopy)."""
    state = GameState(config, 0)
    for name, value in fields.items():
        setattr(state, name, value)
    return state


def frozen_history(rows: list[Any]) -> list[Any]:
    """History rows as the engine keeps them: finished rows are tuples, so that clones can share
    them; the last row is a list, to which chance outcomes are appended."""
    out: list[Any] = [tuple(row) for row in rows]
    if out:
        out[-1] = list(out[-1])
    return out


def initial_pieces(state: GameState, faction: int) -> None:
    """Put all of a faction's pieces in its reserve (the starting point of SETUP-6)."""
    regular, elite = UNIT_COUNTS[faction]
    u = state.units[faction]
    for i in range(len(u)):
        u[i] = 0
    u[uidx(RESERVE, 0)] = regular
    u[uidx(RESERVE, 1)] = elite
    state.leaders[faction] = [0, LEADER_COUNTS[faction]]


__all__ = ["GameState", "Phase", "uidx", "initial_pieces", "CARD", "RESERVE"]
