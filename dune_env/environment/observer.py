"""The observer: fills one flat float32 vector with named slices from a game state.

What the vectors hold -- every field, the layouts `OBS_LAYOUT` (egocentric: relative seat r
is absolute seat (observer + r) mod n), `STATE_LAYOUT` (absolute seats, hidden fields
included) and their docs -- is declared in `dune_env.environment.fields`.  This module holds
what runs at every decision (compiled with mypyc): the extractors, bound to those declarations
by field name, the incremental cache and `Observer`.

How it stays cheap: the public part is built once per engine decision in absolute seats and
cached; an observation is one gather through a precomputed seat permutation plus the few
private entries.  The rebuild is incremental and generic: the features of one change group are
re-extracted only when an attribute they read changed, and their entries rewritten only when
the extracted values changed.  What an observation never contains is decided by
`dune_env.engine.information` (the private features ask it): the Bene Gesserit prediction
(except for the Bene Gesserit), any bid in progress except the observer's own side's (and only
for that side's decider), the history or the event log (they hold chosen options), the
decision counter.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import compress
from operator import attrgetter, ne
from typing import Any, Final, NamedTuple

import numpy as np

from ..engine import information
from ..engine.config import GameConfig, variant_values
from ..engine.constants import (
    FACTION_DIE_SYMBOLS,
    NUM_FACTIONS,
    NUM_LOCATIONS,
    NUM_TOKEN_TYPES,
    NUM_UNIT_TYPES,
    Die,
)
from ..engine.state import GameState
from .action_table import KIND_ORDER
from .fields import (
    DENSE,
    HIDDEN_FIELDS,
    INDEX,
    OBS_LAYOUT,
    OBS_SIZE,
    ONE_HOT,
    PRIVATE_FIELDS,
    PUBLIC_LAYOUT,
    PUBLIC_SIZE,
    ROWS,
    RULES_SIZE,
    SCALAR,
    SPARSE,
    STATE_LAYOUT,
    STATE_SIZE,
    ChangeGroup,
    Feature,
    SecretFeature,
    bind_public,
    bind_secret,
    played_size,
    secret_plan,
)
from .layout import MAX_SEATS

S: Final = MAX_SEATS
_LOC: Final = NUM_LOCATIONS * NUM_UNIT_TYPES  # 24 unit counts per faction

NONE: Final = -1  # what an INDEX extractor returns when no entry is 1


# --- reading the engine's records -------------------------------------------------------------


class RevealedBattle(NamedTuple):
    """The last battle as it was revealed (BATTLE-7): factions, strengths, the winning side
    (0 attacker, 1 defender) and both bids, units by faction*2+type and leaders by faction."""

    region: int
    attacker: int
    defender: int
    attacker_strength: int
    defender_strength: int
    winner: int
    units: tuple[Sequence[int], Sequence[int]]
    leaders: tuple[Sequence[int], Sequence[int]]


def revealed_battle(s: GameState) -> RevealedBattle | None:
    """`state.last_battle` (None before the first battle) as the observer reads it: the only
    place that reads the engine's `LastBattle` record."""
    lb = s.last_battle
    if lb is None:
        return None
    return RevealedBattle(
        lb.region,
        lb.attacker,
        lb.defender,
        lb.attacker_strength,
        lb.defender_strength,
        lb.winner_side,
        (lb.attacker_units, lb.defender_units),
        (lb.attacker_leaders, lb.defender_leaders),
    )


# --- extractors (absolute seats) ----------------------------------------------------------------

_ZERO_UNITS: Final = [0] * _LOC
_SYMBOL_OF_FACE: Final = tuple(int(f) for f in FACTION_DIE_SYMBOLS)
_KIND_INDEX: Final = {int(k): i for i, k in enumerate(KIND_ORDER)}
_REGION_DIE: Final = int(Die.REGION)
_SPICE_DIE: Final = int(Die.SPICE)
_KANLY_DIE: Final = int(Die.KANLY)
_NOTHING: Final[tuple[Sequence[int], Sequence[int]]] = ((), ())
EVERY_SEAT: Final = -1  # the seat hidden extractors are asked for (they ignore it)


def _seat_in_game(s: GameState) -> list[int]:
    return [1] * len(s.seat_faction)


