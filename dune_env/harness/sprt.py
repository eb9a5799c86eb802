"""Sequential probability ratio test (SPRT) on duplicate deals: the statistics.

The unit is a deal played under every rotation of the line-up (`--duplicate`), as a game pair
is in chess engine testing.  Each deal k gives one number x_k: policy A's per-seat score in the
deal minus policy B's (the score is the control-win rate, or the win rate).  The test decides
between

    H0: mean(x) <= delta0      and      H1: mean(x) >= delta1      (delta0 < delta1)

with error rates alpha (accepting H1 when H0 holds) and beta (accepting H0 when H1 holds).
The test runs on blocks of `block` consecutive deals (default 16): the statistic is the
block's mean of x_k.  A deal's control-win difference is a handful of rare events, so skewed
that the normal model below, fed single deals, accepts H0 too often when H1 holds (simulated
beta 6.9% for a 5% target; 5.4% on blocks of 8, 4.7% on 12, 3.6% on 16; for a 1% target
1.3% on 8, 0.6% on 16: `python benchmarks/power.py --sprt-simulate 10000`); means of 16 deals
are close enough to normal for both error rates to stay within their targets.

The method is the generalized SPRT (GSPRT) of the chess testing frameworks (Stockfish's
fishtest, OpenBench), which replace Wald's simple hypotheses by the maximum likelihood under
each composite one (Lai; H. Liu, "generalized sequential probability ratio test"; M. Van den
Bergh's notes for fishtest).  Here the deal statistic is modelled as normal with unknown
variance: under the hypothesis mean = d, the variance's maximum likelihood estimate is
s_d^2 = (1/n) sum (x_i - d)^2 over the n block means so far, and the log-likelihood ratio of
H1 against H0 is

    LLR_n = (n / 2) * ln(s_delta0^2 / s_delta1^2).

Wald's bounds: accept H1 once LLR >= ln((1 - beta) / alpha), accept H0 once
LLR <= ln(beta / (1 - alpha)); otherwise play another block, up to the maximum.  The LLR is
checked after every block in deal order (deal ids are fixed by the seed), so the decision
does not depend on how many games run at once, nor on a resume.  While every block so far
gave the same value (no variance yet) the LLR is 0: the test needs at least two blocks.

This module is pure arithmetic (numpy); harness/sprt_run.py plays the games.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from .report import control_score, win_score
from .types import SeatResult

METRICS = ("control", "win")  # the per-seat score compared: control-win rate, or win rate
H1 = "H1"  # decisions
H0 = "H0"
UNDECIDED = "undecided"


@dataclass(frozen=True)
class SprtDesign:
    """The hypotheses (in units of the per-seat score difference), the error rates, and the
    deals per block (the LLR is computed on block means, checked after each block)."""

    delta0: float = 0.0
    delta1: float = 0.03
    alpha: float = 0.05
    beta: float = 0.05
    block: int = 16

    def __post_init__(self) -> None:
        for name in ("alpha", "beta"):
            value = getattr(self, name)
            if not 0 < value < 0.5:
                raise ValueError(f"{name}={value!r}: give an error rate between 0 and 0.5")
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


def llr(values: Sequence[float] | np.ndarray, delta0: float, delta1: float) -> float:
    """The GSPRT log-likelihood ratio of H1 (mean delta1) against H0 (mean delta0) for the
    values (block means), normal model with the variance estimated under each hypothesis; 0
    while the values have no spread."""
    x = np.asarray(values, dtype=float)
    return float(llr_trace(x, delta0, delta1)[-1]) if len(x) else 0.0


def llr_trace(values: Sequence[float] | np.ndarray, delta0: float, delta1: float) -> np.ndarray:
    """The LLR after each of the first 1, 2, ... n values (vectorised `llr`)."""
    x = np.asarray(values, dtype=float)
    n = np.arange(1, len(x) + 1, dtype=float)
    s1, s2 = np.cumsum(x), np.cumsum(x * x)
    mean = s1 / n
    spread = np.maximum(s2 / n - mean * mean, 0.0)  # the ML variance about the sample mean
    var0 = spread + (mean - delta0) ** 2
    var1 = spread + (mean - delta1) ** 2
    # Rounding leaves ~1e-17 of "spread" in identical values: count spread only above that.
    spread_seen = spread > 1e-12 * np.maximum(1.0, s2 / n)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(spread_seen, 0.5 * n * np.log(var0 / var1), 0.0)
    return np.asarray(out, dtype=float)


def block_means(scores: Sequence[float] | np.ndarray, block: int) -> np.ndarray:
    """The means of consecutive whole blocks of `block` deal scores (a partial last block is
    left out: it is still being played)."""
    x = np.asarray(scores, dtype=float)
    whole = len(x) // block
    return np.asarray(x[: whole * block].reshape(whole, block).mean(axis=1), dtype=float)


@dataclass(frozen=True)
class Decision:
    decision: str  # H1, H0 or UNDECIDED
    deals: int  # deals used: up to the block where the LLR crossed a bound, else all blocks
    llr: float  # the LLR there
    trace: tuple[float, ...]  # the LLR after each block, up to the decision


def decide(scores: Sequence[float] | np.ndarray, design: SprtDesign) -> Decision:
    """The test on the deal scores in deal order: the first block whose LLR reaches a bound;
    without a crossing, UNDECIDED after all whole blocks (play on, or stop at the maximum)."""
    t = llr_trace(block_means(scores, design.block), design.delta0, design.delta1)
    crossed = np.flatnonzero((t >= design.upper) | (t <= design.lower))
    end = int(crossed[0]) + 1 if len(crossed) else len(t)
    last = float(t[end - 1]) if end else 0.0
    verdict = UNDECIDED if not len(crossed) else H1 if last >= design.upper else H0
    return Decision(verdict, end * design.block, last, tuple(float(v) for v in t[:end]))


def deal_scores(
    rows: Iterable[SeatResult], a: str, b: str, metric: str, luck_adjusted: bool = False
) -> list[float]:
    """Per deal (ordered by its first game's index), A's per-seat score minus B's; only deals
    in which both policies sat.  The caller passes complete deals only.  `luck_adjusted`:
    scores minus the seats' dice luck (harness/luck.py)."""
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
    rng: np.random.Generator, pa: float, pb: float, runs: int, deals: int
) -> np.ndarray:
    """Simulated per-deal control-win differences (runs x deals) of 4-player duplicate deals of
    the line-up [A, B]: each of a deal's 4 games is won by control by one of A's 2 seats
    (probability 2 pa), one of B's (2 pb), or nobody; A's per-seat rate minus B's over the
    deal's 8 seats each (pa, pb: per-seat control-win rates; the effect is pa - pb)."""
    u = rng.random((runs, deals, 4))
    a = (u < 2 * pa).sum(axis=-1)
    b = ((u >= 2 * pa) & (u < 2 * (pa + pb))).sum(axis=-1)
    return np.asarray((a - b) / 8, dtype=float)


