"""Shipped models survive a new observation field or rule variant: a model records (or, for
older descriptions, is recognised to have) the observation layout it was trained on, and
loading maps it onto today's layout by field name (`dune_env.policies.layouts`)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from dune_env.environment import ACTIONS, raw_env
from dune_env.environment.layout import Field, Layout
from dune_env.environment.observer import OBS_LAYOUT
from dune_env.policies import layouts
from dune_env.policies.registry import CHECKPOINT_DIR, PolicyLoadError
from dune_env.policies.weights import WeightsPolicy, spaces_fingerprint

SHIPPED = ["bc_4p", "bc_5p", "ppo_4p"]
DUMMY_ENTRY = "storm_moves_twice"  # a rule variant that does not exist (yet)


def _tomorrow() -> Layout:
    """Today's observation layout with a new field in the middle, another at the end, and a
    new rule variant entry inside `rules_variant` (as adding a variant flag would make it)."""
    fields: list[Field] = []
    for f in OBS_LAYOUT.fields:
        if f.name == "rules_variant":
            entries = f.entries[:7] + (DUMMY_ENTRY,) + f.entries[7:]
            f = Field(f.name, (len(entries),), f.doc, f.scale, f.max_raw, None, 0, entries)
        fields.append(f)
        if f.name == "units":
            fields.append(Field("dummy_middle", (3,), "a field added later"))
    fields.append(Field("dummy_last", (8,), "another field added later", seat_axis=0))
    return Layout("observation", fields)


def _to_layout(obs: np.ndarray, layout: Layout, rng: np.random.Generator) -> np.ndarray:
    """Today's observations as the same positions would look in `layout`: every field of
    today's at its new place, the new fields and entries random (a model never reads them)."""
    out = rng.random((obs.shape[0], layout.size), dtype=np.float32)
    for f in OBS_LAYOUT.fields:
        new = layout[f.name]
        if f.entries:
            for i, name in enumerate(f.entries):
                out[:, new.start + new.entries.index(name)] = obs[:, f.start + i]
        else:
            out[:, new.slice] = obs[:, f.slice]
    return out


def _positions(num_players: int, count: int) -> tuple[np.ndarray, np.ndarray]:
    env = raw_env(num_players=num_players)
    env.reset(seed=7)
    rng = np.random.default_rng(7)
    observations, masks = [], []
    while len(observations) < count:
        if not env.agents:
            env.reset()
        agent = env.agent_selection
        obs = env.observe(agent)
        observations.append(obs["observation"])
        masks.append(obs["action_mask"])
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.integers(legal.size)]))
    return np.array(observations), np.array(masks)


def test_the_shipped_descriptions_are_recognised_without_a_recorded_layout() -> None:
    """bc-4p/bc-5p were trained on LAYOUT_V1, ppo-4p (dune_v0) on its first 717 entries: their
    fingerprints are those of the frozen layout's prefixes, and they load onto today's."""
    names = tuple(a.name for a in ACTIONS)
    for name in SHIPPED:
        desc = json.loads((CHECKPOINT_DIR / f"{name}.json").read_text())
        assert "observation_layout" not in desc  # the shipped files are not edited
        trained = layouts.legacy_layouts(names)[desc["spaces_fingerprint"]]
        assert trained == layouts.LAYOUT_V1[: len(trained)]
        assert sum(f.size for f in trained) == desc["observation_size"]
        policy = WeightsPolicy(CHECKPOINT_DIR / f"{name}.json")
        assert policy.trained_layout == trained
        if layouts.fields_of(OBS_LAYOUT) == layouts.LAYOUT_V1:  # today's layout is still v1
            assert desc["spaces_fingerprint"] == spaces_fingerprint(desc["observation_size"])
            assert policy.columns == slice(0, desc["observation_size"])


@pytest.mark.parametrize("name", SHIPPED)
def test_shipped_models_play_the_same_after_a_field_and_a_variant_are_added(name: str) -> None:
    """A new observation field (in the middle and at the end) and a new rule variant entry do
    not stop a shipped model from loading, and it chooses the same actions from the same
    positions (its input entries are found by name)."""
    players = 5 if name == "bc_5p" else 4
    obs, masks = _positions(players, 60)
    tomorrow = _tomorrow()
    moved = _to_layout(obs, tomorrow, np.random.default_rng(1))
    today = WeightsPolicy(CHECKPOINT_DIR / f"{name}.json")
    later = WeightsPolicy(CHECKPOINT_DIR / f"{name}.json", layout=tomorrow)
    assert isinstance(later.columns, np.ndarray)  # no longer today's prefix
    np.testing.assert_array_equal(later.logits(moved), today.logits(obs))
    np.testing.assert_array_equal(later.act_batch(moved, masks), today.act_batch(obs, masks))