def _seat_faction(s: GameState) -> list[int]:
    return [seat * NUM_FACTIONS + f for seat, f in enumerate(s.seat_faction) if f >= 0]


def _units(s: GameState) -> list[Sequence[int]]:
    return [s.units[f] if f >= 0 else _ZERO_UNITS for f in s.seat_faction]


def _leaders(s: GameState) -> list[int]:
    return [x for f in s.seat_faction for x in (s.leaders[f] if f >= 0 else (0, 0))]


def _storage(s: GameState) -> list[int]:
    return [s.storage[f] if f >= 0 else 0 for f in s.seat_faction]


def _thumper(s: GameState) -> list[int]:
    return [s.thumpers[f] if f >= 0 else 0 for f in s.seat_faction]


def _holder(s: GameState, holder: int) -> int:
    return s.faction_seat[holder] if holder >= 0 else S  # slot S: the common supply


def _shield_holder(s: GameState) -> int:
    return _holder(s, s.shield_holder)


def _snooper_holder(s: GameState) -> int:
    return _holder(s, s.snooper_holder)


def _region_token(s: GameState) -> list[int]:
    return [r * NUM_TOKEN_TYPES + t for r, t in enumerate(s.region_token) if t >= 0]


def _storm_sector(s: GameState) -> int:
    return s.storm_sector - 1


def _round(s: GameState) -> int:
    return s.round - 1


def _faction_dice(s: GameState) -> list[int]:
    faces = s.dice_faces
    symbol = _SYMBOL_OF_FACE
    return [
        symbol[faces[0]],
        NUM_FACTIONS + symbol[faces[1]],
        2 * NUM_FACTIONS + symbol[faces[2]],
        3 * NUM_FACTIONS + symbol[faces[3]],
    ]


def _region_die(s: GameState) -> int:
    return s.dice_faces[_REGION_DIE]


def _spice_die(s: GameState) -> int:
    return s.dice_faces[_SPICE_DIE]


def _kanly_die(s: GameState) -> int:
    return s.dice_faces[_KANLY_DIE]


def _seat_of(s: GameState, faction: int) -> int:
    return s.faction_seat[faction] if faction >= 0 else NONE


def _ally_seat(s: GameState) -> int:
    return _seat_of(s, s.ally)


def _offer_target(s: GameState) -> int:
    return _seat_of(s, s.offer_target)


def _offer_symbol(s: GameState) -> int:
    return s.offer_symbol if s.offer_symbol >= 0 else NONE


def _axolotl_symbol(s: GameState) -> int:
    return s.axolotl_symbol if s.axolotl_symbol >= 0 else NONE


def _guild_paid(s: GameState) -> list[bool]:
    return [s.guild_paid[f] if f >= 0 else False for f in s.seat_faction]


def _target_region(s: GameState) -> int:
    return s.target if s.target >= 0 else NONE


def _decision_kind(s: GameState) -> int:
    return _KIND_INDEX[s.pending_kind] if s.pending_kind >= 0 else NONE


def _decision_seat(s: GameState) -> int:
    return s.pending_seat if s.pending_kind >= 0 else NONE


def _battle_region(s: GameState) -> int:
    return s.battle_region if s.battle_region >= 0 else NONE


def _battle_defender(s: GameState) -> int:
    return _seat_of(s, s.battle_defender)


def _fortress_stage(s: GameState) -> int:
    return s.battle_fortress_stage if s.battle_region >= 0 else NONE


def _face_dancer_done(s: GameState) -> bool:
    return s.face_dancer_done and s.battle_region >= 0


def _lend_queue(s: GameState) -> list[int]:
    return [s.faction_seat[f] for f in s.lend_queue]


def _lent(s: GameState) -> list[bool]:
    return [s.lent[f] if f >= 0 else False for f in s.seat_faction]


def _last_battle_valid(s: GameState) -> int:
    return 0 if revealed_battle(s) is not None else NONE


def _last_battle_region(s: GameState) -> int:
    battle = revealed_battle(s)
    return battle.region if battle is not None else NONE


def _last_battle_attacker(s: GameState) -> int:
    battle = revealed_battle(s)
    return s.faction_seat[battle.attacker] if battle is not None else NONE


