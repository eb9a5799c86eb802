"""What observations and states hold: every field's declaration, the layouts and their sizes.

Three layouts share their first part, the *public* fields (everything every player sees):
`OBS_LAYOUT` = public fields + the observer's own private fields, **egocentric** (relative seat
0 is the observer, relative seat r is absolute seat (observer + r) mod n, clockwise);
`STATE_LAYOUT` = public fields + every hidden field (both battle bids, the Bene Gesserit
prediction), in **absolute** seats: the global state for centralised critics.  Both end with
`RULES_FIELDS`, the game's rule variants (`rules_variant`), so one policy can serve every
variant.  Fields indexed by seat have 8 slots (9 where the last slot is the common supply);
slots of seats past the player count stay 0.  Values are raw numbers divided by the field's
scale.

Every public field is one row of `PUBLIC_DECLARATIONS`: its `Field` (name, shape, scale, doc),
how its extractor's result is written (`encoding`), its change group and the state attributes it
reads.  The private fields (what one seat may see) and the hidden ones (the global state) are
`Field`s; the game configuration's rule variants (`rules_variant`, derived from
`dune_env.engine.config.CONFIG_OPTIONS`) close both layouts.  The extractors -- functions of the
state, the only part that runs at every decision -- are in `dune_env.environment.observer`
(compiled), bound to these rows by field name there.

To add a public field: a row here at its place in the layout, and its extractor in the
observer's `PUBLIC_EXTRACTORS`; the layout changes, so regenerate the golden files and the docs
(`python -m dune_env.environment.docs`).  Shipped models keep loading: they find their fields by
name (`dune_env.policies.layouts`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from ..engine.config import variant_entries, variant_summary
from ..engine.constants import (
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
)
from ..engine.decisions import NUM_DECISION_KINDS
from ..engine.map_data import NUM_SECTORS
from ..engine.state import GameState, Phase
from .layout import MAX_SEATS, Field, Layout

S: Final = MAX_SEATS
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


# --- the declarations ----------------------------------------------------------------------------


def _public(
    name: str,
    shape: tuple[int, ...],
    encoding: int,
    group: ChangeGroup,
    reads: tuple[str, ...],
    *,
    doc: str,
    scale: int | float = 1.0,  # (not `float`: an int scale stays an int in the fingerprint)
    max_raw: int | float = 1.0,
    seat_axis: int | None = None,
) -> Feature:
    field = Field(name, shape, doc, scale=scale, max_raw=max_raw, seat_axis=seat_axis)
    return Feature(field, encoding, group, reads, _unbound)


def _unbound(s: GameState) -> Any:  # pragma: no cover - replaced by `bind_public`
    raise AssertionError("a public feature's extractor is bound by the observer")


_SF: Final = "seat_faction"
_FS: Final = "faction_seat"

# fmt: off
# One row per public field, in layout order: name, shape, encoding, change group, reads.
PUBLIC_DECLARATIONS: Final[tuple[Feature, ...]] = (
    _public("seat_in_game", (S,), DENSE, PIECES, (_SF,), seat_axis=0,
        doc="1 for each seat that is played",
    ),
    _public("seat_faction", (S, NUM_FACTIONS), ONE_HOT, BOARD, (_SF,), seat_axis=0,
        doc="one-hot faction id of each seat (all 0 while a seat has not drafted)",
    ),
    _public("units", (S, NUM_LOCATIONS, NUM_UNIT_TYPES), ROWS, UNIT_COUNTS, (_SF, "units"),
        scale=_MAX_UNITS, max_raw=_MAX_UNITS, seat_axis=0,
        doc="unit counts of each seat's faction by location (10 regions in MAP-1 order, then "
        "card, reserve) and unit type (regular, Sardaukar)",
    ),
    _public("leaders", (S, 2), DENSE, PIECES, (_SF, "leaders"),
        scale=_MAX_LEADERS, max_raw=_MAX_LEADERS, seat_axis=0,
        doc="leader tokens of each seat's faction: on its card, in its reserve",
    ),
    _public("storage", (S,), DENSE, PIECES, (_SF, "storage"),
        scale=STORAGE_CAP, max_raw=STORAGE_CAP, seat_axis=0,
        doc="stored spice of each seat's faction (Corrino, Guild)",
    ),
    _public("thumper", (S,), DENSE, PIECES, (_SF, "thumpers"), seat_axis=0,
        doc="1 if the seat holds a Thumper",
    ),
    _public("shield_holder", (S + 1,), INDEX, BOARD, (_FS, "shield_holder"), seat_axis=0,
        doc="one-hot seat holding the Shield; slot 8 = common supply",
    ),
    _public("snooper_holder", (S + 1,), INDEX, BOARD, (_FS, "snooper_holder"), seat_axis=0,
        doc="one-hot seat holding the Snooper; slot 8 = common supply",
    ),
    _public("region_token", (NUM_REGIONS, NUM_TOKEN_TYPES), ONE_HOT, BOARD, ("region_token",),
        doc="one-hot property token of each region (fortress, harvester, ornithopter)",
    ),
    _public("token_supply", (NUM_TOKEN_TYPES,), DENSE, PIECES, ("token_supply",),
        scale=PROPERTY_TOKENS_PER_TYPE, max_raw=PROPERTY_TOKENS_PER_TYPE,
        doc="property tokens of each type in the common supply",
    ),
    _public("thumper_supply", (1,), SCALAR, PIECES, ("thumper_supply",),
        scale=NUM_THUMPERS, max_raw=NUM_THUMPERS,
        doc="Thumpers in the common supply",
    ),
    _public("storm_sector", (NUM_SECTORS,), INDEX, BOARD, ("storm_sector",),
        doc="one-hot storm sector 1..6",
    ),
    _public("round", (MAX_ROUNDS,), INDEX, BOARD, ("round",),
        doc="one-hot round 1..6",
    ),
    _public("first_seat", (S,), INDEX, BOARD, ("first_seat",), seat_axis=0,
        doc="one-hot first player",
    ),
    _public("active_seat", (S,), INDEX, BOARD, ("active_seat",), seat_axis=0,
        doc="one-hot active player (whose turn it is)",
    ),
    _public("phase", (_NUM_PHASES,), INDEX, DECISION, ("phase",),
        doc="one-hot engine phase (dune_env.engine.Phase order)",
    ),
    _public("faction_dice", (4, NUM_FACTIONS), ONE_HOT, DICE, ("dice_faces",),
        doc="one-hot faction symbol shown by each of the four faction dice",
    ),
    _public("region_die", (NUM_SECTORS,), INDEX, DICE, ("dice_faces",),
        doc="one-hot region die face 1..6",
    ),
    _public("spice_die", (6,), INDEX, DICE, ("dice_faces",),
        doc="one-hot spice die face: 1..5 spice, then Shai-Hulud",
    ),
    _public("kanly_die", (6,), INDEX, DICE, ("dice_faces",),
        doc="one-hot Kanly die face: Poison, Crysknife, Hunter-seeker, Snooper, Shield, Thumper",
    ),
    _public("dice_fixed", (NUM_DICE,), DENSE, DICE, ("dice_fixed",),
        doc="1 for each fixed die (faction 1-4, region, spice, Kanly)",
    ),
    _public("dice_used", (4,), DENSE, DICE, ("dice_used",),
        doc="1 for each faction die already used (recruiting, face dancers)",
    ),
    _public("recruit_dice", (4,), ONE_HOT, CONTEXT, ("recruit_dice",),
        doc="1 for each faction die left to the current recruiter",
    ),
    _public("ally_dice", (4,), ONE_HOT, CONTEXT, ("ally_dice",),
        doc="1 for each faction die reserved for the ally's recruiting",
    ),
    _public("pool", (1,), SCALAR, DECISION, ("pool",), scale=_SPICE_SCALE, max_raw=_MAX_SPICE,
        doc="the active player's spice pool",
    ),
    _public("ally_seat", (S,), INDEX, CONTEXT, (_FS, "ally"), seat_axis=0,
        doc="one-hot seat of the active player's ally",
    ),
    _public("offer_target", (S,), INDEX, CONTEXT, (_FS, "offer_target"), seat_axis=0,
        doc="one-hot seat offered an alliance this turn",
    ),
    _public("offer_symbol", (NUM_FACTIONS,), INDEX, CONTEXT, ("offer_symbol",),
        doc="one-hot faction symbol of that offer (TLX-3)",
    ),
    _public("axolotl_symbol", (NUM_FACTIONS,), INDEX, CONTEXT, ("axolotl_symbol",),
        doc="one-hot symbol chosen by Tleilax (TLX-1)",
    ),
    _public("leader_recruited", (1,), SCALAR, CONTEXT, ("leader_recruited",),
        doc="1 if a leader was recruited this step (ATR-2)",
    ),
    _public("land_consent", (1,), SCALAR, CONTEXT, ("land_consent",),
        doc="1 if landing in the ally's regions is allowed (LAND-4)",
    ),
    _public("grant", (1,), SCALAR, CONTEXT, ("grant",), scale=_SPICE_SCALE, max_raw=_MAX_SPICE,
        doc="spice the ally may still spend landing (CL-7)",
    ),
    _public("guild_paid", (S,), DENSE, PIECES, (_SF, "guild_paid"), seat_axis=0,
        doc="1 for each seat whose landing already paid the Guild this turn (GLD-1)",
    ),
    _public("target_region", (NUM_REGIONS,), INDEX, CONTEXT, ("target",),
        doc="one-hot movement target region (MOVE-1)",
    ),
    _public("decision_kind", (NUM_DECISION_KINDS,), INDEX, DECISION, ("pending_kind",),
        doc="one-hot kind of the pending decision (action-table block order)",
    ),
    _public("decision_seat", (S,), INDEX, DECISION, ("pending_kind", "pending_seat"), seat_axis=0,
        doc="one-hot seat that must decide now",
    ),
    _public("ghola_declined", (1,), SCALAR, CONTEXT, ("ghola_declined",),
        doc="1 if the ghola was declined on this occasion (TLX-5)",
    ),
    _public("battle_region", (NUM_REGIONS,), INDEX, BATTLE, ("battle_region",),
        doc="one-hot region of the current battle",
    ),
    _public("battle_defender", (S,), INDEX, BATTLE, (_FS, "battle_defender"), seat_axis=0,
        doc="one-hot seat of the current battle's defender",
    ),
    _public("fortress_stage", (3,), INDEX, BATTLE, ("battle_region", "battle_fortress_stage"),
        doc="one-hot fortress stage: to decide, declined, done",
    ),
    _public("face_dancer_done", (1,), SCALAR, BATTLE, ("battle_region", "face_dancer_done"),
        doc="1 once Tleilax stopped replacing units this battle",
    ),
    _public("lend_queue", (S,), ONE_HOT, BATTLE, (_FS, "lend_queue"), seat_axis=0,
        doc="1 for each seat still to be asked to lend a leader",
    ),
    _public("lent", (S,), DENSE, PIECES, (_SF, "lent"), seat_axis=0,
        doc="1 for each seat that lent its leader this battle",
    ),
    _public("last_battle_valid", (1,), INDEX, LAST_BATTLE, ("last_battle",),
        doc="1 once a battle has been resolved",
    ),
    _public("last_battle_region", (NUM_REGIONS,), INDEX, LAST_BATTLE, ("last_battle",),
        doc="one-hot region of the last battle",
    ),
    _public("last_battle_attacker", (S,), INDEX, LAST_BATTLE, (_FS, "last_battle"), seat_axis=0,
        doc="one-hot attacker seat of the last battle",
    ),
    _public("last_battle_defender", (S,), INDEX, LAST_BATTLE, (_FS, "last_battle"), seat_axis=0,
        doc="one-hot defender seat of the last battle",
    ),
    _public("last_battle_strength", (2,), DENSE, LAST_BATTLE, ("last_battle",),
        scale=_SPICE_SCALE, max_raw=_MAX_SPICE,
        doc="revealed strengths: attacker, defender",
    ),
    _public("last_battle_winner", (2,), INDEX, LAST_BATTLE, ("last_battle",),
        doc="one-hot winner side: attacker, defender",
    ),
    _public("last_battle_units", (2, S, NUM_UNIT_TYPES), SPARSE, LAST_BATTLE, (_FS, "last_battle"),
        scale=_MAX_UNITS, max_raw=_MAX_UNITS, seat_axis=1,
        doc="revealed bids: units committed by side (attacker, defender), owner seat, unit type",
    ),
    _public("last_battle_leaders", (2, S), SPARSE, LAST_BATTLE, (_FS, "last_battle"),
        scale=_MAX_LEADERS, max_raw=_MAX_LEADERS, seat_axis=1,
        doc="revealed bids: leader tokens committed by side and owner seat",
    ),
)
# fmt: on

PRIVATE_FIELDS: Final[tuple[Field, ...]] = (
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
        "one-hot faction predicted by the Bene Gesserit (BG-0); only in the Bene "
        "Gesserit's own observation",
    ),
)

HIDDEN_FIELDS: Final[tuple[Field, ...]] = (
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

PUBLIC_FIELDS: Final[tuple[Field, ...]] = tuple(f.field for f in PUBLIC_DECLARATIONS)

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

PUBLIC_LAYOUT: Final = Layout("public", PUBLIC_FIELDS)
OBS_LAYOUT: Final = Layout("observation", PUBLIC_FIELDS + PRIVATE_FIELDS + RULES_FIELDS)
STATE_LAYOUT: Final = Layout("state", PUBLIC_FIELDS + HIDDEN_FIELDS + RULES_FIELDS)
PUBLIC_SIZE: Final = PUBLIC_LAYOUT.size
OBS_SIZE: Final = OBS_LAYOUT.size
STATE_SIZE: Final = STATE_LAYOUT.size
RULES_SIZE: Final = sum(f.size for f in RULES_FIELDS)
LEGACY_OBS_SIZE: Final = OBS_SIZE - RULES_SIZE  # the observation before `rules_variant` existed


def _check_names(what: str, declared: Sequence[str], bound: Mapping[str, object]) -> None:
    if list(bound) != list(declared):
        missing = [n for n in declared if n not in bound]
        extra = [n for n in bound if n not in declared]
        raise ValueError(
            f"the {what} extractors must follow the declared fields in order; missing: "
            f"{missing}, undeclared: {extra}"
        )


def bind_public(extractors: Mapping[str, Extractor]) -> tuple[Feature, ...]:
    """The public features: each declaration with its extractor (by field name, in order)."""
    _check_names("public", [f.field.name for f in PUBLIC_DECLARATIONS], extractors)
    return tuple(
        Feature(f.field, f.encoding, f.group, f.reads, extractors[f.field.name])
        for f in PUBLIC_DECLARATIONS
    )


def bind_secret(
    fields: tuple[Field, ...], extractors: Mapping[str, SecretExtractor]
) -> tuple[SecretFeature, ...]:
    """Private or hidden features: each field with its extractor (by name, in order)."""
    _check_names("secret", [f.name for f in fields], extractors)
    return tuple(SecretFeature(f, extractors[f.name]) for f in fields)


def played_size(f: Field, num_players: int) -> int:
    """The number of entries a DENSE extractor returns: the played seats' part of a field
    whose first axis is the seat axis, else the whole field."""
    if f.seat_axis is None:
        return f.size
    if f.seat_axis != 0:
        raise ValueError(f"field {f.name}: a DENSE field's seat axis must be its first axis")
    return num_players * (f.size // f.shape[0])


def secret_plan(
    layout: Layout, features: tuple[SecretFeature, ...]
) -> list[tuple[int, Any, SecretExtractor]]:
    """(start, 1/scale, extractor) of each secret feature in `layout`."""
    plan = []
    for feature in features:
        start = layout[feature.field.name].start
        plan.append((start, layout.inv_scale[start], feature.extract))
    return plan
