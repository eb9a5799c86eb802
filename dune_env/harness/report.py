"""Aggregate seat results into the benchmark summary, Markdown report and plots.

Per policy: win rate, control-win rate (END-1/END-2 wins, solo or alliance, not taken by the
Bene Gesserit), time-out wins by cause, the faction-adjusted strength (stats.fit_strength)
with 95% intervals, and, for duplicate runs, paired head-to-head differences."""

from __future__ import annotations

import json
import math
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..provenance import build_sentence
from .outputs import open_output, write_output
from .stats import (
    MIN_INTERVAL_UNITS,
    Z95,
    GameOutcome,
    StrengthFit,
    fit_strength,
    too_few_units,
    wilson_interval,
)
from .types import GameFailure, SeatResult
from .verdict import cannot_tell_apart, legend, rank_label, ranked, standings, verdicts


def is_control_win(row: SeatResult) -> bool:
    """A win by END-1 or END-2 (solo or alliance) that the Bene Gesserit did not take."""
    return bool(row.won) and row.win_kind in ("solo", "alliance") and not row.bg_took


def control_score(row: SeatResult, luck_adjusted: bool = False) -> float:
    """A seat's control win (1 or 0), minus its dice luck when `luck_adjusted` (luck.py)."""
    return float(is_control_win(row)) - (row.luck_control if luck_adjusted else 0.0)


def win_score(row: SeatResult, luck_adjusted: bool = False) -> float:
    """A seat's win (1 or 0), minus its dice luck when `luck_adjusted` (luck.py)."""
    return float(row.won) - (row.luck_win if luck_adjusted else 0.0)


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


def _rate(successes: int, trials: int) -> dict[str, Any]:
    low, high = wilson_interval(successes, trials)
    return {"rate": successes / trials if trials else 0.0, "ci95": [low, high]}


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
        "estimator": "chance terms of AIVAT on every roll (dune_env/harness/luck.py); the "
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


def _interval(ci: Sequence[float] | None, fmt: str) -> str:
    if not ci:
        return "–"
    return f"[{format(ci[0], fmt)}, {format(ci[1], fmt)}]"


def strength_cells(name: str, summary: dict[str, Any]) -> tuple[str, str]:
    """The strength and its interval as printed: `0 (reference)` for the reference, `n/a ‡`
    when the games cannot tell the policies apart (summary["cannot_tell_apart"])."""
    p = summary["policies"][name]
    strength = p.get("strength")
    mark = " †" if p.get("strength_note") else ""
    if name == (summary.get("strength_fit") or {}).get("reference"):
        return "0 (reference)" + mark, "–"
    if summary.get("cannot_tell_apart") is not None:
        return "n/a ‡", "–"
    value = "–" if strength is None else f"{strength:+.2f}"
    if not p.get("strength_ci95") and (summary.get("strength_fit") or {}).get("interval_note"):
        return value + mark, "n/a"
    return value + mark, _interval(p.get("strength_ci95"), "+.2f")


def leaderboard(summary: dict[str, Any]) -> str:
    """The leaderboard as a Markdown table, strongest first."""
    fit = summary.get("strength_fit") or {}
    reference = fit.get("reference", "?")
    lines = [
        f"| policy | seats | strength (vs {reference}) | 95% CI | win rate | 95% CI "
        "| control wins | 95% CI | time-out wins (Guild / BG) | mean reward |",
        "|---|---:|---:|---|---:|---|---:|---|---:|---:|",
    ]
    for name, p in ranked(summary):
        value, interval = strength_cells(name, summary)
        causes = p["timeout_wins_by_cause"]
        lines.append(
            f"| {name} | {p['seats_played']} | {value} | {interval} "
            f"| {p['win_rate']:.1%} | {_interval(p['win_rate_ci95'], '.1%')} "
            f"| {p['control_win_rate']:.1%} | {_interval(p['control_win_rate_ci95'], '.1%')} "
            f"| {causes['guild']} / {causes['bg_prediction']} | {p['mean_reward']:+.3f} |"
        )
    reason = summary.get("cannot_tell_apart")
    if reason is not None:
        notes = [f"‡ the games cannot tell the policies apart: {reason}"]
    else:
        notes = [
            f"† {name}: {p['strength_note']}" for name, p in ranked(summary) if "strength_note" in p
        ]
    interval_note = fit.get("interval_note")
    if interval_note:
        notes.append(f"n/a: {interval_note}")
    return "\n".join(lines + ([""] + notes if notes else []))


