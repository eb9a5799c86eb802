"""Restore a snapshot with checks: every malformed or inconsistent field is named."""

from __future__ import annotations

import json
import math
from typing import Any, Final

from .config import ConfigError, GameConfig
from .constants import (
    FACES_PER_DIE,
    LEADER_COUNTS,
    NO_ONE,
    NUM_FACTIONS,
    NUM_LOCATIONS,
    NUM_THUMPERS,
    NUM_TOKEN_TYPES,
    NUM_UNIT_TYPES,
    PROPERTY_TOKENS_PER_TYPE,
    STORAGE_FACTIONS,
    UNIT_COUNTS,
    Faction,
    available_factions,
)
from .decisions import NUM_DECISION_KINDS, OPTION_COUNTS, DecisionKind
from .events import check_event, render
from .records import LAST_BATTLE_FIELDS, HistoryRow, LastBattle, check_flat, frozen_history
from .rng import ChanceRng
from .shown import parse_int, shown
from .state import (
    ANY_LENGTH,
    FLAG,
    FLAGS,
    FLOATS,
    INT,
    INTS,
    LAST_BATTLE,
    LAST_SEAT,
    NESTED,
    PER_SEAT,
    SNAPSHOT_VERSION,
    STATE_FIELDS,
    GameState,
    Phase,
    StateField,
)


class SnapshotError(ValueError):
    """A malformed or inconsistent snapshot."""


# Size limits: far above any real game (a few hundred decisions; the benchmark caps games at
# 20,000), low enough that a hostile snapshot cannot exhaust memory or time.
MAX_HISTORY_ROWS: Final = 100_000
MAX_ROW_LENGTH: Final = 64  # [seat, kind, option, forced] + chance outcomes (set-up draws about 20)
MAX_EVENTS: Final = 1_000_000
MAX_EVENT_LENGTH: Final = 64  # the longest event, BATTLE_BIDS, has 27 entries
MAX_FORCED: Final = 10_000  # queued forced dice outcomes
MAX_SNAPSHOT_CHARS: Final = 64_000_000  # JSON text


def _refuse_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [key for key, _ in pairs]
    if len(set(keys)) != len(keys):
        repeated = sorted({key for key in keys if keys.count(key) > 1})
        raise SnapshotError(f"snapshot JSON repeats key(s) {repeated}")
    return dict(pairs)


def parse_snapshot_json(text: object) -> Any:
    """Parse snapshot JSON text (str, bytes or bytearray): duplicate keys, over-deep nesting and
    oversized text are a SnapshotError (not silently merged, not a RecursionError); an integer
    too long for Python to read stays a marker that the field's check names."""
    if not isinstance(text, (str, bytes, bytearray)):
        raise SnapshotError(f"snapshot JSON must be text, not {type(text).__name__}")
    if len(text) > MAX_SNAPSHOT_CHARS:
        raise SnapshotError(
            f"snapshot JSON has {len(text)} characters; at most {MAX_SNAPSHOT_CHARS} are read"
        )
    try:
        return json.loads(text, object_pairs_hook=_refuse_duplicates, parse_int=parse_int)
    except RecursionError:
        raise SnapshotError("snapshot JSON is nested too deeply") from None
    except json.JSONDecodeError as exc:
        raise SnapshotError(f"snapshot is not valid JSON: {exc}") from exc
    except UnicodeDecodeError as exc:
        raise SnapshotError(f"snapshot JSON is not UTF-8 text: {exc}") from exc


def _int(data: dict[str, Any], name: str, lo: int, hi: int) -> int:
    value = data.get(name)
    if isinstance(value, bool) or not isinstance(value, int):
        raise SnapshotError(f"snapshot field {name!r} must be an int, got {shown(value)}")
    if not lo <= value <= hi:
        raise SnapshotError(f"snapshot field {name!r}={shown(value)} is outside {lo}..{hi}")
    return value


def _int_list(data: dict[str, Any], name: str, length: int | None, lo: int, hi: int) -> list[int]:
    value = data.get(name)
    if not isinstance(value, list):
        raise SnapshotError(f"snapshot field {name!r} must be a list, got {type(value).__name__}")
    if length is not None and len(value) != length:
        raise SnapshotError(f"snapshot field {name!r} must have {length} entries, has {len(value)}")
    for i, x in enumerate(value):
        if isinstance(x, bool) or not isinstance(x, int) or not lo <= x <= hi:
            raise SnapshotError(
                f"snapshot field {name}[{i}]={shown(x)} must be an int in {lo}..{hi}"
            )
    return list(value)


