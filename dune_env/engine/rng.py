"""Seeded generators: the game's counter-based chance, and a small sequential generator.

`ChanceRng` is the game's one source of chance.  It is *counter-based*: an outcome is a hash
of the deal's key and of where the outcome happens (a label, the round, the active seat, the
roll index within the turn, the die), never the next value of one shared stream.  So two games
of the same deal that reach the same chance event see the same outcome, whatever different
choices were made before it (the basis of duplicate benchmarking, `dune-bench --duplicate`).
The whole generator is one 64-bit key, a per-turn roll counter and the forced queue: it clones
for free, serialises to JSON, and gives the same outcomes in every process and platform.

`DiceRng` (SplitMix64) is a plain sequential generator for policies and tools.

Both take forced outcomes: `forced` is a queue that tests (and scenarios) push to force the
next draws, used before any generated outcome.

Two routes to the same numbers.  Compiled, the 64-bit arithmetic runs on two 32-bit halves
held in `i64`s, no intermediate value leaving the signed 64-bit range, so it runs on machine
integers (whole 64-bit products would be arbitrary-precision integers there, slower compiled
than interpreted).  Interpreted, the plain formulas on Python ints are 5x faster than the
halves.  `tests/test_engine_chance.py` checks the halves, and the route the build takes, against
the plain formulas on both builds.
"""

from __future__ import annotations

from types import FunctionType
from typing import Any, Final

from mypy_extensions import i64, mypyc_attr

_MASK64: Final = (1 << 64) - 1
_GOLDEN: Final = 0x9E3779B97F4A7C15
_SIGN63: Final = 1 << 63
_TWO64: Final = 1 << 64
_M32: Final = 0xFFFFFFFF
_M16: Final = 0xFFFF
_TWO32: Final = 1 << 32
_SIGN31: Final = 1 << 31
# SplitMix64's constants as 32-bit halves (high, low); the low halves' 16-bit halves too.
_GOLDEN_HI: Final = 0x9E3779B9
_GOLDEN_LO: Final = 0x7F4A7C15
_C1_HI: Final = 0xBF58476D
_C1_LO: Final = 0x1CE4E5B9
_C2_HI: Final = 0x94D049BB
_C2_LO: Final = 0x133111EB


def _mul_lo64(h: i64, lo: i64, ch: i64, cl: i64) -> tuple[i64, i64]:
    """(h, lo) * (ch, cl) mod 2**64, as 32-bit halves; every partial product below 2**50."""
    cl0 = cl & _M16
    cl1 = cl >> 16
    p0 = lo * cl0
    p1 = lo * cl1
    t = p0 + ((p1 & _M16) << 16)
    carry = (t >> 32) + (p1 >> 16)  # lo * cl == carry * 2**32 + (t & _M32)
    ch0 = ch & _M16
    ch1 = ch >> 16
    cross = h * cl0 + (((h * cl1) & _M16) << 16) + lo * ch0 + (((lo * ch1) & _M16) << 16)
    return (carry + cross) & _M32, t & _M32


def _mix2(h: i64, lo: i64) -> tuple[i64, i64]:
    """The SplitMix64 finaliser (a bijective 64-bit mix with full avalanche), on halves."""
    lo ^= ((h << 2) | (lo >> 30)) & _M32  # z ^= z >> 30
    h ^= h >> 30
    h, lo = _mul_lo64(h, lo, _C1_HI, _C1_LO)
    lo ^= ((h << 5) | (lo >> 27)) & _M32  # z ^= z >> 27
    h ^= h >> 27
    h, lo = _mul_lo64(h, lo, _C2_HI, _C2_LO)
    lo ^= ((h << 1) | (lo >> 31)) & _M32  # z ^= z >> 31
    h ^= h >> 31
    return h, lo


def _add_golden(h: i64, lo: i64) -> tuple[i64, i64]:
    """(h, lo) + the golden-ratio increment, mod 2**64."""
    lo += _GOLDEN_LO
    return (h + _GOLDEN_HI + (lo >> 32)) & _M32, lo & _M32


def _pack(h: i64, lo: i64) -> i64:
    """The 64-bit value of the halves as a signed (two's complement) i64."""
    if h >= _SIGN31:
        h -= _TWO32
    return h * _TWO32 + lo


def _mix(z: int) -> int:
    """The SplitMix64 finaliser on a 64-bit value (an unsigned Python int): the formula."""
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return z ^ (z >> 31)


# True on the compiled build (its functions are not Python functions): take the halves' route.
NATIVE_ARITHMETIC: Final = not isinstance(_mix2, FunctionType)


def _check_seed(seed: object) -> int:
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError(f"seed must be an int, not {type(seed).__name__}")
    return seed & _MASK64


# Labels of the chance events (part of the key; never renumber, it would change every deal).
SETUP_STORM: Final = 1  # SETUP-1 region die
SETUP_TOKENS: Final = 2  # SETUP-2 shuffle of the property tokens, one draw per position
SETUP_FIRST: Final = 3  # SETUP-4 first player
SETUP_FACTIONS: Final = 4  # faction_mode="random": shuffle of the factions, one draw per position
TURN_ROLL: Final = 5  # ROLL-1/2/5: a roll of the dice, keyed (round, active seat, roll of turn)