def _last_battle_defender(s: GameState) -> int:
    battle = revealed_battle(s)
    return s.faction_seat[battle.defender] if battle is not None else NONE


def _last_battle_strength(s: GameState) -> list[int]:
    battle = revealed_battle(s)
    if battle is None:
        return [0, 0]
    return [battle.attacker_strength, battle.defender_strength]


def _last_battle_winner(s: GameState) -> int:
    battle = revealed_battle(s)
    return battle.winner if battle is not None else NONE


def _bid_units(
    fs: Sequence[int], bids: Sequence[Sequence[int]], sides: Sequence[int]
) -> tuple[list[int], list[int]]:
    """Units of bids (by faction*2+type) as (positions in a (side, S, type) field, counts)."""
    positions: list[int] = []
    counts: list[int] = []
    for out_side, side in enumerate(sides):
        for i, count in enumerate(bids[side]):
            if count:
                positions.append(out_side * S * NUM_UNIT_TYPES + fs[i >> 1] * 2 + (i & 1))
                counts.append(count)
    return positions, counts


def _bid_leaders(
    fs: Sequence[int], bids: Sequence[Sequence[int]], sides: Sequence[int]
) -> tuple[list[int], list[int]]:
    """Leader tokens of bids (by faction) as (positions in a (side, S) field, counts)."""
    positions: list[int] = []
    counts: list[int] = []
    for out_side, side in enumerate(sides):
        for f, count in enumerate(bids[side]):
            if count:
                positions.append(out_side * S + fs[f])
                counts.append(count)
    return positions, counts


_BOTH_SIDES: Final = (0, 1)


def _last_battle_units(s: GameState) -> tuple[list[int], list[int]]:
    battle = revealed_battle(s)
    if battle is None:
        return [], []
    return _bid_units(s.faction_seat, battle.units, _BOTH_SIDES)


def _last_battle_leaders(s: GameState) -> tuple[list[int], list[int]]:
    battle = revealed_battle(s)
    if battle is None:
        return [], []
    return _bid_leaders(s.faction_seat, battle.leaders, _BOTH_SIDES)


# Private extractors: what `seat` may see (engine.information decides), absolute seats.


def _own_bid_units(s: GameState, seat: int) -> tuple[Sequence[int], Sequence[int]]:
    side = information.known_bid_side(s, seat)
    if side == information.NO_SIDE:
        return _NOTHING
    return _bid_units(s.faction_seat, s.bid_units, (side,))


def _own_bid_leaders(s: GameState, seat: int) -> tuple[Sequence[int], Sequence[int]]:
    side = information.known_bid_side(s, seat)
    if side == information.NO_SIDE:
        return _NOTHING
    return _bid_leaders(s.faction_seat, s.bid_leaders, (side,))


def _own_bg_prediction(s: GameState, seat: int) -> tuple[Sequence[int], Sequence[int]]:
    if s.bg_prediction >= 0 and information.sees_prediction(s, seat):
        return (s.bg_prediction,), (1,)
    return _NOTHING


# Hidden extractors (the global state): everything, whoever asks.


def _all_bid_units(s: GameState, seat: int) -> tuple[Sequence[int], Sequence[int]]:
    return _bid_units(s.faction_seat, s.bid_units, _BOTH_SIDES)


def _all_bid_leaders(s: GameState, seat: int) -> tuple[Sequence[int], Sequence[int]]:
    return _bid_leaders(s.faction_seat, s.bid_leaders, _BOTH_SIDES)


def _bg_prediction(s: GameState, seat: int) -> tuple[Sequence[int], Sequence[int]]:
    if s.bg_prediction >= 0:
        return (s.bg_prediction,), (1,)
    return _NOTHING


# --- the extractors bound to the declared fields (dune_env.environment.fields) ---------------