def standings_table(summary: dict[str, Any]) -> str:
    """The policies strongest first with their rank and the paired difference to the policy
    above (verdict.standings): `2=` where the interval of that difference contains 0."""
    items = standings(summary)
    lines = [
        "| rank | policy | strength | 95% CI | minus the policy above | 95% CI |",
        "|---:|---|---:|---|---:|---|",
    ]
    for item in items:
        value, interval = strength_cells(item["name"], summary)
        diff, ci = item["above_diff"], item["above_ci95"]
        # (shown as this policy minus the one above: <= 0 by the ranking)
        step = "" if diff is None else f"{-diff:+.2f}"
        step_ci = "" if diff is None else _interval([-ci[1], -ci[0]] if ci else None, "+.2f")
        lines.append(
            f"| {rank_label(item, items)} | {item['name']} | {value} | {interval} "
            f"| {step} | {'n/a' if step_ci == '–' else step_ci} |"
        )
    tied = [item["name"] for item in items if item["tied"]]
    if tied:
        lines += [
            "",
            "`=`: the paired difference to the policy above has a 95% interval containing 0 "
            "(or no interval): these games do not order them.",
        ]
    return "\n".join(lines)


def head_to_head_table(summary: dict[str, Any]) -> str:
    """The paired differences as a Markdown table ("n/a" where the deals give no interval)."""
    lines = [
        "| a | b | deals | strength a − b | 95% CI | control-win rate a − b | 95% CI |",
        "|---|---|---:|---:|---|---:|---|",
    ]
    for h in summary.get("head_to_head", []):
        diff = h.get("strength_diff")
        enough = h["deals"] >= MIN_INTERVAL_UNITS  # deals for an interval
        lines.append(
            f"| {h['a']} | {h['b']} | {h['deals']} "
            f"| {'–' if diff is None else f'{diff:+.2f}'} "
            f"| {_interval(h.get('strength_diff_ci95'), '+.2f') if enough else 'n/a'} "
            f"| {h['control_win_rate_diff']:+.1%} "
            f"| {_interval(h['control_win_rate_diff_ci95'], '+.1%') if enough else 'n/a'} |"
        )
    short = [h["deals"] for h in summary.get("head_to_head", []) if h["deals"] < MIN_INTERVAL_UNITS]
    if short:
        lines += ["", f"n/a: {too_few_units(min(short))}."]
    return "\n".join(lines)


METHOD_NOTE = (
    "Strength: a batch maximum-likelihood fit of a conditional-logit (Plackett–Luce) model, one "
    "parameter per policy and per faction (this player count), log-odds units, reference "
    "policy at 0; a solo win is the first place, an alliance the top-two set, games without a "
    "winner are left out; time-out wins are absorbed by the faction parameters. 95% intervals: "
    "percentile bootstrap over {unit}. Win and control-win intervals: Wilson 95%. Control win: "
    "END-1/END-2 (solo or alliance) not taken by the Bene Gesserit."
)


def neighbour_section(summary: dict[str, Any]) -> list[str]:
    """report.md's "By neighbour" tables (none when no policy has neighbour results)."""
    if not any(p.get("by_neighbour") for p in summary["policies"].values()):
        return []
    out = [
        "## By neighbour (control-win rate [95% CI], seats)",
        "",
        "Each policy's control-win rate by the policy acting just before it (the previous "
        "seat: play passes clockwise) and just after it. Under the balanced seatings every "
        "policy meets every neighbour equally often, so these differences do not reach the "
        "strengths; they say how much this game's results depend on the table.",
        "",
    ]
    names = sorted(summary["policies"])
    for side in NEIGHBOUR_SIDES:
        out += [f"Neighbour acting just {side} it:", ""]
        out += _rate_table(
            summary,
            names,
            lambda p, c, side=side: p.get("by_neighbour", {}).get(side, {}).get(c),
            "control_win_rate",
        )
    return out


