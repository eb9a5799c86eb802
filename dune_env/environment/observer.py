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

Every field is declared once, as a `Feature` of `PUBLIC_FEATURES` (or a `SecretFeature` of
`PRIVATE_FEATURES` / `HIDDEN_FEATURES`): its `Field` (name, shape, scale, doc), its extractor
(a function of the state), how the extractor's result is written (`encoding`), the state
attributes it reads (`reads`) and its change group (`group`).  The layouts, the docs and the
cache all derive from these declarations: to add a public field, add one `public_feature(...)`
to `PUBLIC_FEATURES` at its place in the layout, with its extractor function (the extractors
are written above the declarations); the layout changes, so regenerate the golden files.

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
from dataclasses import dataclass
from itertools import compress
from operator import attrgetter, ne
from typing import Any, Final, NamedTuple

import numpy as np

from ..engine import information
from ..engine.config import GameConfig, variant_entries, variant_summary, variant_values
from ..engine.constants import (
    FACTION_DIE_SYMBOLS,
    MAX_ROUNDS,
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
)
from ..engine.decisions import NUM_DECISION_KINDS
from ..engine.map_data import NUM_SECTORS
from ..engine.state import GameState, Phase
from .action_table import KIND_ORDER
from .layout import MAX_SEATS, Field, Layout

S: Final = MAX_SEATS
_LOC: Final = NUM_LOCATIONS * NUM_UNIT_TYPES  # 24 unit counts per faction
_MAX_UNITS: Final = 12
_MAX_LEADERS: Final = 2
_SPICE_SCALE: Final = 10.0
_MAX_SPICE: Final = 99  # the snapshot validator's bound on pool and grant
_NUM_PHASES: Final = len(Phase)

# --- how a feature's extractor result is written --------------------------------------------

DENSE: Final = 0
"""The extractor returns the raw values of the field's first entries: all of them, or for a
field whose seat axis is its first axis, those of the seats in play (slots past them stay 0)."""
ONE_HOT: Final = 1
"""The extractor returns the positions (flat, within the field) of the entries that are 1."""
SPARSE: Final = 2
"""The extractor returns (positions within the field, raw values) of its non-zero entries."""
ROWS: Final = 3
"""The extractor returns one row of raw values per seat in play (a field of shape (S, ...)):
rows are compared and rewritten one by one (unit counts: a decision moves one or two)."""
INDEX: Final = 4
"""One-hot with at most one 1: the extractor returns its position, or NONE for all 0."""
SCALAR: Final = 5
"""A field of one entry: the extractor returns its raw value."""
NONE: Final = -1  # what an INDEX extractor returns when no entry is 1

# --- change groups ------------------------------------------------------------------------------


@dataclass(frozen=True)
class ChangeGroup:
    """Features whose entries are compared and rewritten together.

    A group is only a matter of speed (any grouping gives the same observations).  With
    `watch`, the group first compares the state attributes its features read
    (`Feature.reads`, fetched in one `attrgetter` call) with those it was last written from:
    when none changed it is skipped, else only the features reading a changed attribute are
    re-extracted.  Worth it for groups that rarely change.  Without `watch`, its features are
    extracted at every rebuild.  Either way an entry is written only when its value changed.
    """

    name: str
    watch: bool


UNIT_COUNTS: Final = ChangeGroup("unit counts", watch=True)
PIECES: Final = ChangeGroup("pieces", watch=True)  # per-seat counts, supplies
BOARD: Final = ChangeGroup("board", watch=True)  # once a turn or less
DICE: Final = ChangeGroup("dice", watch=True)  # rolled or fixed: a third of the decisions
DECISION: Final = ChangeGroup("decision", watch=False)  # the pending decision: nearly always
CONTEXT: Final = ChangeGroup("context", watch=True)  # allies, offers, recruiting, landing
BATTLE: Final = ChangeGroup("battle", watch=True)  # the battle in progress
LAST_BATTLE: Final = ChangeGroup("last battle", watch=True)