# fmt: off
# Field name -> its extractor, in layout order (a state attribute read as is: attrgetter).
PUBLIC_FEATURES: Final[tuple[Feature, ...]] = bind_public({
    "seat_in_game": _seat_in_game, "seat_faction": _seat_faction, "units": _units,
    "leaders": _leaders, "storage": _storage, "thumper": _thumper, "shield_holder": _shield_holder,
    "snooper_holder": _snooper_holder, "region_token": _region_token,
    "token_supply": attrgetter("token_supply"), "thumper_supply": attrgetter("thumper_supply"),
    "storm_sector": _storm_sector, "round": _round, "first_seat": attrgetter("first_seat"),
    "active_seat": attrgetter("active_seat"), "phase": attrgetter("phase"),
    "faction_dice": _faction_dice, "region_die": _region_die, "spice_die": _spice_die,
    "kanly_die": _kanly_die, "dice_fixed": attrgetter("dice_fixed"),
    "dice_used": attrgetter("dice_used"), "recruit_dice": attrgetter("recruit_dice"),
    "ally_dice": attrgetter("ally_dice"), "pool": attrgetter("pool"), "ally_seat": _ally_seat,
    "offer_target": _offer_target, "offer_symbol": _offer_symbol,
    "axolotl_symbol": _axolotl_symbol, "leader_recruited": attrgetter("leader_recruited"),
    "land_consent": attrgetter("land_consent"), "grant": attrgetter("grant"),
    "guild_paid": _guild_paid, "target_region": _target_region, "decision_kind": _decision_kind,
    "decision_seat": _decision_seat, "ghola_declined": attrgetter("ghola_declined"),
    "battle_region": _battle_region, "battle_defender": _battle_defender,
    "fortress_stage": _fortress_stage, "face_dancer_done": _face_dancer_done,
    "lend_queue": _lend_queue, "lent": _lent, "last_battle_valid": _last_battle_valid,
    "last_battle_region": _last_battle_region, "last_battle_attacker": _last_battle_attacker,
    "last_battle_defender": _last_battle_defender, "last_battle_strength": _last_battle_strength,
    "last_battle_winner": _last_battle_winner, "last_battle_units": _last_battle_units,
    "last_battle_leaders": _last_battle_leaders,
})
# fmt: on
PRIVATE_FEATURES: Final[tuple[SecretFeature, ...]] = bind_secret(
    PRIVATE_FIELDS,
    {
        "own_bid_units": _own_bid_units,
        "own_bid_leaders": _own_bid_leaders,
        "bg_prediction": _own_bg_prediction,
    },
)
HIDDEN_FEATURES: Final[tuple[SecretFeature, ...]] = bind_secret(
    HIDDEN_FIELDS,
    {
        "bid_units": _all_bid_units,
        "bid_leaders": _all_bid_leaders,
        "bg_prediction": _bg_prediction,
    },
)


def rules_variant_values(config: GameConfig) -> list[float]:
    """The `rules_variant` entries of a configuration (RULES_VARIANT_ENTRIES order)."""
    return variant_values(config)


_OBS_RULES: Final = OBS_LAYOUT.slices["rules_variant"]
_STATE_RULES: Final = STATE_LAYOUT.slices["rules_variant"]
_INV_SCALE: Final = PUBLIC_LAYOUT.inv_scale


# --- the generic incremental cache ---------------------------------------------------------------


def _copied(values: tuple[Any, ...], lists: Sequence[int]) -> tuple[Any, ...]:
    """A copy of what a group read (state attributes: ints, bools, lists, lists of lists),
    deep enough that later changes of the state do not change it; `lists`: the positions of
    the lists."""
    copy = list(values)
    for i in lists:
        value = copy[i]
        copy[i] = [row[:] for row in value] if value and type(value[0]) is list else value[:]
    return tuple(copy)


class _Slot:
    """One feature in one observer: where it writes and the values it last wrote."""

    __slots__ = ("name", "extract", "start", "scale", "size", "last", "rows", "mask")

    def __init__(self, feature: Feature, num_players: int, mask: int) -> None:
        f = PUBLIC_LAYOUT[feature.field.name]
        self.mask = mask  # the bits of the group's reads that this feature reads
        self.name = f.name
        self.extract = feature.extract
        self.start = f.start
        self.scale = _INV_SCALE[f.start]  # a field has one scale
        if feature.encoding == DENSE:
            self.size = played_size(f, num_players)
        elif feature.encoding == ROWS:
            if f.seat_axis != 0:
                raise ValueError(f"field {f.name}: ROWS needs the seat axis first")
            self.size = f.size // f.shape[0]  # the width of a row
        else:
            self.size = f.size
        # What the buffer holds (it starts all 0): DENSE: the raw values; ONE_HOT: the
        # positions of the 1s; SPARSE: (positions, raw values); ROWS: one row per seat.
        self.last: Any = None
        if feature.encoding == DENSE:
            self.last = [0] * self.size
        elif feature.encoding == INDEX:
            self.last = NONE
        elif feature.encoding == SCALAR:
            if f.size != 1:
                raise ValueError(f"field {f.name}: SCALAR needs a field of one entry")
            self.last = 0
        self.rows: list[list[int]] = [[0] * self.size for _ in range(num_players)]


