"""Named slices of a flat float32 vector: the declared layout of observations and states.

A `Layout` is an ordered list of `Field`s laid end to end.  Each field has a shape, a scale
(encoded value = raw value / scale), an upper bound of the encoded values and, for fields
indexed by seat, the axis that holds the seat.  `layout.view(vector, name)` returns the field as
an array of its shape (a view, no copy); `layout.slices[name]` is its slice of the vector.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

MAX_SEATS = 8  # seat axes always have 8 slots (9 with the "common supply" slot)


@dataclass(frozen=True)
class Field:
    """One named slice of a layout.

    Attributes:
        name: unique within the layout.
        shape: the field's shape; `size` entries in row-major order.
        doc: what the entries mean (shown in docs/observation.md).
        scale: encoded = raw / scale.
        max_raw: the largest raw value the engine allows; the encoded upper bound is
            max_raw / scale (the lower bound is always 0).
        seat_axis: the axis indexed by seat (relative to the observer in observations), or None.
        start: first index in the vector (set by `Layout`).
        entries: names of the entries, for a field whose entries are independent named flags
            (`rules_variant`); a model trained on the field's older entries is mapped onto
            the new ones by name.  Empty otherwise.
    """

    name: str
    shape: tuple[int, ...]
    doc: str
    scale: float = 1.0
    max_raw: float = 1.0
    seat_axis: int | None = None
    start: int = 0
    entries: tuple[str, ...] = ()

    @property
    def size(self) -> int:
        return int(np.prod(self.shape))

    @property
    def stop(self) -> int:
        return self.start + self.size

    @property
    def slice(self) -> slice:
        return slice(self.start, self.stop)

    @property
    def high(self) -> float:
        return self.max_raw / self.scale


class Layout:
    """An ordered set of fields laid end to end in one flat vector."""

    def __init__(self, name: str, fields: Sequence[Field]) -> None:
        placed: list[Field] = []
        start = 0
        for f in fields:
            if f.seat_axis is not None and f.shape[f.seat_axis] not in (MAX_SEATS, MAX_SEATS + 1):
                raise ValueError(f"field {f.name}: a seat axis must have 8 or 9 entries")
            if f.entries and len(f.entries) != f.size:
                raise ValueError(f"field {f.name}: {len(f.entries)} entry names, {f.size} entries")
            placed.append(
                Field(f.name, f.shape, f.doc, f.scale, f.max_raw, f.seat_axis, start, f.entries)
            )
            start += placed[-1].size
        self.name = name
        self.fields: tuple[Field, ...] = tuple(placed)
        self.by_name: dict[str, Field] = {f.name: f for f in placed}
        if len(self.by_name) != len(placed):
            raise ValueError(f"layout {name}: field names must be unique")
        self.slices: dict[str, slice] = {f.name: f.slice for f in placed}
        self.size = start
        self.high = np.zeros(self.size, dtype=np.float32)
        self.inv_scale = np.ones(self.size, dtype=np.float32)
        for f in placed:
            self.high[f.slice] = f.high
            self.inv_scale[f.slice] = 1.0 / f.scale
        self.low = np.zeros(self.size, dtype=np.float32)
        self._perms: dict[tuple[int, int], np.ndarray] = {}

    def __getitem__(self, name: str) -> Field:
        try:
            return self.by_name[name]
        except KeyError:
            raise KeyError(
                f"layout {self.name!r} has no field {name!r}; fields: {list(self.by_name)}"
            ) from None

    def __contains__(self, name: object) -> bool:
        return name in self.by_name

    def view(self, vector: np.ndarray, name: str) -> np.ndarray:
        """The field `name` of a vector (or of the last axis of a batch), in its shape."""
        f = self[name]
        if vector.shape[-1] != self.size:
            raise ValueError(
                f"vector has {vector.shape[-1]} entries; layout {self.name!r} has {self.size}"
            )
        return vector[..., f.start : f.stop].reshape(vector.shape[:-1] + f.shape)

    def raw(self, vector: np.ndarray, name: str) -> np.ndarray:
        """The field `name` decoded back to its raw integer values (counts, spice...)."""
        values = self.view(vector, name).astype(np.float64) * self[name].scale
        return np.rint(values).astype(np.int64)

    def seat_permutation(self, num_players: int, observer: int) -> np.ndarray:
        """Index array p with egocentric = absolute[p]: relative seat r shows absolute seat
        (observer + r) % num_players; slots at or past num_players (and the supply slot)
        stay in place; fields without a seat axis are copied as they are."""
        key = (num_players, observer)
        perm = self._perms.get(key)
        if perm is None:
            seat_map = np.arange(MAX_SEATS + 1)
            seat_map[:num_players] = (observer + np.arange(num_players)) % num_players
            perm = np.arange(self.size)
            for f in self.fields:
                if f.seat_axis is None:
                    continue
                idx = np.arange(f.start, f.stop).reshape(f.shape)
                n_slots = f.shape[f.seat_axis]
                perm[f.slice] = np.take(idx, seat_map[:n_slots], axis=f.seat_axis).ravel()
            perm.flags.writeable = False
            self._perms[key] = perm
        return perm

    # --- documentation ---------------------------------------------------------------------

    def golden_lines(self) -> list[str]:
        """`name start stop shape scale max_raw seat_axis`, one line per field."""
        return [
            f"{f.name}\t{f.start}\t{f.stop}\t{'x'.join(map(str, f.shape))}\t{f.scale:g}\t"
            f"{f.max_raw:g}\t{'-' if f.seat_axis is None else f.seat_axis}"
            for f in self.fields
        ]

    def markdown_table(self) -> str:
        lines = [
            "| field | slice | shape | scale | seat axis | meaning |",
            "|---|---|---|---:|---|---|",
        ]
        for f in self.fields:
            shape = " × ".join(map(str, f.shape))
            seat = "—" if f.seat_axis is None else str(f.seat_axis)
            lines.append(
                f"| `{f.name}` | {f.start}:{f.stop} | {shape} | {f.scale:g} | {seat} | {f.doc} |"
            )
        return "\n".join(lines)
