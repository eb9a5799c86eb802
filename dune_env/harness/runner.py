"""Play one scheduled game in a worker process (`safe_play`), or in this one (`play_game`).

The games are played by `dune_env.match` (the seating, seeding and decision loop that the
replays use too); this module keeps each process's policy objects and turns failures into
`GameFailure`s.  The schedule is a function of (policies, number of players, number of games,
seed) only, and each game is played by freshly reseeded policies, so results do not depend on
the number of workers or on which worker played which game.

What is protected: a policy that is not one of the project's registered built-in classes
(checked by class identity, not by module name) decides on a clone of the game, so editing
the game it is given changes nothing; and the worker sends back only the engine's final
outcome as plain data, from which the benchmark's own process builds the result rows, so a
policy that patches the harness's classes in its worker (e.g. `SeatResult`) changes no
recorded result.  What is not: `module:attr` policies are trusted code (SECURITY.md); one that
rewrites the engine or `dune_env.match` in its worker process can still forge its games.
"""

from __future__ import annotations

import traceback
from collections.abc import MutableSequence
from dataclasses import replace
from pathlib import Path

from ..match import (
    DEFAULT_MAX_DECISIONS,
    WIN_KINDS,
    GameSpec,
    Outcome,
    PolicyActionError,
    final_outcome,
    lineup,
    play_seated,
    play_spec,
    schedule,
    seat_policy,
    seat_spec,
)
from ..policies.base import EnginePolicy
from .types import GameFailure, Played, SeatResult, seat_rows

_POLICY_CACHE: dict[tuple[str, int, int], EnginePolicy] = {}


def _policy(spec: str, seat: int) -> EnginePolicy:
    """One policy object per (spec, seat) and process, reseeded before every game; a spec that
    names a file is reloaded when the file changes."""
    path = Path(spec)
    version = path.stat().st_mtime_ns if path.exists() else 0
    key = (spec, seat, version)
    if key not in _POLICY_CACHE:
        _POLICY_CACHE[key] = seat_policy(spec, seat)
    return _POLICY_CACHE[key]


def play_outcome(
    spec: GameSpec,
    max_decisions: int = DEFAULT_MAX_DECISIONS,
    status: MutableSequence[float] | None = None,
) -> Outcome:
    """Play one scheduled game with this process's policies; its outcome.  Raises
    PolicyActionError if a policy plays an illegal option, raises or runs past
    `max_decisions`.  `status` (if given) is kept at [deciding seat, decision number,
    time.monotonic() when it was asked] for a watchdog."""
    policies = [_policy(p, seat) for seat, p in enumerate(spec.seat_policies)]
    if not spec.luck_samples:
        return final_outcome(play_spec(spec, policies, max_decisions=max_decisions, status=status))
    from .luck import LuckMeter, value_model

    game, seated = seat_spec(spec, policies)
    meter = LuckMeter(game, spec.luck_samples, spec.seed, value_model(spec.luck_model))
    play_seated(spec, game, seated, max_decisions, status, step=meter.apply)
    return replace(final_outcome(game), luck=meter.result())


def play_game(
    spec: GameSpec,
    max_decisions: int = DEFAULT_MAX_DECISIONS,
    status: MutableSequence[float] | None = None,
) -> list[SeatResult]:
    """Play one scheduled game in this process: its result rows (see `play_outcome`)."""
    return seat_rows(spec, play_outcome(spec, max_decisions, status))


def safe_play(
    spec: GameSpec,
    max_decisions: int = DEFAULT_MAX_DECISIONS,
    status: MutableSequence[float] | None = None,
) -> Played:
    """Play one game; any failure, even a policy's SystemExit or KeyboardInterrupt, becomes a
    GameFailure.  (Only called in worker processes, which ignore the user's Ctrl-C.)"""
    try:
        return spec, play_outcome(spec, max_decisions, status)
    except PolicyActionError as exc:
        return spec, GameFailure(
            spec.index, spec.seed, str(exc), traceback.format_exc(), exc.policy, exc.kind
        )
    except (SystemExit, KeyboardInterrupt) as exc:  # raised by a policy: one lost game
        seat = int(status[0]) if status is not None else -1
        policy = spec.seat_policies[seat] if 0 <= seat < len(spec.seat_policies) else ""
        who = f"policy {policy!r} (seat {seat})" if policy else "the game"
        return spec, GameFailure(
            spec.index,
            spec.seed,
            f"{who} raised {type(exc).__name__}({exc}) in game {spec.index}",
            traceback.format_exc(),
            policy,
            "exit",
        )
    except Exception as exc:  # one failing game must not lose the others
        return spec, GameFailure(spec.index, spec.seed, str(exc), traceback.format_exc())


__all__ = [
    "DEFAULT_MAX_DECISIONS",
    "GameFailure",
    "GameSpec",
    "PolicyActionError",
    "SeatResult",
    "WIN_KINDS",
    "lineup",
    "play_game",
    "play_outcome",
    "safe_play",
    "schedule",
]