def test_a_field_the_model_reads_that_is_gone_is_a_clear_error() -> None:
    without = Layout("observation", [f for f in OBS_LAYOUT.fields if f.name != "storm_sector"])
    with pytest.raises(PolicyLoadError, match="'storm_sector', which the installed"):
        WeightsPolicy(CHECKPOINT_DIR / "bc_4p.json", layout=without)
    fields = [
        Field(f.name, (f.size - 1,), f.doc, entries=f.entries[1:])
        if f.name == "rules_variant"
        else f
        for f in OBS_LAYOUT.fields
    ]
    with pytest.raises(PolicyLoadError, match="region_die_west_faces has 1"):
        WeightsPolicy(CHECKPOINT_DIR / "bc_4p.json", layout=Layout("observation", fields))
    rescaled = [
        Field(f.name, f.shape, f.doc, 3.0, f.max_raw, f.seat_axis) if f.name == "storage" else f
        for f in OBS_LAYOUT.fields
    ]
    with pytest.raises(PolicyLoadError, match="'storage' had scale 5"):
        WeightsPolicy(CHECKPOINT_DIR / "bc_4p.json", layout=Layout("observation", rescaled))
    # ppo-4p never read rules_variant: losing an entry there does not concern it.
    WeightsPolicy(CHECKPOINT_DIR / "ppo_4p.json", layout=Layout("observation", fields))


def test_a_recorded_layout_is_used_and_checked(tmp_path: Path) -> None:
    """A description that records its layout (as export_policy writes it) loads by it; a record
    that does not match its fingerprint is refused."""
    record = layouts.to_record(layouts.LAYOUT_V1)
    assert layouts.from_record(json.loads(json.dumps(record))) == layouts.LAYOUT_V1
    desc = json.loads((CHECKPOINT_DIR / "bc_4p.json").read_text())
    desc["observation_layout"] = record
    desc["tensors"]["file"] = "m.safetensors"
    (tmp_path / "m.safetensors").write_bytes((CHECKPOINT_DIR / "bc_4p.safetensors").read_bytes())
    (tmp_path / "m.json").write_text(json.dumps(desc))
    policy = WeightsPolicy(tmp_path / "m.json", layout=_tomorrow())
    assert policy.trained_layout == layouts.LAYOUT_V1
    record[0]["name"] = "renamed"
    (tmp_path / "m.json").write_text(json.dumps(desc))
    with pytest.raises(PolicyLoadError, match="another dune_v1 observation layout"):
        WeightsPolicy(tmp_path / "m.json")
    desc["observation_layout"] = [{"name": "x", "shape": [-1], "scale": 1, "max_raw": 1}]
    (tmp_path / "m.json").write_text(json.dumps(desc))
    with pytest.raises(PolicyLoadError, match="'shape' must list"):
        WeightsPolicy(tmp_path / "m.json")


def test_models_without_a_recorded_layout_are_mapped_by_their_width() -> None:
    """stable-baselines3 .zip and RLlib models record only their input width: today's width
    is today's layout, the width of a LAYOUT_V1 prefix is mapped by name, any other refused."""
    tomorrow = _tomorrow()
    assert layouts.columns_for_width(tomorrow.size, tomorrow) == slice(0, tomorrow.size)
    for width, fields in ((729, layouts.LAYOUT_V1), (717, layouts.LAYOUT_V1[:-1])):
        columns = layouts.columns_for_width(width, tomorrow)
        np.testing.assert_array_equal(columns, layouts.input_columns(fields, tomorrow))
        assert len(columns) == width
    with pytest.raises(layouts.LayoutMismatch, match="700 entries"):
        layouts.columns_for_width(700, tomorrow)


def test_a_missing_optional_dependency_says_which_extra_to_install() -> None:
    """A loader whose optional dependency is not installed fails with one clear line naming
    what needs it and the pip extra that brings it (`specs.import_extra`)."""
    from dune_env.policies.specs import import_extra

    with pytest.raises(PolicyLoadError) as error:
        import_extra("no_such_module.sub", "Thing", "loading a made-up model", "made-up")
    assert str(error.value) == (
        "loading a made-up model needs no_such_module: pip install 'dune-env[made-up]'"
    )
    assert import_extra("json", "dumps", "anything", "core") is json.dumps