def _below(n: int, h: i64, lo: i64) -> int:
    """floor((h * 2**32 + lo) * n / 2**64): multiply-shift; the bias for n <= 8 is below 2**-60."""
    if 0 < n < _SIGN31:
        m: i64 = n
        return int((h * m + ((lo * m) >> 32)) >> 32)
    return ((int(h) * _TWO32 + int(lo)) * n) >> 64  # (any other n: the same formula on ints)


def _pop_forced(forced: list[int], n: int) -> int:
    """The next queued outcome (scenarios and tests force chance this way), checked against
    the event's number of outcomes."""
    value = forced.pop(0)
    if not 0 <= value < n:
        raise ValueError(f"forced outcome {value} is outside [0, {n})")
    return value


# Interpreted subclasses allowed: `dune_env.openspiel` probes the draws with one.
@mypyc_attr(allow_interpreted_subclasses=True)
class ChanceRng:
    """Counter-based chance: `prefix(*where)` names an event, `below(n, prefix, index)` is
    its `index`-th outcome in [0, n).  `turn_roll` counts the rolls of the current turn (the
    engine resets it when a turn starts)."""

    __slots__ = ("seed", "turn_roll", "forced", "_key_hi", "_key_lo")

    def __init__(self, seed: int = 0, forced: list[int] | None = None, turn_roll: int = 0) -> None:
        self.seed = seed = _check_seed(seed)
        self.turn_roll = turn_roll
        self.forced: list[int] = list(forced) if forced else []
        # The hash of the key alone, the start of every prefix (the halves' route only).
        self._key_hi: i64 = 0
        self._key_lo: i64 = 0
        if NATIVE_ARITHMETIC:
            h, lo = _add_golden((seed >> 32) & _M32, seed & _M32)
            self._key_hi, self._key_lo = _mix2(h, lo)

    def prefix(self, *where: int) -> i64:
        """The hash of the deal key and the event's coordinates (small non-negative ints),
        a 64-bit value stored as a signed i64."""
        if not NATIVE_ARITHMETIC:
            z = _mix((self.seed + _GOLDEN) & _MASK64)
            for k in where:
                z = _mix((z ^ k) + _GOLDEN & _MASK64)
            return z - _TWO64 if z >= _SIGN63 else z  # (as a signed 64-bit value)
        h = self._key_hi
        lo = self._key_lo
        for k in where:
            c: i64 = k
            h, lo = _add_golden(h ^ ((c >> 32) & _M32), lo ^ (c & _M32))
            h, lo = _mix2(h, lo)  # (no *-call: it would go through the Python-level entry)
        return _pack(h, lo)

    def below(self, n: int, prefix: i64, index: int = 0) -> int:
        """Outcome `index` of the event `prefix`, uniform in [0, n); forced outcomes first."""
        if self.forced:
            return _pop_forced(self.forced, n)
        if not NATIVE_ARITHMETIC:
            return (_mix((prefix ^ index) + _GOLDEN & _MASK64) * n) >> 64
        i: i64 = index
        h = ((prefix >> 32) ^ (i >> 32)) & _M32
        lo = (prefix ^ i) & _M32
        h, lo = _add_golden(h, lo)
        h, lo = _mix2(h, lo)
        return _below(n, h, lo)

    def clone(self) -> ChanceRng:
        return ChanceRng(self.seed, self.forced, self.turn_roll)

    def __reduce__(self) -> tuple[Any, ...]:
        # (Pickle and deepcopy of the compiled class need it; the same on both builds.)
        return ChanceRng, (self.seed, self.forced, self.turn_roll)


class DiceRng:
    """A sequential SplitMix64 generator (policies, determinisation, tools)."""

    # The 64-bit state as two 32-bit halves: compiled, they stay machine integers (a whole
    # state above 2**62 would be an allocated Python int at every draw).
    __slots__ = ("_hi", "_lo", "forced")

    def __init__(self, seed: int = 0, forced: list[int] | None = None) -> None:
        seed = _check_seed(seed)
        self._hi: i64 = seed >> 32
        self._lo: i64 = seed & _M32
        self.forced: list[int] = list(forced) if forced else []

    @property
    def state(self) -> int:
        """The 64-bit state (an unsigned int): the seed of the stream's continuation."""
        return int(self._hi) * _TWO32 + int(self._lo)

    def next_u64(self) -> int:
        h, lo = _add_golden(self._hi, self._lo)
        self._hi = h
        self._lo = lo
        if not NATIVE_ARITHMETIC:
            return _mix(int(h) * _TWO32 + int(lo))
        h, lo = _mix2(h, lo)
        return int(h) * _TWO32 + int(lo)

    def below(self, n: int) -> int:
        """A uniform integer in [0, n).  A forced outcome is used first if one is queued."""
        if self.forced:
            return _pop_forced(self.forced, n)
        # Lemire-style multiply-shift; the bias for n <= 8 is below 2**-60.
        if not NATIVE_ARITHMETIC:
            return (self.next_u64() * n) >> 64
        h, lo = _add_golden(self._hi, self._lo)
        self._hi = h
        self._lo = lo
        h, lo = _mix2(h, lo)
        return _below(n, h, lo)

    def clone(self) -> DiceRng:
        return DiceRng(self.state, self.forced)  # (the state is the seed of its continuation)

    def __reduce__(self) -> tuple[Any, ...]:
        return DiceRng, (self.state, self.forced)
