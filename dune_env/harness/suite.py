"""The dune_v1 standard suite, version 3: a fixed, citable benchmark protocol.

    dune-bench --suite standard --policies my_pkg:MyAgent --out runs/suite

"dune_v1 standard suite v3" is:

- **policies**: the candidates (`--policies`, default `ppo-4p`) plus the references
  `mcts-strategist-16`, `residual-4p`, `residual-5p`, `strategist`, `bc-4p`, `bc-5p`,
  `economic`, `aggressive` and `random` (the reference of the strength scale, 0), in that
  order after the candidates;
- **player counts** 3, 4, 5 and 6; a policy sits only at the counts it may play
  (`SEATED_ONLY_AT`): the shipped networks trained for one player count sit at that count only;
- **line-ups**: at each player count, with P policies seated there and n seats: one line-up
  of the policies repeated to fill the seats when P <= n, else every combination of n of the
  P policies (at most `MAX_LINEUPS`; beyond, the combinations chosen greedily so that every
  pair of policies shares as equal a number of line-ups as possible), so every policy meets
  every other at the table equally often;
- **seatings**: each line-up's deals are duplicate deals played in the balanced seating design
  (`dune_env.seatings`: every policy in every seat and just before every other equally often;
  6 games a deal at 3 players, 24 at 4, 20 at 5, 60 at 6), default game options;
- **deals**: `DEALS[n]` per player count (`standard`), split evenly over the line-ups (rounded
  up to whole deals per line-up);
- **seeds**: line-up j at n players uses schedule seed `base + 1000 * n + j` (base 0 unless
  `--seed` is given; a result quoted as the suite must use base 0);
- **reported**: each policy's faction-adjusted strength per player count with its 95% bootstrap
  interval over deals (stats.fit_strength fitted on all games of that player count), its win
  and control-win rates, the head-to-head table, and the **standings**: policies strongest
  first, each with the paired difference to the one above it; a difference whose interval
  contains 0 shares the rank (`=`); and where the candidates land in the published table of
  the same version (`leaderboard.py`, docs/leaderboard.md).

The short version (`standard-short`, what `make run` plays) leaves out the search reference
(`SHORT_LEAVES_OUT`: a game with it costs tens of heuristic games) and plays `SHORT_DEALS` deals
per player count: it shows the suite working in minutes and cannot rank against the search; its
report says what its games leave unresolved.

Cost: docs/baselines.md ("The standard suite") gives the measured CPU time per player count.

Version policy: the environment keeps its version (dune_v1); a change to anything above makes a
new suite version (`SUITE_VERSION`), and results of different versions are not compared.
Version 2 (cyclic windows of the policy list, the line-ups' rotations: both confounded a
policy's score with its neighbours) and version 1 are retired."""

from __future__ import annotations

import itertools
import json
import math
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..match import lineup
from ..provenance import software_record
from ..seatings import deal_seatings
from .types import GameFailure, SeatResult
from .verdict import legend, verdicts

SUITE_NAME = "dune_v1 standard suite"
SUITE_VERSION = 3
PLAYER_COUNTS = (3, 4, 5, 6)
# The reference policies, strongest first by docs/baselines.md (the order sets the line-ups).
REFERENCES = (
    "mcts-strategist-16",
    "residual-4p",
    "residual-5p",
    "strategist",
    "bc-4p",
    "bc-5p",
    "economic",
    "aggressive",
    "random",
)
# The player counts a policy may sit at, when not all (a model trained for one count).
SEATED_ONLY_AT: dict[str, tuple[int, ...]] = {
    "residual-4p": (4,),
    "bc-4p": (4,),
    "residual-5p": (5,),
    "bc-5p": (5,),
}
DEFAULT_CANDIDATES = ("ppo-4p",)
# Deals per player count: the full suite, and the short one.
DEALS: dict[int, int] = {3: 400, 4: 210, 5: 168, 6: 30}
SHORT_DEALS: dict[int, int] = {3: 20, 4: 35, 5: 21, 6: 10}
SHORT_LEAVES_OUT = ("mcts-strategist-16",)
MAX_LINEUPS = 70  # C(8, 4): the standard policies at 4 players


def suite_policies(candidates: list[str] | None, short: bool = False) -> list[str]:
    """The candidates (default `DEFAULT_CANDIDATES`) then the references, each once (the short
    suite without `SHORT_LEAVES_OUT`, unless a candidate)."""
    chosen = list(DEFAULT_CANDIDATES) if candidates is None else list(candidates)
    references = [r for r in REFERENCES if not (short and r in SHORT_LEAVES_OUT)]
    return list(dict.fromkeys(chosen + references))


