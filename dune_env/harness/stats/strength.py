"""Statistics for the benchmark report: Wilson intervals and the faction-adjusted strength fit.

Strength model (a conditional logit, i.e. the first stage of Plackett-Luce).  In a game of n
seats, seat i has utility u_i = theta[policy(i)] + phi[faction(i)], and

- a **solo winner** w has probability exp(u_w) / sum_j exp(u_j);
- an **alliance** (two winners a, b, END-2) is the event that {a, b} are the top two of a
  Plackett-Luce ranking, in either order: p_a p_b / (1 - p_a) + p_b p_a / (1 - p_b);
- a game **without a winner** says nothing about who is stronger and is left out of the fit
  (it is counted in `StrengthFit.games_without_winner`).

Time-out wins (END-5) are wins of the seat holding the Guild (or of the Bene Gesserit, END-6):
the faction parameters absorb them, so a policy's strength measures what it wins beyond what
its faction hands it.  The fit is a batch maximum of the likelihood (scipy's BFGS with the
exact gradient), so it does not depend on the order of the games.  Identification: one policy
(the reference: `random` when present, else the first of REFERENCE_ORDER that plays) has
strength 0 and the faction parameters sum to 0.  A
weak Gaussian prior (standard deviation `PRIOR_SD` in log-odds) keeps the estimate finite when
a policy never wins; such a policy is flagged, since its strength is then bounded only by the
prior.  Strength is in log-odds units: exp(strength) is a policy's odds multiplier of winning a
seat against the reference policy playing the same faction.

Luck-adjusted scores (`dune-bench --luck-adjust`, harness/play/luck.py): each game gives every seat
a score y_i (its share of the win, 1 or 1/2 for an alliance, minus its dice luck) instead of
its winners, and the fit maximises sum_i y_i log p_i over all games (the cross-entropy with
soft targets), whose gradient in the utilities is y - (sum_i y_i) p.  At the true parameters
that gradient has mean zero for solo wins exactly as the likelihood's does, and the luck terms
have mean zero, so the estimate stays consistent; every game counts, with or without a winner.
An alliance counts as half a win for each ally here (not the top-two event).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

Z95 = 1.959963984540054
PRIOR_SD = 4.0  # log-odds: weak (a strength of 4 is a 55-fold odds ratio)
# Fewer resampling units (deals, or games when not paired) than this give no interval: a
# bootstrap over 2 deals can only return a few values, often one (an interval of zero width).
MIN_INTERVAL_UNITS = 10


def too_few_units(units: int, what: str = "deals") -> str:
    """Why no interval is given for `units` deals (or games)."""
    return (
        f"no interval: {units} {what} (at least {MIN_INTERVAL_UNITS} are needed for a 95% interval)"
    )


def wilson_interval(successes: int, trials: int, z: float = Z95) -> tuple[float, float]:
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


@dataclass(frozen=True)
class GameOutcome:
    """One game for the strength fit: the policy and faction of each seat and the winners."""

    policies: tuple[str, ...]
    factions: tuple[str, ...]
    winners: tuple[int, ...]  # seats; empty when nobody won, two for an alliance
    group: int = 0  # games of one group (a duplicate deal) are resampled together
    # Soft targets instead of `winners` (luck-adjusted scores, harness/play/luck.py): seat i's
    # score y_i; the fit then maximises sum_i y_i log p_i (see `fit_strength`).
    scores: tuple[float, ...] = ()


@dataclass
class StrengthFit:
    """The fitted strengths (log-odds, reference policy at 0) with 95% bootstrap intervals."""

    reference: str
    strength: dict[str, float]
    faction_effect: dict[str, float]
    strength_ci95: dict[str, tuple[float, float]] = field(default_factory=dict)
    faction_ci95: dict[str, tuple[float, float]] = field(default_factory=dict)
    # difference strength[a] - strength[b] with its interval, for every pair (a, b), a < b
    pair_ci95: dict[tuple[str, str], tuple[float, float, float]] = field(default_factory=dict)
    games_fitted: int = 0
    games_without_winner: int = 0
    bootstrap_samples: int = 0
    bootstrap_failures: int = 0
    notes: dict[str, str] = field(default_factory=dict)  # per policy: why its value is marked
    converged: bool = True
    interval_note: str = ""  # why there are no intervals (too few deals), else ""
    # fit_strength(context=...): per term ("seat", "before", "after"), each level's effect
    context_effect: dict[str, dict[str, float]] = field(default_factory=dict)
    log_likelihood: float = 0.0  # at the estimate (with the prior's term): for likelihood ratios

    def to_dict(self) -> dict[str, Any]:
        return {
            "model": "conditional logit (Plackett-Luce), policy + faction effects, maximum "
            f"a posteriori with a N(0, {PRIOR_SD}^2) prior; alliances = top-two set",
            "reference": self.reference,
            "strength": self.strength,
            "strength_ci95": {k: list(v) for k, v in self.strength_ci95.items()},
            "faction_effect": self.faction_effect,
            "faction_ci95": {k: list(v) for k, v in self.faction_ci95.items()},
            "games_fitted": self.games_fitted,
            "games_without_winner": self.games_without_winner,
            "bootstrap_samples": self.bootstrap_samples,
            "bootstrap_failures": self.bootstrap_failures,
            "converged": self.converged,
            "notes": self.notes,
            **({"interval_note": self.interval_note} if self.interval_note else {}),
            **({"context_effect": self.context_effect} if self.context_effect else {}),
        }


# What `fit_strength(context=...)` may add: the seat, the policy sitting just before (acting
# just before) or just after each seat; "before2", "after3", ...: two, three seats away.
CONTEXT_TERMS = ("seat", "before", "after")


def _neighbour_shift(term: str, n: int) -> int | None:
    """How far `np.roll` moves the seats' policies for a neighbour term ("before" -> 1,
    "after2" -> -2); None for a term that is not one."""
    for side, sign in (("before", 1), ("after", -1)):
        rest = term[len(side) :]
        if term.startswith(side) and (rest == "" or (rest.isdigit() and 0 < int(rest) < n)):
            return sign * (int(rest) if rest else 1)
    return None


class _Design:
    """The games as arrays: policy index per seat, the index of each seat's level in every
    sum-to-zero group of effects (faction first, then the context terms), winner masks."""

    def __init__(
        self,
        games: Sequence[GameOutcome],
        policies: list[str],
        factions: list[str],
        context: Sequence[str] = (),
    ) -> None:
        pi = {p: i for i, p in enumerate(policies)}
        fi = {f: i for i, f in enumerate(factions)}
        n = len(games[0].policies)
        if any(len(g.policies) != n or len(g.factions) != n for g in games):
            raise ValueError("the strength fit takes games of one player count at a time")
        self.n = n
        self.num_policies = len(policies)
        self.pol = np.array([[pi[p] for p in g.policies] for g in games], dtype=np.int64)
        fac = np.array([[fi[f] for f in g.factions] for g in games], dtype=np.int64)
        # Each group: (index array (G, n), number of levels).  The context terms: the seat, and
        # the policy sitting just before (acting just before) and just after each seat.
        self.groups: list[tuple[np.ndarray, int]] = [(fac, len(factions))]
        for term in context:
            shift = _neighbour_shift(term, n)
            if term == "seat":
                self.groups.append((np.broadcast_to(np.arange(n), self.pol.shape).copy(), n))
            elif shift is not None:
                self.groups.append((np.roll(self.pol, shift, axis=1), len(policies)))
            else:
                raise ValueError(f"context term {term!r}: use any of {', '.join(CONTEXT_TERMS)}")
        self.solo = np.array([len(g.winners) == 1 for g in games])
        # (a game without a winner is fitted only by its scores: its `first` is unused)
        first = np.array([g.winners[0] if g.winners else 0 for g in games], dtype=np.int64)
        second = np.array([g.winners[1] if len(g.winners) > 1 else -1 for g in games])
        self.first = first
        self.second = second
        soft = [bool(g.scores) for g in games]
        if any(soft) and not all(soft):
            raise ValueError("either every game has luck-adjusted scores or none has")
        self.target = np.array([g.scores for g in games], dtype=float) if all(soft) else None

    @property
    def num_factions(self) -> int:
        return self.groups[0][1]

    @property
    def num_params(self) -> int:
        return self.num_policies - 1 + sum(levels - 1 for _, levels in self.groups)

    def take(self, rows: np.ndarray) -> _Design:
        other = _Design.__new__(_Design)
        other.n, other.num_policies = self.n, self.num_policies
        for name in ("pol", "solo", "first", "second"):
            setattr(other, name, getattr(self, name)[rows])
        other.groups = [(index[rows], levels) for index, levels in self.groups]
        other.target = self.target[rows] if self.target is not None else None
        return other


def _effects(x: np.ndarray, d: _Design, ref: int) -> tuple[np.ndarray, list[np.ndarray]]:
    """The policy strengths (`ref` at 0) and every group's effects (summing to 0) from the
    free parameters x: all policies but `ref`, then each group's levels but its last."""
    theta = np.insert(x[: d.num_policies - 1], ref, 0.0)
    effects, at = [], d.num_policies - 1
    for _, levels in d.groups:
        free = x[at : at + levels - 1]
        effects.append(np.append(free, -free.sum()))
        at += levels - 1
    return theta, effects


