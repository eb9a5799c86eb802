"""Aggregate seat results into the benchmark summary, Markdown report and plots."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .outputs import open_output, write_output
from .runner import GameFailure, SeatResult
from .stats import openskill_ratings, wilson_interval


def summarise(rows: Sequence[SeatResult], failures: Sequence[GameFailure] = ()) -> dict[str, Any]:
    """Per policy: win rate with Wilson 95% interval, mean reward, by faction, by seat,
    alliance and time-out wins, mean game length; OpenSkill ratings; failures."""
    by_policy: dict[str, list[SeatResult]] = defaultdict(list)
    by_game: dict[int, list[SeatResult]] = defaultdict(list)
    for row in rows:
        by_policy[row.policy].append(row)
        by_game[row.game].append(row)
    games = [sorted(g, key=lambda r: r.seat) for _, g in sorted(by_game.items())]
    ratings = openskill_ratings([([r.policy for r in g], [bool(r.won) for r in g]) for g in games])
    policies: dict[str, Any] = {}
    for name, items in sorted(by_policy.items()):
        wins = sum(r.won for r in items)
        low, high = wilson_interval(wins, len(items))
        mu, sigma = ratings.get(name, (25.0, 25.0 / 3))

        def split(key: str, items: list[SeatResult] = items) -> dict[str, Any]:
            groups: dict[str, list[int]] = defaultdict(list)
            for r in items:
                groups[str(getattr(r, key))].append(r.won)
            return {
                k: {"seats": len(v), "wins": sum(v), "win_rate": sum(v) / len(v)}
                for k, v in sorted(groups.items())
            }

        policies[name] = {
            "seats_played": len(items),
            "wins": wins,
            "win_rate": wins / len(items),
            "win_rate_ci95": [low, high],
            "mean_reward": sum(r.reward for r in items) / len(items),
            "alliance_wins": sum(r.won for r in items if r.win_kind == "alliance"),
            "timeout_wins": sum(r.won for r in items if r.win_kind == "timeout"),
            "by_faction": split("faction"),
            "by_seat": split("seat"),
            "openskill_mu": mu,
            "openskill_sigma": sigma,
            "openskill_ordinal": mu - 3 * sigma,
        }
    kinds: dict[str, int] = defaultdict(int)
    for g in games:
        kinds[g[0].win_kind] += 1
    return {
        "games": len(games),
        "failed_games": len(failures),
        "failures": [
            {"game": f.game, "seed": f.seed, "policy": f.policy, "kind": f.kind, "error": f.error}
            for f in failures
        ],
        "mean_rounds": sum(g[0].rounds for g in games) / max(1, len(games)),
        "mean_decisions": sum(g[0].decisions for g in games) / max(1, len(games)),
        "win_kinds": dict(sorted(kinds.items())),
        "policies": policies,
    }


def leaderboard(summary: dict[str, Any]) -> str:
    """The leaderboard as a Markdown table, best OpenSkill ordinal first."""
    lines = [
        "| policy | seats | win rate | 95% CI | mean reward | OpenSkill μ ± σ | alliance wins "
        "| time-out wins |",
        "|---|---:|---:|---|---:|---|---:|---:|",
    ]
    ranked = sorted(
        summary["policies"].items(), key=lambda kv: kv[1]["openskill_ordinal"], reverse=True
    )
    for name, p in ranked:
        low, high = p["win_rate_ci95"]
        lines.append(
            f"| {name} | {p['seats_played']} | {p['win_rate']:.1%} | [{low:.1%}, {high:.1%}] "
            f"| {p['mean_reward']:+.3f} | {p['openskill_mu']:.1f} ± {p['openskill_sigma']:.1f} "
            f"| {p['alliance_wins']} | {p['timeout_wins']} |"
        )
    return "\n".join(lines)


def markdown_report(summary: dict[str, Any], meta: dict[str, Any]) -> str:
    out = ["# dune-env benchmark", ""]
    if summary.get("incomplete"):
        out += [
            f"**Incomplete run**: {summary['games'] + summary['failed_games']} of "
            f"{meta.get('games_requested', '?')} games played (interrupted).",
            "",
        ]
    out.append(
        f"{summary['games']} games of {meta['num_players']} players, seed {meta['seed']}, "
        f"policies {', '.join(meta['policies'])}; mean length {summary['mean_rounds']:.2f} "
        f"rounds, {summary['mean_decisions']:.0f} decisions; "
        f"{meta.get('games_per_second', 0):.1f} games/s on {meta['workers']} worker(s)."
    )
    out += ["", "## Leaderboard", "", leaderboard(summary), ""]
    out += ["Win kinds: " + ", ".join(f"{k} {v}" for k, v in summary["win_kinds"].items()), ""]
    for title, key in (("By faction", "by_faction"), ("By seat", "by_seat")):
        out += [f"## {title}", ""]
        columns = sorted({k for p in summary["policies"].values() for k in p[key]})
        out.append("| policy | " + " | ".join(columns) + " |")
        out.append("|---|" + "---:|" * len(columns))
        for name, p in sorted(summary["policies"].items()):
            cells = []
            for c in columns:
                cell = p[key].get(c)
                cells.append(f"{cell['win_rate']:.0%} ({cell['seats']})" if cell else "–")
            out.append(f"| {name} | " + " | ".join(cells) + " |")
        out.append("")
    if summary["failed_games"]:
        out += ["## Failed games", ""]
        out += [
            f"- game {f['game']} (seed {f['seed']}, {f.get('kind', 'error')}): {f['error']}"
            for f in summary["failures"]
        ]
        out.append("")
    return "\n".join(out)


def write_plots(summary: dict[str, Any], out_dir: Path) -> list[Path]:
    """Win rate per policy with 95% error bars, and win rate by faction."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = sorted(summary["policies"])
    rates = [summary["policies"][n]["win_rate"] for n in names]
    intervals = [summary["policies"][n]["win_rate_ci95"] for n in names]
    lows = [max(0.0, r - ci[0]) for r, ci in zip(rates, intervals, strict=True)]
    highs = [max(0.0, ci[1] - r) for r, ci in zip(rates, intervals, strict=True)]
    paths = []
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.bar(names, rates, yerr=[lows, highs], capsize=6, color="#c8883a")
    ax.set_ylabel("win rate (95% Wilson CI)")
    ax.set_ylim(0, 1)
    ax.set_title("Win rate per policy")
    fig.tight_layout()
    paths.append(out_dir / "win_rate.png")
    with open_output(paths[-1], binary=True) as handle:
        fig.savefig(handle, dpi=100, format="png")
    plt.close(fig)

    factions = sorted({f for n in names for f in summary["policies"][n]["by_faction"]})
    fig, ax = plt.subplots(figsize=(8, 3.5))
    width = 0.8 / max(1, len(names))
    for i, name in enumerate(names):
        by = summary["policies"][name]["by_faction"]
        xs = [j + i * width for j in range(len(factions))]
        ax.bar(xs, [by.get(f, {}).get("win_rate", 0.0) for f in factions], width, label=name)
    ax.set_xticks([j + 0.4 - width / 2 for j in range(len(factions))])
    ax.set_xticklabels(factions, rotation=20, fontsize=8)
    ax.set_ylabel("win rate")
    ax.set_title("Win rate by faction")
    ax.legend(fontsize=8)
    fig.tight_layout()
    paths.append(out_dir / "win_rate_by_faction.png")
    with open_output(paths[-1], binary=True) as handle:
        fig.savefig(handle, dpi=100, format="png")
    plt.close(fig)
    return paths


def write_json(path: Path, data: dict[str, Any]) -> None:
    write_output(path, json.dumps(data, indent=2, sort_keys=True))