def _bool_list(data: dict[str, Any], name: str, length: int) -> list[bool]:
    value = data.get(name)
    if not isinstance(value, list) or len(value) != length:
        raise SnapshotError(f"snapshot field {name!r} must be a list of {length} booleans")
    if not all(isinstance(x, bool) for x in value):
        raise SnapshotError(f"snapshot field {name!r} must hold only true/false")
    return list(value)


def validate_snapshot(data: Any) -> GameState:
    """The state a snapshot describes, or a SnapshotError naming what is wrong with it."""
    if not isinstance(data, dict):
        raise SnapshotError(f"a snapshot must be a JSON object, got {type(data).__name__}")
    expected = {"version", "config", "rng", "history", "events"} | {f.name for f in STATE_FIELDS}
    missing = expected - set(data)
    if missing:
        raise SnapshotError(f"snapshot is missing field(s) {sorted(missing)}")
    extra = set(data) - expected
    if extra:
        raise SnapshotError(f"snapshot has unknown field(s) {sorted(extra)}")
    if data["version"] != SNAPSHOT_VERSION:
        raise SnapshotError(
            f"snapshot field 'version'={shown(data['version'])}; "
            f"this engine reads {SNAPSHOT_VERSION}"
        )
    if not isinstance(data["config"], dict):
        raise SnapshotError("snapshot field 'config' must be an object")
    try:
        config = GameConfig.from_dict(data["config"])
    except (ConfigError, TypeError) as exc:
        raise SnapshotError(f"snapshot field 'config' is invalid: {exc}") from exc
    n = config.num_players
    state = GameState(config, 0)
    state.rng = _restore_rng(data["rng"])
    for field in STATE_FIELDS:
        setattr(state, field.name, _read_field(data, field, n))

    _check_seats(state)
    _check_holders(state)
    _check_outcome(state)
    _check_conservation(state)
    if (state.pending_kind == NO_ONE) != (state.pending_seat == NO_ONE):
        raise SnapshotError("snapshot fields pending_kind and pending_seat must both be set or -1")
    if state.phase != Phase.GAME_OVER and state.pending_kind == NO_ONE:
        raise SnapshotError("snapshot field 'pending_kind' is -1 but the game is not over")

    state.history = frozen_history(_history(data["history"], n))
    if state.decision_count != len(state.history) - 1:
        raise SnapshotError(
            f"snapshot field 'decision_count'={state.decision_count} but 'history' records "
            f"{len(state.history) - 1} decisions"
        )
    state.events = _events(data["events"])
    if state.events and not config.record_events:
        raise SnapshotError("snapshot field 'events' is not empty but config.record_events is off")
    if state.phase == Phase.GAME_OVER:
        if state.pending_kind != NO_ONE:
            raise SnapshotError("snapshot field 'pending_kind' is set but the game is over")
    else:
        _check_pending(state)
    _check_bids(state)
    return state


def _read_field(data: dict[str, Any], field: StateField, n: int) -> Any:
    """One registry field of the snapshot, checked against its kind, length and bounds."""

    def size(value: int) -> int:  # the registry's player-count placeholders
        return n if value == PER_SEAT else n - 1 if value == LAST_SEAT else value

    name, kind = field.name, field.kind
    hi, length = size(field.hi), size(field.length)
    fixed = None if length == ANY_LENGTH else length
    if kind == INT:
        return _int(data, name, field.lo, hi)
    if kind == FLAG:
        if not isinstance(data[name], bool):
            raise SnapshotError(f"snapshot field {name!r} must be true or false")
        return data[name]
    if kind == INTS:
        return _int_list(data, name, fixed, field.lo, hi)
    if kind == FLAGS:
        return _bool_list(data, name, length)
    if kind == NESTED:
        value = data[name]
        if not isinstance(value, list) or len(value) != field.rows:
            raise SnapshotError(f"snapshot field {name!r} must hold {field.rows} lists")
        return [_int_list({name: row}, name, fixed, field.lo, hi) for row in value]
    if kind == FLOATS:
        value = data[name]
        if (
            not isinstance(value, list)
            or len(value) != length
            or not all(isinstance(r, (int, float)) and not isinstance(r, bool) for r in value)
        ):
            raise SnapshotError(f"snapshot field {name!r} must be {length} numbers")
        try:
            numbers = [float(r) for r in value]
        except OverflowError:  # an integer of thousands of digits
            numbers = [math.inf]
        if not all(math.isfinite(r) for r in numbers):
            raise SnapshotError(f"snapshot field {name!r} must be {length} finite numbers")
        return numbers
    assert kind == LAST_BATTLE, kind
    value = data[name]
    if value == []:
        return None
    problem = check_flat(value, LAST_BATTLE_FIELDS, f"snapshot field {name!r}")
    if problem:
        raise SnapshotError(problem)
    return LastBattle.from_list(value)