def seated_at(policies: list[str], num_players: int) -> list[str]:
    """The policies that may sit at `num_players` seats (`SEATED_ONLY_AT`), in order."""
    return [p for p in policies if num_players in SEATED_ONLY_AT.get(p, PLAYER_COUNTS)]


def lineups(policies: list[str], num_players: int) -> list[list[str]]:
    """The suite's line-ups of `policies` at `num_players` seats: all of them (repeated to fill
    the seats) when they fit, else every combination of `num_players` of them in the list's
    order, or, when there are more than MAX_LINEUPS, MAX_LINEUPS of them chosen greedily to
    even out how often each pair of policies shares a table (`balanced_combinations`)."""
    if len(policies) <= num_players:
        return [list(policies)]
    combos = [list(c) for c in itertools.combinations(policies, num_players)]
    if len(combos) <= MAX_LINEUPS:
        return combos
    return balanced_combinations(policies, num_players, MAX_LINEUPS)


def balanced_combinations(policies: list[str], size: int, count: int) -> list[list[str]]:
    """`count` combinations of `size` of the `policies`, each chosen in turn to raise the
    smallest numbers of line-ups shared by a pair and held by a policy (then the first in
    itertools order): deterministic, and as even as a greedy choice gets."""
    pair_count: Counter[tuple[str, str]] = Counter()
    seat_count: Counter[str] = Counter()
    remaining = [tuple(c) for c in itertools.combinations(policies, size)]
    chosen: list[list[str]] = []
    for _ in range(count):

        def gain(combo: tuple[str, ...]) -> tuple[int, int]:
            pairs = itertools.combinations(combo, 2)
            return (
                -sum(pair_count[p] for p in pairs),
                -sum(seat_count[p] for p in combo),
            )

        best = max(remaining, key=gain)
        remaining.remove(best)
        pair_count.update(itertools.combinations(best, 2))
        seat_count.update(best)
        chosen.append(list(best))
    return chosen


def count_deals(num_players: int, short: bool) -> int:
    """The deals played at `num_players` seats."""
    return (SHORT_DEALS if short else DEALS)[num_players]


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
    resume: bool = False,
) -> SuiteResult:
    """Run the standard suite (see the module docstring); write per-player-count reports and
    suite_summary.json / suite_report.md into `out_dir`.  `move_timeout`, `max_decisions` and
    `trust_checkpoints`, `backend` and `address` are passed to every `run_benchmark`.
    `resume` continues an interrupted suite in `out_dir` (the same candidates, version and
    seed): every line-up plays only the games not yet in its results.csv."""
    from ..match import DEFAULT_MAX_DECISIONS
    from .report import summarise

    policies = suite_policies(candidates, short)
    directory = Path(out_dir) if out_dir is not None else None
    if directory is not None:
        prepare_suite_dir(directory, policies, short, seed, resume)
    benchmark_options: dict[str, Any] = {
        "workers": workers,
        "progress": progress,
        "resume": resume,
        "move_timeout": move_timeout,
        "trust_checkpoints": trust_checkpoints,
        "backend": backend,
        "address": address,
        "max_decisions": DEFAULT_MAX_DECISIONS if max_decisions is None else max_decisions,
    }
    start = time.perf_counter()
    summaries: dict[int, dict[str, Any]] = {}
    sections: list[str] = []
    total_games = 0
    total_failures = 0
    for n in PLAYER_COUNTS:
        groups = lineups(seated_at(policies, n), n)
        per_lineup = max(1, math.ceil(count_deals(n, short) / len(groups)))
        played = _play_lineups(groups, n, per_lineup, seed, directory, benchmark_options)
        rows, failures, seconds, workers_used = played
        summary = summarise(rows, failures, duplicate=True, bootstrap=bootstrap, seed=seed + n)
        games = summary["games"] + summary["failed_games"]
        meta = {
            "suite": f"{SUITE_NAME} v{SUITE_VERSION}",
            "policies": policies,
            "lineups": groups,
            "num_players": n,
            "seed": seed,
            "workers": workers_used,
            "deals": per_lineup * len(groups),
            "resumed": resume,
            "seconds": seconds,  # playing time of this session, summed over the line-ups
            "games_per_second": games / seconds if seconds > 0 else 0.0,
            "software": software_record(),
        }
        summary["meta"] = meta
        summaries[n] = summary
        total_games += summary["games"]
        total_failures += len(failures)
        sections += _count_section(summary, meta, policies, n)
        if directory is not None:
            _write_count_outputs(directory / f"{n}p", summary, meta, plots and bool(rows))
    seconds = time.perf_counter() - start
    text = suite_text(summaries, policies, short, sections)
    if directory is not None:
        _write_suite_outputs(directory, summaries, policies, short, seed, seconds, text, plots)
    return SuiteResult(summaries, total_games, total_failures, seconds, text)


