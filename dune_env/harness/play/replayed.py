"""Results the benchmark derives itself: a worker sends a game's decisions, the benchmark's own
process replays them.

A worker process plays a game and sends back only its record (`GameRecord`): the option chosen
at each decision, in order (forced decisions, which the engine plays itself, excluded: what
`Game.chosen_options` lists), and in a luck-adjusted run each seat's summed dice luck.  It
travels as JSON bytes (`encode_played` / `decode_played`), never as a pickled object, so
nothing a worker sends can run code in the benchmark's process, and it is bounded in size.

The benchmark's process then replays the decisions on its own engine from the deal's seed
(`game_log.replay`: `GameSpec` -> `Game`; 1-2 ms a 4-player game on the compiled build) and
takes every field of the game's rows in results.csv from that replay (`derive_rows`): winners,
rewards, factions, win kind, rounds, decisions.  A decision that is not legal where it is
replayed, or a game that is not over exactly at its last decision, fails the game
(`NotReplayed`): nothing a worker does -- patching `Outcome`, `SeatResult` or their pickling in
its process, editing its game -- changes a recorded result.

Dice luck (harness/play/luck.py) is the one figure the replay does not recompute as the games come
in: it is an expectation over resampled rolls, ~0.45 s a game at 16 samples against ~1-2 ms for
the replay, and recomputing it in the benchmark's single process would cap a luck-adjusted run
at about two games a second whatever the number of workers.  The worker computes it (the
worker runs only the project's code: policies that are not built in play in their own
processes, harness/play/hosts.py), and the benchmark checks it (`checked_luck`): one finite value
per seat and metric, each within the range the replayed game allows (each roll moves a seat's
luck by less than 1 either way, so |luck| < the number of rolls the replay counted).  On
`--resume` it is recomputed exactly from the decisions (`expected_rows`), since results.csv is
a file anyone may have edited.

decisions.jsonl (`game_log.DECISIONS_FILE`, beside results.csv): one line per finished game,
`{"game": g, "seed": s, "options": [...]}`: an exact replay of every game of the run, and what
`--resume` checks results.csv against (resume_check.py).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, Final

from ...engine import Game
from ...game_log import (
    NotReplayed,
    checked_options,
    replay,
)
from ...match import GameSpec, Outcome, final_outcome
from .types import GameFailure, GameRecord, GameRows, Item, Played, SeatResult, seat_rows

MAX_MESSAGE_BYTES: Final = 1 << 20  # a worker's message: ~7 bytes an option, a failure's text
MAX_ERROR_CHARS: Final = 4_000  # a failure's one-line error as kept
MAX_DETAIL_CHARS: Final = 64_000  # a failure's traceback as kept
FAILURE_KINDS: Final = ("illegal", "exception", "exit", "crash", "timeout", "decision-cap", "error")


# --- the worker's message -------------------------------------------------------------------


def encode_played(result: GameRecord | GameFailure) -> bytes:
    """A worker's result as the bytes it sends (`decode_played` reads them)."""
    if isinstance(result, GameFailure):
        message: dict[str, Any] = {
            "failure": {
                "error": result.error[:MAX_ERROR_CHARS],
                "detail": result.detail[-MAX_DETAIL_CHARS:],
                "policy": str(result.policy),
                "kind": result.kind,
            }
        }
    else:
        message = {"options": list(result.options), "luck": [list(s) for s in result.luck]}
    return json.dumps(message, separators=(",", ":")).encode()


def decode_played(spec: GameSpec, data: bytes) -> GameRecord | GameFailure:
    """The result a worker sent for the game `spec` (the benchmark's own: what the worker says
    about the game's index or seed is not asked).  NotReplayed when it is not a well-formed
    result of that game."""
    if len(data) > MAX_MESSAGE_BYTES:
        raise NotReplayed(f"its message has {len(data)} bytes, more than {MAX_MESSAGE_BYTES}")
    try:
        message = json.loads(data)
    except (ValueError, RecursionError) as exc:
        raise NotReplayed(f"its message is not JSON ({type(exc).__name__})") from None
    if not isinstance(message, dict):
        raise NotReplayed("its message is not a JSON object")
    if set(message) == {"failure"}:
        return _failure(spec, message["failure"])
    if set(message) != {"options", "luck"}:
        raise NotReplayed(f"its message has the keys {sorted(map(str, message))[:5]}")
    options = checked_options(message["options"])
    luck = message["luck"]
    if not isinstance(luck, list) or not all(isinstance(s, list) for s in luck):
        raise NotReplayed("its luck is not a list of lists of numbers")
    if len(luck) > spec.num_players:
        raise NotReplayed(f"it has the luck of {len(luck)} seats in a {spec.num_players}-seat game")
    values = tuple(tuple(_number(v, "luck") for v in seat) for seat in luck)
    return GameRecord(options, values)


