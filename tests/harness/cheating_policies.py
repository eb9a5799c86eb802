"""Policies that cheat from inside their own code (issue 31, items 1 and 2), each with an honest
twin that chooses exactly as it does when its cheat finds nothing to cheat with.  Loaded as
`tests.harness.cheating_policies:NAME`."""

from __future__ import annotations

import gc
import sys
import zlib
from collections.abc import Iterator
from typing import Any

import numpy as np

from dune_env.engine import Game
from dune_env.engine.constants import RESERVE
from dune_env.engine.map_data import DEFAULT_MAP
from dune_env.policies.base import RandomPolicy

_NETWORK: list[Any] = []


def _choose(observation: np.ndarray, action_mask: np.ndarray) -> int:
    """The shipped ppo-4p network's action (the same in every process)."""
    if not _NETWORK:
        from dune_env.policies.registry import CHECKPOINT_DIR, SHIPPED_MODELS
        from dune_env.policies.weights import weights_policy

        _NETWORK.append(weights_policy(str(CHECKPOINT_DIR / SHIPPED_MODELS["ppo-4p"])))
    return int(_NETWORK[0](observation, action_mask))


def _board(game: Game, seat: int) -> None:
    """The issue's attack: the seat's reserve units moved onto the strategic regions (all but
    six, so that the decision being taken still finds the units it counts on)."""
    state = game.state
    units = state.units[state.seat_faction[seat]]
    regions = [r for r in DEFAULT_MAP.strategic_regions if r != state.battle_region]
    for k in range(max(0, units[RESERVE * 2] - 6)):
        units[regions[k % len(regions)] * 2] += 1
        units[RESERVE * 2] -= 1


def _frames_with_a_game() -> Iterator[tuple[Game, Any]]:
    """(game, the frame's `seat` or None) for every frame up the stack holding a Game."""
    frame = sys._getframe(1)
    while frame is not None:
        for value in list(frame.f_locals.values()):
            if isinstance(value, Game):
                yield value, frame.f_locals.get("seat")
        frame = frame.f_back


def honest_observer(observation: np.ndarray, action_mask: np.ndarray) -> int:
    return _choose(observation, action_mask)


def frame_walker(observation: np.ndarray, action_mask: np.ndarray) -> int:
    """An observation callable that walks up its callers' frames to a Game and its seat, and
    moves that seat's reserve onto the board, then chooses as `honest_observer` (the ppo-4p
    network)."""
    for game, seat in _frames_with_a_game():
        if isinstance(seat, int) and not game.terminal:
            _board(game, seat)
            break
    return _choose(observation, action_mask)


def _pick(observation: np.ndarray, action_mask: np.ndarray) -> int:
    """A legal action picked from the observation alone (cheap; the same in every process)."""
    legal = np.flatnonzero(action_mask)
    return int(legal[zlib.crc32(observation.tobytes()) % len(legal)])


def honest_picker(observation: np.ndarray, action_mask: np.ndarray) -> int:
    return _pick(observation, action_mask)


def gc_walker(observation: np.ndarray, action_mask: np.ndarray) -> int:
    """An observation callable that searches the garbage collector for every unfinished Game
    and moves the reserve of the seat deciding there onto the board, then picks as
    `honest_picker`."""
    for game in [o for o in gc.get_objects() if isinstance(o, Game)]:
        if not game.terminal and game.state.pending_seat >= 0:
            _board(game, game.state.pending_seat)
    return _pick(observation, action_mask)


class FrameWalkingEngine(RandomPolicy):
    """An engine policy, handed a copy of the game, that walks up to its callers' frames for
    another Game (the live one) and edits it; then plays as RandomPolicy."""

    def act(self, game: Game, seat: int) -> int:
        for other, _ in _frames_with_a_game():
            if other is not game and not other.terminal:
                _board(other, seat)
                break
        return super().act(game, seat)


class ResultPatcher(RandomPolicy):
    """Plays as RandomPolicy, but first patches, in its own process, every way a result could
    travel to the benchmark: the pickling of `Outcome` (a win of a kind that does not exist
    for its seat), `SeatResult`, and the encoder of the worker's message (a forged record)."""

    def act(self, game: Game, seat: int) -> int:
        import dune_env.match as match

        if not getattr(match.Outcome, "forged", False):
            outcome_class = match.Outcome

            def forged_reduce(self: Any) -> tuple[Any, ...]:
                n = len(self.rewards)
                rewards = tuple(1.0 if s == seat else -1.0 for s in range(n))
                fields = ((seat,), rewards, self.factions, "control", 0, self.rounds)
                return outcome_class, (*fields, self.decisions, self.luck)

            match.Outcome.__reduce__ = forged_reduce  # type: ignore[method-assign]
            match.Outcome.forged = True  # type: ignore[attr-defined]
            try:
                import dune_env.harness.replayed as replayed
                import dune_env.harness.types as types

                original_init = types.SeatResult.__init__

                def forged_init(row: Any, *args: Any, **kwargs: Any) -> None:
                    original_init(row, *args, **kwargs)
                    row.won, row.reward = 1, 1.0

                types.SeatResult.__init__ = forged_init  # type: ignore[method-assign]
                replayed.encode_played = lambda result: b'{"options":[0],"luck":[]}'
            except ImportError:  # a version without them
                pass
        return super().act(game, seat)
