"""Typed records of the state: the last battle and the decision history rows.

Each record is an immutable `NamedTuple` (clones share it; changing one means building a new
one), and each has one field registry (`RecordField`s) from which its flat JSON form (the
snapshot schema, unchanged since version 2) and its validation derive.  A test checks that each
registry names exactly the record's fields.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final, NamedTuple

from .constants import NO_ONE, NUM_FACTIONS, NUM_REGIONS, NUM_UNIT_TYPES
from .shown import shown

ANY_LENGTH: Final = -1


class RecordField(NamedTuple):
    """One field of a record: its name, its width in the flat JSON list (1: a scalar int,
    ANY_LENGTH: the variable-length tail) and the bounds of its ints."""

    name: str
    width: int
    lo: int
    hi: int


class LastBattle(NamedTuple):
    """The last resolved battle, with both bids revealed (BATTLE-5/6).

    Units are counted per `faction * NUM_UNIT_TYPES + unit type`, leaders per faction."""

    region: int
    attacker: int  # faction
    defender: int  # faction
    attacker_strength: int
    defender_strength: int
    winner_side: int  # 0 attacker, 1 defender (BATTLE-6: a tie goes to the defender)
    attacker_units: tuple[int, ...]
    defender_units: tuple[int, ...]
    attacker_leaders: tuple[int, ...]
    defender_leaders: tuple[int, ...]

    def to_list(self) -> list[int]:
        """The flat snapshot form: the scalars, then each tuple's entries, in field order."""
        return _flatten(self, LAST_BATTLE_FIELDS)

    @classmethod
    def from_list(cls, flat: Sequence[int]) -> LastBattle:
        """The inverse of `to_list` (the caller has validated `flat`, see `check_flat`)."""
        return cls(*_unflatten(flat, LAST_BATTLE_FIELDS))


_BID_UNITS: Final = NUM_FACTIONS * NUM_UNIT_TYPES
_MAX_STRENGTH: Final = 99

LAST_BATTLE_FIELDS: Final = (
    RecordField("region", 1, 0, NUM_REGIONS - 1),
    RecordField("attacker", 1, 0, NUM_FACTIONS - 1),
    RecordField("defender", 1, 0, NUM_FACTIONS - 1),
    RecordField("attacker_strength", 1, 0, _MAX_STRENGTH),
    RecordField("defender_strength", 1, 0, _MAX_STRENGTH),
    RecordField("winner_side", 1, 0, 1),
    RecordField("attacker_units", _BID_UNITS, 0, 12),
    RecordField("defender_units", _BID_UNITS, 0, 12),
    RecordField("attacker_leaders", NUM_FACTIONS, 0, 2),
    RecordField("defender_leaders", NUM_FACTIONS, 0, 2),
)


class HistoryRow(NamedTuple):
    """One decision and the chance outcomes drawn after it, until the next decision.

    Row 0 holds the set-up's chance only (seat, kind and option NO_ONE).  `chance` is a tuple,
    except in the last row once an outcome has been drawn after it: then a list, to which the
    next outcomes are appended, frozen to a tuple when the next decision is recorded.  So rows
    are immutable and clones share them (a clone copies an open list)."""

    seat: int
    kind: int
    option: int
    forced: int  # 1 if the engine applied a single legal option without asking
    chance: list[int] | tuple[int, ...]

    def to_list(self) -> list[int]:
        """The flat snapshot form: [seat, kind, option, forced, chance outcomes...]."""
        return _flatten(self, HISTORY_ROW_FIELDS)

    @classmethod
    def from_list(cls, flat: Sequence[int]) -> HistoryRow:
        return cls(flat[0], flat[1], flat[2], flat[3], list(flat[4:]))

    def frozen(self) -> HistoryRow:
        """This row with its chance outcomes as a tuple (a finished row)."""
        return history_row(self.seat, self.kind, self.option, self.forced, tuple(self.chance))


# A NamedTuple's own constructor runs an interpreted __new__; the engine makes a row or two at
# every decision, so it builds them with tuple.__new__ directly (the same object).
_TUPLE_NEW: Final[Any] = tuple.__new__
_HISTORY_ROW: Final[Any] = HistoryRow


def history_row(
    seat: int, kind: int, option: int, forced: int, chance: list[int] | tuple[int, ...]
) -> HistoryRow:
    """HistoryRow(seat, kind, option, forced, chance), fast."""
    row: HistoryRow = _TUPLE_NEW(_HISTORY_ROW, (seat, kind, option, forced, chance))
    return row


HISTORY_ROW_FIELDS: Final = (
    RecordField("seat", 1, NO_ONE, 7),
    RecordField("kind", 1, NO_ONE, 255),  # checked against the decision kinds by validate.py
    RecordField("option", 1, NO_ONE, 1 << 20),
    RecordField("forced", 1, 0, 1),
    RecordField("chance", ANY_LENGTH, 0, NUM_FACTIONS - 1),  # die faces and draws below 8
)


def opening_row() -> HistoryRow:
    """Row 0 of a new game's history: the set-up's chance outcomes are appended to it."""
    return history_row(NO_ONE, NO_ONE, NO_ONE, 0, ())


def frozen_history(rows: Sequence[HistoryRow | Sequence[int]]) -> list[HistoryRow]:
    """History rows as the engine keeps them (rows or flat lists in), frozen."""
    return [
        (row if isinstance(row, HistoryRow) else HistoryRow.from_list(row)).frozen() for row in rows
    ]


def flat_width(fields: Sequence[RecordField]) -> int:
    """The length of a record's flat form without its variable tail."""
    return sum(f.width for f in fields if f.width != ANY_LENGTH)


def check_flat(flat: object, fields: Sequence[RecordField], what: str) -> str:
    """'' if `flat` is a valid flat form of the record, else what is wrong with it."""
    if not isinstance(flat, list):
        return f"{what} must be a list of ints, got {type(flat).__name__}"
    width = flat_width(fields)
    variable = fields[-1].width == ANY_LENGTH
    if len(flat) < width or (not variable and len(flat) != width):
        names = ", ".join(f.name if f.width == 1 else f"{f.name}[{f.width}]" for f in fields)
        return f"{what} must be [{names}], has {len(flat)} entries"
    start = 0
    for f in fields:
        stop = len(flat) if f.width == ANY_LENGTH else start + f.width
        for i in range(start, stop):
            x = flat[i]
            if isinstance(x, bool) or not isinstance(x, int) or not f.lo <= x <= f.hi:
                return f"{what}[{i}] ({f.name})={shown(x)} must be an int in {f.lo}..{f.hi}"
        start = stop
    return ""


def _flatten(record: Sequence[object], fields: Sequence[RecordField]) -> list[int]:
    out: list[int] = []
    for f, value in zip(fields, record, strict=True):
        if f.width == 1:
            assert isinstance(value, int)
            out.append(value)
        else:
            assert isinstance(value, (list, tuple))
            out.extend(value)
    return out


def _unflatten(flat: Sequence[int], fields: Sequence[RecordField]) -> list[Any]:
    values: list[Any] = []
    start = 0
    for f in fields:
        if f.width == 1:
            values.append(flat[start])
            start += 1
        else:
            stop = len(flat) if f.width == ANY_LENGTH else start + f.width
            values.append(tuple(flat[start:stop]))
            start = stop
    return values
