"""The decision-kind registry (RULES.md §9): one `DecisionSpec` per kind, declared next to its
step, and everything that derives from it -- option counts, option names, the action table,
the option builders, the engine's dispatch and the bots' dispatch."""

from __future__ import annotations

import itertools

import pytest

from dune_env.engine import Game, GameConfig, options
from dune_env.engine import decisions as registry
from dune_env.engine.constants import NUM_FACTIONS, NUM_REGIONS, NUM_UNIT_TYPES
from dune_env.engine.decision_spec import (
    YES_NO,
    DecisionKind,
    DecisionSpec,
    OptionBlock,
    OptionCodec,
    OptionField,
)
from dune_env.engine.decisions import (
    OPTION_COUNTS,
    SPECS,
    TABLE_ORDER,
    decode_option,
    describe_option,
)
from dune_env.engine.rng import DiceRng
from dune_env.environment import action_table
from dune_env.policies.heuristics import handlers
from dune_env.policies.mcts import SEARCHED_KINDS

ALL_OPTIONS = [(spec, option) for spec in SPECS for option in range(spec.option_count)]


def test_every_kind_has_exactly_one_spec_indexed_by_its_id() -> None:
    assert [spec.kind for spec in SPECS] == list(DecisionKind)
    assert registry.NUM_DECISION_KINDS == len(DecisionKind)
    assert OPTION_COUNTS == tuple(spec.codec.size for spec in SPECS)


def test_action_table_is_the_specs_blocks_in_table_position_order() -> None:
    """Each kind owns a block of its option count, placed by its declared table position."""
    assert [SPECS[k].table_position for k in TABLE_ORDER] == list(range(len(SPECS)))
    assert action_table.KIND_ORDER == TABLE_ORDER
    start = 0
    for kind in TABLE_ORDER:
        spec = SPECS[kind]
        assert action_table.KIND_OFFSET[kind] == start
        for option in range(spec.option_count):
            action = action_table.ACTIONS[start + option]
            assert (action.kind, action.option) == (kind, option)
            assert action.name == f"{kind.name}: {spec.describe(option)}"
        start += spec.option_count
    assert start == action_table.NUM_ACTIONS


def test_describe_names_every_option_uniquely() -> None:
    for spec in SPECS:
        texts = [spec.describe(o) for o in range(spec.option_count)]
        assert all(texts), spec.kind.name
        assert len(set(texts)) == len(texts), spec.kind.name
        assert texts == [describe_option(spec.kind, o) for o in range(spec.option_count)]


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.kind.name)
def test_encode_decode_round_trip_for_every_option(spec: DecisionSpec) -> None:
    for option in range(spec.option_count):
        decoded = spec.decode(option)
        block = spec.codec.block(decoded.block)
        assert decoded.fields == tuple(f.name for f in block.fields)
        assert spec.encode(decoded.block, *decoded.values) == option
        for name, value in decoded.as_dict().items():
            assert decoded[name] == value
            assert 0 <= value < next(f.size for f in block.fields if f.name == name)
        assert decode_option(spec.kind, option) == decoded


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.kind.name)
def test_out_of_range_options_raise_naming_kind_and_range(spec: DecisionSpec) -> None:
    top = spec.option_count - 1
    for bad in (-1, spec.option_count):
        with pytest.raises(ValueError, match=rf"option {bad} is outside 0\.\.{top} for "):
            spec.decode(bad)
        with pytest.raises(ValueError, match=spec.kind.name):
            describe_option(spec.kind, bad)
    with pytest.raises(TypeError, match="must be an int"):
        spec.decode(1.5)  # type: ignore[arg-type]


def test_encode_rejects_unknown_blocks_and_out_of_range_fields() -> None:
    land = SPECS[DecisionKind.LAND]
    with pytest.raises(ValueError, match=r"land\.region=10 is outside 0\.\.9"):
        land.encode("land", NUM_REGIONS, 0)
    with pytest.raises(ValueError, match=r"takes 2 values \(\['region', 'unit_type'\]\)"):
        land.encode("land", 3)
    with pytest.raises(KeyError, match="blocks: \\['stop', 'smugglers_leader', 'land'\\]"):
        land.encode("fly", 3, 0)
    with pytest.raises(KeyError, match="has no field 'faction'"):
        land.decode(5)["faction"]


def test_codec_declarations_are_checked() -> None:
    with pytest.raises(ValueError, match="block names must be unique"):
        OptionCodec(OptionBlock("a", "a"), OptionBlock("a", "b"))
    field = OptionField("x", ("0", "1"))
    with pytest.raises(ValueError, match="field names must be unique"):
        OptionCodec(OptionBlock("a", "{x}{x}", (field, field)))
    codec = OptionCodec(
        OptionBlock("stop", "stop"),
        OptionBlock("pair", "{x}-{y}", (field, field.__class__("y", ("p", "q", "r")))),
    )
    # mixed radix, first field most significant: 1 + x * 3 + y
    assert [codec.texts[o] for o in range(codec.size)] == [
        "stop",
        "0-p",
        "0-q",
        "0-r",
        "1-p",
        "1-q",
        "1-r",
    ]
    assert codec.encode("pair", 1, 2) == 6
    assert codec.layout() == "stop | pair(x: 2, y: 3)"