def _neg_log_likelihood(x: np.ndarray, d: _Design, ref: int) -> tuple[float, np.ndarray]:
    """Minus the log posterior and its gradient in the free parameters (`_effects`)."""
    theta, effects = _effects(x, d, ref)
    u = theta[d.pol]  # (G, n)
    for (index, _), effect in zip(d.groups, effects, strict=True):
        u = u + effect[index]
    u_max = u.max(axis=1, keepdims=True)
    e = np.exp(u - u_max)
    p = e / e.sum(axis=1, keepdims=True)
    if d.target is not None:
        ll, grad_u = _soft_terms(u - u_max, e, p, d.target)
    else:
        ll, grad_u = _winner_terms(p, d)
    flat = grad_u.ravel()
    g_theta = -np.bincount(d.pol.ravel(), flat, d.num_policies) + theta / PRIOR_SD**2
    prior = theta @ theta
    gradient = [np.delete(g_theta, ref)]
    for (index, levels), effect in zip(d.groups, effects, strict=True):
        prior += effect @ effect
        g_full = -np.bincount(index.ravel(), flat, levels) + effect / PRIOR_SD**2
        gradient.append(g_full[:-1] - g_full[-1])
    value = -float(ll.sum()) + 0.5 * prior / PRIOR_SD**2
    return value, np.concatenate(gradient)


