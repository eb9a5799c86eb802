"""The benchmark in plain words: a verdict per policy against the reference, whether the games
can tell the policies apart at all, and a legend of the report's terms (docs/baselines.md,
"Metrics", says the same at length)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

# Below this width (log-odds) an interval says nothing: every resample gave the same value,
# which happens when the fit never depended on the policies.
ZERO_WIDTH = 0.01

LEGEND = (
    'How to read this (docs/baselines.md, "Reading the output"):',
    "- strength: how much more likely a policy is to win a seat than the reference policy "
    "(strength 0) playing the same faction, in log-odds: +0.69 doubles the odds, -0.69 halves "
    "them; [low, high] is the 95% interval.",
    "- above / below / level: the interval lies above 0 / below 0 / includes 0 (the games "
    "show no difference).",
    "- chance: 1 / players, the win rate of a seat when everyone plays alike.",
    "- control win: a win by holding strategic regions, alone (END-1: 3 regions) or with an "
    "ally (END-2: 4 together), not taken by the Bene Gesserit; these wins show skill.",
    "- time-out win: nobody won by the end of round 6, so the Spacing Guild's seat wins "
    "(END-5, 'Guild'), or the Bene Gesserit's if it predicted that (END-6, 'BG'); the faction "
    "held, not the play, decides it, and the strength fit credits it to the faction.",
    "- no winner: nobody won by the end of round 6 and nobody plays the Guild (END-5: every "
    "player loses), common where factions outnumber seats (about two games in three at 3 "
    "players, one in six at 4, among the heuristics); such a game says nothing about who is "
    "stronger and the strength fit leaves it out (report.md counts them under 'Win kinds'; "
    "with --luck-adjust every game counts, through its seats' luck).",
    "- cannot tell apart: the games hold no evidence about the policies (no control win, or a "
    "degenerate fit); more games, or policies that win by control, are needed.",
)


def ranked(summary: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """Policies best first: by strength (then win rate)."""

    def key(item: tuple[str, dict[str, Any]]) -> tuple[float, float]:
        p = item[1]
        strength = p.get("strength")
        return (strength if strength is not None else -math.inf, p["win_rate"])

    return sorted(summary["policies"].items(), key=key, reverse=True)


def legend() -> str:
    return "\n".join(LEGEND)


def _count(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def cannot_tell_apart(summary: dict[str, Any]) -> str | None:
    """Why the games of `summary` cannot tell its policies apart, or None when they can.

    Decided from the data: no game ended in a control win (every win went to the seat of the
    Guild or the Bene Gesserit, which the fit credits to the faction), the fit did not converge,
    or every interval has zero width."""
    games = int(summary.get("games") or 0)
    policies = summary.get("policies") or {}
    if len(policies) < 2:
        return None  # nothing to compare
    if games == 0:
        return "no game finished"
    kinds = summary.get("win_kinds") or {}
    decisive = int(kinds.get("solo", 0)) + int(kinds.get("alliance", 0))
    if decisive == 0:
        timeouts = int(kinds.get("timeout", 0))
        nobody = games - timeouts
        parts = [f"no game of {games} was won by control (END-1/END-2)"]
        if timeouts:
            parts.append(f"{_count(timeouts, 'time-out win')} went to the faction, not the play")
        if nobody:
            parts.append(f"{nobody} of {games} had no winner")
        return "; ".join(parts)
    fit = summary.get("strength_fit") or {}
    # (a fit with fewer than 20 resamples, all converged, is marked unconverged too: not this)
    failed = fit.get("bootstrap_failures", 0) > 0 or not fit.get("bootstrap_samples", 0)
    if fit and not fit.get("converged", True) and failed:
        return "the strength fit did not converge"
    reference = fit.get("reference")
    widths = [
        p["strength_ci95"][1] - p["strength_ci95"][0]
        for name, p in policies.items()
        if name != reference and p.get("strength_ci95")
    ]
    if widths and max(widths) < ZERO_WIDTH:
        return "every strength interval has zero width (the factions alone explain the wins)"
    return None


def _rates(entry: dict[str, Any], summary: dict[str, Any]) -> str:
    chance = summary.get("chance_win_rate")
    players = round(1 / chance) if chance else None
    text = f"win rate {entry['win_rate']:.1%}"
    if players:
        text += f" (chance at {players} players is {chance:.0%})"
    return text + f", control wins {entry['control_win_rate']:.1%}"


# judgement -> how the verdict line says it
WORDS = {
    "above": "above (stronger)",
    "below": "below (weaker)",
    "level": "level (no difference shown)",
    "cannot tell apart": "cannot tell apart",
    "zero-width": "cannot tell apart (zero-width interval)",
    "no interval": "no interval (bootstrap 0), so not known to be above or below",
    "too few deals": "no interval (too few deals), so not known to be above or below",
}


def judgement(name: str, summary: dict[str, Any]) -> str:
    """`name` against the reference, one key of WORDS: `above`, `below` or `level` by its
    95% strength interval; `cannot tell apart`, `zero-width` or `no interval` otherwise."""
    entry = summary["policies"][name]
    ci = entry.get("strength_ci95")
    if summary.get("cannot_tell_apart") is not None or entry.get("strength") is None:
        return "cannot tell apart"
    if not ci:
        interval_note = (summary.get("strength_fit") or {}).get("interval_note")
        return "too few deals" if interval_note else "no interval"
    low, high = ci
    if high - low < ZERO_WIDTH:
        return "zero-width"
    return "above" if low > 0 else "below" if high < 0 else "level"


def verdict_line(name: str, summary: dict[str, Any]) -> str:
    """One policy against the reference, e.g. `mine vs random: level (no difference shown) —
    strength -0.10 [-0.69, +0.59] log-odds; win rate 24.0% (chance at 4 players is 25%),
    control wins 5.0%`."""
    entry = summary["policies"][name]
    reference = (summary.get("strength_fit") or {}).get("reference", "?")
    head = f"{name} vs {reference}: {WORDS[judgement(name, summary)]}"
    strength = entry.get("strength")
    if judgement(name, summary) == "cannot tell apart":
        return f"{head}; {_rates(entry, summary)}"
    ci = entry.get("strength_ci95")
    interval = f" [{ci[0]:+.2f}, {ci[1]:+.2f}]" if ci else ""
    note = " (†)" if entry.get("strength_note") else ""
    return f"{head} — strength {strength:+.2f}{interval} log-odds{note}; {_rates(entry, summary)}"


def verdicts(summary: dict[str, Any], names: Sequence[str] | None = None) -> list[str]:
    """The verdict lines of `names` (default: every policy but the reference, strongest
    first), preceded by the reason when the games cannot tell the policies apart."""
    reference = (summary.get("strength_fit") or {}).get("reference")
    chosen = [n for n, _ in ranked(summary) if n != reference] if names is None else list(names)
    lines = []
    reason = summary.get("cannot_tell_apart")
    if reason is not None:
        lines.append(
            f"The games cannot tell the policies apart: {reason}. The strengths are not "
            "measured: more games, or policies that win by control, are needed."
        )
    lines += [verdict_line(n, summary) for n in chosen if n in summary["policies"]]
    return lines


def standings(summary: dict[str, Any]) -> list[dict[str, Any]]:
    """The policies strongest first, each with its rank and the paired strength difference to
    the policy ranked just above it (from the fit's bootstrap over deals, summary
    "head_to_head"): a policy whose difference's 95% interval contains 0 shares the rank of
    the one above it (`tied`), so only orders the games resolve are shown.  Without a paired
    interval (too few deals, no bootstrap) a policy is tied with the one above it too.

    Each item: name, rank (competition ranking: 1, 2, 2, 4), tied, and `above_diff` /
    `above_ci95` (None for the first)."""
    pairs: dict[tuple[str, str], tuple[float, list[float] | None]] = {}
    for h in summary.get("head_to_head") or []:
        if h.get("strength_diff") is None:
            continue
        ci = h.get("strength_diff_ci95")
        pairs[(h["a"], h["b"])] = (h["strength_diff"], ci)
        pairs[(h["b"], h["a"])] = (-h["strength_diff"], [-ci[1], -ci[0]] if ci else None)
    out: list[dict[str, Any]] = []
    for position, (name, _entry) in enumerate(ranked(summary), 1):
        item: dict[str, Any] = {
            "name": name,
            "rank": position,
            "tied": False,
            "above_diff": None,
            "above_ci95": None,
        }
        if out:
            above = out[-1]
            diff, ci = pairs.get((above["name"], name), (None, None))
            item["above_diff"], item["above_ci95"] = diff, ci
            if ci is None or ci[0] <= 0.0 <= ci[1]:
                item["rank"], item["tied"] = above["rank"], True
        out.append(item)
    return out


def rank_label(item: dict[str, Any], items: Sequence[dict[str, Any]]) -> str:
    """ "3" for a rank held alone, "3=" for a shared one."""
    shared = sum(1 for other in items if other["rank"] == item["rank"]) > 1
    return f"{item['rank']}{'=' if shared else ''}"
