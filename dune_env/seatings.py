"""Seating designs: the arrangements of a line-up that one duplicate deal is played under.

In this game a policy's score depends on who sits next to it: play passes clockwise (DEF-9,
SETUP-7), and acting just after a strong or a weak player moves a seat's chances by a couple of
points.  A design that keeps the line-up's cyclic order (its rotations) always seats the same
policy just before the same other one, and a pairing then measures seat order as much as play
(docs/baselines.md, "Seat order").  The designs here cancel it:

- **balanced** (the default): the n rotations of each of a few *cyclic orders* of the line-up's
  positions, chosen so that every position sits in every seat equally often (the rotations) and
  immediately before every other position equally often (the orders).  Such a set of n - 1
  orders is a Hamiltonian decomposition of the complete directed graph on n vertices, which
  exists for every n except 4 and 6 (Tillson, 1980); there, 2(n - 1) orders cover each ordered
  pair twice.  The orders also balance every longer distance (who sits two, three seats on),
  which moves a score too (at 6 players the neighbour two seats away by about 0.1 log-odds,
  `benchmarks/seat_effects.py`): at a prime n the orders i -> a*i mod n, a = 1..n-1; at 4 all
  six orders; at 6, 20 orders (no 10 balance distance 2, which 10 orders would leave up to 0.05
  log-odds off for a policy).  So a deal is 6 games at 3 players, 24 at 4, 20 at 5, 120 at 6,
  42 at 7 and 56 at 8, where the 7 orders balance distance 1 only (the search found no 14 that
  balance every distance).  `python -m dune_env.seatings` checks the orders and searches for
  such sets (scipy's MILP).
- **permutations**: every distinct arrangement (n! games a deal for n different policies; at
  most `MAX_PERMUTATIONS`), balanced at every distance and for any pair of seats.
- **rotations**: the line-up's n rotations, as before version 0.2: every seat, but the cyclic
  order fixed.  It confounds seat order with policy identity as soon as three or more different
  policies play, and is kept for comparison only.

A line-up that repeats a policy (fewer policies than seats) is arranged by its positions; where
two arrangements seat the same policies, the deal plays it once if every arrangement repeats
equally often (the balance is kept), and the fewest games of that, the design with its repeats,
and the line-up's distinct permutations are played.  So `A B A B` is 6 games a deal, `A B C A`
12, `A B A B A` 10, `A B C A B C` 60 (of which 15 repeat another).  The order
of a deal's games depends on which positions hold the same policy, never on the names.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Sequence
from typing import Final

BALANCED: Final = "balanced"
PERMUTATIONS: Final = "permutations"
ROTATIONS: Final = "rotations"
SEATINGS: Final = (BALANCED, PERMUTATIONS, ROTATIONS)
DEFAULT_SEATINGS: Final = BALANCED
MAX_PERMUTATIONS: Final = 120  # 5 different policies at 5 players; 6 would be 720 games a deal

# The cyclic orders of the balanced design, per player count: order k seats line-up position
# ORDERS[n][k][(s + r) % n] at seat s in rotation r.  Pinned by tests/harness/test_seatings.py
# (balance at distance 1 everywhere, at every distance for 3, 4, 5 and 7 players).
ORDERS: Final[dict[int, tuple[tuple[int, ...], ...]]] = {
    3: ((0, 1, 2), (0, 2, 1)),
    4: tuple((0, *p) for p in itertools.permutations((1, 2, 3))),
    5: tuple(tuple(a * i % 5 for i in range(5)) for a in range(1, 5)),
    6: (
        (0, 1, 2, 3, 4, 5),
        (0, 1, 3, 2, 5, 4),
        (0, 1, 4, 2, 3, 5),
        (0, 1, 5, 2, 4, 3),
        (0, 2, 1, 5, 4, 3),
        (0, 2, 3, 1, 4, 5),
        (0, 2, 4, 1, 5, 3),
        (0, 2, 5, 1, 3, 4),
        (0, 3, 1, 4, 5, 2),
        (0, 3, 4, 5, 1, 2),
        (0, 3, 5, 2, 1, 4),
        (0, 3, 5, 4, 2, 1),
        (0, 4, 1, 5, 3, 2),
        (0, 4, 2, 3, 5, 1),
        (0, 4, 2, 5, 3, 1),
        (0, 4, 3, 1, 2, 5),
        (0, 5, 1, 3, 2, 4),
        (0, 5, 2, 4, 1, 3),
        (0, 5, 3, 4, 1, 2),
        (0, 5, 4, 3, 2, 1),
    ),
    7: tuple(tuple(a * i % 7 for i in range(7)) for a in range(1, 7)),
    8: (
        (0, 1, 2, 3, 4, 5, 6, 7),
        (0, 3, 1, 7, 5, 2, 4, 6),
        (0, 4, 1, 6, 2, 7, 3, 5),
        (0, 6, 3, 7, 2, 1, 5, 4),
        (0, 2, 5, 3, 6, 4, 7, 1),
        (0, 5, 7, 4, 2, 6, 1, 3),
        (0, 7, 6, 5, 1, 4, 3, 2),
    ),
}

DESCRIPTIONS: Final = {
    BALANCED: "balanced seatings: every policy in every seat and just before every other "
    "equally often",
    PERMUTATIONS: "every permutation of the line-up",
    ROTATIONS: "every rotation of the line-up; it keeps the seat order, which biases a pairing "
    "of three or more different policies",
}


def check_seatings(seatings: str) -> None:
    """Refuse an unknown design name, naming the known ones."""
    if seatings not in SEATINGS:
        raise ValueError(f"seatings={seatings!r}: use one of {', '.join(SEATINGS)}")


def deal_seatings(base: Sequence[str], seatings: str = DEFAULT_SEATINGS) -> list[tuple[str, ...]]:
    """The seat arrangements one duplicate deal of the line-up `base` is played under (see the
    module docstring), the line-up itself first."""
    check_seatings(seatings)
    n = len(base)
    if seatings == ROTATIONS:
        return [tuple(base[(s + r) % n] for s in range(n)) for r in range(n)]
    if seatings == PERMUTATIONS:
        count = distinct_permutations(base)
        if count > MAX_PERMUTATIONS:
            raise ValueError(
                f"the line-up {list(base)} has {count} distinct seatings, more than "
                f"{MAX_PERMUTATIONS} games a deal; use the balanced design (the default), or "
                "repeat policies in the line-up"
            )
        return _permutations(base)
    if n not in ORDERS:
        raise ValueError(f"no balanced design for {n} seats: the game has 3 to 8 players")
    arranged = [
        tuple(base[order[(s + r) % n]] for s in range(n)) for order in ORDERS[n] for r in range(n)
    ]
    # Repeated arrangements are the same games.  Where every arrangement repeats equally often,
    # once each keeps the balance; else the repeats stay (or the permutations, if fewer).
    options = [arranged]
    if len(set(Counter(arranged).values())) == 1:
        options.append(list(dict.fromkeys(arranged)))
    if distinct_permutations(base) <= MAX_PERMUTATIONS:
        options.append(_permutations(base))
    return min(options, key=len)


def distinct_permutations(base: Sequence[str]) -> int:
    """How many different arrangements the line-up has (n! over each policy's repeats!)."""
    count = math.factorial(len(base))
    for repeats in Counter(base).values():
        count //= math.factorial(repeats)
    return count


def _permutations(base: Sequence[str]) -> list[tuple[str, ...]]:
    # In the order of the seat permutations (the line-up itself first), not of the names: the
    # same games whatever the policies are called.
    return list(dict.fromkeys(itertools.permutations(base)))


def neighbour_counts(
    arrangements: Sequence[Sequence[str]], distance: int = 1
) -> Counter[tuple[str, str]]:
    """How often policy b sits `distance` seats after policy a (clockwise, wrapping round) over
    the arrangements: the quantity a design balances."""
    count: Counter[tuple[str, str]] = Counter()
    for seats in arrangements:
        n = len(seats)
        count.update((seats[s], seats[(s + distance) % n]) for s in range(n))
    return count


def imbalance(arrangements: Sequence[Sequence[str]], distance: int = 1) -> float:
    """The largest relative departure, over ordered pairs of policies (a policy with itself
    included where it repeats) and over seats, from what seating at random would give: 0 for a
    design balanced at `distance`."""
    n = len(arrangements[0])
    multiplicity = Counter(arrangements[0])
    total = len(arrangements)
    worst = 0.0
    for a, ma in multiplicity.items():
        for b, mb in multiplicity.items():
            # Under random seating, the chance that seat s + d holds b given a at seat s.
            expected = total * n * ma * (mb - (a == b)) / (n * (n - 1))
            seen = neighbour_counts(arrangements, distance)[(a, b)]
            if expected:
                worst = max(worst, abs(seen - expected) / expected)
    for s in range(n):
        at_seat = Counter(seats[s] for seats in arrangements)
        for a, ma in multiplicity.items():
            expected = total * ma / n
            worst = max(worst, abs(at_seat[a] - expected) / expected)
    return worst


def search_orders(
    n: int, count: int, distances: Sequence[int] = (1,), seconds: float = 300.0
) -> list[tuple[int, ...]] | None:
    """`count` cyclic orders of n positions in which each ordered pair sits at each of the
    `distances` equally often, found by mixed-integer programming (scipy's HiGHS); None when
    there is none (or none found in `seconds`).  How ORDERS were found (at 6 and 8 players the
    other distances' spread was then minimised the same way)."""
    import numpy as np
    from scipy.optimize import Bounds, LinearConstraint, milp

    orders = [(0, *p) for p in itertools.permutations(range(1, n))]
    keys = [(a, b, d) for d in distances for a in range(n) for b in range(n) if a != b]
    row = {key: i for i, key in enumerate(keys)}
    matrix = np.zeros((len(keys), len(orders)))
    for j, order in enumerate(orders):
        place = {slot: i for i, slot in enumerate(order)}
        for a in range(n):
            for d in distances:
                matrix[row[(a, order[(place[a] + d) % n], d)], j] += 1
    if count % (n - 1):
        return None  # each order gives n ordered pairs at a distance, of n(n - 1)
    target = count // (n - 1)
    result = milp(
        c=np.zeros(len(orders)),
        constraints=[
            LinearConstraint(matrix, target, target),
            LinearConstraint(np.ones((1, len(orders))), count, count),
        ],
        integrality=np.ones(len(orders)),
        bounds=Bounds(0, 1),
        options={"time_limit": seconds},
    )
    if result.x is None:
        return None
    return [orders[j] for j in np.flatnonzero(result.x > 0.5)]


def main() -> None:
    """Print, per player count, the games a deal and the imbalance at each distance of the
    shipped orders, and whether the search finds n - 1 orders balanced at distance 1."""
    for n in sorted(ORDERS):
        base = [f"p{i}" for i in range(n)]
        arranged = deal_seatings(base)
        spread = ", ".join(f"d{d} {imbalance(arranged, d):.2f}" for d in range(1, n // 2 + 1))
        found = search_orders(n, n - 1, (1,), seconds=30)
        print(
            f"{n} players: {len(arranged)} games a deal (permutations {math.factorial(n)}); "
            f"imbalance {spread}; {n - 1} orders balanced at distance 1: "
            f"{'exist' if found else 'none'}"
        )


if __name__ == "__main__":
    main()
