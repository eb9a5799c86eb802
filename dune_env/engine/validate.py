"""Restore a snapshot with checks: every malformed or inconsistent field is named."""

from __future__ import annotations

from typing import Any

from .config import ConfigError, GameConfig
from .constants import (
    LEADER_COUNTS,
    NO_ONE,
    NUM_DICE,
    NUM_FACTIONS,
    NUM_LOCATIONS,
    NUM_REGIONS,
    NUM_THUMPERS,
    NUM_TOKEN_TYPES,
    NUM_UNIT_TYPES,
    PROPERTY_TOKENS_PER_TYPE,
    UNIT_COUNTS,
)
from .decisions import NUM_DECISION_KINDS
from .rng import ChanceRng
from .state import LIST_FIELDS, NESTED_FIELDS, SCALAR_FIELDS, SNAPSHOT_VERSION, GameState, Phase


class SnapshotError(ValueError):
    """A malformed or inconsistent snapshot."""


def _int(data: dict[str, Any], name: str, lo: int, hi: int) -> int:
    value = data.get(name)
    if isinstance(value, bool) or not isinstance(value, int):
        raise SnapshotError(f"snapshot field {name!r} must be an int, got {value!r}")
    if not lo <= value <= hi:
        raise SnapshotError(f"snapshot field {name!r}={value} is outside {lo}..{hi}")
    return value


def _int_list(data: dict[str, Any], name: str, length: int | None, lo: int, hi: int) -> list[int]:
    value = data.get(name)
    if not isinstance(value, list):
        raise SnapshotError(f"snapshot field {name!r} must be a list, got {type(value).__name__}")
    if length is not None and len(value) != length:
        raise SnapshotError(f"snapshot field {name!r} must have {length} entries, has {len(value)}")
    for i, x in enumerate(value):
        if isinstance(x, bool) or not isinstance(x, int) or not lo <= x <= hi:
            raise SnapshotError(f"snapshot field {name}[{i}]={x!r} must be an int in {lo}..{hi}")
    return list(value)


def _bool_list(data: dict[str, Any], name: str, length: int) -> list[bool]:
    value = data.get(name)
    if not isinstance(value, list) or len(value) != length:
        raise SnapshotError(f"snapshot field {name!r} must be a list of {length} booleans")
    if not all(isinstance(x, bool) for x in value):
        raise SnapshotError(f"snapshot field {name!r} must hold only true/false")
    return list(value)


