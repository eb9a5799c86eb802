"""Statistics for the benchmark report: Wilson intervals and OpenSkill ratings."""

from __future__ import annotations

import math
from collections.abc import Sequence


def wilson_interval(
    successes: int, trials: int, z: float = 1.959963984540054
) -> tuple[float, float]:
    """The Wilson score interval for a binomial proportion (95% by default).

    Returns (low, high); (0, 1) when there are no trials."""
    if trials < 0 or not 0 <= successes <= trials:
        raise ValueError(f"need 0 <= successes <= trials, got {successes}/{trials}")
    if trials == 0:
        return 0.0, 1.0
    p = successes / trials
    z2 = z * z
    denom = 1 + z2 / trials
    centre = (p + z2 / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def openskill_ratings(
    games: Sequence[tuple[Sequence[str], Sequence[bool]]],
) -> dict[str, tuple[float, float]]:
    """OpenSkill (Plackett-Luce) ratings of policies from games.

    Each game is (policy of each seat, whether each seat won).  Every seat is a one-player team
    ranked 1 if it won, 2 otherwise.  A policy seated several times in one game takes the mean
    of its seats' updated ratings.  Returns {policy: (mu, sigma)}; the ordinal mu - 3 sigma is
    the conservative skill."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings: dict[str, tuple[float, float]] = {}
    for seats, won in games:
        teams = []
        for policy in seats:
            mu, sigma = ratings.get(policy, (model.mu, model.sigma))
            teams.append([model.rating(mu=mu, sigma=sigma, name=policy)])
        if len(set(seats)) < 2:
            continue  # a policy against itself teaches nothing
        ranks = [1.0 if w else 2.0 for w in won]
        rated = model.rate(teams, ranks=ranks)
        sums: dict[str, list[float]] = {}
        for policy, team in zip(seats, rated, strict=True):
            entry = sums.setdefault(policy, [0.0, 0.0, 0.0])
            entry[0] += team[0].mu
            entry[1] += team[0].sigma
            entry[2] += 1
        for policy, (mu_sum, sigma_sum, n) in sums.items():
            ratings[policy] = (mu_sum / n, sigma_sum / n)
    return ratings
