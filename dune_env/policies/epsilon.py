"""Weakened copies of a policy: take a share of the decisions uniformly at random.

Used to check that a benchmark can tell a policy from a slightly worse one
(`benchmarks/power.py`, tests/harness): `aggressive-eps20` is `aggressive` taking 20% of its
decisions at random.  Any policy can be wrapped: `EpsilonPolicy(base, epsilon, seed)`."""

from __future__ import annotations

from ..engine import Game
from .base import EnginePolicy, SeededPolicy


class EpsilonPolicy(SeededPolicy):
    """With probability `epsilon` a uniform legal option, else `base`'s choice.  The coin and
    the random choice come from this policy's own seeded generator."""

    def __init__(self, base: EnginePolicy, epsilon: float, seed: int = 0) -> None:
        if not 0.0 <= epsilon <= 1.0:
            raise ValueError(f"epsilon must be in [0, 1], got {epsilon}")
        super().__init__(seed)
        self.base = base
        self.epsilon = epsilon
        self.name = f"{getattr(base, 'name', 'policy')}-eps{round(epsilon * 100)}"
        self._threshold = round(epsilon * 1_000_000)

    def reseed(self, seed: int) -> None:
        super().reseed(seed ^ 0xE951)
        reseed = getattr(self.base, "reseed", None)
        if reseed is not None:
            reseed(seed)

    def act(self, game: Game, seat: int) -> int:
        if self.rng.below(1_000_000) < self._threshold:
            return self.choice(game.legal_options())
        return self.base.act(game, seat)


class AggressiveEps20(EpsilonPolicy):
    """`aggressive` taking 20% of its decisions at random."""

    def __init__(self, seed: int = 0) -> None:
        from .heuristics import AggressivePolicy

        super().__init__(AggressivePolicy(seed), 0.2, seed)


class EconomicEps20(EpsilonPolicy):
    """`economic` taking 20% of its decisions at random."""

    def __init__(self, seed: int = 0) -> None:
        from .heuristics import EconomicPolicy

        super().__init__(EconomicPolicy(seed), 0.2, seed)