def _check_conservation(state: GameState) -> None:
    """COMP-2, COMP-3: every piece and token is somewhere; MAP-4: no token on the Polar Cap."""
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


_BID_PHASES: Final = (Phase.BATTLE_BID_ATTACKER, Phase.BATTLE_BID_DEFENDER)


def _check_bids(state: GameState) -> None:
    """BATTLE-5: bids exist only while they are made, and commit only pieces the bidding side
    has in the battle: its units in the region, the leaders on its own or lent cards."""
    from .steps.battle import ATTACKER, DEFENDER, side_factions, side_leader_owners

    bidding = [ATTACKER] if state.phase == Phase.BATTLE_BID_ATTACKER else []
    if state.phase == Phase.BATTLE_BID_DEFENDER:
        bidding = [ATTACKER, DEFENDER]
    for side in (ATTACKER, DEFENDER):
        if side not in bidding:
            if any(state.bid_units[side]) or any(state.bid_leaders[side]):
                raise SnapshotError(
                    f"snapshot fields bid_units/bid_leaders hold a bid of side {side} outside "
                    "its bidding step"
                )
            continue
        if state.battle_region == NO_ONE or state.battle_defender == NO_ONE:
            raise SnapshotError(
                "snapshot fields battle_region and battle_defender must be set while bidding"
            )
        try:
            factions = set(side_factions(state, side))
            owners = set(side_leader_owners(state, side))
        except (IndexError, KeyError, ValueError) as exc:
            raise SnapshotError(f"snapshot's battle cannot be evaluated: {exc!r}") from exc
        for index, count in enumerate(state.bid_units[side]):
            faction, unit_type = divmod(index, NUM_UNIT_TYPES)
            present = state.units[faction][state.battle_region * NUM_UNIT_TYPES + unit_type]
            if count and (faction not in factions or count > present):
                raise SnapshotError(
                    f"snapshot field bid_units[{side}][{index}]={count}: the bidding side does "
                    "not have those units in the battle region"
                )
        for faction, count in enumerate(state.bid_leaders[side]):
            if count and (faction not in owners or count > state.leaders[faction][0]):
                raise SnapshotError(
                    f"snapshot field bid_leaders[{side}][{faction}]={count}: the bidding side "
                    "does not have that leader on a card it may use"
                )


def _restore_rng(rng: Any) -> ChanceRng:
    """The counter-based chance generator (docs/engine.md, Chance): the deal's 64-bit seed, the
    roll counter of the current turn, and forced outcomes, all of which are die faces (after
    set-up, the only draws are die rolls)."""
    if not isinstance(rng, dict) or set(rng) != {"seed", "turn_roll", "forced"}:
        raise SnapshotError(
            "snapshot field 'rng' must be {'seed': int, 'turn_roll': int, 'forced': [int]}"
        )
    forced = rng["forced"]
    if isinstance(forced, list) and len(forced) > MAX_FORCED:
        raise SnapshotError(f"snapshot field 'rng.forced' holds more than {MAX_FORCED} outcomes")
    outcomes = _int_list({"rng.forced": forced}, "rng.forced", None, 0, FACES_PER_DIE - 1)
    return ChanceRng(
        _int({"rng.seed": rng["seed"]}, "rng.seed", 0, (1 << 64) - 1),
        outcomes,
        _int({"rng.turn_roll": rng["turn_roll"]}, "rng.turn_roll", 0, 1 << 31),
    )


