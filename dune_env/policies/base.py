"""Policy interfaces.

Two kinds of policy play the game:

- An **observation policy** is any callable `(observation, action_mask) -> action id`, the
  PettingZoo view: `observation` is the flat float32 vector of `dune_v1`, `action_mask` the int8
  mask over the action table.  Trained networks and user agents are of this kind.
- An **engine policy** sees the engine itself (`act(game, seat) -> option`), as search bots and
  the built-in heuristics do.  It must not read hidden information of other seats: use
  `dune_env.engine.information.resample(game, seat, rng)` (a clone with the others' secrets
  re-drawn) when it searches.

`dune_env.policies.load_policy` turns either into an engine policy (an observation policy is
wrapped in `observation.ObservationPolicy`).
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from ..engine import Game


@runtime_checkable
class EnginePolicy(Protocol):
    """Chooses an engine option for the pending decision of `game`, decided by `seat`."""

    name: str

    def act(self, game: Game, seat: int) -> int: ...


class SeededPolicy:
    """Base for built-in engine policies: a name and a private seeded generator."""

    name = "policy"

    def __init__(self, seed: int = 0) -> None:
        from ..engine.rng import DiceRng

        self.rng = DiceRng(seed)

    def reseed(self, seed: int) -> None:
        from ..engine.rng import DiceRng

        self.rng = DiceRng(seed)

    def choice(self, options: tuple[int, ...] | list[int]) -> int:
        return options[self.rng.below(len(options))]


class RandomPolicy(SeededPolicy):
    """Uniform over the legal options."""

    name = "random"

    def act(self, game: Game, seat: int) -> int:
        return self.choice(game.legal_options())