def design_phrase(summary: dict[str, Any], meta: dict[str, Any]) -> str:
    """How the games were seated, in words: "duplicate deals of 24 balanced seatings" ..."""
    from ..seatings import DESCRIPTIONS, ROTATIONS

    seatings = str(meta.get("seatings", ROTATIONS))
    what = DESCRIPTIONS.get(seatings, seatings).split(";")[0]
    if summary.get("duplicate"):
        return f"duplicate deals, each in {what}"
    return f"one seed a game, seated in {what}"


def seat_order_warning(meta: dict[str, Any]) -> str:
    """Why a rotations run's pairings are biased, when they are (3+ different policies)."""
    from ..seatings import ROTATIONS

    if str(meta.get("seatings", ROTATIONS)) != ROTATIONS or len(set(meta["policies"])) < 3:
        return ""
    return (
        "these games keep the line-up's cyclic order (--seatings rotations), so each policy "
        "always sits just before the same other one; with three or more different policies "
        "that seat order moves a paired difference as much as play does (a copy of the "
        "strategist reads about -0.5 log-odds against it). Use the default balanced seatings "
        "for verdicts (docs/baselines.md, Seat order)."
    )


def markdown_report(summary: dict[str, Any], meta: dict[str, Any]) -> str:
    out = ["# dune-env benchmark", ""]
    if summary.get("incomplete"):
        out += [
            f"**Incomplete run**: {summary['games'] + summary['failed_games']} of "
            f"{meta.get('games_requested', '?')} games played (interrupted).",
            "",
        ]
    out.append(
        f"{summary['games']} games of {meta['num_players']} players "
        f"({design_phrase(summary, meta)}), seed {meta['seed']}, "
        f"policies {', '.join(meta['policies'])}; mean length "
        f"{summary['mean_rounds']:.2f} rounds, {summary['mean_decisions']:.0f} decisions; "
        f"{meta.get('games_per_second', 0):.1f} games/s on {meta['workers']} worker(s)"
        f"{' (Ray tasks)' if meta.get('backend') == 'ray' else ''}."
    )
    warning = seat_order_warning(meta)
    if warning:
        out += ["", f"**Seat order**: {warning}"]
    if meta.get("software"):
        out += ["", f"Software: {build_sentence(meta['software'])} (summary.json: meta.software)."]
    if summary.get("luck_adjusted"):
        out += [
            "",
            f"**Luck-adjusted** ({meta.get('luck_samples', '?')} resampled rolls per roll): "
            "strengths and head-to-head control-win differences are computed on scores minus "
            "each seat's dice luck (dune_env/harness/luck.py); the win and control-win rates "
            "below are the raw ones, and summary.json's `luck_adjusted` holds the unadjusted "
            "fit for comparison.",
        ]
    out += ["", "## Verdict", "", *(f"- {line}" for line in verdicts(summary)), ""]
    out += [legend(), ""]
    out += ["## Leaderboard", "", leaderboard(summary), ""]
    unit = "deals" if summary.get("duplicate") else "games"
    out += [METHOD_NOTE.format(unit=unit), ""]
    out += ["Win kinds: " + ", ".join(f"{k} {v}" for k, v in summary["win_kinds"].items()), ""]
    fit = summary.get("strength_fit")
    if fit:
        out += [
            f"Games fitted: {fit['games_fitted']} (left out without a winner: "
            f"{fit['games_without_winner']}); bootstrap samples {fit['bootstrap_samples']}, "
            f"failed {fit['bootstrap_failures']}"
            + ("" if fit["converged"] else "; **the fit did not converge: do not use it**")
            + ".",
            "",
            "## Faction effects (log-odds, sum 0)",
            "",
            "| faction | effect | 95% CI |",
            "|---|---:|---|",
        ]
        for f, v in sorted(fit["faction_effect"].items(), key=lambda kv: -kv[1]):
            out.append(f"| {f} | {v:+.2f} | {_interval(fit['faction_ci95'].get(f), '+.2f')} |")
        out.append("")
    if summary.get("head_to_head"):
        out += ["## Standings", "", standings_table(summary), ""]
        out += ["## Head to head (paired over deals)", "", head_to_head_table(summary), ""]
    for title, key in (("By faction", "by_faction"), ("By seat", "by_seat")):
        out += [f"## {title} (win rate [95% CI], seats)", ""]
        columns = sorted({k for p in summary["policies"].values() for k in p[key]})
        out += _rate_table(summary, columns, lambda p, c, key=key: p[key].get(c), "win_rate")
    out += neighbour_section(summary)
    if summary["failed_games"]:
        out += ["## Failed games", ""]
        out += [
            f"- game {f['game']} (seed {f['seed']}, {f.get('kind', 'error')}): {f['error']}"
            for f in summary["failures"]
        ]
        out.append("")
    return "\n".join(out)


