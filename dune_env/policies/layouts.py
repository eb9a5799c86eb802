"""The observation layouts models were trained on, and how a model is mapped onto today's.

A model reads observations in the layout it was trained on: its fields (name, shape, scale,
bound, seat axis) in order.  `export_policy` records that layout in the model's description
("observation_layout"); descriptions written before it was recorded are recognised by their
`spaces_fingerprint` among the layouts `dune_v1` has had (`LAYOUT_V1`, and its prefixes: a
model of `dune_v0` read the first 717 entries, before `rules_variant` was appended).

Loading maps the trained layout onto today's by name (`input_columns`): each field the model
reads is taken from today's field of that name, wherever it now lies; a field whose entries are
named (`rules_variant`) is mapped entry by entry, so a new rule variant adds an entry the model
never saw.  Today's fields and entries the model never saw are left out of its input -- as if
its first layer gave them zero weight, i.e. their neutral value 0.  A field (or entry) the
model reads that is gone, or whose shape, scale or seat axis changed, is a clear
`LayoutMismatch`: such a model must be retrained.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from functools import lru_cache
from typing import Any, NamedTuple

import numpy as np

from ..environment.layout import Layout

MAX_FIELDS = 4096


class TrainedField(NamedTuple):
    """One field of the layout a model was trained on."""

    name: str
    shape: tuple[int, ...]
    scale: float
    max_raw: float
    seat_axis: int | None
    entries: tuple[str, ...] = ()

    @property
    def size(self) -> int:
        return int(np.prod(self.shape))


class LayoutMismatch(ValueError):
    """A model reads an observation field that today's layout no longer has as it was."""


# The observation layout of dune_v1 version 1 (729 entries): what bc-4p and bc-5p were trained
# on (ppo-4p, a dune_v0 model, on its first 717 entries).  Frozen: never edit it; later
# layouts are recorded by the models trained on them.
LAYOUT_V1_ROWS: tuple[tuple[str, tuple[int, ...], float, float, int | None], ...] = (
    ("seat_in_game", (8,), 1.0, 1.0, 0),
    ("seat_faction", (8, 8), 1.0, 1.0, 0),
    ("units", (8, 12, 2), 12, 12, 0),
    ("leaders", (8, 2), 2, 2, 0),
    ("storage", (8,), 5, 5, 0),
    ("thumper", (8,), 1.0, 1.0, 0),
    ("shield_holder", (9,), 1.0, 1.0, 0),
    ("snooper_holder", (9,), 1.0, 1.0, 0),
    ("region_token", (10, 3), 1.0, 1.0, None),
    ("token_supply", (3,), 2, 2, None),
    ("thumper_supply", (1,), 4, 4, None),
    ("storm_sector", (6,), 1.0, 1.0, None),
    ("round", (6,), 1.0, 1.0, None),
    ("first_seat", (8,), 1.0, 1.0, 0),
    ("active_seat", (8,), 1.0, 1.0, 0),
    ("phase", (33,), 1.0, 1.0, None),
    ("faction_dice", (4, 8), 1.0, 1.0, None),
    ("region_die", (6,), 1.0, 1.0, None),
    ("spice_die", (6,), 1.0, 1.0, None),
    ("kanly_die", (6,), 1.0, 1.0, None),
    ("dice_fixed", (7,), 1.0, 1.0, None),
    ("dice_used", (4,), 1.0, 1.0, None),
    ("recruit_dice", (4,), 1.0, 1.0, None),
    ("ally_dice", (4,), 1.0, 1.0, None),
    ("pool", (1,), 10.0, 99, None),
    ("ally_seat", (8,), 1.0, 1.0, 0),
    ("offer_target", (8,), 1.0, 1.0, 0),
    ("offer_symbol", (8,), 1.0, 1.0, None),
    ("axolotl_symbol", (8,), 1.0, 1.0, None),
    ("leader_recruited", (1,), 1.0, 1.0, None),
    ("land_consent", (1,), 1.0, 1.0, None),
    ("grant", (1,), 10.0, 99, None),
    ("guild_paid", (8,), 1.0, 1.0, 0),
    ("target_region", (10,), 1.0, 1.0, None),
    ("decision_kind", (27,), 1.0, 1.0, None),
    ("decision_seat", (8,), 1.0, 1.0, 0),
    ("ghola_declined", (1,), 1.0, 1.0, None),
    ("battle_region", (10,), 1.0, 1.0, None),
    ("battle_defender", (8,), 1.0, 1.0, 0),
    ("fortress_stage", (3,), 1.0, 1.0, None),
    ("face_dancer_done", (1,), 1.0, 1.0, None),
    ("lend_queue", (8,), 1.0, 1.0, 0),
    ("lent", (8,), 1.0, 1.0, 0),
    ("last_battle_valid", (1,), 1.0, 1.0, None),
    ("last_battle_region", (10,), 1.0, 1.0, None),
    ("last_battle_attacker", (8,), 1.0, 1.0, 0),
    ("last_battle_defender", (8,), 1.0, 1.0, 0),
    ("last_battle_strength", (2,), 10.0, 99, None),
    ("last_battle_winner", (2,), 1.0, 1.0, None),
    ("last_battle_units", (2, 8, 2), 12, 12, 1),
    ("last_battle_leaders", (2, 8), 2, 2, 1),
    ("own_bid_units", (8, 2), 12, 12, 0),
    ("own_bid_leaders", (8,), 2, 2, 0),
    ("bg_prediction", (8,), 1.0, 1.0, None),
    ("rules_variant", (12,), 1.0, 1.0, None),
)
LAYOUT_V1_ENTRIES: dict[str, tuple[str, ...]] = {
    "rules_variant": (
        "region_die_west_faces has 1",
        "region_die_west_faces has 2",
        "region_die_west_faces has 3",
        "region_die_west_faces has 4",
        "region_die_west_faces has 5",
        "region_die_west_faces has 6",
        "strict_control",
        "desert_landing",
        "face_dancers == 'spice'",
        "guild_income_per_lander",
        "strict_alliance_victory",
        "smugglers_land_anywhere",
    ),
}
LAYOUT_V1: tuple[TrainedField, ...] = tuple(
    TrainedField(*row, entries=LAYOUT_V1_ENTRIES.get(row[0], ())) for row in LAYOUT_V1_ROWS
)


