"""The engine's machinery: step runners, decision handlers, chance and events.

Each step module registers a *runner* per phase: it either poses the pending decision (`ask`)
or moves the phase on; runners are idempotent, set-up work happens in the transition that
enters a phase.  Each step module also declares a `DecisionSpec` per decision kind it poses
(`DECISION_SPECS`, see `dune_env.engine.decision_spec`): the one legality function used both
for the legal mask and for checking an applied option, and the function applying an option.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from .constants import NO_ONE
from .decision_spec import DecisionKind
from .records import history_row
from .state import GameState, Phase

RunFn = Callable[[GameState], None]

RUNNERS: Final[dict[int, RunFn]] = {}


def runner(*phases: Phase) -> Callable[[RunFn], RunFn]:
    def register(fn: RunFn) -> RunFn:
        for phase in phases:
            if phase in RUNNERS:
                raise AssertionError(f"two runners for {phase.name}")
            RUNNERS[phase] = fn
        return fn

    return register


def legal_yes_no(state: GameState) -> list[int]:
    """The options of every yes/no decision: 0 no, 1 yes."""
    return [0, 1]


def ask(state: GameState, kind: int, seat: int) -> None:
    state.pending_kind = int(kind)
    state.pending_seat = seat
    state.legal_cache = None


def ask_faction(state: GameState, kind: DecisionKind, faction: int) -> None:
    ask(state, kind, state.faction_seat[faction])


def ask_known(state: GameState, kind: DecisionKind, seat: int, options: list[int]) -> None:
    """`ask` when the runner has just computed the legal options: keep them."""
    ask(state, kind, seat)
    state.legal_cache = options


def emit(state: GameState, *event: int) -> None:
    if state.config.record_events:
        # Plain ints (no IntEnum, no bool); compiled, int() of an int is free, a call of
        # `map(int, ...)` is not.
        state.events.append(tuple([int(value) for value in event]))


def draw(state: GameState, n: int, event: int, index: int = 0) -> int:
    """Outcome `index` in [0, n) of the chance event `event` (a `state.rng.prefix(...)`),
    recorded next to the decision it follows."""
    value = state.rng.below(n, event, index)
    history = state.history
    row = history[-1]
    chance = row.chance
    if isinstance(chance, list):
        chance.append(value)
    else:  # the row's first outcome: a new row, open to appends (clones share the old one)
        history[-1] = history_row(row.seat, row.kind, row.option, row.forced, [*chance, value])
    return value


def goto(state: GameState, phase: int) -> None:
    state.phase = int(phase)


def clear_pending(state: GameState) -> None:
    state.pending_kind = NO_ONE
    state.pending_seat = NO_ONE
    state.legal_cache = None
