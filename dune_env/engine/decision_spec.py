"""What a decision kind is: its identity, its options' encoding, its text, its rules.

Every decision the engine poses is (kind, deciding seat, legal options); an option is a small
int.  A `DecisionSpec` declares everything about one kind in one place, next to the step that
poses it (`dune_env/engine/steps/*.py`, `DECISION_SPECS`):

- `kind`: the engine id (`DecisionKind`, persisted in histories and snapshots);
- `codec`: how an option int packs named fields (`OptionCodec`): the option count, encode,
  decode and the human text of every option all derive from it;
- `legal` / `apply`: the step's legality function (used both for the mask and for checking an
  applied option) and its effect;
- `table_position`: the place of the kind's block in the environment's action table;
- `rules`: the rule IDs the decision implements, `summary` what it decides;
- `hidden`: whether the option chosen is secret from the other seats.

`dune_env.engine.decisions` collects the specs; the option counts, `describe_option`, the
action table, the generated docs and the option builders of `dune_env.engine.options` derive
from them.  This module is imported by the steps, so it must not import them.

An `OptionCodec` is a list of *blocks* laid end to end; a block has a name, a text template and
zero or more fields, packed mixed-radix with the first field most significant.  For example the
LAND codec is ``stop | smugglers_leader | land(region: 10, unit_type: 2)``: option 0 stops,
1 puts the Smugglers' leader on the card, and 2 + region * 2 + unit_type lands one unit.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import IntEnum
from typing import TYPE_CHECKING, Final, SupportsIndex, cast

from .constants import FACTION_NAMES, NUM_DICE, TOKEN_NAMES
from .map_data import DEFAULT_MAP

if TYPE_CHECKING:  # state.py imports DecisionKind from here
    from .state import GameState


class DecisionKind(IntEnum):
    """Every kind of decision (the engine ids; the spec of each is in its step module)."""

    CHOOSE_FACTION = 0
    ATREIDES_START = 1
    HARKONNEN_START = 2
    BG_PREDICTION = 3
    FIX_DICE = 4
    PITER_DE_VRIES = 5
    AXOLOTL_SYMBOL = 6
    ALLY_OFFER = 7
    ALLY_ANSWER = 8
    DICE_SPLIT = 9
    RECRUIT = 10
    GHOLA = 11
    KANLY = 12
    HARVESTER_DISCARD = 13
    SPICE_GIFT = 14
    LAND_CONSENT = 15
    LAND = 16
    ALLY_GRANT = 17
    MOVE_TARGET = 18
    MOVE = 19
    BATTLE_ORDER = 20
    INFILTRATION = 21
    FORTRESS_VICTIM = 22
    FACE_DANCER = 23
    LEND_LEADER = 24
    BID = 25
    REORGANIZE = 26


@dataclass(frozen=True)
class OptionField:
    """One named field of an option: its values are 0..len(labels)-1, `labels` their text."""

    name: str
    labels: tuple[str, ...]

    @property
    def size(self) -> int:
        return len(self.labels)


@dataclass(frozen=True)
class OptionBlock:
    """A contiguous run of options: `text` is a `str.format` template over the field names."""

    name: str
    text: str
    fields: tuple[OptionField, ...] = ()

    @property
    def size(self) -> int:
        size = 1
        for f in self.fields:
            size *= f.size
        return size


@dataclass(frozen=True)
class DecodedOption:
    """An option split into its block and named field values (`codec.decode(option)`)."""

    block: str
    values: tuple[int, ...]
    fields: tuple[str, ...]

    def __getitem__(self, name: str) -> int:
        try:
            return self.values[self.fields.index(name)]
        except ValueError:
            raise KeyError(
                f"block {self.block!r} has no field {name!r}; its fields: {list(self.fields)}"
            ) from None

    def as_dict(self) -> dict[str, int]:
        return dict(zip(self.fields, self.values, strict=True))


class OptionCodec:
    """The packing of one kind's options: blocks laid end to end (see the module docstring).

    Everything is precomputed at construction, so `values(option)` and `text(option)` are
    tuple lookups (cheap enough for the engine's hot paths)."""

    def __init__(self, *blocks: OptionBlock) -> None:
        if not blocks:
            raise ValueError("an option codec needs at least one block")
        names = [b.name for b in blocks]
        if len(set(names)) != len(names):
            raise ValueError(f"block names must be unique: {names}")
        self.blocks: tuple[OptionBlock, ...] = blocks
        self._offsets: dict[str, int] = {}
        block_of: list[int] = []
        value_table: list[tuple[int, ...]] = []
        texts: list[str] = []
        for index, block in enumerate(blocks):
            field_names = [f.name for f in block.fields]
            if len(set(field_names)) != len(field_names):
                raise ValueError(f"block {block.name!r}: field names must be unique")
            self._offsets[block.name] = len(value_table)
            for values in _mixed_radix(tuple(f.size for f in block.fields)):
                labels = {f.name: f.labels[v] for f, v in zip(block.fields, values, strict=True)}
                block_of.append(index)
                value_table.append(values)
                texts.append(block.text.format(**labels))
        self.size: int = len(value_table)
        self.value_table: tuple[tuple[int, ...], ...] = tuple(value_table)
        self.block_table: tuple[int, ...] = tuple(block_of)
        self.texts: tuple[str, ...] = tuple(texts)

    def offset(self, block: str) -> int:
        """The first option of `block`."""
        try:
            return self._offsets[block]
        except KeyError:
            raise KeyError(
                f"no option block {block!r}; blocks: {[b.name for b in self.blocks]}"
            ) from None

    def block(self, name: str) -> OptionBlock:
        for b in self.blocks:
            if b.name == name:
                return b
        raise KeyError(f"no option block {name!r}; blocks: {[b.name for b in self.blocks]}")

    def encode(self, block: str, *values: int) -> int:
        """The option of `block` with these field values (checked)."""
        spec = self.block(block)
        if len(values) != len(spec.fields):
            raise ValueError(
                f"block {block!r} takes {len(spec.fields)} values "
                f"({[f.name for f in spec.fields]}), got {len(values)}"
            )
        index = 0
        for f, v in zip(spec.fields, values, strict=True):
            if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v < f.size:
                raise ValueError(f"{block}.{f.name}={v!r} is outside 0..{f.size - 1}")
            index = index * f.size + v
        return self._offsets[block] + index

    # `option: object`: compiled code would otherwise refuse a float at the call with its own
    # TypeError before this check could name the problem.
    def check(self, option: object) -> int:
        """`option` as an int if it lies in 0..size-1; a ValueError naming the range otherwise."""
        try:
            value = operator.index(cast(SupportsIndex, option))
        except TypeError:
            raise TypeError(
                f"an option must be an int, not {type(option).__name__} {option!r}"
            ) from None
        if not 0 <= value < self.size:
            raise ValueError(f"option {value} is outside 0..{self.size - 1}")
        return value

    def decode(self, option: object) -> DecodedOption:
        """The block and named field values of `option` (checked)."""
        value = self.check(option)
        block = self.blocks[self.block_table[value]]
        return DecodedOption(
            block.name, self.value_table[value], tuple(f.name for f in block.fields)
        )

    def block_name(self, option: int) -> str:
        """The block of an option known to be in range (unchecked)."""
        return self.blocks[self.block_table[option]].name

    def values(self, option: int) -> tuple[int, ...]:
        """The field values of an option known to be in range (unchecked, a table lookup)."""
        return self.value_table[option]

    def layout(self) -> str:
        """The packing in one line, e.g. ``stop | land(region: 10, unit_type: 2)``."""
        parts = []
        for b in self.blocks:
            inner = ", ".join(f"{f.name}: {f.size}" for f in b.fields)
            parts.append(f"{b.name}({inner})" if inner else b.name)
        return " | ".join(parts)

    def __repr__(self) -> str:
        return f"OptionCodec({self.layout()})"


def _mixed_radix(sizes: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Every value tuple for these field sizes, in packing order (first field most significant)."""
    combos: list[tuple[int, ...]] = [()]
    for size in sizes:
        combos = [c + (v,) for c in combos for v in range(size)]
    return combos


LegalFn = Callable[["GameState"], list[int]]
ApplyFn = Callable[["GameState", int], None]


@dataclass(frozen=True)
class DecisionSpec:
    """Everything about one decision kind (see the module docstring)."""

    kind: DecisionKind
    codec: OptionCodec
    legal: LegalFn
    apply: ApplyFn
    table_position: int
    rules: str
    summary: str = field(default="")
    # The option chosen is secret from the other seats (BG-0 prediction, BATTLE-5 bids).
    hidden: bool = field(default=False)

    @property
    def option_count(self) -> int:
        return self.codec.size

    def describe(self, option: object) -> str:
        """The stable, unique English name of `option` (ValueError when out of range)."""
        try:
            value = self.codec.check(option)
        except ValueError as error:
            raise ValueError(f"{error} for {self.kind.name}") from None
        return self.codec.texts[value]

    def encode(self, block: str, *values: int) -> int:
        return self.codec.encode(block, *values)

    def decode(self, option: object) -> DecodedOption:
        try:
            return self.codec.decode(option)
        except ValueError as error:
            raise ValueError(f"{error} for {self.kind.name}") from None


# --- Fields and codecs shared by several kinds ----------------------------------------------

UNIT_TYPE_NAMES: Final = ("unit", "Sardaukar")


def number_labels(count: int) -> tuple[str, ...]:
    return tuple(str(i) for i in range(count))


def _dice_label(mask: int) -> str:
    return "{" + ",".join(str(i) for i in range(NUM_DICE) if mask >> i & 1) + "}"


FACTION_FIELD: Final = OptionField("faction", FACTION_NAMES)
REGION_FIELD: Final = OptionField("region", DEFAULT_MAP.names)
UNIT_TYPE_FIELD: Final = OptionField("unit_type", UNIT_TYPE_NAMES)
TOKEN_FIELD: Final = OptionField("token", TOKEN_NAMES)
DICE_MASK_FIELD: Final = OptionField("dice", tuple(_dice_label(m) for m in range(1 << NUM_DICE)))

YES_NO: Final = OptionCodec(OptionBlock("no", "no"), OptionBlock("yes", "yes"))
FACTION_CHOICE: Final = OptionCodec(OptionBlock("faction", "{faction}", (FACTION_FIELD,)))
REGION_CHOICE: Final = OptionCodec(OptionBlock("region", "{region}", (REGION_FIELD,)))


def spice_amounts(count: int) -> OptionCodec:
    """Amounts of spice 0..count-1 ("3 spice")."""
    return OptionCodec(
        OptionBlock("amount", "{amount} spice", (OptionField("amount", number_labels(count)),))
    )