def fields_of(layout: Layout) -> tuple[TrainedField, ...]:
    """A layout as the fields a model trained on it reads."""
    return tuple(
        TrainedField(f.name, f.shape, f.scale, f.max_raw, f.seat_axis, f.entries)
        for f in layout.fields
    )


def fingerprint(fields: Sequence[TrainedField], action_names: Sequence[str]) -> str:
    """SHA-256 of a layout's fields and the action table: a model's `spaces_fingerprint`."""
    parts = [f"{f.name}|{f.shape}|{f.scale!r}|{f.max_raw!r}|{f.seat_axis}" for f in fields]
    parts += list(action_names)
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def to_record(fields: Sequence[TrainedField]) -> list[dict[str, Any]]:
    """The JSON form of a layout, for a model's description."""
    record = []
    for f in fields:
        item: dict[str, Any] = {
            "name": f.name,
            "shape": list(f.shape),
            "scale": f.scale,
            "max_raw": f.max_raw,
            "seat_axis": f.seat_axis,
        }
        if f.entries:
            item["entries"] = list(f.entries)
        record.append(item)
    return record


def _positive(value: Any) -> bool:
    return type(value) in (int, float) and bool(np.isfinite(value)) and value > 0


def from_record(record: Any) -> tuple[TrainedField, ...]:
    """A recorded layout, checked (a ValueError says what is wrong)."""
    if not isinstance(record, list) or not 0 < len(record) <= MAX_FIELDS:
        raise ValueError(f"'observation_layout' must be a list of 1-{MAX_FIELDS} fields")
    fields = []
    for i, item in enumerate(record):
        where = f"'observation_layout' field {i}"
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            raise ValueError(f"{where} must be an object with a 'name'")
        where += f" ({item['name']})"
        shape = item.get("shape")
        if (
            not isinstance(shape, list)
            or not 0 < len(shape) <= 4
            or not all(type(n) is int and 0 < n <= 1 << 16 for n in shape)
        ):
            raise ValueError(f"{where}: 'shape' must list 1-4 positive sizes")
        if not _positive(item.get("scale")) or not _positive(item.get("max_raw")):
            raise ValueError(f"{where}: 'scale' and 'max_raw' must be positive numbers")
        axis = item.get("seat_axis")
        if axis is not None and (type(axis) is not int or not 0 <= axis < len(shape)):
            raise ValueError(f"{where}: 'seat_axis' must be an axis of the shape or null")
        entries = item.get("entries", [])
        if not isinstance(entries, list) or not all(isinstance(e, str) for e in entries):
            raise ValueError(f"{where}: 'entries' must list entry names")
        field = TrainedField(
            item["name"], tuple(shape), item["scale"], item["max_raw"], axis, tuple(entries)
        )
        if entries and len(set(entries)) != field.size:
            raise ValueError(f"{where}: {len(entries)} entry names for {field.size} entries")
        fields.append(field)
    if len({f.name for f in fields}) != len(fields):
        raise ValueError("'observation_layout' names a field twice")
    return tuple(fields)


