"""Deliberately misbehaving policies for the harness robustness tests (loaded as
`tests.harness.bad_policies:NAME`)."""

from __future__ import annotations

import os
import signal
import sys
import time

from dune_env.engine import Game
from dune_env.engine.constants import RESERVE
from dune_env.policies.base import RandomPolicy


class _Once(RandomPolicy):
    """Plays as RandomPolicy does, but misbehaves at its `after`-th decision of every game
    with an even game seed (the harness reseeds with game_seed * 16 + seat), so that with
    --seed 0 games 0, 2, 4, ... go wrong and games 1, 3, 5, ... are played normally."""

    after = 3
    every_game = False

    def __init__(self, seed: int = 0) -> None:
        super().__init__(seed)
        self.calls = 0
        self.bad_game = False

    def reseed(self, seed: int) -> None:
        super().reseed(seed)
        self.calls = 0
        self.bad_game = self.every_game or (seed // 16) % 2 == 0

    def act(self, game: Game, seat: int) -> int:
        self.calls += 1
        if self.bad_game and self.calls >= self.after:
            self.misbehave(game, seat)
        return super().act(game, seat)

    def misbehave(self, game: Game, seat: int) -> None:
        raise NotImplementedError


class Hang(_Once):
    def misbehave(self, game: Game, seat: int) -> None:
        time.sleep(3600)


class Exit(_Once):
    def misbehave(self, game: Game, seat: int) -> None:
        sys.exit(3)


class Interrupt(_Once):
    def misbehave(self, game: Game, seat: int) -> None:
        raise KeyboardInterrupt


class HardExit(_Once):
    def misbehave(self, game: Game, seat: int) -> None:
        os._exit(7)


class SelfKill(_Once):
    def misbehave(self, game: Game, seat: int) -> None:
        os.kill(os.getpid(), signal.SIGKILL)


class Editor(_Once):
    """Edits the game it is given (rewinds the round, moves its reserve onto the map), then
    plays exactly as RandomPolicy would."""

    after = 1
    every_game = True

    def misbehave(self, game: Game, seat: int) -> None:
        state = game.state
        state.round = 1
        faction = state.seat_faction[seat]
        units = state.units[faction]
        units[3 * 2] += units[RESERVE * 2]
        units[RESERVE * 2] = 0


def slow_observation_policy(observation: object, action_mask: object) -> int:
    time.sleep(3600)
    return 0


class Raise(_Once):
    """Raises an ordinary exception: a failure that ends by itself when the game is replayed."""

    def misbehave(self, game: Game, seat: int) -> None:
        raise RuntimeError("deliberate failure")


class SpoofedEditor(Editor):
    """An `Editor` whose class claims to be one of the project's heuristics: the harness must
    not trust a policy by its module name."""


SpoofedEditor.__module__ = "dune_env.policies.heuristics"


class ResultForger(RandomPolicy):
    """Plays as RandomPolicy does, but at its first decision rewrites the harness's result
    class in its (worker) process so that every row records a win with reward 1."""

    def act(self, game: Game, seat: int) -> int:
        from dune_env.harness.play.types import SeatResult

        original = SeatResult.__init__
        if not getattr(original, "forged", False):

            def forged(self: object, *args: object, **kwargs: object) -> None:
                original(self, *args, **kwargs)  # type: ignore[arg-type]
                self.won = 1  # type: ignore[attr-defined]
                self.reward = 1.0  # type: ignore[attr-defined]

            forged.forged = True  # type: ignore[attr-defined]
            SeatResult.__init__ = forged  # type: ignore[method-assign]
        return super().act(game, seat)


class Chatty(RandomPolicy):
    """Plays as RandomPolicy does, but prints a megabyte (stdout, then stderr, then through the
    file descriptor) at each of its first decisions of every game."""

    def reseed(self, seed: int) -> None:
        super().reseed(seed)
        self.calls = 0

    def act(self, game: Game, seat: int) -> int:
        self.calls = getattr(self, "calls", 0) + 1
        if self.calls <= 8:
            print("chatty " + "x" * 1_000_000)
            print("chatty on stderr", file=sys.stderr)
            os.write(1, b"chatty through fd 1\n")
        return super().act(game, seat)