Extractor = Callable[[GameState], Any]
SecretExtractor = Callable[[GameState, int], tuple[Sequence[int], Sequence[int]]]


@dataclass(frozen=True)
class Feature:
    """One public field and how it is computed from the state.

    Attributes:
        field: the field's place in the layouts, shape, scale and doc.
        encoding: what `extract` returns (INDEX, SCALAR, DENSE, ONE_HOT, SPARSE or ROWS).
        group: the change group (see UNIT_COUNTS...): compared and rewritten together.
        reads: every `GameState` attribute `extract` reads; the feature is re-extracted only
            when one of them changed (tests/env/test_observer_cache.py checks the list).
        extract: a function of the state, in absolute seats.
    """

    field: Field
    encoding: int
    group: ChangeGroup
    reads: tuple[str, ...]
    extract: Extractor


@dataclass(frozen=True)
class SecretFeature:
    """One private field (what one seat may see) or hidden field (the global state).

    `extract(state, seat)` returns (positions within the field, raw values) of its non-zero
    entries, seats absolute; for private fields it returns only what `seat` may see (as
    `dune_env.engine.information` decides); hidden fields ignore `seat`.  Never cached.
    """

    field: Field
    extract: SecretExtractor


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


def _token_supply(s: GameState) -> list[int]:
    return s.token_supply


def _thumper_supply(s: GameState) -> int:
    return s.thumper_supply


def _storm_sector(s: GameState) -> int:
    return s.storm_sector - 1


def _round(s: GameState) -> int:
    return s.round - 1


def _first_seat(s: GameState) -> int:
    return s.first_seat


def _active_seat(s: GameState) -> int:
    return s.active_seat


def _phase(s: GameState) -> int:
    return s.phase


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


def _dice_fixed(s: GameState) -> list[bool]:
    return s.dice_fixed


def _dice_used(s: GameState) -> list[bool]:
    return s.dice_used


def _recruit_dice(s: GameState) -> list[int]:
    return s.recruit_dice


def _ally_dice(s: GameState) -> list[int]:
    return s.ally_dice


def _pool(s: GameState) -> int:
    return s.pool


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


def _leader_recruited(s: GameState) -> bool:
    return s.leader_recruited


def _land_consent(s: GameState) -> bool:
    return s.land_consent


def _grant(s: GameState) -> int:
    return s.grant


def _guild_paid(s: GameState) -> list[bool]:
    return [s.guild_paid[f] if f >= 0 else False for f in s.seat_faction]


def _target_region(s: GameState) -> int:
    return s.target if s.target >= 0 else NONE


def _decision_kind(s: GameState) -> int:
    return _KIND_INDEX[s.pending_kind] if s.pending_kind >= 0 else NONE


def _decision_seat(s: GameState) -> int:
    return s.pending_seat if s.pending_kind >= 0 else NONE


def _ghola_declined(s: GameState) -> bool:
    return s.ghola_declined


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


# --- the declarations ----------------------------------------------------------------------------


def public_feature(
    name: str,
    shape: tuple[int, ...],
    doc: str,
    *,
    encoding: int,
    group: ChangeGroup,
    reads: tuple[str, ...],
    extract: Extractor,
    scale: int | float = 1.0,  # (not `float`: compiled code would turn an int into a float)
    max_raw: int | float = 1.0,
    seat_axis: int | None = None,
) -> Feature:
    """A public feature: a `Field` with its extractor (see `Feature`)."""
    field = Field(name, shape, doc, scale=scale, max_raw=max_raw, seat_axis=seat_axis)
    return Feature(field, encoding, group, reads, extract)


_SF: Final = "seat_faction"
_FS: Final = "faction_seat"