@lru_cache(maxsize=4)
def legacy_layouts(action_names: tuple[str, ...]) -> dict[str, tuple[TrainedField, ...]]:
    """fingerprint -> layout, for every layout a model may have been trained on without
    recording it: LAYOUT_V1 and each of its prefixes (fields appended later were unseen)."""
    return {
        fingerprint(LAYOUT_V1[:n], action_names): LAYOUT_V1[:n]
        for n in range(1, len(LAYOUT_V1) + 1)
    }


def input_columns(trained: Sequence[TrainedField], layout: Layout) -> np.ndarray | slice:
    """For each input entry of a model trained on `trained`, the index of today's entry in
    an observation of `layout` (a slice when they are today's first entries, in order)."""
    columns: list[int] = []
    for f in trained:
        if f.name not in layout:
            raise LayoutMismatch(
                f"it reads the observation field {f.name!r}, which the installed "
                f"{layout.name} layout no longer has; retrain it on today's layout"
            )
        now = layout[f.name]
        if f.entries and now.entries:
            where = {name: now.start + i for i, name in enumerate(now.entries)}
            gone = [name for name in f.entries if name not in where]
            if gone:
                raise LayoutMismatch(
                    f"it reads entries {gone} of the observation field {f.name!r}, which "
                    f"the installed layout no longer has (it has {list(now.entries)}); "
                    "retrain it on today's layout"
                )
            columns += [where[name] for name in f.entries]
            continue
        for what, then, today in (
            ("shape", f.shape, now.shape),
            ("scale", f.scale, now.scale),
            ("seat axis", f.seat_axis, now.seat_axis),
        ):
            if then != today:
                raise LayoutMismatch(
                    f"the observation field {f.name!r} had {what} {then!r} when it was "
                    f"trained and has {today!r} now; retrain it on today's layout"
                )
        columns += range(now.start, now.stop)
    if columns == list(range(len(columns))):
        return slice(0, len(columns))
    return np.array(columns, dtype=np.intp)


def columns_for_width(width: int, layout: Layout) -> np.ndarray | slice:
    """The input columns of a model that records no layout, only its input width (a
    stable-baselines3 .zip): today's layout if the width is today's, else the LAYOUT_V1 prefix
    of that width (a model trained before the layout changed).  LayoutMismatch if neither."""
    if width == layout.size:
        return slice(0, width)
    sizes = np.cumsum([f.size for f in LAYOUT_V1]).tolist()
    if width not in sizes:
        raise LayoutMismatch(
            f"it takes observations of {width} entries: neither today's {layout.size} nor a "
            "layout it can be mapped from"
        )
    return input_columns(LAYOUT_V1[: sizes.index(width) + 1], layout)
