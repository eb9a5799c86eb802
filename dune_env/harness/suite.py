"""The dune_v1 standard suite, version 2: a fixed, citable benchmark protocol.

    dune-bench --suite standard --policies my_pkg:MyAgent --out runs/suite

"dune_v1 standard suite v2" is:

- **policies**: the candidates (`--policies`, default `ppo-4p`) plus the references
  `mcts-strategist-16`, `strategist`, `bc-4p`, `economic`, `aggressive` and `random` (the
  reference of the strength scale, 0), in that order after the candidates;
- **player counts** 3, 4, 5 and 6; a policy sits only at the counts it may play
  (`SEATED_ONLY_AT`): `bc-4p`, trained on 4-player games only, sits at 4 players only;
- **line-ups**: at each player count, with P policies seated there and n seats: one line-up
  of the policies repeated to fill the seats when P <= n, else the P cyclic windows of n
  policies (line-up j holds policies j, j+1, ..., j+n-1, counted round the list), so every
  policy sits in exactly n line-ups, once in each: every policy plays the same number of seats;
- **duplicate deals**: each deal is played under every rotation of its line-up, with one seed
  and one faction per seat (`schedule(..., duplicate=True)`), default game options;
- **deals**: 84 per player count (`standard`), split evenly over the line-ups (rounded up);
  12 in the short version (`standard-short`, what `make run` plays);
- **seeds**: line-up j at n players uses schedule seed `base + 1000 * n + j` (base 0 unless
  `--seed` is given; a result quoted as the suite must use base 0);
- **reported**: each policy's faction-adjusted strength per player count with its 95% bootstrap
  interval over deals (stats.fit_strength fitted on all games of that player count), its win
  and control-win rates, and the head-to-head table; and where the candidates land in the
  published table of the same version (`leaderboard.py`, docs/leaderboard.md).

Why these numbers: one game with an mcts-strategist-16 seat costs 1.2-2.1 CPU-s on the compiled
build (3-6 players) against 0.01-0.2 s without one, and the search sits in 812 of the 1,512
games (every game at 6 players), so the full suite costs at most 38 CPU-minutes on the compiled
build (measured: 37.9 min of playing time on one worker of a loaded machine) and the short one
about 5 (docs/baselines.md). Version 1's rule, every combination of as many policies as seats,
would have made 20 line-ups at 3 players and 35 at 4.

Version policy: the environment keeps its version (dune_v1); a change to anything above makes a
new suite version (`SUITE_VERSION`), and results of different versions are not compared.
Version 1 (the candidates plus aggressive, economic and random; every combination when the
policies outnumber the seats; 200 deals, 25 short) is retired."""

from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..provenance import software_record
from .types import GameFailure, SeatResult
from .verdict import legend, verdicts

SUITE_NAME = "dune_v1 standard suite"
SUITE_VERSION = 2
PLAYER_COUNTS = (3, 4, 5, 6)
# The reference policies, strongest first by docs/baselines.md (the order sets the line-ups).
REFERENCES = ("mcts-strategist-16", "strategist", "bc-4p", "economic", "aggressive", "random")
# The player counts a policy may sit at, when not all (a model trained for one count).
SEATED_ONLY_AT: dict[str, tuple[int, ...]] = {"bc-4p": (4,)}
DEFAULT_CANDIDATES = ("ppo-4p",)
DEALS = {"standard": 84, "standard-short": 12}


def suite_policies(candidates: list[str] | None) -> list[str]:
    """The candidates (default `DEFAULT_CANDIDATES`) then the references, each once."""
    chosen = list(DEFAULT_CANDIDATES) if candidates is None else list(candidates)
    return list(dict.fromkeys(chosen + list(REFERENCES)))


def seated_at(policies: list[str], num_players: int) -> list[str]:
    """The policies that may sit at `num_players` seats (`SEATED_ONLY_AT`), in order."""
    return [p for p in policies if num_players in SEATED_ONLY_AT.get(p, PLAYER_COUNTS)]


def lineups(policies: list[str], num_players: int) -> list[list[str]]:
    """The suite's line-ups of `policies` at `num_players` seats: all of them repeated to fill
    the seats when they fit, else the cyclic windows of `num_players` policies (each policy in
    exactly `num_players` line-ups, once in each)."""
    if len(policies) <= num_players:
        return [list(policies)]
    count = len(policies)
    return [[policies[(j + k) % count] for k in range(num_players)] for j in range(count)]


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

    policies = suite_policies(candidates)
    deals = DEALS["standard-short" if short else "standard"]
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
        per_lineup = max(1, math.ceil(deals / len(groups)))
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
    table = strength_table(summaries, policies)
    head = f"# {SUITE_NAME} v{SUITE_VERSION}{' (short)' if short else ''}"
    text = "\n".join(
        [head, "", "Strength per player count (95% CI):", "", table, "", *sections, legend()]
    )
    if directory is not None:
        _write_suite_outputs(directory, summaries, policies, short, seed, seconds, text, plots)
    return SuiteResult(summaries, total_games, total_failures, seconds, text)


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
            games=per_lineup * n,
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
    from .report import leaderboard

    title = f"## {n} players ({summary['games']} games, {meta['deals']} duplicate deals)"
    judged = [p for p in policies if p not in REFERENCES]
    sections = [title, "", leaderboard(summary), ""]
    sections += [*(f"- {line}" for line in verdicts(summary, judged)), ""]
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

    fig, ax = plt.subplots(figsize=(7, 4))
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
    if drawn:
        ax.legend(fontsize=8)
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
