"""The one source of chance: a small seeded generator held in the game state.

SplitMix64 on Python ints: the whole generator is one 64-bit integer, so it clones for free,
serialises to JSON, and gives the same stream in every process and on every platform.
`forced` is a queue of outcomes that tests (and replays) can push to force the next draws.
"""

from __future__ import annotations

_MASK64 = (1 << 64) - 1


class DiceRng:
    __slots__ = ("state", "forced")

    def __init__(self, seed: int = 0, forced: list[int] | None = None) -> None:
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise TypeError(f"seed must be an int, not {type(seed).__name__}")
        self.state = seed & _MASK64
        self.forced: list[int] = list(forced) if forced else []

    def next_u64(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & _MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """A uniform integer in [0, n).  A forced outcome is used first if one is queued."""
        if self.forced:
            value = self.forced.pop(0)
            if not 0 <= value < n:
                raise ValueError(f"forced outcome {value} is outside [0, {n})")
            return value
        # Lemire-style multiply-shift; the bias for n <= 8 is below 2**-60.
        return (self.next_u64() * n) >> 64

    def shuffle(self, items: list[int]) -> None:
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]

    def clone(self) -> DiceRng:
        other = DiceRng.__new__(DiceRng)
        other.state = self.state
        other.forced = list(self.forced)
        return other