def _soft_terms(
    shifted: np.ndarray, e: np.ndarray, p: np.ndarray, target: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Per game sum_i y_i log p_i and its gradient in u: y - (sum_i y_i) p."""
    log_p = shifted - np.log(e.sum(axis=1, keepdims=True))
    ll = (target * log_p).sum(axis=1)
    return ll, target - target.sum(axis=1, keepdims=True) * p


def _winner_terms(p: np.ndarray, d: _Design) -> tuple[np.ndarray, np.ndarray]:
    """Per game the log-likelihood of its winners (solo, or an alliance's top-two set) and its
    gradient in the utilities u."""
    rows = np.arange(len(p))
    pa = p[rows, d.first]
    grad_u = -p.copy()
    grad_u[rows, d.first] += 1.0
    ll = np.log(pa)
    # Alliances: log(p_a p_b (1/(1-p_a) + 1/(1-p_b))); gradient by the chain rule.
    al = np.flatnonzero(~d.solo)
    if al.size:
        a, b = d.first[al], d.second[al]
        pa_, pb_ = p[al, a], p[al, b]
        ia, ib = 1.0 / (1.0 - pa_), 1.0 / (1.0 - pb_)
        s = ia + ib
        ll[al] = np.log(pa_) + np.log(pb_) + np.log(s)
        pal = p[al]
        g = -2.0 * pal
        g[np.arange(al.size), a] += 1.0
        g[np.arange(al.size), b] += 1.0
        da = -pal * (pa_ * ia * ia)[:, None]
        da[np.arange(al.size), a] += pa_ * ia * ia
        db = -pal * (pb_ * ib * ib)[:, None]
        db[np.arange(al.size), b] += pb_ * ib * ib
        g += (da + db) / s[:, None]
        grad_u[al] = g
    return ll, grad_u


def _maximise(d: _Design, ref: int, x0: np.ndarray) -> tuple[np.ndarray, bool]:
    from scipy.optimize import minimize

    result = minimize(
        _neg_log_likelihood,
        x0,
        args=(d, ref),
        jac=True,
        method="BFGS",  # (small problems: faster here than L-BFGS-B's compiled loop)
        options={"maxiter": 500, "gtol": 1e-6},
    )
    # BFGS may stop on "precision loss" at the optimum: accept a vanishing gradient too.
    ok = bool(result.success) or float(np.max(np.abs(result.jac), initial=0.0)) < 1e-3
    return result.x, ok


def _unpack(x: np.ndarray, d: _Design, ref: int) -> tuple[np.ndarray, np.ndarray]:
    """The policy strengths and the faction effects of the free parameters x."""
    theta, effects = _effects(x, d, ref)
    return theta, effects[0]


# The scale's zero, in order of preference: the project's fixed baselines, weakest first, so
# that a user's own policy is the reference only when none of them plays.
REFERENCE_ORDER = (
    "random",
    "aggressive",
    "economic",
    "strategist",
    "aggressive-eps20",
    "economic-eps20",
    "aggressive-declines",
    "economic-declines",
    "strategist-declines",
)


def choose_reference(policies: Sequence[str]) -> str:
    """The first of REFERENCE_ORDER that plays, else the first policy named (alphabetically)."""
    for name in REFERENCE_ORDER:
        if name in policies:
            return name
    return sorted(policies)[0]


def fit_strength(
    games: Sequence[GameOutcome],
    reference: str | None = None,
    bootstrap: int = 200,
    seed: int = 0,
    context: Sequence[str] = (),
) -> StrengthFit:
    """Fit policy strengths and faction effects; 95% percentile intervals from `bootstrap`
    resamples of the games' groups (duplicate deals, or single games).

    `context`: further sum-to-zero effects in every seat's utility, any of `CONTEXT_TERMS`:
    the seat, the policy sitting just before it, the policy just after it (their estimates in
    `StrengthFit.context_effect`).  Under a balanced seating design they leave the strengths'
    point estimates nearly where they were (benchmarks/seat_effects.py measures what they do
    to the intervals).

    The result is a function of the *set* of games: their order does not matter."""
    # Canonical order (the fit and the bootstrap never see the input order).
    ordered = sorted(games, key=lambda g: (g.group, g.policies, g.factions, g.winners, g.scores))
    policies = sorted({p for g in ordered for p in g.policies})
    factions = sorted({f for g in ordered for f in g.factions})
    if not policies:
        raise ValueError("no games to fit")
    reference = reference if reference is not None else choose_reference(policies)
    if reference not in policies:
        raise ValueError(f"reference policy {reference!r} did not play; played: {policies}")
    # Luck-adjusted scores: every game counts (a game without a winner still carries its
    # seats' luck, and leaving it out would select games by their dice).
    with_winner = [g for g in ordered if g.winners or g.scores]
    fit = StrengthFit(
        reference=reference,
        strength={p: 0.0 for p in policies},
        faction_effect={f: 0.0 for f in factions},
        games_fitted=len(with_winner),
        games_without_winner=sum(1 for g in ordered if not g.winners),
    )
    _note_never_won(fit, with_winner, policies)
    if not with_winner:
        fit.converged = False
        fit.notes[reference] = "no game had a winner: nothing to fit"
        return fit
    ref = policies.index(reference)
    d = _Design(with_winner, policies, factions, context)
    x, ok = _maximise(d, ref, np.zeros(d.num_params))
    fit.converged = ok
    fit.log_likelihood = -_neg_log_likelihood(x, d, ref)[0]
    theta, effects = _effects(x, d, ref)
    phi = effects[0]
    fit.strength = {p: float(theta[i]) for i, p in enumerate(policies)}
    fit.faction_effect = {f: float(phi[i]) for i, f in enumerate(factions)}
    for term, effect in zip(context, effects[1:], strict=True):
        levels = [str(s) for s in range(d.n)] if term == "seat" else policies
        fit.context_effect[term] = {k: float(v) for k, v in zip(levels, effect, strict=True)}
    if bootstrap <= 0:
        return fit
    units = len({g.group for g in with_winner})
    if units < MIN_INTERVAL_UNITS:
        fit.interval_note = too_few_units(units)
        return fit
    thetas, phis = _bootstrap_fits(fit, d, ref, x, with_winner, bootstrap, seed)
    fit.bootstrap_samples = len(thetas)
    if fit.bootstrap_failures > 0.05 * bootstrap or len(thetas) < 20:
        fit.converged = False
        for p in policies:
            fit.notes.setdefault(
                p, f"bootstrap did not converge ({fit.bootstrap_failures} of {bootstrap} failed)"
            )
    if thetas:
        _set_intervals(fit, np.array(thetas), np.array(phis), theta, policies, factions)
    return fit


def _note_never_won(fit: StrengthFit, with_winner: list[GameOutcome], policies: list[str]) -> None:
    """Note the strengths the games cannot identify: a policy that never won, and everyone's
    when the reference (`fit.reference`) never won."""
    reference = fit.reference
    wins: dict[str, int] = {p: 0 for p in policies}
    for g in with_winner:
        for seat in g.winners:
            wins[g.policies[seat]] += 1
    for p in policies:
        if wins[p] == 0:
            fit.notes[p] = "never won: the strength is bounded only by the prior (not identified)"
    if wins[reference] == 0 and len(policies) > 1:
        for p in policies:
            fit.notes.setdefault(
                p,
                f"measured against the reference {reference!r}, which never won: the scale is "
                "set by the prior (not identified)",
            )


def _bootstrap_fits(
    fit: StrengthFit,
    d: _Design,
    ref: int,
    x: np.ndarray,
    with_winner: list[GameOutcome],
    bootstrap: int,
    seed: int,
) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Strengths and faction effects refitted (from `x`) on `bootstrap` resamples of the
    games' groups drawn from `seed`; a refit that fails is counted in `fit`."""
    groups: dict[int, list[int]] = {}
    for i, g in enumerate(with_winner):
        groups.setdefault(g.group, []).append(i)
    members = [np.array(v) for _, v in sorted(groups.items())]
    rng = np.random.default_rng(seed)
    thetas, phis = [], []
    for _ in range(bootstrap):
        pick = rng.integers(0, len(members), len(members))
        rows = np.concatenate([members[k] for k in pick])
        xb, ok_b = _maximise(d.take(rows), ref, x)
        if not ok_b:
            fit.bootstrap_failures += 1
            continue
        tb, pb = _unpack(xb, d, ref)
        thetas.append(tb)
        phis.append(pb)
    return thetas, phis


def _percentile95(values: np.ndarray) -> tuple[float, float]:
    low, high = np.percentile(values, [2.5, 97.5])
    return float(low), float(high)


def _set_intervals(
    fit: StrengthFit,
    t: np.ndarray,
    f_arr: np.ndarray,
    theta: np.ndarray,
    policies: list[str],
    factions: list[str],
) -> None:
    """The 95% percentile intervals of the bootstrap's strengths `t`, faction effects `f_arr`
    and pairwise differences (around the fitted `theta`)."""
    fit.strength_ci95 = {p: _percentile95(t[:, i]) for i, p in enumerate(policies)}
    fit.faction_ci95 = {f: _percentile95(f_arr[:, i]) for i, f in enumerate(factions)}
    for i, a in enumerate(policies):
        for j in range(i + 1, len(policies)):
            diff = t[:, i] - t[:, j]
            low, high = _percentile95(diff)
            fit.pair_ci95[(a, policies[j])] = (float(theta[i] - theta[j]), low, high)
