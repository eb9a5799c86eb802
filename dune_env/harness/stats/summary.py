"""A run's rows aggregated into its summary (summary.json): the statistics of a benchmark.

Per policy: win rate, control-win rate (scores.py), time-out wins by cause, mean reward, by
faction, by seat and by neighbour, and the faction-adjusted strength (strength.fit_strength)
with 95% intervals; for duplicate runs, paired head-to-head differences; for luck-adjusted
runs, the same fit without the adjustment, for comparison."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from ..play.types import GameFailure, SeatResult
from .scores import control_score, is_control_win, win_score
from .strength import (
    MIN_INTERVAL_UNITS,
    Z95,
    GameOutcome,
    StrengthFit,
    fit_strength,
    wilson_interval,
)
from .verdict import cannot_tell_apart


def _games(rows: Sequence[SeatResult]) -> list[list[SeatResult]]:
    by_game: dict[int, list[SeatResult]] = defaultdict(list)
    for row in rows:
        by_game[row.game].append(row)
    return [sorted(g, key=lambda r: r.seat) for _, g in sorted(by_game.items())]


def outcomes(rows: Sequence[SeatResult], luck_adjusted: bool = False) -> list[GameOutcome]:
    """The games for the strength fit; games that share a seed (a duplicate deal) form one
    bootstrap group.  `luck_adjusted`: each seat's score is its share of the win minus its
    dice luck (soft targets, stats.fit_strength)."""
    games = []
    for g in _games(rows):
        winners = tuple(r.seat for r in g if r.won)
        scores: tuple[float, ...] = ()
        if luck_adjusted:
            share = 1.0 / len(winners) if winners else 0.0
            scores = tuple((share if r.won else 0.0) - r.luck_win for r in g)
        games.append(
            GameOutcome(
                policies=tuple(r.policy for r in g),
                factions=tuple(r.faction for r in g),
                winners=winners,
                group=g[0].seed,
                scores=scores,
            )
        )
    return games


def head_to_head(
    rows: Sequence[SeatResult], fit: StrengthFit | None = None, luck_adjusted: bool = False
) -> list[dict[str, Any]]:
    """Paired differences between every two policies over duplicate deals: strength (the
    fit's estimates, with the interval of its bootstrap when it has one) and control-win rate
    (mean over deals of the per-deal difference of the per-seat rates, normal 95% interval
    from MIN_INTERVAL_UNITS deals on; luck-adjusted control scores when `luck_adjusted`)."""
    deals: dict[int, dict[str, list[float]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    for r in rows:
        cell = deals[r.seed][r.policy]
        cell[0] += control_score(r, luck_adjusted)
        cell[1] += 1
    names = sorted({r.policy for r in rows})
    out = []
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            diffs = [
                d[a][0] / d[a][1] - d[b][0] / d[b][1]
                for _, d in sorted(deals.items())
                if a in d and b in d
            ]
            k = len(diffs)
            mean = math.fsum(diffs) / k if k else 0.0
            sd = math.sqrt(math.fsum((x - mean) ** 2 for x in diffs) / (k - 1)) if k > 1 else 0.0
            # (no interval from fewer than MIN_INTERVAL_UNITS deals: too_few_units says why)
            half = Z95 * sd / math.sqrt(k) if k >= MIN_INTERVAL_UNITS else None
            item: dict[str, Any] = {
                "a": a,
                "b": b,
                "deals": k,
                "control_win_rate_diff": mean,
                "control_win_rate_diff_ci95": (
                    [mean - half, mean + half] if half is not None else None
                ),
            }
            if fit is not None and a in fit.strength and b in fit.strength:
                item["strength_diff"] = fit.strength[a] - fit.strength[b]
                pair = fit.pair_ci95.get((a, b))
                item["strength_diff_ci95"] = [pair[1], pair[2]] if pair is not None else None
            out.append(item)
    return out


def summarise(
    rows: Sequence[SeatResult],
    failures: Sequence[GameFailure] = (),
    duplicate: bool = False,
    bootstrap: int = 200,
    seed: int = 0,
    reference: str | None = None,
    luck_adjusted: bool = False,
) -> dict[str, Any]:
    """Per policy: win rate and control-win rate with Wilson 95% intervals, time-out wins by
    cause, mean reward, by faction, by seat, faction-adjusted strength with bootstrap 95%
    intervals (over deals when `duplicate`, else over games) against `reference` (default:
    stats.choose_reference); failures; head-to-head pairs; whether the games can tell the
    policies apart (verdict.cannot_tell_apart)."""
    by_policy: dict[str, list[SeatResult]] = defaultdict(list)
    for row in rows:
        by_policy[row.policy].append(row)
    games = _games(rows)
    fit = None
    if games:
        fit = fit_strength(outcomes(rows, luck_adjusted), reference, bootstrap=bootstrap, seed=seed)
    policies: dict[str, Any] = {}
    neighbours = by_neighbour(games)
    for name, items in sorted(by_policy.items()):
        policies[name] = _policy_entry(name, items, fit)
        policies[name]["by_neighbour"] = neighbours.get(name, {})
    kinds: dict[str, int] = defaultdict(int)
    for g in games:
        kinds[g[0].win_kind] += 1
    summary: dict[str, Any] = {
        "games": len(games),
        "failed_games": len(failures),
        "failures": [
            {"game": f.game, "seed": f.seed, "policy": f.policy, "kind": f.kind, "error": f.error}
            for f in failures
        ],
        "mean_rounds": sum(g[0].rounds for g in games) / max(1, len(games)),
        "mean_decisions": sum(g[0].decisions for g in games) / max(1, len(games)),
        "win_kinds": dict(sorted(kinds.items())),
        "num_players": games[0][0].num_players if games else None,
        "chance_win_rate": 1.0 / games[0][0].num_players if games else None,
        "policies": policies,
        "strength_fit": fit.to_dict() if fit is not None else None,
        "duplicate": duplicate,
    }
    if duplicate and fit is not None:
        summary["head_to_head"] = head_to_head(rows, fit, luck_adjusted)
    if luck_adjusted:
        summary["luck_adjusted"] = luck_record(rows, by_policy, reference, bootstrap, seed)
    summary["cannot_tell_apart"] = cannot_tell_apart(summary)
    return summary


def luck_record(
    rows: Sequence[SeatResult],
    by_policy: dict[str, list[SeatResult]],
    reference: str | None,
    bootstrap: int,
    seed: int,
) -> dict[str, Any]:
    """summary.json's "luck_adjusted": each policy's mean dice luck and luck-adjusted rates,
    and the fit and paired table of the same games without the adjustment, for comparison."""
    raw = fit_strength(outcomes(rows), reference, bootstrap=bootstrap, seed=seed)
    per_policy = {}
    for name, items in sorted(by_policy.items()):
        k = len(items)
        per_policy[name] = {
            "mean_luck_win": math.fsum(r.luck_win for r in items) / k,
            "mean_luck_control": math.fsum(r.luck_control for r in items) / k,
            "adjusted_win_rate": math.fsum(win_score(r, True) for r in items) / k,
            "adjusted_control_win_rate": math.fsum(control_score(r, True) for r in items) / k,
        }
    return {
        "estimator": "chance terms of AIVAT on every roll (dune_env/harness/play/luck.py); the "
        "strength fit and head_to_head use the adjusted scores; each policy's win_rate and "
        "control_win_rate are the raw ones, its adjusted rates are below",
        "policies": per_policy,
        "strength_fit_unadjusted": raw.to_dict(),
        "head_to_head_unadjusted": head_to_head(rows, raw),
    }


def _policy_entry(name: str, items: list[SeatResult], fit: StrengthFit | None) -> dict[str, Any]:
    """One policy's part of the summary: its rates, time-out wins, by faction and seat,
    and its strength from `fit`."""
    wins = sum(r.won for r in items)
    control = sum(is_control_win(r) for r in items)
    low, high = wilson_interval(wins, len(items))
    timeout_guild = sum(r.won for r in items if r.win_kind == "timeout" and not r.bg_took)
    timeout_bg = sum(r.won for r in items if r.win_kind == "timeout" and r.bg_took)
    entry: dict[str, Any] = {
        "seats_played": len(items),
        "wins": wins,
        "win_rate": wins / len(items),
        "win_rate_ci95": [low, high],
        "control_wins": control,
        "control_win_rate": control / len(items),
        "control_win_rate_ci95": list(wilson_interval(control, len(items))),
        "mean_reward": sum(r.reward for r in items) / len(items),
        "alliance_wins": sum(r.won for r in items if r.win_kind == "alliance"),
        "timeout_wins": timeout_guild + timeout_bg,
        "timeout_wins_by_cause": {"guild": timeout_guild, "bg_prediction": timeout_bg},
        "bg_prediction_wins_on_control": sum(
            r.won for r in items if r.win_kind == "solo" and r.bg_took
        ),
        "by_faction": _by_value(items, "faction"),
        "by_seat": _by_value(items, "seat"),
        "strength": None,
        "strength_ci95": None,
    }
    if fit is not None:
        entry["strength"] = fit.strength[name]
        ci = fit.strength_ci95.get(name)
        entry["strength_ci95"] = list(ci) if ci is not None else None
        if name in fit.notes:
            entry["strength_note"] = fit.notes[name]
    return entry


NEIGHBOUR_SIDES = ("before", "after")  # the policy acting just before / just after a seat


def by_neighbour(games: Sequence[Sequence[SeatResult]]) -> dict[str, dict[str, Any]]:
    """Per policy and side ("before": the seat acting just before it, "after": just after), per
    neighbouring policy: seats, win rate and control-win rate with Wilson 95% intervals.  Play
    passes clockwise (DEF-9), so "before" is the previous seat number, wrapping round."""
    cells: dict[str, dict[str, dict[str, list[int]]]] = defaultdict(
        lambda: {side: defaultdict(lambda: [0, 0, 0]) for side in NEIGHBOUR_SIDES}
    )
    for game in games:
        n = len(game)
        for r in game:
            for side, step in zip(NEIGHBOUR_SIDES, (-1, 1), strict=True):
                cell = cells[r.policy][side][game[(r.seat + step) % n].policy]
                cell[0] += 1
                cell[1] += int(r.won)
                cell[2] += int(is_control_win(r))
    return {
        name: {
            side: {
                other: {
                    "seats": c[0],
                    "win_rate": c[1] / c[0],
                    "win_rate_ci95": list(wilson_interval(c[1], c[0])),
                    "control_win_rate": c[2] / c[0],
                    "control_win_rate_ci95": list(wilson_interval(c[2], c[0])),
                }
                for other, c in sorted(by_side[side].items())
            }
            for side in NEIGHBOUR_SIDES
        }
        for name, by_side in sorted(cells.items())
    }


def _by_value(items: list[SeatResult], key: str) -> dict[str, Any]:
    """Seats and wins (with Wilson 95% intervals) for each value of the rows' `key`."""
    groups: dict[str, list[int]] = defaultdict(list)
    for r in items:
        groups[str(getattr(r, key))].append(r.won)
    return {
        k: {
            "seats": len(v),
            "wins": sum(v),
            "win_rate": sum(v) / len(v),
            "win_rate_ci95": list(wilson_interval(sum(v), len(v))),
        }
        for k, v in sorted(groups.items())
    }
