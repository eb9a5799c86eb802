"""The registry of decision kinds (RULES.md §9): one `DecisionSpec` per kind.

Every decision is (kind, deciding seat, legal options).  An option is a small int whose packing
is the kind's `OptionCodec`; each kind's spec (codec, text, legality, effect, place in the action
table, rule IDs) is declared next to the step that poses it, in `steps/<step>.py`
(`DECISION_SPECS`).  This module collects them, checks them and derives what the rest of the
package reads: `SPECS[kind]`, `OPTION_COUNTS[kind]`, `describe_option(kind, option)`,
`TABLE_ORDER` (the environment's action-table order) and the engine's dispatch tables.

Adding a decision kind
----------------------
1. Give it an id in `DecisionKind` (`engine/decision_spec.py`; ids are persisted, never reuse one).
2. In the step module that poses it: an `OptionCodec` (blocks, named fields, text templates),
   its legal and apply functions, and a `DecisionSpec` in that module's `DECISION_SPECS` with
   the next free `table_position` (appending keeps every existing action id).
3. Regenerate the generated artefacts: `python -m dune_env.environment.docs` and the golden
   action table (`tests/env/golden/action_table.txt`), and bump the environment version when
   action ids move.
Everything else -- option counts, names, `dune_env.engine.options`, the action table and its
docs, the checks of the bots' dispatch -- follows from the spec
(`tests/rules/test_decision_specs.py` checks the derivations).
"""

from __future__ import annotations

from typing import Final

from .decision_spec import (
    ApplyFn,
    DecisionKind,
    DecisionSpec,
    DecodedOption,
    LegalFn,
    OptionBlock,
    OptionCodec,
    OptionField,
)
from .steps import DECISION_SPECS
from .steps.ally import DICE_SPLIT_CODEC, OFFER_CODEC, OFFER_NOBODY, decode_offer, offer_option
from .steps.battle import (
    BID_CODEC,
    BID_DONE,
    BID_LEADER_BASE,
    FACE_DANCER_CODEC,
    FACE_DANCER_STOP,
    VICTIM_CODEC,
    bid_leader_option,
    decode_unit,
    unit_option,
    victim_option,
)
from .steps.kanly import (
    KANLY_CODEC,
    KANLY_NONE,
    KANLY_TAKE,
    decode_kanly_kill,
    kanly_kill_option,
)
from .steps.landing import (
    LAND_CODEC,
    LAND_SMUGGLERS_LEADER,
    LAND_STOP,
    MAX_GRANT,
    decode_land,
    land_option,
)
from .steps.movement import MOVE_CODEC, MOVE_STOP, decode_move, move_option
from .steps.property import KEEP_PROPERTY, REORGANIZE_CODEC
from .steps.recruit import (
    RECRUIT_CODEC,
    RECRUIT_ELITE,
    RECRUIT_LEADER,
    RECRUIT_STOP,
    RECRUIT_UNIT,
)
from .steps.roll import AXOLOTL_CODEC, FIX_DICE_CODEC


def _by_kind(specs: tuple[DecisionSpec, ...]) -> tuple[DecisionSpec, ...]:
    """The specs indexed by kind; every kind has exactly one, and the table positions are a
    permutation of 0..N-1 (checked at import, so a slip fails every test at once)."""
    found: dict[int, DecisionSpec] = {}
    for spec in specs:
        if spec.kind in found:
            raise AssertionError(f"two decision specs for {spec.kind.name}")
        found[spec.kind] = spec
    missing = [k.name for k in DecisionKind if k not in found]
    if missing:
        raise AssertionError(f"no decision spec for {missing} (add one to its step module)")
    positions = sorted(s.table_position for s in specs)
    if positions != list(range(len(specs))):
        raise AssertionError(
            f"table positions must be 0..{len(specs) - 1}, each once; got {positions}"
        )
    return tuple(found[k] for k in range(len(found)))


SPECS: Final[tuple[DecisionSpec, ...]] = _by_kind(DECISION_SPECS)
NUM_DECISION_KINDS: Final = len(SPECS)
OPTION_COUNTS: Final[tuple[int, ...]] = tuple(s.option_count for s in SPECS)
# The environment's action-table order: the kinds sorted by their declared table position.
TABLE_ORDER: Final[tuple[DecisionKind, ...]] = tuple(
    s.kind for s in sorted(SPECS, key=lambda s: s.table_position)
)
# The engine's dispatch, indexed by kind (tuples: cheaper than dict look-ups).
LEGAL_FNS: Final[tuple[LegalFn, ...]] = tuple(s.legal for s in SPECS)
APPLY_FNS: Final[tuple[ApplyFn, ...]] = tuple(s.apply for s in SPECS)


def spec_of(kind: int) -> DecisionSpec:
    """The spec of a decision kind (ValueError for an unknown kind)."""
    return SPECS[DecisionKind(kind)]


def describe_option(kind: int, option: object) -> str:
    """A stable, unique English name of one option of one decision kind."""
    return spec_of(kind).describe(option)


def decode_option(kind: int, option: object) -> DecodedOption:
    """The block and named field values of one option, e.g. LAND 5 -> land(region=1,
    unit_type=1); ValueError when the option is outside the kind's range."""
    return spec_of(kind).decode(option)


__all__ = [
    "APPLY_FNS",
    "AXOLOTL_CODEC",
    "BID_CODEC",
    "BID_DONE",
    "BID_LEADER_BASE",
    "DecisionKind",
    "DecisionSpec",
    "DecodedOption",
    "FACE_DANCER_CODEC",
    "FACE_DANCER_STOP",
    "FIX_DICE_CODEC",
    "KANLY_CODEC",
    "KANLY_NONE",
    "KANLY_TAKE",
    "KEEP_PROPERTY",
    "LAND_CODEC",
    "LAND_SMUGGLERS_LEADER",
    "LAND_STOP",
    "LEGAL_FNS",
    "MAX_GRANT",
    "MOVE_CODEC",
    "MOVE_STOP",
    "NUM_DECISION_KINDS",
    "OFFER_CODEC",
    "OFFER_NOBODY",
    "OPTION_COUNTS",
    "OptionBlock",
    "OptionCodec",
    "OptionField",
    "RECRUIT_CODEC",
    "RECRUIT_ELITE",
    "RECRUIT_LEADER",
    "RECRUIT_STOP",
    "RECRUIT_UNIT",
    "REORGANIZE_CODEC",
    "SPECS",
    "DICE_SPLIT_CODEC",
    "TABLE_ORDER",
    "VICTIM_CODEC",
    "bid_leader_option",
    "decode_kanly_kill",
    "decode_land",
    "decode_move",
    "decode_offer",
    "decode_option",
    "decode_unit",
    "describe_option",
    "kanly_kill_option",
    "land_option",
    "move_option",
    "offer_option",
    "spec_of",
    "unit_option",
    "victim_option",
]