PUBLIC_FEATURES: Final[tuple[Feature, ...]] = (
    # --- players -------------------------------------------------------------------------
    public_feature(
        "seat_in_game",
        (S,),
        "1 for each seat that is played",
        seat_axis=0,
        encoding=DENSE,
        group=PIECES,
        reads=(_SF,),
        extract=_seat_in_game,
    ),
    public_feature(
        "seat_faction",
        (S, NUM_FACTIONS),
        "one-hot faction id of each seat (all 0 while a seat has not drafted)",
        seat_axis=0,
        encoding=ONE_HOT,
        group=BOARD,
        reads=(_SF,),
        extract=_seat_faction,
    ),
    # --- pieces --------------------------------------------------------------------------
    public_feature(
        "units",
        (S, NUM_LOCATIONS, NUM_UNIT_TYPES),
        "unit counts of each seat's faction by location (10 regions in MAP-1 order, then "
        "card, reserve) and unit type (regular, Sardaukar)",
        scale=_MAX_UNITS,
        max_raw=_MAX_UNITS,
        seat_axis=0,
        encoding=ROWS,
        group=UNIT_COUNTS,
        reads=(_SF, "units"),
        extract=_units,
    ),
    public_feature(
        "leaders",
        (S, 2),
        "leader tokens of each seat's faction: on its card, in its reserve",
        scale=_MAX_LEADERS,
        max_raw=_MAX_LEADERS,
        seat_axis=0,
        encoding=DENSE,
        group=PIECES,
        reads=(_SF, "leaders"),
        extract=_leaders,
    ),
    public_feature(
        "storage",
        (S,),
        "stored spice of each seat's faction (Corrino, Guild)",
        scale=STORAGE_CAP,
        max_raw=STORAGE_CAP,
        seat_axis=0,
        encoding=DENSE,
        group=PIECES,
        reads=(_SF, "storage"),
        extract=_storage,
    ),
    public_feature(
        "thumper",
        (S,),
        "1 if the seat holds a Thumper",
        seat_axis=0,
        encoding=DENSE,
        group=PIECES,
        reads=(_SF, "thumpers"),
        extract=_thumper,
    ),
    public_feature(
        "shield_holder",
        (S + 1,),
        "one-hot seat holding the Shield; slot 8 = common supply",
        seat_axis=0,
        encoding=INDEX,
        group=BOARD,
        reads=(_FS, "shield_holder"),
        extract=_shield_holder,
    ),
    public_feature(
        "snooper_holder",
        (S + 1,),
        "one-hot seat holding the Snooper; slot 8 = common supply",
        seat_axis=0,
        encoding=INDEX,
        group=BOARD,
        reads=(_FS, "snooper_holder"),
        extract=_snooper_holder,
    ),
    # --- board ---------------------------------------------------------------------------
    public_feature(
        "region_token",
        (NUM_REGIONS, NUM_TOKEN_TYPES),
        "one-hot property token of each region (fortress, harvester, ornithopter)",
        encoding=ONE_HOT,
        group=BOARD,
        reads=("region_token",),
        extract=_region_token,
    ),
    public_feature(
        "token_supply",
        (NUM_TOKEN_TYPES,),
        "property tokens of each type in the common supply",
        scale=PROPERTY_TOKENS_PER_TYPE,
        max_raw=PROPERTY_TOKENS_PER_TYPE,
        encoding=DENSE,
        group=PIECES,
        reads=("token_supply",),
        extract=_token_supply,
    ),
    public_feature(
        "thumper_supply",
        (1,),
        "Thumpers in the common supply",
        scale=NUM_THUMPERS,
        max_raw=NUM_THUMPERS,
        encoding=SCALAR,
        group=PIECES,
        reads=("thumper_supply",),
        extract=_thumper_supply,
    ),
    public_feature(
        "storm_sector",
        (NUM_SECTORS,),
        "one-hot storm sector 1..6",
        encoding=INDEX,
        group=BOARD,
        reads=("storm_sector",),
        extract=_storm_sector,
    ),
    public_feature(
        "round",
        (MAX_ROUNDS,),
        "one-hot round 1..6",
        encoding=INDEX,
        group=BOARD,
        reads=("round",),
        extract=_round,
    ),
    # --- the turn ------------------------------------------------------------------------
    public_feature(
        "first_seat",
        (S,),
        "one-hot first player",
        seat_axis=0,
        encoding=INDEX,
        group=BOARD,
        reads=("first_seat",),
        extract=_first_seat,
    ),
    public_feature(
        "active_seat",
        (S,),
        "one-hot active player (whose turn it is)",
        seat_axis=0,
        encoding=INDEX,
        group=BOARD,
        reads=("active_seat",),
        extract=_active_seat,
    ),
    public_feature(
        "phase",
        (_NUM_PHASES,),
        "one-hot engine phase (dune_env.engine.Phase order)",
        encoding=INDEX,
        group=DECISION,
        reads=("phase",),
        extract=_phase,
    ),
    public_feature(
        "faction_dice",
        (4, NUM_FACTIONS),
        "one-hot faction symbol shown by each of the four faction dice",
        encoding=ONE_HOT,
        group=DICE,
        reads=("dice_faces",),
        extract=_faction_dice,
    ),
    public_feature(
        "region_die",
        (NUM_SECTORS,),
        "one-hot region die face 1..6",
        encoding=INDEX,
        group=DICE,
        reads=("dice_faces",),
        extract=_region_die,
    ),
    public_feature(
        "spice_die",
        (6,),
        "one-hot spice die face: 1..5 spice, then Shai-Hulud",
        encoding=INDEX,
        group=DICE,
        reads=("dice_faces",),
        extract=_spice_die,
    ),
    public_feature(
        "kanly_die",
        (6,),
        "one-hot Kanly die face: Poison, Crysknife, Hunter-seeker, Snooper, Shield, Thumper",
        encoding=INDEX,
        group=DICE,
        reads=("dice_faces",),
        extract=_kanly_die,
    ),
    public_feature(
        "dice_fixed",
        (NUM_DICE,),
        "1 for each fixed die (faction 1-4, region, spice, Kanly)",
        encoding=DENSE,
        group=DICE,
        reads=("dice_fixed",),
        extract=_dice_fixed,
    ),
    public_feature(
        "dice_used",
        (4,),
        "1 for each faction die already used (recruiting, face dancers)",
        encoding=DENSE,
        group=DICE,
        reads=("dice_used",),
        extract=_dice_used,
    ),
    public_feature(
        "recruit_dice",
        (4,),
        "1 for each faction die left to the current recruiter",
        encoding=ONE_HOT,
        group=CONTEXT,
        reads=("recruit_dice",),
        extract=_recruit_dice,
    ),
    public_feature(
        "ally_dice",
        (4,),
        "1 for each faction die reserved for the ally's recruiting",
        encoding=ONE_HOT,
        group=CONTEXT,
        reads=("ally_dice",),
        extract=_ally_dice,
    ),
    public_feature(
        "pool",
        (1,),
        "the active player's spice pool",
        scale=_SPICE_SCALE,
        max_raw=_MAX_SPICE,
        encoding=SCALAR,
        group=DECISION,
        reads=("pool",),
        extract=_pool,
    ),
    public_feature(
        "ally_seat",
        (S,),
        "one-hot seat of the active player's ally",
        seat_axis=0,
        encoding=INDEX,
        group=CONTEXT,
        reads=(_FS, "ally"),
        extract=_ally_seat,
    ),
    public_feature(
        "offer_target",
        (S,),
        "one-hot seat offered an alliance this turn",
        seat_axis=0,
        encoding=INDEX,
        group=CONTEXT,
        reads=(_FS, "offer_target"),
        extract=_offer_target,
    ),
    public_feature(
        "offer_symbol",
        (NUM_FACTIONS,),
        "one-hot faction symbol of that offer (TLX-3)",
        encoding=INDEX,
        group=CONTEXT,
        reads=("offer_symbol",),
        extract=_offer_symbol,
    ),
    public_feature(
        "axolotl_symbol",
        (NUM_FACTIONS,),
        "one-hot symbol chosen by Tleilax (TLX-1)",
        encoding=INDEX,
        group=CONTEXT,
        reads=("axolotl_symbol",),
        extract=_axolotl_symbol,
    ),
    public_feature(
        "leader_recruited",
        (1,),
        "1 if a leader was recruited this step (ATR-2)",
        encoding=SCALAR,
        group=CONTEXT,
        reads=("leader_recruited",),
        extract=_leader_recruited,
    ),
    public_feature(
        "land_consent",
        (1,),
        "1 if landing in the ally's regions is allowed (LAND-4)",
        encoding=SCALAR,
        group=CONTEXT,
        reads=("land_consent",),
        extract=_land_consent,
    ),
    public_feature(
        "grant",
        (1,),
        "spice the ally may still spend landing (CL-7)",
        scale=_SPICE_SCALE,
        max_raw=_MAX_SPICE,
        encoding=SCALAR,
        group=CONTEXT,
        reads=("grant",),
        extract=_grant,
    ),
    public_feature(
        "guild_paid",
        (S,),
        "1 for each seat whose landing already paid the Guild this turn (GLD-1)",
        seat_axis=0,
        encoding=DENSE,
        group=PIECES,
        reads=(_SF, "guild_paid"),
        extract=_guild_paid,
    ),
    public_feature(
        "target_region",
        (NUM_REGIONS,),
        "one-hot movement target region (MOVE-1)",
        encoding=INDEX,
        group=CONTEXT,
        reads=("target",),
        extract=_target_region,
    ),
    # --- the pending decision and its context --------------------------------------------
    public_feature(
        "decision_kind",
        (NUM_DECISION_KINDS,),
        "one-hot kind of the pending decision (action-table block order)",
        encoding=INDEX,
        group=DECISION,
        reads=("pending_kind",),
        extract=_decision_kind,
    ),
    public_feature(
        "decision_seat",
        (S,),
        "one-hot seat that must decide now",
        seat_axis=0,
        encoding=INDEX,
        group=DECISION,
        reads=("pending_kind", "pending_seat"),
        extract=_decision_seat,
    ),
    public_feature(
        "ghola_declined",
        (1,),
        "1 if the ghola was declined on this occasion (TLX-5)",
        encoding=SCALAR,
        group=CONTEXT,
        reads=("ghola_declined",),
        extract=_ghola_declined,
    ),
    public_feature(
        "battle_region",
        (NUM_REGIONS,),
        "one-hot region of the current battle",
        encoding=INDEX,
        group=BATTLE,
        reads=("battle_region",),
        extract=_battle_region,
    ),
    public_feature(
        "battle_defender",
        (S,),
        "one-hot seat of the current battle's defender",
        seat_axis=0,
        encoding=INDEX,
        group=BATTLE,
        reads=(_FS, "battle_defender"),
        extract=_battle_defender,
    ),
    public_feature(
        "fortress_stage",
        (3,),
        "one-hot fortress stage: to decide, declined, done",
        encoding=INDEX,
        group=BATTLE,
        reads=("battle_region", "battle_fortress_stage"),
        extract=_fortress_stage,
    ),
    public_feature(
        "face_dancer_done",
        (1,),
        "1 once Tleilax stopped replacing units this battle",
        encoding=SCALAR,
        group=BATTLE,
        reads=("battle_region", "face_dancer_done"),
        extract=_face_dancer_done,
    ),
    public_feature(
        "lend_queue",
        (S,),
        "1 for each seat still to be asked to lend a leader",
        seat_axis=0,
        encoding=ONE_HOT,
        group=BATTLE,
        reads=(_FS, "lend_queue"),
        extract=_lend_queue,
    ),
    public_feature(
        "lent",
        (S,),
        "1 for each seat that lent its leader this battle",
        seat_axis=0,
        encoding=DENSE,
        group=PIECES,
        reads=(_SF, "lent"),
        extract=_lent,
    ),
    # --- the last battle, revealed -------------------------------------------------------
    public_feature(
        "last_battle_valid",
        (1,),
        "1 once a battle has been resolved",
        encoding=INDEX,
        group=LAST_BATTLE,
        reads=("last_battle",),
        extract=_last_battle_valid,
    ),
    public_feature(
        "last_battle_region",
        (NUM_REGIONS,),
        "one-hot region of the last battle",
        encoding=INDEX,
        group=LAST_BATTLE,
        reads=("last_battle",),
        extract=_last_battle_region,
    ),
    public_feature(
        "last_battle_attacker",
        (S,),
        "one-hot attacker seat of the last battle",
        seat_axis=0,
        encoding=INDEX,
        group=LAST_BATTLE,
        reads=(_FS, "last_battle"),
        extract=_last_battle_attacker,
    ),
    public_feature(
        "last_battle_defender",
        (S,),
        "one-hot defender seat of the last battle",
        seat_axis=0,
        encoding=INDEX,
        group=LAST_BATTLE,
        reads=(_FS, "last_battle"),
        extract=_last_battle_defender,
    ),
    public_feature(
        "last_battle_strength",
        (2,),
        "revealed strengths: attacker, defender",
        scale=_SPICE_SCALE,
        max_raw=_MAX_SPICE,
        encoding=DENSE,
        group=LAST_BATTLE,
        reads=("last_battle",),
        extract=_last_battle_strength,
    ),
    public_feature(
        "last_battle_winner",
        (2,),
        "one-hot winner side: attacker, defender",
        encoding=INDEX,
        group=LAST_BATTLE,
        reads=("last_battle",),
        extract=_last_battle_winner,
    ),
    public_feature(
        "last_battle_units",
        (2, S, NUM_UNIT_TYPES),
        "revealed bids: units committed by side (attacker, defender), owner seat, unit type",
        scale=_MAX_UNITS,
        max_raw=_MAX_UNITS,
        seat_axis=1,
        encoding=SPARSE,
        group=LAST_BATTLE,
        reads=(_FS, "last_battle"),
        extract=_last_battle_units,
    ),
    public_feature(
        "last_battle_leaders",
        (2, S),
        "revealed bids: leader tokens committed by side and owner seat",
        scale=_MAX_LEADERS,
        max_raw=_MAX_LEADERS,
        seat_axis=1,
        encoding=SPARSE,
        group=LAST_BATTLE,
        reads=(_FS, "last_battle"),
        extract=_last_battle_leaders,
    ),
)

