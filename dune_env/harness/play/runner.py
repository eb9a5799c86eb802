"""Play one scheduled game in a worker process (`safe_play`), or in this one (`play_game`).

The games are played by `dune_env.match` (the seating, seeding and decision loop that the
replays use too); this module keeps each process's policy objects and turns failures into
`GameFailure`s.  The schedule is a function of (policies, number of players, number of games,
seed) only, and each game is played by freshly reseeded policies, so results do not depend on
the number of workers or on which worker played which game.

What is protected: a policy whose code is not the project's plays in a process of its own
(hosts.py), so nothing it does reaches this worker's live game; a policy that is not one of the
project's registered built-in classes (checked by class identity, not by module name) decides
on a clone of the game; and the worker sends back only the game's decisions (`play_record`), which
the benchmark's own process replays to derive every result (replayed.py).  What is not: a
policy is a program run with the user's permissions (SECURITY.md).
"""

from __future__ import annotations

import traceback
from collections.abc import MutableSequence
from dataclasses import replace
from pathlib import Path

from ...match import (
    DEFAULT_MAX_DECISIONS,
    GameSpec,
    Outcome,
    PolicyActionError,
    final_outcome,
    play_seated,
    seat_policy,
    seat_spec,
)
from ...policies.base import EnginePolicy
from ...policies.registry import runs_foreign_code
from .hosts import HostedPolicy, PolicyHost, PolicyProcessDied
from .types import GameFailure, GameRecord, Played, SeatResult

_POLICY_CACHE: dict[tuple[str, int, int], EnginePolicy] = {}
_HOSTS: dict[tuple[str, int], PolicyHost] = {}


def _policy(spec: str, seat: int) -> EnginePolicy:
    """One policy object per (spec, seat) and process, reseeded before every game; a spec that
    names a file is reloaded when the file changes.  A policy whose code is not the project's
    plays in a process of its own (hosts.py; one per spec, started again if it ended): the
    object here is its stand-in."""
    path = Path(spec)
    version = path.stat().st_mtime_ns if path.exists() else 0
    key = (spec, seat, version)
    cached = _POLICY_CACHE.get(key)
    if isinstance(cached, HostedPolicy) and cached.host.dead:
        cached = None
    if cached is None:
        if runs_foreign_code(spec):
            host = _HOSTS.get((spec, version))
            if host is None or host.dead:
                for old in [k for k in _HOSTS if k[0] == spec]:  # an earlier file version's
                    _HOSTS.pop(old).stop()
                host = _HOSTS[(spec, version)] = PolicyHost(spec)
            cached = HostedPolicy(host, seat)
        else:
            cached = seat_policy(spec, seat)
        _POLICY_CACHE[key] = cached
    return cached


def play_record(
    spec: GameSpec,
    max_decisions: int = DEFAULT_MAX_DECISIONS,
    status: MutableSequence[float] | None = None,
) -> GameRecord:
    """Play one scheduled game with this process's policies; its record (the chosen options,
    and each seat's luck when the game measures it).  Raises PolicyActionError if a policy
    plays an illegal option, raises or runs past `max_decisions`.  `status` (if given) is kept
    at [deciding seat, decision number, time.monotonic() when it was asked] for a watchdog."""
    policies = [_policy(p, seat) for seat, p in enumerate(spec.seat_policies)]
    game, seated = seat_spec(spec, policies)
    if not spec.luck_samples:
        play_seated(spec, game, seated, max_decisions, status)
        return GameRecord(tuple(game.chosen_options()))
    from .luck import LuckMeter, value_model

    meter = LuckMeter(game, spec.luck_samples, spec.seed, value_model(spec.luck_model))
    play_seated(spec, game, seated, max_decisions, status, step=meter.apply)
    return GameRecord(tuple(game.chosen_options()), meter.result())


def play_outcome(
    spec: GameSpec,
    max_decisions: int = DEFAULT_MAX_DECISIONS,
    status: MutableSequence[float] | None = None,
) -> Outcome:
    """Play one scheduled game in this process; its outcome, from the replay of its record
    (`replayed.derive_rows`, as the benchmark derives it)."""
    from ...game_log import replay

    record = play_record(spec, max_decisions, status)
    game, _ = replay(spec, record.options)
    return replace(final_outcome(game), luck=record.luck)


def play_game(
    spec: GameSpec,
    max_decisions: int = DEFAULT_MAX_DECISIONS,
    status: MutableSequence[float] | None = None,
) -> list[SeatResult]:
    """Play one scheduled game in this process: its result rows, derived from the replay of
    its decisions as the benchmark derives them (`replayed.as_rows`)."""
    from .replayed import as_rows

    item = as_rows((spec, play_record(spec, max_decisions, status)))
    if isinstance(item[1], GameFailure):
        raise ValueError(item[1].error)
    return item[1]


def safe_play(
    spec: GameSpec,
    max_decisions: int = DEFAULT_MAX_DECISIONS,
    status: MutableSequence[float] | None = None,
) -> Played:
    """Play one game; any failure, even a policy's SystemExit or KeyboardInterrupt, becomes a
    GameFailure.  (Only called in worker processes, which ignore the user's Ctrl-C.)"""
    try:
        return spec, play_record(spec, max_decisions, status)
    except PolicyActionError as exc:
        return spec, GameFailure.of(spec, str(exc), traceback.format_exc(), exc.policy, exc.kind)
    except PolicyProcessDied as exc:  # a hosted policy's process died: one lost game
        error = f"{exc} in game {spec.index}"
        return spec, GameFailure.of(spec, error, traceback.format_exc(), exc.policy, "crash")
    except (SystemExit, KeyboardInterrupt) as exc:  # raised by a policy: one lost game
        seat = int(status[0]) if status is not None else -1
        policy = spec.seat_policies[seat] if 0 <= seat < len(spec.seat_policies) else ""
        who = f"policy {policy!r} (seat {seat})" if policy else "the game"
        error = f"{who} raised {type(exc).__name__}({exc}) in game {spec.index}"
        return spec, GameFailure.of(spec, error, traceback.format_exc(), policy, "exit")
    except Exception as exc:  # one failing game must not lose the others
        return spec, GameFailure.of(spec, str(exc), traceback.format_exc())