class _Group:
    """The features of one change group in one observer, by encoding."""

    def __init__(self, group: ChangeGroup, features: list[Feature], num_players: int) -> None:
        self.name = group.name
        self.watch = group.watch
        names = sorted({attr for f in features for attr in f.reads})
        if len(names) == 1:
            names *= 2  # attrgetter returns a bare value for one name: ask for two
        self.read: Callable[[GameState], tuple[object, ...]] = attrgetter(*names)
        self.bits = [1 << names.index(name) for name in names]
        self.source: tuple[object, ...] | None = None  # what it was last written from
        self.lists: list[int] = []  # the positions of lists in `source`
        self.index: list[_Slot] = []
        self.scalar: list[_Slot] = []
        self.one_hot: list[_Slot] = []
        self.dense: list[_Slot] = []
        self.sparse: list[_Slot] = []
        self.rows: list[_Slot] = []
        by_encoding = {
            INDEX: self.index,
            SCALAR: self.scalar,
            ONE_HOT: self.one_hot,
            DENSE: self.dense,
            SPARSE: self.sparse,
            ROWS: self.rows,
        }
        for feature in features:
            if feature.encoding not in by_encoding:
                raise ValueError(f"{feature.field.name}: unknown encoding {feature.encoding}")
            mask = sum(1 << names.index(name) for name in set(feature.reads))
            by_encoding[feature.encoding].append(_Slot(feature, num_players, mask))

    def update(self, s: GameState, buf: np.ndarray) -> None:
        """Rewrite the entries of `buf` whose features' values changed (if, with `watch`,
        anything they read changed)."""
        dirty = -1  # the bits of the reads that changed: all
        if self.watch:
            source = self.read(s)
            written_from = self.source
            if source == written_from:
                return
            if written_from is None:  # the attributes' types do not change
                self.lists = [i for i, value in enumerate(source) if type(value) is list]
            else:  # (the sum of distinct powers of two is their bitwise or)
                dirty = sum(compress(self.bits, map(ne, source, written_from)))
            self.source = _copied(source, self.lists)
        for slot in self.index:
            if slot.mask & dirty:
                position = slot.extract(s)
                last = slot.last
                if position != last:
                    if last != NONE:
                        buf[slot.start + last] = 0.0
                    if position != NONE:
                        buf[slot.start + position] = 1.0
                    slot.last = position
        for slot in self.scalar:
            if slot.mask & dirty:
                value = slot.extract(s)
                if value != slot.last:
                    buf[slot.start] = value * slot.scale
                    slot.last = value
        for slot in self.one_hot:
            if not slot.mask & dirty:
                continue
            ones = slot.extract(s)
            if ones != slot.last:
                start = slot.start
                if slot.last is not None:
                    for position in slot.last:
                        buf[start + position] = 0.0
                for position in ones:
                    buf[start + position] = 1.0
                slot.last = list(ones)
        for slot in self.dense:
            if not slot.mask & dirty:
                continue
            values = slot.extract(s)
            last = slot.last
            if values != last:
                if len(values) != slot.size:
                    raise ValueError(
                        f"observer field {slot.name!r}: its extractor returned {len(values)} "
                        f"values for {slot.size} entries"
                    )
                _write_changes(buf, slot.start, values, last, slot.scale)
                slot.last = list(values)
        for slot in self.sparse:
            if not slot.mask & dirty:
                continue
            positions, counts = slot.extract(s)
            last = slot.last
            if last is None or positions != last[0] or counts != last[1]:
                start = slot.start
                if last is not None:
                    for position in last[0]:
                        buf[start + position] = 0.0
                for position, count in zip(positions, counts, strict=True):
                    buf[start + position] = count * slot.scale
                slot.last = (list(positions), list(counts))
        for slot in self.rows:
            if not slot.mask & dirty:
                continue
            cached = slot.rows
            for seat, row in enumerate(slot.extract(s)):
                last = cached[seat]
                if row != last:
                    _write_changes(buf, slot.start + seat * slot.size, row, last, slot.scale)
                    cached[seat] = list(row)