def _rate_table(
    summary: dict[str, Any], columns: Sequence[str], cell_of: Any, rate: str
) -> list[str]:
    """A Markdown table: a row per policy (leaderboard order), a column per value, each cell
    `rate [low, high] (seats)` from `cell_of(policy entry, column)` (None: "–")."""
    lines = ["| policy | " + " | ".join(columns) + " |", "|---|" + "---:|" * len(columns)]
    for name, p in ranked(summary):
        cells = []
        for c in columns:
            cell = cell_of(p, c)
            if not cell:
                cells.append("–")
                continue
            low, high = cell[f"{rate}_ci95"]
            cells.append(f"{cell[rate]:.0%} [{low:.0%}, {high:.0%}] ({cell['seats']})")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return lines + [""]


def _errors(values: list[float], intervals: list[Any]) -> list[list[float]]:
    lows = [max(0.0, v - ci[0]) if ci else 0.0 for v, ci in zip(values, intervals, strict=True)]
    highs = [max(0.0, ci[1] - v) if ci else 0.0 for v, ci in zip(values, intervals, strict=True)]
    return [lows, highs]


def tick_label(name: str, width: int = 18) -> str:
    """A policy name for a plot: a path or module spec by its last part, wrapped at `width`."""
    short = name.replace("\\", "/").rsplit("/", 1)[-1]
    return "\n".join(short[i : i + width] for i in range(0, len(short), width)) or name


def _scope(summary: dict[str, Any]) -> str:
    """`: 4 players, 200 games` for a plot's title."""
    players = summary.get("num_players")
    return f": {players} players, {summary['games']} games" if players else ""


def save_figure(fig: Any, path: Path) -> Path:
    """Write `fig` as a PNG (never through a planted link) and close it."""
    import matplotlib.pyplot as plt

    fig.tight_layout()
    with open_output(path, binary=True) as handle:
        fig.savefig(handle, dpi=100, format="png")
    plt.close(fig)
    return path


def write_plots(summary: dict[str, Any], out_dir: Path) -> list[Path]:
    """Win and control-win rates, win rate by faction (95% Wilson intervals, chance line), and
    strength with its bootstrap interval; policies sorted as in the leaderboard."""
    import matplotlib

    matplotlib.use("Agg")  # before pyplot is first imported (by the steps below)
    names = [name for name, _ in ranked(summary)] if summary.get("policies") else []
    paths = [
        _plot_win_rates(summary, names, out_dir),
        _plot_win_rate_by_faction(summary, names, out_dir),
    ]
    strength = _plot_strength(summary, names, out_dir)
    if strength is not None:
        paths.append(strength)
    return paths


def _plot_win_rates(summary: dict[str, Any], names: list[str], out_dir: Path) -> Path:
    """win_rate.png: win and control-win rates per policy, chance line."""
    import matplotlib.pyplot as plt

    policies = summary["policies"]
    chance = summary.get("chance_win_rate")
    fig, ax = plt.subplots(figsize=(7, 3.8))
    xs = list(range(len(names)))
    rates = [policies[n]["win_rate"] for n in names]
    ax.bar(
        [x - 0.2 for x in xs],
        rates,
        0.4,
        yerr=_errors(rates, [policies[n]["win_rate_ci95"] for n in names]),
        capsize=5,
        color="#c8883a",
        label="win rate",
    )
    tops = [policies[n]["win_rate_ci95"][1] for n in names]
    if all("control_win_rate" in policies[n] for n in names):
        control = [policies[n]["control_win_rate"] for n in names]
        cis = [policies[n]["control_win_rate_ci95"] for n in names]
        ax.bar(
            [x + 0.2 for x in xs],
            control,
            0.4,
            yerr=_errors(control, cis),
            capsize=5,
            color="#4a7ab5",
            label="control-win rate",
        )
        tops += [ci[1] for ci in cis]
    if chance:
        ax.axhline(
            chance, color="grey", linestyle="--", linewidth=1, label=f"chance 1/{round(1 / chance)}"
        )
    ax.set_xticks(xs)
    # Long or many names (module:attr specs, model paths) are wrapped and slanted, not stacked.
    labels = [tick_label(n) for n in names]
    slanted = len(names) > 5 or max((len(x) for x in labels), default=0) > 14
    ax.set_xticklabels(labels, rotation=25 if slanted else 0, ha="right" if slanted else "center")
    ax.set_ylim(0, min(1.0, max(tops + [chance or 0.0], default=1.0) * 1.15) or 1.0)
    ax.set_ylabel("rate per seat (95% Wilson CI)")
    ax.set_title(f"Win and control-win rate per policy, strongest first{_scope(summary)}")
    ax.legend(fontsize=8)
    return save_figure(fig, out_dir / "win_rate.png")