PRIVATE_FEATURES: Final[tuple[SecretFeature, ...]] = (
    SecretFeature(
        Field(
            "own_bid_units",
            (S, NUM_UNIT_TYPES),
            "the bid in progress of the side the observer decides for (attacker = active "
            "seat, defender = defender seat): units committed by owner seat and type; 0 for "
            "everyone else",
            scale=_MAX_UNITS,
            max_raw=_MAX_UNITS,
            seat_axis=0,
        ),
        _own_bid_units,
    ),
    SecretFeature(
        Field(
            "own_bid_leaders",
            (S,),
            "that bid's leader tokens by owner seat",
            scale=_MAX_LEADERS,
            max_raw=_MAX_LEADERS,
            seat_axis=0,
        ),
        _own_bid_leaders,
    ),
    SecretFeature(
        Field(
            "bg_prediction",
            (NUM_FACTIONS,),
            "one-hot faction predicted by the Bene Gesserit (BG-0); only in the Bene "
            "Gesserit's own observation",
        ),
        _own_bg_prediction,
    ),
)

HIDDEN_FEATURES: Final[tuple[SecretFeature, ...]] = (
    SecretFeature(
        Field(
            "bid_units",
            (2, S, NUM_UNIT_TYPES),
            "both bids in progress: units by side (attacker, defender), owner seat, unit type",
            scale=_MAX_UNITS,
            max_raw=_MAX_UNITS,
            seat_axis=1,
        ),
        _all_bid_units,
    ),
    SecretFeature(
        Field(
            "bid_leaders",
            (2, S),
            "both bids in progress: leader tokens by side and owner seat",
            scale=_MAX_LEADERS,
            max_raw=_MAX_LEADERS,
            seat_axis=1,
        ),
        _all_bid_leaders,
    ),
    SecretFeature(
        Field("bg_prediction", (NUM_FACTIONS,), "one-hot faction predicted by the Bene Gesserit"),
        _bg_prediction,
    ),
)

