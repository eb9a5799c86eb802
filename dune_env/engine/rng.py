"""Seeded generators: the game's counter-based chance, and a small sequential generator.

`ChanceRng` is the game's one source of chance.  It is *counter-based*: an outcome is a hash
of the deal's key and of where the outcome happens (a label, the round, the active seat, the
roll index within the turn, the die), never the next value of one shared stream.  So two games
of the same deal that reach the same chance event see the same outcome, whatever different
choices were made before it (the basis of duplicate benchmarking, `dune-bench --duplicate`).
The whole generator is one 64-bit key, a per-turn roll counter and the forced queue: it clones
for free, serialises to JSON, and gives the same outcomes in every process and platform.

`DiceRng` (SplitMix64 on Python ints) is a plain sequential generator for policies and tools.

Both take forced outcomes: `forced` is a queue that tests (and scenarios) push to force the
next draws, used before any generated outcome.
"""

from __future__ import annotations

from typing import Any

from mypy_extensions import mypyc_attr

_MASK64 = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15


def _mix(z: int) -> int:
    """The SplitMix64 finaliser: a bijective 64-bit mix with full avalanche."""
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return z ^ (z >> 31)


def _check_seed(seed: object) -> int:
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError(f"seed must be an int, not {type(seed).__name__}")
    return seed & _MASK64


# Labels of the chance events (part of the key; never renumber, it would change every deal).
SETUP_STORM = 1  # SETUP-1 region die
SETUP_TOKENS = 2  # SETUP-2 shuffle of the property tokens, one draw per position
SETUP_FIRST = 3  # SETUP-4 first player
SETUP_FACTIONS = 4  # faction_mode="random": shuffle of the factions, one draw per position
TURN_ROLL = 5  # ROLL-1/2/5: a roll of the dice, keyed (round, active seat, roll of turn)


# Interpreted subclasses allowed: `dune_env.openspiel` probes the draws with one.
@mypyc_attr(allow_interpreted_subclasses=True)
class ChanceRng:
    """Counter-based chance: `prefix(*where)` names an event, `below(n, prefix, index)` is
    its `index`-th outcome in [0, n).  `turn_roll` counts the rolls of the current turn (the
    engine resets it when a turn starts)."""

    __slots__ = ("seed", "turn_roll", "forced")

    def __init__(self, seed: int = 0, forced: list[int] | None = None, turn_roll: int = 0) -> None:
        self.seed = _check_seed(seed)
        self.turn_roll = turn_roll
        self.forced: list[int] = list(forced) if forced else []

    def prefix(self, *where: int) -> int:
        """The hash of the deal key and the event's coordinates (small non-negative ints)."""
        h = _mix((self.seed + _GOLDEN) & _MASK64)
        for k in where:
            h = _mix((h ^ k) + _GOLDEN & _MASK64)
        return h

    def below(self, n: int, prefix: int, index: int = 0) -> int:
        """Outcome `index` of the event `prefix`, uniform in [0, n); forced outcomes first."""
        if self.forced:
            value = self.forced.pop(0)
            if not 0 <= value < n:
                raise ValueError(f"forced outcome {value} is outside [0, {n})")
            return value
        # Multiply-shift; the bias for n <= 8 is below 2**-60.
        return (_mix((prefix ^ index) + _GOLDEN & _MASK64) * n) >> 64

    def clone(self) -> ChanceRng:
        return ChanceRng(self.seed, self.forced, self.turn_roll)

    def __reduce__(self) -> tuple[Any, ...]:
        # (Pickle and deepcopy of the compiled class need it; the same on both builds.)
        return ChanceRng, (self.seed, self.forced, self.turn_roll)


class DiceRng:
    """A sequential SplitMix64 generator (policies, determinisation, tools)."""

    __slots__ = ("state", "forced")

    def __init__(self, seed: int = 0, forced: list[int] | None = None) -> None:
        self.state = _check_seed(seed)
        self.forced: list[int] = list(forced) if forced else []

    def next_u64(self) -> int:
        self.state = (self.state + _GOLDEN) & _MASK64
        return _mix(self.state)

    def below(self, n: int) -> int:
        """A uniform integer in [0, n).  A forced outcome is used first if one is queued."""
        if self.forced:
            value = self.forced.pop(0)
            if not 0 <= value < n:
                raise ValueError(f"forced outcome {value} is outside [0, {n})")
            return value
        # Lemire-style multiply-shift; the bias for n <= 8 is below 2**-60.
        return (self.next_u64() * n) >> 64

    def clone(self) -> DiceRng:
        return DiceRng(self.state, self.forced)  # (the state is the seed of its continuation)

    def __reduce__(self) -> tuple[Any, ...]:
        return DiceRng, (self.state, self.forced)