def _check_seats(state: GameState) -> None:
    """Seats hold distinct factions available at this player count (SETUP-5), agreeing with
    faction_seat; a seat is empty only during the draft, filled in draft order."""
    n = state.num_players
    config = state.config
    allowed = available_factions(n)
    drafting = state.phase == Phase.SETUP_DRAFT and config.faction_mode == "draft"
    seated = [f for f in state.seat_faction if f != NO_ONE]
    for seat, faction in enumerate(state.seat_faction):
        if faction == NO_ONE and not drafting:
            raise SnapshotError(
                f"snapshot field seat_faction[{seat}] is -1, but seats are empty only while "
                "factions are drafted"
            )
        if faction != NO_ONE and faction not in allowed:
            raise SnapshotError(
                f"snapshot field seat_faction[{seat}]={faction}: that faction is not played "
                f"with {n} players (SETUP-5); allowed {list(allowed)}"
            )
    if len(set(seated)) != len(seated):
        raise SnapshotError("snapshot field 'seat_faction' names a faction twice")
    for faction, seat in enumerate(state.faction_seat):
        if seat != NO_ONE and state.seat_faction[seat] != faction:
            raise SnapshotError(
                f"snapshot fields seat_faction and faction_seat disagree about faction {faction}"
            )
    for seat, faction in enumerate(state.seat_faction):
        if faction != NO_ONE and state.faction_seat[faction] != seat:
            raise SnapshotError(
                f"snapshot fields seat_faction and faction_seat disagree about seat {seat}"
            )
    if config.faction_mode == "assigned" and tuple(state.seat_faction) != config.factions:
        raise SnapshotError(
            f"snapshot field 'seat_faction'={state.seat_faction} differs from the assigned "
            f"config.factions={list(config.factions or ())}"
        )
    if drafting:  # SETUP-5: the seats right of the first player choose first, in turn
        order = [(state.first_seat - 1 - k) % n for k in range(len(seated))]
        if sorted(order) != [s for s, f in enumerate(state.seat_faction) if f != NO_ONE]:
            raise SnapshotError(
                "snapshot field 'seat_faction': the drafted seats are not those whose turn to "
                "choose has come (SETUP-5)"
            )


def _check_holders(state: GameState) -> None:
    """Every holder, ally, prediction, storage and queue names a faction in the game."""

    def in_game(faction: int) -> bool:
        return faction != NO_ONE and state.faction_seat[faction] != NO_ONE

    # (At the END-5 time-out the dice have passed on: the turn's fields are the last turn's.)
    active = state.seat_faction[state.active_seat] if state.phase != Phase.GAME_OVER else NO_ONE
    for name in ("shield_holder", "snooper_holder", "battle_defender"):
        value = getattr(state, name)
        if value != NO_ONE and not in_game(value):
            raise SnapshotError(f"snapshot field {name!r}={value}: that faction is not in the game")
    for name in ("ally", "offer_target"):
        value = getattr(state, name)
        if value != NO_ONE and (not in_game(value) or value == active):
            raise SnapshotError(
                f"snapshot field {name!r}={value} must be -1 or a faction in the game other "
                "than the active one"
            )
    prediction = state.bg_prediction
    if prediction != NO_ONE:
        if not in_game(Faction.BENE_GESSERIT):
            raise SnapshotError(
                "snapshot field 'bg_prediction' is set but the Bene Gesserit are not in the game"
            )
        if prediction == Faction.BENE_GESSERIT or not (
            in_game(prediction) or prediction == Faction.GUILD
        ):
            raise SnapshotError(
                f"snapshot field 'bg_prediction'={prediction}: BG-0 predicts another faction "
                "in the game, or the Guild"
            )
    for faction in range(NUM_FACTIONS):
        if state.thumpers[faction] and not in_game(faction):
            raise SnapshotError(
                f"snapshot field thumpers[{faction}]: that faction is not in the game"
            )
        if state.storage[faction] and (faction not in STORAGE_FACTIONS or not in_game(faction)):
            raise SnapshotError(
                f"snapshot field storage[{faction}]={state.storage[faction]}: only Corrino and "
                "the Guild in the game store spice (COR-2, GLD-1)"
            )
    for name in ("lend_queue",):
        queue = getattr(state, name)
        if len(set(queue)) != len(queue) or not all(in_game(f) for f in queue):
            raise SnapshotError(f"snapshot field {name!r} must list distinct factions in the game")
    for name in ("recruit_dice", "ally_dice"):
        dice = getattr(state, name)
        if len(set(dice)) != len(dice):
            raise SnapshotError(f"snapshot field {name!r} names a die twice")


def _check_outcome(state: GameState) -> None:
    """Winners and rewards: empty and zero until the game is over, then END-7's rewards."""
    if state.phase != Phase.GAME_OVER:
        if state.winners:
            raise SnapshotError("snapshot field 'winners' is not empty but the game is not over")
        if any(state.rewards):
            raise SnapshotError("snapshot field 'rewards' is not zero but the game is not over")
        return
    if state.pending_kind != NO_ONE:
        raise SnapshotError("snapshot field 'pending_kind' is set but the game is over")
    if state.winners != sorted(set(state.winners)):
        raise SnapshotError("snapshot field 'winners' must list distinct seats in order")
    cfg = state.config
    want = [
        float(cfg.win_reward if seat in state.winners else cfg.loss_reward)
        for seat in range(state.num_players)
    ]
    if state.rewards != want:
        raise SnapshotError(
            f"snapshot field 'rewards'={state.rewards} does not match the winners "
            f"{state.winners} (END-7 gives {want})"
        )