def _spec(kind: DecisionKind, position: int) -> DecisionSpec:
    return DecisionSpec(kind, YES_NO, SPECS[kind].legal, SPECS[kind].apply, position, "TEST-1")


def test_registry_rejects_duplicate_missing_and_misplaced_specs() -> None:
    every = tuple(_spec(k, int(k)) for k in DecisionKind)
    assert registry._by_kind(every) == every
    with pytest.raises(AssertionError, match="two decision specs for LAND"):
        registry._by_kind(every + (_spec(DecisionKind.LAND, len(every)),))
    with pytest.raises(AssertionError, match=r"no decision spec for \['REORGANIZE'\]"):
        registry._by_kind(every[:-1])
    moved = every[:-1] + (_spec(DecisionKind.REORGANIZE, 0),)
    with pytest.raises(AssertionError, match="table positions must be 0..26, each once"):
        registry._by_kind(moved)


def test_fast_encoders_and_decoders_agree_with_the_codecs() -> None:
    """The unchecked encoders the legal generators use are the codecs' packing."""
    regions, factions, types = range(NUM_REGIONS), range(NUM_FACTIONS), range(NUM_UNIT_TYPES)
    for r, f, t in itertools.product(regions, factions, types):
        option = registry.kanly_kill_option(r, f, t)
        assert option == registry.KANLY_CODEC.encode("kill", r, f, t)
        assert tuple(registry.decode_kanly_kill(option)) == (r, f, t)
    for r, t in itertools.product(regions, types):
        assert registry.land_option(r, t) == registry.LAND_CODEC.encode("land", r, t)
        assert tuple(registry.decode_land(registry.land_option(r, t))) == (r, t)
        assert registry.move_option(r, t) == registry.MOVE_CODEC.encode("move", r, t)
        assert tuple(registry.decode_move(registry.move_option(r, t))) == (r, t)
    for f, t in itertools.product(factions, types):
        unit = registry.unit_option(f, t)
        assert unit == registry.BID_CODEC.encode("unit", f, t)
        assert unit == registry.FACE_DANCER_CODEC.encode("replace", f, t)
        assert tuple(registry.decode_unit(unit)) == (f, t)
        assert registry.victim_option(f, t) == registry.VICTIM_CODEC.encode("remove", f, t)
    for f, s in itertools.product(factions, factions):
        assert registry.offer_option(f, s) == registry.OFFER_CODEC.encode("offer", f, s)
        assert tuple(registry.decode_offer(registry.offer_option(f, s))) == (f, s)
    for f in factions:
        assert registry.bid_leader_option(f) == registry.BID_CODEC.encode("leader", f)


def test_option_builders_and_names_derive_from_the_specs() -> None:
    for spec, option in ALL_OPTIONS:
        assert options.by_name(spec.kind, options.name(spec.kind, option)) == option
    assert options.land(3, 1) == SPECS[DecisionKind.LAND].encode("land", 3, 1)
    assert options.reorganize(2) == SPECS[DecisionKind.REORGANIZE].encode("place", 2)
    assert options.bid_leader(4) == SPECS[DecisionKind.BID].encode("leader", 4)
    with pytest.raises(ValueError, match=r"kill\.unit_type=2 is outside 0\.\.1"):
        options.kanly_kill(0, 0, 2)


def test_engine_poses_only_registered_kinds_with_in_range_options() -> None:
    """RULES.md §9: in real games every pending decision's legal options are valid options of
    its kind, and they come from that kind's spec."""
    chooser = DiceRng(99)
    seen: set[int] = set()
    for seed in range(6):
        config = GameConfig(num_players=3 + seed, skip_forced_decisions=False)
        game = Game(config, seed=seed)
        while not game.terminal:
            pending = game.pending
            spec = SPECS[pending.kind]
            assert list(pending.options) == spec.legal(game.state)
            assert all(0 <= o < spec.option_count for o in pending.options)
            seen.add(int(pending.kind))
            game.apply(pending.options[chooser.below(len(pending.options))])
    assert len(seen) >= 15  # the games reach most kinds


def test_hidden_kinds_are_the_secret_choices() -> None:
    """BG-0 (the prediction) and BATTLE-5 (the bids) are the only secret choices; the replay's
    seat views derive their hiding from the specs."""
    from dune_env.replay.frames import HIDDEN_DECISIONS

    hidden = {spec.kind for spec in SPECS if spec.hidden}
    assert hidden == {DecisionKind.BG_PREDICTION, DecisionKind.BID}
    assert HIDDEN_DECISIONS == hidden


def test_bots_dispatch_covers_the_registry() -> None:
    table = handlers.handler_table()
    assert len(table) == len(SPECS)
    assert all(table[spec.kind] is handlers.HANDLERS[spec.kind] for spec in SPECS)
    assert SEARCHED_KINDS <= {int(spec.kind) for spec in SPECS}


def test_a_kind_without_a_bot_handler_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    reduced = {k: v for k, v in handlers.HANDLERS.items() if k != DecisionKind.GHOLA}
    monkeypatch.setattr(handlers, "HANDLERS", reduced)
    with pytest.raises(LookupError, match=r"no handler for decision kinds \['GHOLA'\]"):
        handlers.handler_table()