PUBLIC_FIELDS: Final[tuple[Field, ...]] = tuple(f.field for f in PUBLIC_FEATURES)
PRIVATE_FIELDS: Final[tuple[Field, ...]] = tuple(f.field for f in PRIVATE_FEATURES)
HIDDEN_FIELDS: Final[tuple[Field, ...]] = tuple(f.field for f in HIDDEN_FEATURES)

# The entries of `rules_variant`, in order: every GameConfig field declared a rule variant
# (`dune_env.engine.config.CONFIG_OPTIONS`).  Rewards, skip_forced_decisions and record_events
# do not change what is legal.
RULES_VARIANT_ENTRIES: Final[tuple[str, ...]] = tuple(variant_entries())

RULES_FIELDS: Final[tuple[Field, ...]] = (
    Field(
        "rules_variant",
        (len(RULES_VARIANT_ENTRIES),),
        f"the game's rule variants (GameConfig), 1 = on: {variant_summary()}; see docs/rules.md",
        entries=RULES_VARIANT_ENTRIES,
    ),
)


def rules_variant_values(config: GameConfig) -> list[float]:
    """The `rules_variant` entries of a configuration (RULES_VARIANT_ENTRIES order)."""
    return variant_values(config)


PUBLIC_LAYOUT: Final = Layout("public", PUBLIC_FIELDS)
OBS_LAYOUT: Final = Layout("observation", PUBLIC_FIELDS + PRIVATE_FIELDS + RULES_FIELDS)
STATE_LAYOUT: Final = Layout("state", PUBLIC_FIELDS + HIDDEN_FIELDS + RULES_FIELDS)
PUBLIC_SIZE: Final = PUBLIC_LAYOUT.size
OBS_SIZE: Final = OBS_LAYOUT.size
STATE_SIZE: Final = STATE_LAYOUT.size
RULES_SIZE: Final = sum(f.size for f in RULES_FIELDS)
LEGACY_OBS_SIZE: Final = OBS_SIZE - RULES_SIZE  # the observation before `rules_variant` existed

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


def _played_size(f: Field, num_players: int) -> int:
    """The number of entries a DENSE extractor returns: the played seats' part of a field
    whose first axis is the seat axis, else the whole field."""
    if f.seat_axis is None:
        return f.size
    if f.seat_axis != 0:
        raise ValueError(f"field {f.name}: a DENSE field's seat axis must be its first axis")
    return num_players * (f.size // f.shape[0])


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
            self.size = _played_size(f, num_players)
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


def _secret_plan(
    layout: Layout, features: tuple[SecretFeature, ...]
) -> list[tuple[int, np.float32, SecretExtractor]]:
    """(start, 1/scale, extractor) of each secret feature in `layout`."""
    plan = []
    for feature in features:
        start = layout[feature.field.name].start
        plan.append((start, layout.inv_scale[start], feature.extract))
    return plan


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
        self._private = _secret_plan(OBS_LAYOUT, PRIVATE_FEATURES)
        self._hidden = _secret_plan(STATE_LAYOUT, HIDDEN_FEATURES)
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
