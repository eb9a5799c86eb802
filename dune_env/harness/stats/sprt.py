"""Sequential probability ratio test (SPRT) on duplicate deals: the statistics.

The unit is a duplicate deal: one seed played in every seating of the line-up's design
(`dune_env.seatings`; 24 games at 4 players for four different policies, 6 for `A B A B`), as
a game pair is in chess engine testing.  Each deal k gives one number x_k: policy A's per-seat
score in the deal minus policy B's (the score is the control-win rate, or the win rate).  The
test decides between

    H0: mean(x) <= delta0      and      H1: mean(x) >= delta1      (delta0 < delta1)

with error rates alpha (accepting H1 when H0 holds) and beta (accepting H0 when H1 holds),
looking after every block of `block` deals.

The statistic is Wald's log-likelihood ratio for a normal mean with the variance replaced by
its estimate from the deals so far (the approximation of the chess testing frameworks,
fishtest and OpenBench, M. Van den Bergh's notes):

    LLR_m = m * (delta1 - delta0) * (mean_m - (delta0 + delta1) / 2) / s_m^2

over the first m deals, s_m^2 their sample variance.  It grows in proportion to how far the
mean lies from the middle of the two hypotheses, so an effect far outside [delta0, delta1] is
decided in few deals.  (Until version 0.2 the test used the generalized SPRT, which estimates
the variance under each hypothesis: LLR = (m/2) ln(s_delta0^2 / s_delta1^2).  Its increase per
deal shrinks towards 0 as the effect moves away from both hypotheses, so a policy 13 points
below the other took 960 games to reject where a fixed-size test needs ~712.)

Wald's bounds: accept H1 once LLR >= ln((1 - beta) / alpha), H0 once LLR <= ln(beta / (1 -
alpha)).  An estimated variance is unreliable on few deals, and a test that trusts it there
errs more often than alpha and beta say; so no decision is taken before
`MIN_SHARE_OF_FIXED` of the deals the fixed-size test needs (at the variance seen so far:
`fixed_sample_deals`), nor before two blocks.  With it the simulated error rates stay within
their targets and the mean number of games stays below the fixed-size test's for every effect
outside [delta0, delta1] (`simulate`; `python benchmarks/power.py --sprt-simulate 4000`;
docs/baselines.md, "Sequential testing").  While every deal so far gave the same value (no
spread: e.g. two copies of one deterministic policy under a symmetric design) the LLR is
+-infinity by the side of the middle the value lies on, 0 on it.

The LLR is checked after every block in deal order (deal ids are fixed by the seed), so the
decision does not depend on how many games run at once, nor on a resume.

This module is pure arithmetic (numpy); harness/sprt_run.py plays the games.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from ..play.types import SeatResult
from .scores import control_score, win_score

METRICS = ("control", "win")  # the per-seat score compared: control-win rate, or win rate
H1 = "H1"  # decisions
H0 = "H0"
UNDECIDED = "undecided"
# No decision before this share of the fixed-size test's deals (at the variance seen so far).
MIN_SHARE_OF_FIXED = 0.25
MIN_DEALS = 20  # nor before this many deals: the variance estimate needs them
VARIANCE_WIDENING = 4.0  # see llr_trace
LOOK_GAMES = 48  # the default block: the fewest deals holding at least this many games


def default_block(games_per_deal: int) -> int:
    """Deals per look by default: at least `LOOK_GAMES` games (2 deals of 24, 8 of 6)."""
    return max(1, math.ceil(LOOK_GAMES / games_per_deal))


@dataclass(frozen=True)
class SprtDesign:
    """The hypotheses (in units of the per-seat score difference), the error rates, and the
    deals per block (the LLR is checked after each block)."""

    delta0: float = 0.0
    delta1: float = 0.03
    alpha: float = 0.05
    beta: float = 0.05
    block: int = 2

    def __post_init__(self) -> None:
        for name in ("alpha", "beta"):
            value = getattr(self, name)
            if not 0 < value < 0.5:
                raise ValueError(f"{name}={value!r}: give an error rate between 0 and 0.5")
        for name in ("delta0", "delta1"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float) or not -1 < value < 1:
                raise ValueError(
                    f"{name}={value!r}: give a difference of per-seat rates between -1 and 1"
                )
        if not self.delta0 < self.delta1:
            raise ValueError(
                f"delta0={self.delta0!r}, delta1={self.delta1!r}: the effect under H1 must be "
                "larger than under H0 (delta0 < delta1)"
            )
        if isinstance(self.block, bool) or not isinstance(self.block, int) or self.block < 1:
            raise ValueError(f"block={self.block!r}: give a positive number of deals")

    @property
    def lower(self) -> float:
        """ln(beta / (1 - alpha)): at or below it H0 is accepted."""
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        """ln((1 - beta) / alpha): at or above it H1 is accepted."""
        return math.log((1 - self.beta) / self.alpha)


def llr_trace(values: Sequence[float] | np.ndarray, delta0: float, delta1: float) -> np.ndarray:
    """The LLR after each of the first 1, 2, ... m deal scores (see the module docstring); 0
    after the first (no variance yet)."""
    x = np.asarray(values, dtype=float)
    m = np.arange(1, len(x) + 1, dtype=float)
    mean = np.cumsum(x) / m
    spread = np.maximum(np.cumsum(x * x) / m - mean * mean, 0.0)
    # The sample variance, widened by VARIANCE_WIDENING / m: a small-sample allowance for its
    # own error, which would otherwise make the test decide wrongly more often than it says.
    variance = spread * m / np.maximum(m - 1, 1) * (1 + VARIANCE_WIDENING / m)
    middle = 0.5 * (delta0 + delta1)
    # Rounding leaves ~1e-17 of "spread" in identical values: count spread only above that.
    spread_seen = spread > 1e-12 * np.maximum(1.0, np.cumsum(x * x) / m)
    with np.errstate(divide="ignore", invalid="ignore"):
        value = m * (delta1 - delta0) * (mean - middle) / variance
    side = np.sign(np.round(mean - middle, 12))  # no spread: the side of the middle
    flat = np.where(side > 0, np.inf, np.where(side < 0, -np.inf, 0.0))
    out = np.where(spread_seen, value, np.where(m > 1, flat, 0.0))
    return np.asarray(out, dtype=float)


def llr(values: Sequence[float] | np.ndarray, delta0: float, delta1: float) -> float:
    """The LLR over all the deal scores `values` (the last of `llr_trace`)."""
    x = np.asarray(values, dtype=float)
    return float(llr_trace(x, delta0, delta1)[-1]) if len(x) else 0.0


def fixed_sample_deals(sd: float, design: SprtDesign) -> float:
    """Deals a fixed-size one-sided z-test needs for the same hypotheses and error rates:
    n = ((z_(1-alpha) + z_(1-beta)) * sd / (delta1 - delta0))^2, sd the per-deal standard
    deviation."""
    z = NormalDist().inv_cdf
    return ((z(1 - design.alpha) + z(1 - design.beta)) * sd / (design.delta1 - design.delta0)) ** 2


@dataclass(frozen=True)
class Decision:
    decision: str  # H1, H0 or UNDECIDED
    deals: int  # deals used: up to the block where the LLR crossed a bound, else all blocks
    llr: float  # the LLR there
    trace: tuple[float, ...]  # the LLR after each block, up to the decision


def decide(scores: Sequence[float] | np.ndarray, design: SprtDesign) -> Decision:
    """The test on the deal scores in deal order: the first look (after each whole block,
    from the second, and from `MIN_SHARE_OF_FIXED` of the fixed-size test's deals) whose LLR
    reaches a bound; without a crossing, UNDECIDED after all whole blocks (play on, or stop
    at the maximum)."""
    x = np.asarray(scores, dtype=float)
    looks = np.arange(design.block, len(x) + 1, design.block)  # deals at each look
    full = llr_trace(x, design.delta0, design.delta1)
    t = full[looks - 1] if len(looks) else np.zeros(0)
    m = looks.astype(float)
    if len(looks):
        s1, s2 = np.cumsum(x)[looks - 1], np.cumsum(x * x)[looks - 1]
        sd = np.sqrt(np.maximum(s2 / m - (s1 / m) ** 2, 0.0) * m / np.maximum(m - 1, 1))
        ready = (looks >= max(2 * design.block, MIN_DEALS)) & (
            looks >= MIN_SHARE_OF_FIXED * fixed_sample_deals(1.0, design) * sd * sd
        )
    else:
        ready = np.zeros(0, dtype=bool)
    crossed = np.flatnonzero(ready & ((t >= design.upper) | (t <= design.lower)))
    end = int(crossed[0]) + 1 if len(crossed) else len(t)
    last = float(t[end - 1]) if end else 0.0
    verdict = UNDECIDED if not len(crossed) else H1 if last >= design.upper else H0
    deals = int(looks[end - 1]) if end else 0
    return Decision(verdict, deals, last, tuple(float(v) for v in t[:end]))


def deal_scores(
    rows: Iterable[SeatResult], a: str, b: str, metric: str, luck_adjusted: bool = False
) -> list[float]:
    """Per deal (ordered by its first game's index), A's per-seat score minus B's; only deals
    in which both policies sat.  The caller passes complete deals only.  `luck_adjusted`:
    scores minus the seats' dice luck (harness/play/luck.py)."""
    if metric not in METRICS:
        raise ValueError(f"metric={metric!r}: choose one of {', '.join(METRICS)}")
    score = control_score if metric == "control" else win_score
    cells: dict[int, dict[str, list[float]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    first: dict[int, int] = {}
    for r in rows:
        cell = cells[r.seed][r.policy]
        cell[0] += score(r, luck_adjusted)
        cell[1] += 1
        first[r.seed] = min(first.get(r.seed, r.game), r.game)
    out = []
    for seed in sorted(cells, key=lambda s: first[s]):
        deal = cells[seed]
        if a in deal and b in deal:
            out.append(deal[a][0] / deal[a][1] - deal[b][0] / deal[b][1])
    return out


def synthetic_deal_scores(
    rng: np.random.Generator,
    pa: float,
    pb: float,
    runs: int,
    deals: int,
    games_per_deal: int = 24,
    seats_each: int = 1,
) -> np.ndarray:
    """Simulated per-deal control-win differences (runs x deals): each of a deal's games is won
    by control by one of A's `seats_each` seats (probability seats_each * pa), one of B's
    (seats_each * pb), or nobody; A's per-seat rate minus B's over the deal.  The defaults are
    a 4-player deal of four different policies under the balanced design (24 games, A and B
    once each a game); `games_per_deal=6, seats_each=2` is the line-up `A B` (A B A B)."""
    u = rng.random((runs, deals, games_per_deal))
    a = (u < seats_each * pa).sum(axis=-1)
    b = ((u >= seats_each * pa) & (u < seats_each * (pa + pb))).sum(axis=-1)
    return np.asarray((a - b) / (seats_each * games_per_deal), dtype=float)


def simulate(design: SprtDesign, scores: np.ndarray) -> dict[str, float]:
    """The test on simulated sequences of per-deal scores (runs x deals, e.g. from
    synthetic_deal_scores): the share of each decision, the mean deals used, and the deals of
    the fixed-size test of the same hypotheses and error rates at the scores' standard
    deviation."""
    decisions = [decide(row, design) for row in scores]
    runs = len(decisions)
    rates = {k: sum(d.decision == k for d in decisions) / runs for k in (H1, H0, UNDECIDED)}
    return {
        **rates,
        "mean_deals": float(np.mean([d.deals for d in decisions])),
        "fixed_deals": fixed_sample_deals(float(scores.std()), design),
    }


__all__ = [
    "H0",
    "H1",
    "METRICS",
    "UNDECIDED",
    "Decision",
    "default_block",
    "SprtDesign",
    "deal_scores",
    "decide",
    "fixed_sample_deals",
    "llr",
    "llr_trace",
    "simulate",
    "synthetic_deal_scores",
]