def simulate(
    design: SprtDesign, pa: float, pb: float, runs: int, deals: int, seed: int
) -> dict[str, float]:
    """The test on `runs` simulated sequences (synthetic_deal_scores) of at most `deals` deals:
    the share of each decision and the mean deals used."""
    x = synthetic_deal_scores(np.random.default_rng(seed), pa, pb, runs, deals)
    decisions = [decide(row, design) for row in x]
    rates = {k: sum(d.decision == k for d in decisions) / runs for k in (H1, H0, UNDECIDED)}
    return {**rates, "mean_deals": float(np.mean([d.deals for d in decisions]))}


def fixed_sample_deals(sd: float, design: SprtDesign) -> float:
    """Deals a fixed-size one-sided z-test needs for the same hypotheses and error rates:
    n = ((z_(1-alpha) + z_(1-beta)) * sd / (delta1 - delta0))^2, sd the per-deal standard
    deviation."""
    from statistics import NormalDist

    z = NormalDist().inv_cdf
    return ((z(1 - design.alpha) + z(1 - design.beta)) * sd / (design.delta1 - design.delta0)) ** 2


__all__ = [
    "H0",
    "H1",
    "METRICS",
    "UNDECIDED",
    "Decision",
    "block_means",
    "SprtDesign",
    "deal_scores",
    "decide",
    "fixed_sample_deals",
    "llr",
    "llr_trace",
    "simulate",
    "synthetic_deal_scores",
]
