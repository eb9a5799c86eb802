"""Two deliberately weak policies (loaded as `tests.harness.weak_policies:NAME`): with random at
3 players they almost never win by control, so only time-outs decide their games."""

from __future__ import annotations

from dune_env.engine import Game
from dune_env.policies.base import SeededPolicy


class First(SeededPolicy):
    """Always the first legal option."""

    name = "first"

    def act(self, game: Game, seat: int) -> int:
        return int(game.legal_options()[0])


class Last(SeededPolicy):
    """Always the last legal option."""

    name = "last"

    def act(self, game: Game, seat: int) -> int:
        return int(game.legal_options()[-1])
