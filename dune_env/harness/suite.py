"""The dune_v1 standard suite, version 1: a fixed, citable benchmark protocol.

    dune-bench --suite standard --policies my_pkg:MyAgent --out runs/suite

"dune_v1 standard suite v1" is:

- **policies**: the candidates (`--policies`, default `ppo-4p`) plus the baselines
  `aggressive`, `economic` and `random` (the reference, strength 0);
- **player counts** 3, 4, 5 and 6;
- **line-ups**: at each player count, the policies repeated to fill the seats when they fit,
  else every combination of as many policies as seats (each a separate line-up);
- **duplicate deals**: each deal is played under every rotation of its line-up, with one seed
  and one faction per seat (`schedule(..., duplicate=True)`), default game options;
- **deals**: 200 per player count (`standard`), split evenly over the line-ups; 25 in the short
  version (`standard-short`, what `make run` plays);
- **seeds**: line-up j at n players uses schedule seed `base + 1000 * n + j` (base 0 unless
  `--seed` is given; a result quoted as the suite must use base 0);
- **reported**: each policy's faction-adjusted strength per player count with its 95% bootstrap
  interval over deals (stats.fit_strength fitted on all games of that player count), its win
  and control-win rates, and the head-to-head table.

A change to any of these makes a new version (`SUITE_VERSION`)."""

from __future__ import annotations

import itertools
import json
import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .types import GameFailure, SeatResult

SUITE_NAME = "dune_v1 standard suite"
SUITE_VERSION = 1
PLAYER_COUNTS = (3, 4, 5, 6)
BASELINES = ("aggressive", "economic", "random")
DEFAULT_CANDIDATES = ("ppo-4p",)
DEALS = {"standard": 200, "standard-short": 25}


def suite_policies(candidates: list[str] | None) -> list[str]:
    chosen = list(DEFAULT_CANDIDATES) if candidates is None else list(candidates)
    return list(dict.fromkeys(chosen + list(BASELINES)))


def lineups(policies: list[str], num_players: int) -> list[list[str]]:
    """The suite's line-ups at `num_players` seats."""
    if len(policies) <= num_players:
        return [list(policies)]
    return [list(c) for c in itertools.combinations(policies, num_players)]


@dataclass
class SuiteResult:
    summaries: dict[int, dict[str, Any]]  # player count -> summary of all its games
    games: int
    failures: int
    seconds: float
    text: str  # the printed leaderboards


def run_suite(
    candidates: list[str] | None = None,
    short: bool = False,
    workers: int | None = 1,
    out_dir: str | Path | None = None,
    progress: bool = False,
    plots: bool = True,
    bootstrap: int = 200,
    seed: int = 0,
    move_timeout: float | None = None,
    max_decisions: int | None = None,
    trust_checkpoints: bool = False,
    backend: str = "local",
    address: str | None = None,
) -> SuiteResult:
    """Run the standard suite (see the module docstring); write per-player-count reports and
    suite_summary.json / suite_report.md into `out_dir`.  `move_timeout`, `max_decisions` and
    `trust_checkpoints`, `backend` and `address` are passed to every `run_benchmark`."""
    from ..match import DEFAULT_MAX_DECISIONS
    from .benchmark import run_benchmark
    from .outputs import write_output
    from .report import leaderboard, markdown_report, summarise, write_json, write_plots

    policies = suite_policies(candidates)
    deals = DEALS["standard-short" if short else "standard"]
    directory = Path(out_dir) if out_dir is not None else None
    start = time.perf_counter()
    summaries: dict[int, dict[str, Any]] = {}
    sections: list[str] = []
    total_games = 0
    total_failures = 0
    for n in PLAYER_COUNTS:
        groups = lineups(policies, n)
        per_lineup = max(1, math.ceil(deals / len(groups)))
        rows: list[SeatResult] = []
        failures: list[GameFailure] = []
        for j, group in enumerate(groups):
            sub = directory / f"{n}p" / f"lineup{j}" if directory is not None else None
            result = run_benchmark(
                group,
                num_players=n,
                games=per_lineup * n,
                seed=seed + 1000 * n + j,
                workers=workers,
                out_dir=sub,
                progress=progress,
                plots=False,
                duplicate=True,
                bootstrap=0,
                move_timeout=move_timeout,
                trust_checkpoints=trust_checkpoints,
                backend=backend,
                address=address,
                max_decisions=DEFAULT_MAX_DECISIONS if max_decisions is None else max_decisions,
            )
            offset = len({r.game for r in rows}) + len(failures)  # one numbering per count
            for row in result.rows:
                row.game += offset
            for failure in result.failures:
                failure.game += offset
            rows.extend(result.rows)
            failures.extend(result.failures)
        summary = summarise(rows, failures, duplicate=True, bootstrap=bootstrap, seed=seed + n)
        meta = {
            "suite": f"{SUITE_NAME} v{SUITE_VERSION}",
            "policies": policies,
            "lineups": groups,
            "num_players": n,
            "seed": seed,
            "workers": workers,
            "deals": per_lineup * len(groups),
        }
        summary["meta"] = meta
        summaries[n] = summary
        total_games += summary["games"]
        total_failures += len(failures)
        title = f"## {n} players ({summary['games']} games, {meta['deals']} duplicate deals)"
        sections += [title, "", leaderboard(summary), ""]
        if directory is not None:
            pdir = directory / f"{n}p"
            pdir.mkdir(parents=True, exist_ok=True)
            write_json(pdir / "summary.json", summary)
            write_output(pdir / "report.md", markdown_report(summary, meta))
            if plots and rows:
                write_plots(summary, pdir)
    seconds = time.perf_counter() - start
    table = strength_table(summaries, policies)
    head = f"# {SUITE_NAME} v{SUITE_VERSION}{' (short)' if short else ''}"
    text = "\n".join([head, "", "Strength per player count (95% CI):", "", table, "", *sections])
    if directory is not None:
        suite = {
            "suite": SUITE_NAME,
            "version": SUITE_VERSION,
            "short": short,
            "policies": policies,
            "seed": seed,
            "seconds": seconds,
            "strength": {
                p: {
                    str(n): {
                        "strength": s["policies"][p]["strength"],
                        "strength_ci95": s["policies"][p]["strength_ci95"],
                    }
                    for n, s in summaries.items()
                    if p in s["policies"]
                }
                for p in policies
            },
        }
        write_output(directory / "suite_summary.json", json.dumps(suite, indent=2, sort_keys=True))
        write_output(directory / "suite_report.md", text + "\n")
    return SuiteResult(summaries, total_games, total_failures, seconds, text)


def strength_table(summaries: dict[int, dict[str, Any]], policies: list[str]) -> str:
    counts = sorted(summaries)
    lines = [
        "| policy | " + " | ".join(f"{n} players" for n in counts) + " |",
        "|---|" + "---|" * len(counts),
    ]
    for p in policies:
        cells = []
        for n in counts:
            entry = summaries[n]["policies"].get(p)
            if entry is None or entry["strength"] is None:
                cells.append("–")
                continue
            ci = entry["strength_ci95"]
            interval = f" [{ci[0]:+.2f}, {ci[1]:+.2f}]" if ci else ""
            mark = " †" if entry.get("strength_note") else ""
            cells.append(f"{entry['strength']:+.2f}{interval}{mark}")
        lines.append(f"| {p} | " + " | ".join(cells) + " |")
    return "\n".join(lines)