def _write_changes(
    buf: np.ndarray, start: int, values: Sequence[int], last: Sequence[int], scale: np.float32
) -> None:
    """Write the entries of `values` that differ from `last` (one or two usually do)."""
    for i, value in enumerate(values):
        if value != last[i]:
            buf[start + i] = value * scale


class Observer:
    """Builds observations and global states for games of one player count.

    `public(state, key)` returns the absolute public vector, rebuilt only when `key` changes
    (the environment passes the decision count, and calls `invalidate()` for a new game).
    The rebuild itself is incremental: the features of each change group (`Feature.group`)
    are re-extracted only if a state attribute they read changed, and written only if their
    values changed.  `observe` and `global_state` return fresh arrays.
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
        # Where each absolute entry of a private field lands in the observer's observation.
        self._egocentric: list[list[int]] = []
        for o in range(n):
            perm = OBS_LAYOUT.seat_permutation(n, o)
            inverse = np.empty_like(perm)
            inverse[perm] = np.arange(perm.size)
            self._egocentric.append(inverse.tolist())
        self._private = secret_plan(OBS_LAYOUT, PRIVATE_FEATURES)
        self._hidden = secret_plan(STATE_LAYOUT, HIDDEN_FEATURES)
        self._key: object = None
        self._buffer = np.zeros(OBS_SIZE, dtype=np.float32)
        self._public = self._buffer[:PUBLIC_SIZE]
        by_group: dict[ChangeGroup, list[Feature]] = {}
        for feature in PUBLIC_FEATURES:
            by_group.setdefault(feature.group, []).append(feature)
        self._groups = [_Group(group, fs, n) for group, fs in by_group.items()]
        self._config_source: GameConfig | None = None
        self._rules = np.zeros(RULES_SIZE, dtype=np.float32)

    def invalidate(self) -> None:
        """Forget the cache key (a new game or a restored position)."""
        self._key = None

    def __reduce__(self) -> tuple[Any, ...]:
        # A copy starts with empty caches, rebuilt at its first call.  (Pickle and deepcopy of
        # the compiled class need it: mypyc classes have no instance __dict__ to copy.)
        return Observer, (self.num_players,)

    # --- public part ---------------------------------------------------------------------

    def public(self, state: GameState, key: object) -> np.ndarray:
        """The public fields in absolute seats (cached; do not modify the result)."""
        if key != self._key or key is None:
            buf = self._public
            for group in self._groups:
                group.update(state, buf)
            self._key = key
        if state.config is not self._config_source:
            # The rule variants live past the public part (in the observation's tail, which
            # `observe` gathers in place); they change only with the configuration.
            self._rules[:] = rules_variant_values(state.config)
            self._buffer[_OBS_RULES] = self._rules
            self._config_source = state.config
        return self._public

    # --- observations and states -----------------------------------------------------------

    def observe(
        self, state: GameState, key: object, observer: int, out: np.ndarray | None = None
    ) -> np.ndarray:
        """A fresh egocentric observation vector for seat `observer` (written into `out`, a
        float32 array of OBS_SIZE, if given: the batched environments fill their rows)."""
        self.public(state, key)
        obs = self._buffer.take(self._perms[observer], out=out)
        if not information.holds_secret(state, observer):
            return obs
        egocentric = self._egocentric[observer]
        for start, scale, extract in self._private:
            positions, values = extract(state, observer)
            for i, position in enumerate(positions):
                obs[egocentric[start + position]] = values[i] * scale
        return obs

    def global_state(self, state: GameState, key: object) -> np.ndarray:
        """A fresh global state vector: public fields and every hidden one, absolute seats."""
        out = np.zeros(STATE_SIZE, dtype=np.float32)
        out[:PUBLIC_SIZE] = self.public(state, key)
        out[_STATE_RULES] = self._rules
        for start, scale, extract in self._hidden:
            positions, values = extract(state, EVERY_SEAT)
            for position, value in zip(positions, values, strict=True):
                out[start + position] = value * scale
        return out