def suite_text(
    summaries: dict[int, dict[str, Any]], policies: list[str], short: bool, sections: list[str]
) -> str:
    """suite_report.md (and what the command prints): the strength table, then each count."""
    table = strength_table(summaries, policies)
    head = f"# {SUITE_NAME} v{SUITE_VERSION}{' (short)' if short else ''}"
    scope = short_scope(summaries) if short else []
    lines = [head, "", *scope, "Strength per player count (95% CI):", "", table, ""]
    return "\n".join([*lines, *sections, legend()])


def short_scope(summaries: dict[int, dict[str, Any]]) -> list[str]:
    """What the short suite's games cannot rank, in plain words (paragraph lines)."""
    from .verdict import standings

    tied = []
    for n, summary in sorted(summaries.items()):
        items = standings(summary)
        shared = sum(1 for item in items if item["tied"])
        tied.append(f"{shared} of {len(items) - 1} adjacent pairs at {n} players")
    return [
        f"This is the short suite: {', '.join(str(d) for d in SHORT_DEALS.values())} deals at "
        f"{', '.join(str(n) for n in SHORT_DEALS)} players, without "
        f"{', '.join(SHORT_LEAVES_OUT)} (a game with it costs tens of heuristic games). It "
        "shows the suite at work; it cannot rank anything against the search, and its games leave "
        f"unresolved (tied, `=`) {'; '.join(tied)}. The full suite (`--suite standard`) is the "
        "one to quote.",
        "",
    ]


def _play_lineups(
    groups: list[list[str]],
    n: int,
    per_lineup: int,
    seed: int,
    directory: Path | None,
    options: dict[str, Any],
) -> tuple[list[SeatResult], list[GameFailure], float, int | None]:
    """Play every line-up at `n` seats; return their rows and failures numbered as one run of
    games, the summed playing time and the workers the last line-up used."""
    from .benchmark import run_benchmark

    rows: list[SeatResult] = []
    failures: list[GameFailure] = []
    seconds = 0.0
    workers_used = options["workers"]
    for j, group in enumerate(groups):
        sub = directory / f"{n}p" / f"lineup{j}" if directory is not None else None
        label = f"{n}p line-up {j + 1}/{len(groups)}"
        result = run_benchmark(
            group,
            num_players=n,
            games=per_lineup * len(deal_seatings(lineup(group, n))),
            seed=seed + 1000 * n + j,
            workers=options["workers"],
            out_dir=sub,
            progress=label if options["progress"] else False,
            resume=options["resume"],
            plots=False,
            duplicate=True,
            bootstrap=0,
            move_timeout=options["move_timeout"],
            trust_checkpoints=options["trust_checkpoints"],
            backend=options["backend"],
            address=options["address"],
            max_decisions=options["max_decisions"],
        )
        offset = len({r.game for r in rows}) + len(failures)  # one numbering per count
        for row in result.rows:
            row.game += offset
        for failure in result.failures:
            failure.game += offset
        rows.extend(result.rows)
        failures.extend(result.failures)
        seconds += result.summary["meta"]["seconds"]
        workers_used = result.summary["meta"]["workers"]
    return rows, failures, seconds, workers_used


def _count_section(
    summary: dict[str, Any], meta: dict[str, Any], policies: list[str], n: int
) -> list[str]:
    """The suite report's lines for one player count: its leaderboard and verdicts."""
    from .report import leaderboard, standings_table

    title = (
        f"## {n} players ({summary['games']} games, {meta['deals']} duplicate deals over "
        f"{len(meta['lineups'])} line-up(s))"
    )
    judged = [p for p in policies if p not in REFERENCES]
    sections = [title, "", leaderboard(summary), "", "Standings:", "", standings_table(summary)]
    sections += ["", *(f"- {line}" for line in verdicts(summary, judged)), ""]
    return sections


def _write_count_outputs(
    pdir: Path, summary: dict[str, Any], meta: dict[str, Any], plots: bool
) -> None:
    """One player count's summary.json, report.md and (when `plots`) plots in `pdir`."""
    from .outputs import write_output
    from .report import markdown_report, write_json, write_plots

    pdir.mkdir(parents=True, exist_ok=True)
    write_json(pdir / "summary.json", summary)
    write_output(pdir / "report.md", markdown_report(summary, meta))
    if plots:
        write_plots(summary, pdir)