def _history(history: Any, n: int) -> list[HistoryRow]:
    """Rows [seat, kind, option, forced, chance outcomes...]; row 0 holds only set-up chance."""
    if not isinstance(history, list) or not history:
        raise SnapshotError("snapshot field 'history' must be a non-empty list of rows")
    if len(history) > MAX_HISTORY_ROWS:
        raise SnapshotError(
            f"snapshot field 'history' has {len(history)} rows; at most {MAX_HISTORY_ROWS} "
            "are accepted"
        )
    rows = []
    for i, row in enumerate(history):
        name = f"history[{i}]"
        if not isinstance(row, list) or not 4 <= len(row) <= MAX_ROW_LENGTH:
            raise SnapshotError(
                f"snapshot field {name} must be a list of 4 to {MAX_ROW_LENGTH} ints"
            )
        if not all(isinstance(x, int) and not isinstance(x, bool) for x in row):
            raise SnapshotError(f"snapshot field {name} must hold only ints")
        seat, kind, option, forced = row[:4]
        if i == 0:
            if row[:4] != [NO_ONE, NO_ONE, NO_ONE, 0]:
                raise SnapshotError(f"snapshot field {name} must start [-1, -1, -1, 0]")
        elif not (
            0 <= seat < n
            and 0 <= kind < NUM_DECISION_KINDS
            and 0 <= option < OPTION_COUNTS[kind]
            and forced in (0, 1)
        ):
            raise SnapshotError(
                f"snapshot field {name}={row[:4]} is not [seat, decision kind, option of that "
                "kind, forced 0/1]"
            )
        if not all(0 <= x < NUM_FACTIONS for x in row[4:]):
            raise SnapshotError(f"snapshot field {name} has a chance outcome outside 0..7")
        rows.append(HistoryRow.from_list(row))
    return rows


def _events(events: Any) -> list[tuple[int, ...]]:
    """Each event a list of ints (EventKind first) that the log can render."""
    if not isinstance(events, list):
        raise SnapshotError("snapshot field 'events' must be a list")
    if len(events) > MAX_EVENTS:
        raise SnapshotError(
            f"snapshot field 'events' has {len(events)} entries; at most {MAX_EVENTS} are accepted"
        )
    out = []
    for i, event in enumerate(events):
        name = f"events[{i}]"
        if (
            not isinstance(event, list)
            or not 1 <= len(event) <= MAX_EVENT_LENGTH
            or not all(isinstance(x, int) and not isinstance(x, bool) for x in event)
            or not all(-1 <= x <= 255 for x in event)
        ):
            raise SnapshotError(
                f"snapshot field {name} must be 1 to {MAX_EVENT_LENGTH} ints in -1..255"
            )
        problem = check_event(event, f"snapshot field {name}")
        if problem:
            raise SnapshotError(problem)
        item = tuple(event)
        try:
            render(item)
        except (IndexError, KeyError, ValueError, TypeError) as exc:
            raise SnapshotError(
                f"snapshot field {name}={shown(event)} is not a valid event: {exc}"
            ) from exc
        out.append(item)
    return out


def _check_pending(state: GameState) -> None:
    """The pending decision must be the one the phase's runner poses in this state (re-derived
    on a copy), with a legal option, and not a forced one that the engine would have skipped."""
    from .core import RUNNERS, clear_pending
    from .game import legal_options

    kind, seat = state.pending_kind, state.pending_seat
    probe = state.clone()
    clear_pending(probe)
    try:
        RUNNERS[state.phase](probe)
        posed = (probe.phase, probe.pending_kind, probe.pending_seat)
        options = legal_options(state) if posed == (state.phase, kind, seat) else []
    except (IndexError, KeyError, AssertionError, ValueError, TypeError) as exc:
        raise SnapshotError(
            f"snapshot's pending decision cannot be evaluated from its fields: {exc!r}"
        ) from exc
    if posed != (state.phase, kind, seat):
        what = (
            f"poses {DecisionKind(probe.pending_kind).name} to seat {probe.pending_seat}"
            if probe.phase == state.phase and probe.pending_kind != NO_ONE
            else "poses no decision"
        )
        raise SnapshotError(
            f"snapshot field 'pending_kind'={kind} (seat {seat}) is not the decision of phase "
            f"{Phase(state.phase).name}, which in this state {what}"
        )
    if not options:
        raise SnapshotError("snapshot's pending decision has no legal option")
    if len(options) == 1 and state.config.skip_forced_decisions:
        raise SnapshotError(
            f"snapshot field 'pending_kind': {DecisionKind(kind).name} has a single legal option, "
            "which the engine applies without asking (config.skip_forced_decisions)"
        )