def _failure(spec: GameSpec, data: Any) -> GameFailure:
    if not isinstance(data, dict) or set(data) != {"error", "detail", "policy", "kind"}:
        raise NotReplayed("its failure is not an object with error, detail, policy and kind")
    if not all(isinstance(v, str) for v in data.values()):
        raise NotReplayed("its failure's fields are not all text")
    if data["kind"] not in FAILURE_KINDS:
        raise NotReplayed(f"its failure kind {data['kind'][:40]!r} is none of the harness's")
    if data["policy"] and data["policy"] not in spec.seat_policies:
        raise NotReplayed(f"its failure blames {data['policy'][:80]!r}, not a policy of the game")
    return GameFailure.of(
        spec,
        data["error"][:MAX_ERROR_CHARS],
        data["detail"][-MAX_DETAIL_CHARS:],
        data["policy"],
        data["kind"],
    )


def _number(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise NotReplayed(f"its {what} holds something that is not a number")
    try:
        number = float(value)
    except OverflowError:
        number = math.inf
    if not math.isfinite(number):
        raise NotReplayed(f"its {what} holds a number that is not finite")
    return number


# --- the benchmark's replay -----------------------------------------------------------------


def checked_luck(
    luck: tuple[tuple[float, ...], ...], spec: GameSpec, rolls: int
) -> tuple[tuple[float, ...], ...]:
    """A worker's luck for the game `spec` whose replay rolled `rolls` times: none unless the
    game measures it, else one finite value per seat and metric within (-rolls, rolls)."""
    from .luck import LUCK_METRICS

    if not spec.luck_samples:
        if luck:
            raise NotReplayed("it sent dice luck for a game that does not measure it")
        return ()
    shape = (spec.num_players, len(LUCK_METRICS))
    if len(luck) != shape[0] or any(len(seat) != shape[1] for seat in luck):
        raise NotReplayed(f"its luck is not {shape[1]} values for each of {shape[0]} seats")
    if any(not (abs(v) < rolls or v == 0) for seat in luck for v in seat):
        raise NotReplayed(
            f"its luck holds a value outside (-{rolls}, {rolls}), more than the game's {rolls} "
            "rolls can give"
        )
    return luck


def derive_rows(spec: GameSpec, record: GameRecord) -> GameRows:
    """The results.csv rows of the game `spec`, taken from this process's replay of `record`
    (luck: `checked_luck`).  NotReplayed if the record does not replay."""
    game, rolls = replay(spec, record.options)
    outcome = replace(final_outcome(game), luck=checked_luck(record.luck, spec, rolls))
    return GameRows(seat_rows(spec, outcome), record.options)


def as_rows(item: Played) -> Item:
    """A worker's item with its record replayed into rows here (`replayed.derive_rows`), or a
    failure if it does not replay."""
    spec, result = item
    if isinstance(result, GameFailure):
        return spec, result
    try:
        return spec, derive_rows(spec, result)
    except NotReplayed as exc:
        error = f"the decisions sent for game {spec.index} were refused: {exc}"
        return spec, GameFailure.of(spec, error)


def expected_rows(spec: GameSpec, options: Sequence[int]) -> list[SeatResult]:
    """The rows the game `spec` played with `options` must have, everything recomputed here:
    the replay's outcome, and in a luck-adjusted run the luck measured again on it (what a
    resumed run's rows are checked against)."""
    if not spec.luck_samples:
        return list(derive_rows(spec, GameRecord(tuple(options))))
    from .luck import LuckMeter, value_model

    replay(spec, options)  # NotReplayed before any luck is measured
    game = Game(spec.game_config(), seed=spec.seed)
    meter = LuckMeter(game, spec.luck_samples, spec.seed, value_model(spec.luck_model))
    for option in options:
        meter.apply(game, option)
    outcome: Outcome = replace(final_outcome(game), luck=meter.result())
    return seat_rows(spec, outcome)