def _write_suite_outputs(
    directory: Path,
    summaries: dict[int, dict[str, Any]],
    policies: list[str],
    short: bool,
    seed: int,
    seconds: float,
    text: str,
    plots: bool,
) -> None:
    """suite_summary.json, suite_report.md and (when `plots`) suite_strength.png."""
    from .outputs import write_output

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
    if plots and summaries:
        write_suite_plot(summaries, policies, directory / "suite_strength.png")


def strength_table(summaries: dict[int, dict[str, Any]], policies: list[str]) -> str:
    from .report import strength_cells

    counts = sorted(summaries)
    lines = [
        "| policy | " + " | ".join(f"{n} players" for n in counts) + " |",
        "|---|" + "---|" * len(counts),
    ]
    for p in policies:
        cells = []
        for n in counts:
            if p not in summaries[n]["policies"]:
                cells.append("–")
                continue
            value, interval = strength_cells(p, summaries[n])
            cells.append(value if interval == "–" else f"{value} {interval}")
        lines.append(f"| {p} | " + " | ".join(cells) + " |")
    notes = [
        f"‡ {n} players: the games cannot tell the policies apart: {s['cannot_tell_apart']}"
        for n, s in sorted(summaries.items())
        if s.get("cannot_tell_apart") is not None
    ]
    return "\n".join(lines + ([""] + notes if notes else []))


def write_suite_plot(summaries: dict[int, dict[str, Any]], policies: list[str], path: Path) -> Path:
    """Strength against the player count, one line per policy, with 95% intervals (a count
    whose games cannot tell the policies apart is left out)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from .report import save_figure

    fig, ax = plt.subplots(figsize=(8.5, 4))
    counts = sorted(summaries)
    drawn = 0
    for k, p in enumerate(policies):
        xs, ys, lows, highs = [], [], [], []
        for n in counts:
            s = summaries[n]
            entry = s["policies"].get(p)
            if entry is None or entry["strength"] is None or s.get("cannot_tell_apart"):
                continue
            ci = entry["strength_ci95"] or [entry["strength"]] * 2
            xs.append(n + (k - (len(policies) - 1) / 2) * 0.06)  # side by side, not hidden
            ys.append(entry["strength"])
            lows.append(max(0.0, entry["strength"] - ci[0]))
            highs.append(max(0.0, ci[1] - entry["strength"]))
        if xs:
            ax.errorbar(xs, ys, yerr=[lows, highs], fmt="o-", capsize=4, label=p)
            drawn += 1
    ax.axhline(0.0, color="grey", linestyle="--", linewidth=1)
    ax.set_xticks(counts)
    ax.set_xlabel("players")
    reference = next(
        ((s.get("strength_fit") or {}).get("reference") for s in summaries.values()), None
    )
    ax.set_ylabel(f"strength, log-odds vs {reference} (95% CI)")
    deals = ", ".join(f"{s['meta']['deals']}" for _, s in sorted(summaries.items()))
    ax.set_title(f"{SUITE_NAME} v{SUITE_VERSION}: strength by player count (deals: {deals})")
    if drawn:  # beside the axes: inside, it hid the 6-player points
        ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    else:
        ax.text(
            0.5,
            0.5,
            "the games cannot tell the policies apart",
            ha="center",
            transform=ax.transAxes,
        )
    return save_figure(fig, path)


SUITE_RUN_FILE = "suite_run.json"


def prepare_suite_dir(
    directory: Path, policies: list[str], short: bool, seed: int, resume: bool
) -> None:
    """Record the suite's parameters in `directory`, or (`resume`) check that it holds the
    same suite."""
    from .outputs import OutputError, read_run_record, refuse_links, write_output

    run = {"suite": SUITE_NAME, "version": SUITE_VERSION, "short": short}
    run.update({"policies": policies, "seed": seed})
    path = directory / SUITE_RUN_FILE
    if resume and directory.is_dir() and any(directory.iterdir()):
        refuse_links(directory)  # a line-up folder that is a link would be written through
        before = read_run_record(directory, SUITE_RUN_FILE, "a suite")
        if before != run:
            changed = sorted(k for k in run if before.get(k) != run[k]) or ["parameters"]
            raise OutputError(
                f"cannot resume {directory}: it is a suite with different {', '.join(changed)}"
            )
        return
    directory.mkdir(parents=True, exist_ok=True)
    write_output(path, json.dumps(run, indent=2, sort_keys=True))