def validate_snapshot(data: Any) -> GameState:
    if not isinstance(data, dict):
        raise SnapshotError(f"a snapshot must be a JSON object, got {type(data).__name__}")
    expected = (
        {"version", "config", "rng", "history", "events"}
        | set(SCALAR_FIELDS) - {"config"}
        | set(LIST_FIELDS)
        | set(NESTED_FIELDS)
    )
    missing = expected - set(data)
    if missing:
        raise SnapshotError(f"snapshot is missing field(s) {sorted(missing)}")
    extra = set(data) - expected
    if extra:
        raise SnapshotError(f"snapshot has unknown field(s) {sorted(extra)}")
    if data["version"] != SNAPSHOT_VERSION:
        raise SnapshotError(
            f"snapshot field 'version'={data['version']!r}; this engine reads {SNAPSHOT_VERSION}"
        )
    if not isinstance(data["config"], dict):
        raise SnapshotError("snapshot field 'config' must be an object")
    try:
        config = GameConfig.from_dict(data["config"])
    except (ConfigError, TypeError) as exc:
        raise SnapshotError(f"snapshot field 'config' is invalid: {exc}") from exc
    n = config.num_players
    state = GameState(config, 0)
    rng = data["rng"]
    if not isinstance(rng, dict) or set(rng) != {"seed", "turn_roll", "forced"}:
        raise SnapshotError(
            "snapshot field 'rng' must be {'seed': int, 'turn_roll': int, 'forced': [int]}"
        )
    state.rng = ChanceRng(
        _int(rng, "seed", 0, (1 << 64) - 1),
        _int_list(rng, "forced", None, 0, 63),
        _int(rng, "turn_roll", 0, 1 << 31),
    )

    for name, lo, hi in (
        ("shield_holder", NO_ONE, 7),
        ("snooper_holder", NO_ONE, 7),
        ("thumper_supply", 0, NUM_THUMPERS),
        ("bg_prediction", NO_ONE, 7),
        ("storm_sector", 1, 6),
        ("round", 1, 6),
        ("first_seat", 0, n - 1),
        ("active_seat", 0, n - 1),
        ("phase", 0, max(Phase)),
        ("pool", 0, 99),
        ("ally", NO_ONE, 7),
        ("offer_target", NO_ONE, 7),
        ("offer_symbol", NO_ONE, 7),
        ("axolotl_symbol", NO_ONE, 7),
        ("grant", 0, 99),
        ("target", NO_ONE, NUM_REGIONS - 1),
        ("battle_region", NO_ONE, NUM_REGIONS - 1),
        ("battle_defender", NO_ONE, 7),
        ("battle_fortress_stage", 0, 2),
        ("setup_index", 0, NUM_FACTIONS),
        ("pending_kind", NO_ONE, NUM_DECISION_KINDS - 1),
        ("pending_seat", NO_ONE, n - 1),
        ("decision_count", 0, 1 << 40),
    ):
        setattr(state, name, _int(data, name, lo, hi))
    for name in ("leader_recruited", "ghola_declined", "land_consent", "face_dancer_done"):
        if not isinstance(data[name], bool):
            raise SnapshotError(f"snapshot field {name!r} must be true or false")
        setattr(state, name, data[name])

    state.seat_faction = _int_list(data, "seat_faction", n, NO_ONE, 7)
    state.faction_seat = _int_list(data, "faction_seat", NUM_FACTIONS, NO_ONE, n - 1)
    for seat, faction in enumerate(state.seat_faction):
        if faction != NO_ONE and state.faction_seat[faction] != seat:
            raise SnapshotError(
                f"snapshot fields seat_faction and faction_seat disagree about seat {seat}"
            )
    state.region_token = _int_list(data, "region_token", NUM_REGIONS, NO_ONE, NUM_TOKEN_TYPES - 1)
    state.token_supply = _int_list(data, "token_supply", NUM_TOKEN_TYPES, 0, 2)
    state.thumpers = _int_list(data, "thumpers", NUM_FACTIONS, 0, 1)
    state.storage = _int_list(data, "storage", NUM_FACTIONS, 0, 5)
    state.dice_faces = _int_list(data, "dice_faces", NUM_DICE, 0, 5)
    state.dice_fixed = _bool_list(data, "dice_fixed", NUM_DICE)
    state.dice_used = _bool_list(data, "dice_used", 4)
    state.recruit_dice = _int_list(data, "recruit_dice", None, 0, 3)
    state.ally_dice = _int_list(data, "ally_dice", None, 0, 3)
    state.guild_paid = _bool_list(data, "guild_paid", NUM_FACTIONS)
    state.lend_queue = _int_list(data, "lend_queue", None, 0, 7)
    state.lent = _bool_list(data, "lent", NUM_FACTIONS)
    state.last_battle = _int_list(data, "last_battle", None, NO_ONE, 99)
    state.winners = _int_list(data, "winners", None, 0, n - 1)
    rewards = data["rewards"]
    if (
        not isinstance(rewards, list)
        or len(rewards) != n
        or not all(isinstance(r, (int, float)) and not isinstance(r, bool) for r in rewards)
    ):
        raise SnapshotError(f"snapshot field 'rewards' must be {n} numbers")
    state.rewards = [float(r) for r in rewards]

    units = data["units"]
    if not isinstance(units, list) or len(units) != NUM_FACTIONS:
        raise SnapshotError(f"snapshot field 'units' must hold {NUM_FACTIONS} lists")
    state.units = [
        _int_list({"units": u}, "units", NUM_LOCATIONS * NUM_UNIT_TYPES, 0, 12) for u in units
    ]
    leaders = data["leaders"]
    if not isinstance(leaders, list) or len(leaders) != NUM_FACTIONS:
        raise SnapshotError(f"snapshot field 'leaders' must hold {NUM_FACTIONS} pairs")
    state.leaders = [_int_list({"leaders": x}, "leaders", 2, 0, 2) for x in leaders]
    for name, width in (("bid_units", NUM_FACTIONS * NUM_UNIT_TYPES), ("bid_leaders", 8)):
        value = data[name]
        if not isinstance(value, list) or len(value) != 2:
            raise SnapshotError(f"snapshot field {name!r} must hold 2 lists (attacker, defender)")
        setattr(state, name, [_int_list({name: x}, name, width, 0, 12) for x in value])

    # Conservation (COMP-2, COMP-3).
    for faction in range(NUM_FACTIONS):
        u = state.units[faction]
        in_game = state.faction_seat[faction] != NO_ONE
        for unit_type in range(NUM_UNIT_TYPES):
            total = sum(u[loc * NUM_UNIT_TYPES + unit_type] for loc in range(NUM_LOCATIONS))
            want = UNIT_COUNTS[faction][unit_type] if in_game else 0
            if total != want:
                raise SnapshotError(
                    f"snapshot field 'units' for faction {faction} type {unit_type} counts "
                    f"{total} pieces; COMP-3 says {want}"
                )
        want_leaders = LEADER_COUNTS[faction] if in_game else 0
        if sum(state.leaders[faction]) != want_leaders:
            raise SnapshotError(
                f"snapshot field 'leaders' for faction {faction} counts "
                f"{sum(state.leaders[faction])}; COMP-3 says {want_leaders}"
            )
    for token in range(NUM_TOKEN_TYPES):
        total = state.token_supply[token] + state.region_token.count(token)
        if total != PROPERTY_TOKENS_PER_TYPE:
            raise SnapshotError(
                f"snapshot fields region_token/token_supply count {total} tokens of type "
                f"{token}; COMP-2 says {PROPERTY_TOKENS_PER_TYPE}"
            )
    if state.thumper_supply + sum(state.thumpers) != NUM_THUMPERS:
        raise SnapshotError("snapshot fields thumpers/thumper_supply do not add up to 4 (COMP-2)")
    if state.region_token[9] != NO_ONE:
        raise SnapshotError("snapshot field 'region_token': the Polar Cap holds no token (MAP-4)")
    if (state.pending_kind == NO_ONE) != (state.pending_seat == NO_ONE):
        raise SnapshotError("snapshot fields pending_kind and pending_seat must both be set or -1")
    if state.phase != Phase.GAME_OVER and state.pending_kind == NO_ONE:
        raise SnapshotError("snapshot field 'pending_kind' is -1 but the game is not over")

    history = data["history"]
    if not isinstance(history, list) or not all(
        isinstance(row, list) and all(isinstance(x, int) for x in row) for row in history
    ):
        raise SnapshotError("snapshot field 'history' must be a list of int lists")
    state.history = [list(row) for row in history]
    events = data["events"]
    if not isinstance(events, list) or not all(
        isinstance(e, list) and e and all(isinstance(x, int) for x in e) for e in events
    ):
        raise SnapshotError("snapshot field 'events' must be a list of non-empty int lists")
    state.events = [tuple(e) for e in events]
    if state.pending_kind != NO_ONE:
        from .game import legal_options

        try:
            options = legal_options(state)
        except (IndexError, KeyError, AssertionError, ValueError) as exc:
            raise SnapshotError(
                f"snapshot's pending decision cannot be evaluated from its fields: {exc!r}"
            ) from exc
        if not options:
            raise SnapshotError("snapshot's pending decision has no legal option")
    return state