def _plot_win_rate_by_faction(summary: dict[str, Any], names: list[str], out_dir: Path) -> Path:
    """win_rate_by_faction.png: each policy's win rate per faction."""
    import matplotlib.pyplot as plt

    policies = summary["policies"]
    chance = summary.get("chance_win_rate")
    factions = sorted({f for n in names for f in policies[n]["by_faction"]})
    fig, ax = plt.subplots(figsize=(9, 3.8))
    width = 0.8 / max(1, len(names))
    top = chance or 0.0
    # Points with their intervals, not bars: a rate of 0 is a visible point on the axis.
    for i, name in enumerate(names):
        by = policies[name]["by_faction"]
        played = [f for f in factions if f in by]
        fx = [factions.index(f) + (i - (len(names) - 1) / 2) * width for f in played]
        values = [by[f]["win_rate"] for f in played]
        cis = [by[f]["win_rate_ci95"] for f in played]
        ax.errorbar(
            fx, values, yerr=_errors(values, cis), fmt="o", capsize=2, label=tick_label(name)
        )
        top = max([top] + [ci[1] for ci in cis if ci])
    if chance:
        ax.axhline(chance, color="grey", linestyle="--", linewidth=1, label="chance")
    ax.set_xticks(list(range(len(factions))))
    ax.set_xticklabels(factions, rotation=20, fontsize=8)
    ax.set_ylim(0, min(1.0, top * 1.1) or 1.0)
    ax.set_ylabel("win rate (95% Wilson CI)")
    ax.set_title(f"Win rate by faction{_scope(summary)}")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return save_figure(fig, out_dir / "win_rate_by_faction.png")


def _plot_strength(summary: dict[str, Any], names: list[str], out_dir: Path) -> Path | None:
    """strength.png: strength with its bootstrap interval (None: no policy has one)."""
    import matplotlib.pyplot as plt

    policies = summary["policies"]
    with_strength = [n for n in names if policies[n].get("strength") is not None]
    if not with_strength:
        return None
    fig, ax = plt.subplots(figsize=(7, 3.5))
    values = [policies[n]["strength"] for n in with_strength]
    cis = [policies[n].get("strength_ci95") for n in with_strength]
    ax.errorbar(
        values,
        list(range(len(with_strength))),
        xerr=_errors(values, cis),
        fmt="o",
        capsize=5,
        color="#4a7ab5",
    )
    ax.axvline(0.0, color="grey", linestyle="--", linewidth=1)
    ax.set_yticks(list(range(len(with_strength))))
    ax.set_yticklabels(with_strength)
    ax.invert_yaxis()
    reference = (summary.get("strength_fit") or {}).get("reference", "reference")
    ax.set_xlabel(f"strength, log-odds vs {reference} (95% bootstrap CI)")
    title = f"Faction-adjusted strength, strongest first{_scope(summary)}"
    if summary.get("cannot_tell_apart") is not None:
        title += "\nthe games cannot tell the policies apart"
    ax.set_title(title, fontsize=10)
    return save_figure(fig, out_dir / "strength.png")


def write_json(path: Path, data: dict[str, Any]) -> None:
    write_output(path, json.dumps(data, indent=2, sort_keys=True))
