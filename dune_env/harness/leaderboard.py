"""The published results of the standard suite, and where a new agent lands in them.

    python -m dune_env.harness.leaderboard --from runs/suite_v3       # a finished suite's folder
    python -m dune_env.harness.leaderboard --run --workers 1 --out runs/suite_v3  # play it first
    python -m dune_env.harness.leaderboard --from runs/suite_v3 --publish   # (maintainers)

writes the page `leaderboard.md` (a table per player count: each policy's strength with its 95%
interval, its paired difference to the row above, shared ranks where the games do not order two
rows, win rate, control-win rate; the command, the build, the package and dependency versions,
the git commit and the suite version that produced it) and its machine-readable copy
`leaderboard_v<VERSION>.json` into the suite's folder, or where `--markdown` / `--json` say;
`--publish` writes `docs/leaderboard.md` and the copy shipped with the package,
`dune_env/harness/data/leaderboard_v<VERSION>.json`.  Nothing is written unless the whole table
was built and checked: every file is read with bounds (size, depth, types, finite numbers), and
what it writes is escaped (Markdown and HTML) or stripped of control characters (the terminal).
After a suite,
`dune-bench --suite standard --policies mine` prints `placement_text`: the candidates' rows among
the published rows of the same player count, with a note when the published table was made by
another suite version, build, seed or length.

A published table is read as data: a malformed file is reported in one line, never run."""

from __future__ import annotations

import argparse
import json
import math
import re
from pathlib import Path
from typing import Any

from ..exits import interrupted, refuse
from .suite import PLAYER_COUNTS, SHORT_DEALS, SUITE_NAME, SUITE_VERSION

PROGRAM = "leaderboard"
DATA_DIR = Path(__file__).resolve().parent / "data"
DEFAULT_MARKDOWN = Path("docs") / "leaderboard.md"


class LeaderboardError(ValueError):
    """A folder that is not a finished suite, or a published table that cannot be read."""


def published_path(version: int = SUITE_VERSION, directory: Path | None = None) -> Path:
    """Where the published table of suite `version` ships (in `directory`, default DATA_DIR)."""
    return (DATA_DIR if directory is None else directory) / f"leaderboard_v{version}.json"


# ---------------------------------------------------------------------------------------------
# Building the table from a finished suite's folder


MAX_JSON_BYTES = 20 << 20  # a suite's summary is a few hundred kB; a published table ~100 kB


def _read_json(path: Path, what: str) -> Any:
    """The JSON in `path`, read with bounds: a missing, linked, oversized, undecodable or too
    deeply nested file is a LeaderboardError naming it (data, never a traceback)."""
    try:
        if path.is_symlink():
            raise LeaderboardError(f"{path} is a symbolic link; refusing to read it")
        size = path.stat().st_size
        if size > MAX_JSON_BYTES:
            raise LeaderboardError(f"{path} has {size} bytes, more than {MAX_JSON_BYTES}: {what}")
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise LeaderboardError(f"{path} is missing: {what}") from None
    except RecursionError:
        raise LeaderboardError(f"{path} is nested too deeply to be {what or 'a table'}") from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise LeaderboardError(f"{path} cannot be read as JSON ({_plain(str(exc))})") from None


def _candidates(policies: list[str]) -> list[str]:
    """The candidates of a suite's policy list (`suite_policies`: candidates, then the
    references not among them)."""
    from .suite import REFERENCES

    for k in range(len(policies) + 1):
        if policies[k:] == [r for r in REFERENCES if r not in policies[:k]]:
            return policies[:k]
    return [p for p in policies if p not in REFERENCES]


def suite_command(suite: dict[str, Any], out: str, workers: int = 1) -> str:
    """The `dune-bench` command that plays the suite recorded in `suite` (suite_summary.json)
    with `workers` worker processes (the results do not depend on them)."""
    from .suite import DEFAULT_CANDIDATES

    words = ["dune-bench", "--suite", "standard-short" if suite.get("short") else "standard"]
    candidates = _candidates(list(suite.get("policies") or []))
    if candidates != list(DEFAULT_CANDIDATES):
        words += ["--policies", *candidates]
    if suite.get("seed"):
        words += ["--seed", str(suite["seed"])]
    return " ".join([*words, "--workers", str(workers), "--out", out])


def _row(name: str, entry: dict[str, Any], reference: str | None) -> dict[str, Any]:
    strength = 0.0 if name == reference else entry.get("strength")
    row = {
        "policy": name,
        "strength": strength,
        "strength_ci95": None if name == reference else entry.get("strength_ci95"),
        "win_rate": entry["win_rate"],
        "win_rate_ci95": entry["win_rate_ci95"],
        "control_win_rate": entry["control_win_rate"],
        "control_win_rate_ci95": entry["control_win_rate_ci95"],
        "seats": entry["seats_played"],
    }
    if not (_is_row(row) and _is_count(row["seats"])):
        raise LeaderboardError(
            f"policy {_plain(name)!r}: its entry is not a summary's (needs finite numbers for "
            "strength, win_rate, control_win_rate and seats_played, intervals as [low, high])"
        )
    return row


def _by_strength(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Strongest first; a row without a strength last."""
    return sorted(rows, key=lambda r: (r["strength"] is None, -(r["strength"] or 0.0)))


def count_table(summary: dict[str, Any]) -> dict[str, Any]:
    """One player count's published part, from its summary.json: the rows in the standings'
    order (verdict.standings), each with its rank (shared when the paired difference to the
    row above has an interval containing 0) and that difference.  LeaderboardError when the
    summary does not have a summary's shape."""
    from .stats.verdict import standings

    _check_summary(summary)
    fit = summary.get("strength_fit") or {}
    reference = fit.get("reference")
    rows = []
    for item in standings(summary):
        row = _row(item["name"], summary["policies"][item["name"]], reference)
        row["rank"], row["tied"] = item["rank"], item["tied"]
        row["above_diff"], row["above_ci95"] = item["above_diff"], item["above_ci95"]
        rows.append(row)
    meta = summary.get("meta", {})
    return {
        "games": summary["games"],
        "failed_games": summary.get("failed_games", 0),
        "deals": meta.get("deals"),
        "lineups": meta.get("lineups"),
        "reference": reference,
        "cannot_tell_apart": summary.get("cannot_tell_apart"),
        "rows": rows,
    }


def _check_summary(summary: Any) -> None:
    """LeaderboardError unless `summary` has what count_table reads, of the right types."""
    ok = (
        isinstance(summary, dict)
        and isinstance(summary.get("policies"), dict)
        and all(isinstance(k, str) and isinstance(v, dict) for k, v in summary["policies"].items())
        and _is_count(summary.get("games"))
        and isinstance(summary.get("strength_fit") or {}, dict)
        and isinstance(summary.get("head_to_head") or [], list)
        and all(isinstance(h, dict) for h in summary.get("head_to_head") or [])
        and isinstance(summary.get("meta") or {}, dict)
    )
    if not ok:
        raise LeaderboardError(
            "a player count's summary.json is not a dune-bench summary (needs games and "
            "policies -> entries, strength_fit, head_to_head, meta)"
        )
    for h in summary.get("head_to_head") or []:
        if not (
            isinstance(h.get("a"), str)
            and isinstance(h.get("b"), str)
            and (h.get("strength_diff") is None or _is_number(h.get("strength_diff")))
            and _is_interval(h.get("strength_diff_ci95"))
        ):
            raise LeaderboardError("a head_to_head entry of summary.json is malformed")


def build_table(run_dir: Path, command: str | None = None) -> dict[str, Any]:
    """The published table of the finished suite in `run_dir` (suite_summary.json and the
    per-player-count `Np/summary.json`); `command` defaults to the one that plays it."""
    suite = _read_json(run_dir / "suite_summary.json", "not a finished suite's folder")
    if (
        not isinstance(suite, dict)
        or suite.get("suite") != SUITE_NAME
        or not _is_version(suite.get("version"))
        or not isinstance(suite.get("policies", []), list)
        or not all(isinstance(p, str) for p in suite.get("policies", []))
        or not _is_count(suite.get("seed", 0))
    ):
        raise LeaderboardError(
            f"{run_dir}/suite_summary.json does not describe a {SUITE_NAME} (suite, version 1 to "
            f"{SUITE_VERSION}, policies, seed)"
        )
    counts: dict[str, Any] = {}
    software: dict[str, Any] | None = None
    builds: dict[str, list[int]] = {}  # one line per software record -> its player counts
    seconds: float | None = 0.0
    workers = 1
    for n in PLAYER_COUNTS:
        path = run_dir / f"{n}p" / "summary.json"
        if not path.exists():
            continue
        summary = _read_json(path, "a player count's summary")
        try:
            counts[str(n)] = count_table(summary)
        except (KeyError, TypeError) as exc:  # (count_table's reads, past _check_summary)
            raise LeaderboardError(f"{path} is not a dune-bench summary ({exc!r})") from None
        except LeaderboardError as exc:
            raise LeaderboardError(f"{path}: {exc}") from None
        meta = summary.get("meta", {})
        workers = max(workers, meta["workers"] if _is_count(meta.get("workers")) else 1)
        software = software or meta.get("software")
        builds.setdefault(software_text(meta.get("software")).partition(";")[0], []).append(n)
        # A resumed session's time covers only what it played: no total then.
        took = meta.get("seconds")
        fresh = not meta.get("resumed") and _is_number(took)
        seconds = seconds + took if seconds is not None and fresh else None
    if not counts:
        raise LeaderboardError(f"{run_dir} holds no player count's summary.json (3p/ ... 6p/)")
    return {
        "suite": SUITE_NAME,
        "version": suite["version"],
        "short": bool(suite.get("short")),
        "seed": suite.get("seed", 0),
        "policies": suite.get("policies"),
        "command": command or suite_command(suite, str(run_dir), workers),
        "software": software,
        "software_by_player_count": _software_note(builds),
        "playing_seconds": seconds,
        "player_counts": counts,
    }


def _software_note(builds: dict[str, list[int]]) -> str | None:
    """None when every player count records the same software, else which recorded which (a
    run resumed or continued while its code changed)."""
    if len(builds) < 2:
        return None
    return "; ".join(
        f"{', '.join(f'{n}p' for n in counts)}: {what}" for what, counts in builds.items()
    )


# ---------------------------------------------------------------------------------------------
# Rendering


_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")  # ANSI escapes start with ESC (\x1b)
_MARKDOWN = re.compile(r"([\\`*_{}\[\]()#+!|~])")
_HTML = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"}


def _plain(text: Any, limit: int = 200) -> str:
    """`text` safe to print on a terminal: control characters (ANSI escapes among them) shown
    as "?", at most `limit` characters."""
    value = _CONTROL.sub("?", str(text))
    return value if len(value) <= limit else value[: limit - 1] + "…"


def md(text: Any) -> str:
    """`text` as literal Markdown text: HTML's specials as entities, Markdown's punctuation
    escaped (no link, heading, table cell or code span can start from it), on one line."""
    value = "".join(_HTML.get(c, c) for c in _plain(text, 500))
    return _MARKDOWN.sub(r"\\\1", value)


def _code(text: Any) -> str:
    """`text` for inside a Markdown code span: no backtick, no control character."""
    return _plain(text, 2000).replace("`", "'")


def _interval(ci: list[float] | None, fmt: str) -> str:
    return "" if not ci else f" [{format(ci[0], fmt)}, {format(ci[1], fmt)}]"


def strength_text(row: dict[str, Any], reference: str | None) -> str:
    if row["policy"] == reference:
        return "0 (reference)"
    if row["strength"] is None:
        return "–"
    return f"{row['strength']:+.2f}{_interval(row['strength_ci95'], '+.2f')}"


def _rates(row: dict[str, Any]) -> str:
    win = f"{row['win_rate']:.1%}{_interval(row['win_rate_ci95'], '.1%')}"
    control = f"{row['control_win_rate']:.1%}{_interval(row['control_win_rate_ci95'], '.1%')}"
    return f"{win} | {control}"


TABLE_HEAD = [
    "| rank | policy | strength [95% CI] | win rate [95% CI] | control-win rate [95% CI] |",
    "|---:|---|---|---|---|",
]
STANDINGS_HEAD = [
    "| rank | policy | strength [95% CI] | minus the row above [95% CI] | win rate [95% CI] "
    "| control-win rate [95% CI] |",
    "|---:|---|---|---|---|---|",
]


def rank_text(row: dict[str, Any], rows: list[dict[str, Any]]) -> str:
    """The row's rank, `3=` when shared (tables of suite v3 on; older ones: the position)."""
    if "rank" not in row:
        return str(rows.index(row) + 1)
    shared = sum(1 for other in rows if other.get("rank") == row["rank"]) > 1
    return f"{row['rank']}{'=' if shared else ''}"


def step_text(row: dict[str, Any]) -> str:
    """This row minus the row above, paired over deals, with its interval ("" for the first)."""
    diff, ci = row.get("above_diff"), row.get("above_ci95")
    if diff is None:
        return ""
    interval = _interval([-ci[1], -ci[0]], "+.2f") if ci else " [n/a: too few deals]"
    return f"{-diff:+.2f}{interval}"


def software_text(software: dict[str, Any] | None) -> str:
    """The build, versions and commit of a table, in one sentence."""
    if not software:
        return "build and versions not recorded"
    git = software.get("git")
    commit = f", git commit {git['commit'][:12]}" if git and git.get("commit") else ""
    changes = " (with local changes)" if git and git.get("local_changes") else ""
    packages = ", ".join(f"{k} {v}" for k, v in (software.get("packages") or {}).items() if v)
    return (
        f"{software.get('build', '?')} build, dune_env {software.get('dune_env', '?')}"
        f"{commit}{changes}, Python {software.get('python', '?')}; {packages}"
    )


def render_markdown(table: dict[str, Any], generator: str) -> str:
    """docs/leaderboard.md for `table`; `generator` is the command that wrote it."""
    version = table["version"]
    short = " (short)" if table["short"] else ""
    seconds = table.get("playing_seconds")
    by_count = table.get("software_by_player_count")
    lines = [
        f"# Leaderboard: {table['suite']} v{version}{short}",
        "",
        f"<!-- Generated by `{generator}`; do not edit by hand. -->",
        "",
        "The published results of the standard suite (`dune_env/harness/suite.py`, "
        "docs/baselines.md): each policy's faction-adjusted strength (log-odds against "
        "`random`, fitted on all games of the player count, 95% bootstrap interval over "
        "deals), its win rate and its control-win rate (END-1/END-2; Wilson 95% intervals, "
        "per seat). Rows are in order of strength; each row gives its difference to the row "
        "above, paired over the deals both played (every policy meets every other at the "
        "table, in seatings that cancel seat order), and a row whose difference's 95% interval "
        "contains 0 shares the rank above (`=`). `dune-bench --suite standard --policies "
        "YOUR_AGENT` prints where your agent lands in these tables.",
        "",
        f"- **Command**: `{_code(table['command'])}`",
        f"- **Suite**: {table['suite']} v{version}{short}, seed {table['seed']}",
        f"- **Software**: {md(software_text(table.get('software')))}",
        *(
            [f"- **Software by player count** (they differ): {md(by_count)}"]
            if table.get("software_by_player_count")
            else []
        ),
        f"- **Generated by**: `{generator}` (machine-readable copy: "
        f"`dune_env/harness/data/leaderboard_v{version}.json`)",
        *([f"- **Note**: {md(table['note'])}"] if table.get("note") else []),
        "",
    ]
    for n, count in sorted(table["player_counts"].items(), key=lambda item: int(item[0])):
        rows = count["rows"]
        lines += [
            f"## {n} players",
            "",
            f"{count['games']} games, {count['deals']} duplicate deals over "
            f"{len(count['lineups'] or [])} line-up(s).",
            "",
            *STANDINGS_HEAD,
        ]
        for row in rows:
            lines.append(
                f"| {rank_text(row, rows)} | {md(row['policy'])} "
                f"| {strength_text(row, count['reference'])} | {step_text(row)} | {_rates(row)} |"
            )
        if any(row.get("tied") for row in rows):
            lines += [
                "",
                "`=`: the paired difference to the row above has a 95% interval containing 0: "
                "these games do not order the two.",
            ]
        if count.get("cannot_tell_apart"):
            why = md(count["cannot_tell_apart"])
            lines += ["", f"The games cannot tell the policies apart: {why}"]
        lines.append("")
    if seconds:
        lines += [
            f"Playing time: {seconds / 60:.1f} min, summed over the line-ups (wall clock of "
            "their worker processes).",
            "",
        ]
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# Reading the published table, and where a new run lands in it


def load_published(directory: Path | None = None) -> dict[str, Any] | None:
    """The published table of this suite version, else the newest published of another version
    (placement_text then says so), else None.  A malformed file raises LeaderboardError."""
    directory = DATA_DIR if directory is None else directory
    preferred = published_path(SUITE_VERSION, directory)
    if preferred.exists():
        return _checked(_read_json(preferred, ""), preferred)
    versions = {}
    for path in directory.glob("leaderboard_v*.json"):
        number = path.stem.rpartition("_v")[2]
        if number.isdigit():
            versions[int(number)] = path
    others = [versions[v] for v in sorted(versions)]
    return _checked(_read_json(others[-1], ""), others[-1]) if others else None


def _is_number(value: Any) -> bool:
    """A finite int or float (not a bool, NaN or infinity)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    return math.isfinite(value) if isinstance(value, float) else abs(value) < 10**15


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 10**12


def _is_version(value: Any) -> bool:
    """A suite version this package knows of (1 .. SUITE_VERSION)."""
    return _is_count(value) and 1 <= value <= SUITE_VERSION


def _is_interval(value: Any) -> bool:
    """None (no interval) or [low, high]."""
    return value is None or (
        isinstance(value, list) and len(value) == 2 and all(_is_number(v) for v in value)
    )


def _is_row(row: Any) -> bool:
    return (
        isinstance(row, dict)
        and isinstance(row.get("policy"), str)
        and (row.get("strength") is None or _is_number(row.get("strength")))
        and all(_is_number(row.get(key)) for key in ("win_rate", "control_win_rate"))
        and all(
            _is_interval(row.get(f"{key}_ci95"))
            for key in ("strength", "win_rate", "control_win_rate")
        )
    )


def _checked(table: Any, path: Path) -> dict[str, Any]:
    """`table` if it has the published table's shape, else a LeaderboardError naming `path`."""
    counts = table.get("player_counts") if isinstance(table, dict) else None
    good = (
        isinstance(counts, dict)
        and _is_version(table.get("version"))
        and isinstance(table.get("suite"), str)
        and all(k in {str(n) for n in range(3, 9)} for k in counts)
        and all(
            isinstance(count, dict)
            and isinstance(count.get("rows"), list)
            and all(_is_row(row) for row in count["rows"])
            and (count.get("reference") is None or isinstance(count.get("reference"), str))
            for count in counts.values()
        )
        and (table.get("software") is None or isinstance(table.get("software"), dict))
    )
    if not good:
        raise LeaderboardError(
            f"{path} is not a published leaderboard (needs suite, version and player_counts "
            "-> rows with policy, strength, win_rate, control_win_rate)"
        )
    return dict(table)


def _notes(published: dict[str, Any], build: str | None, short: bool, seed: int) -> list[str]:
    """Why this run's rows and the published ones may not be on one footing."""
    notes = []
    if published["version"] != SUITE_VERSION:
        notes.append(
            f"the published table was made by suite v{published['version']}, this run is "
            f"v{SUITE_VERSION}: the line-ups differ, so the strengths are not on one scale"
        )
    their_build = (published.get("software") or {}).get("build")
    if build and their_build and build != their_build:
        notes.append(
            f"the published table was made on the {_plain(their_build, 40)} build, this run on "
            f"the {_plain(build, 40)} build"
        )
    if short and not published.get("short"):
        notes.append(
            f"this run is the short suite ({', '.join(map(str, SHORT_DEALS.values()))} deals "
            "at 3-6 players, no search reference): its intervals are wider than the published "
            "ones"
        )
    their_seed = published.get("seed", 0)
    if seed != their_seed:
        notes.append(f"this run used seed {seed}, the published table {_plain(their_seed, 40)}")
    return notes


def placement_text(
    summaries: dict[int, dict[str, Any]],
    candidates: list[str],
    published: dict[str, Any] | None,
    short: bool = False,
    seed: int = 0,
) -> str:
    """Where the `candidates` of a finished suite (`summaries`: player count -> summary) land
    among the rows of the `published` table."""
    title = "Where the candidates land in the published table (docs/leaderboard.md)"
    if published is None:
        return f"{title}: no published table ships with this package."
    build = next(
        (s.get("meta", {}).get("software", {}).get("build") for s in summaries.values()), None
    )
    lines = [
        f"{title}: {published['suite']} v{published['version']}, "
        f"{_plain(software_text(published.get('software')).partition(';')[0])}. Strength is each "
        "run's "
        "log-odds against random; the same references play in both, so the scales match up to "
        "the fits' noise (compare this run's reference rows above with the published ones).",
    ]
    lines += [f"Note: {note}." for note in _notes(published, build, short, seed)]
    for n, summary in sorted(summaries.items()):
        count = published["player_counts"].get(str(n))
        mine = [p for p in candidates if p in summary["policies"]]
        if count is None or not mine:
            continue
        ours = count_table(summary)
        new = [dict(r, mark=" (this run)") for r in ours["rows"] if r["policy"] in mine]
        rows = _by_strength(
            [dict(r, mark=" (published)" if r["policy"] in mine else "") for r in count["rows"]]
            + new
        )
        lines += ["", f"{n} players:", "", *TABLE_HEAD]
        for rank, row in enumerate(rows, 1):
            mine_row = row["mark"] == " (this run)"
            reference = ours["reference"] if mine_row else count.get("reference")
            name = _plain(row["policy"]) + row["mark"]
            name = f"**{name}**" if mine_row else name
            lines.append(f"| {rank} | {name} | {strength_text(row, reference)} | {_rates(row)} |")
        lines += ["", *(_landing(row, rows, n) for row in new)]
    return "\n".join(lines)


def _label(row: dict[str, Any]) -> str:
    return _plain(row["policy"]) + row.get("mark", "")


def _landing(row: dict[str, Any], rows: list[dict[str, Any]], n: int) -> str:
    """One sentence: the row's rank and its neighbours among the other published rows (the
    candidate's own published row, when it has one, is named apart)."""
    others = [r for r in rows if r.get("mark") != " (this run)" and r["policy"] != row["policy"]]
    own = [r for r in rows if r.get("mark") == " (published)" and r["policy"] == row["policy"]]
    if row["strength"] is None:
        return f"- {_plain(row['policy'])}: no strength at {n} players (see the table above)."
    above = [r for r in others if r["strength"] is not None and r["strength"] > row["strength"]]
    below = [r for r in others if r not in above]
    where = []
    published = ""
    if own and own[0]["strength"] is not None:
        published = f" (its published row: {own[0]['strength']:+.2f})"
    if above:
        where.append(f"below {_label(above[-1])} ({above[-1]['strength']:+.2f})")
    if below:
        value = below[0]["strength"]
        where.append(f"above {_label(below[0])} ({'–' if value is None else f'{value:+.2f}'})")
    return (
        f"- {_plain(row['policy'])}: {row['strength']:+.2f}{published}, rank {len(above) + 1} of "
        f"{len(others) + 1} at {n} players, {' and '.join(where)}."
    )


# ---------------------------------------------------------------------------------------------
# The command


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m dune_env.harness.leaderboard",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--from", dest="source", metavar="DIR", help="a finished suite's folder")
    source.add_argument("--run", action="store_true", help="play the full suite into --out first")
    parser.add_argument("--out", default="runs/suite", help="with --run: the suite's folder")
    parser.add_argument("--workers", type=int, default=1, help="with --run: worker processes")
    parser.add_argument("--resume", action="store_true", help="with --run: continue --out")
    parser.add_argument(
        "--markdown", default=None, help="the page (default: leaderboard.md in the suite's folder)"
    )
    parser.add_argument("--note", default=None, help="a sentence for the page, e.g. how it ran")
    parser.add_argument(
        "--json",
        default=None,
        help="the machine-readable copy (default: leaderboard_v<VERSION>.json in the suite's "
        "folder)",
    )
    parser.add_argument(
        "--publish",
        action="store_true",
        help=f"write the published table: {DEFAULT_MARKDOWN} and the package's "
        "data/leaderboard_v<VERSION>.json (maintainers)",
    )
    return parser


def write_text_file(path: Path, text: str) -> None:
    """Write `path` whole or not at all (a temporary file renamed over it), never through a
    symbolic link."""
    if path.is_symlink():
        raise LeaderboardError(f"{path} is a symbolic link; refusing to write through it")
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    partial.unlink(missing_ok=True)
    partial.write_text(text, encoding="utf-8")
    partial.replace(path)


def _outputs(args: argparse.Namespace, folder: Path, version: int) -> tuple[Path, Path]:
    """Where the page and the JSON go: asked for, published (--publish), else the folder."""
    if args.publish:
        markdown, data = DEFAULT_MARKDOWN, published_path(version)
    else:
        markdown, data = folder / "leaderboard.md", folder / f"leaderboard_v{version}.json"
    return (
        Path(args.markdown) if args.markdown else markdown,
        Path(args.json) if args.json else data,
    )


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    folder = Path(args.out if args.run else args.source)
    command = None
    if args.run:
        if not args.resume and folder.is_dir() and any(folder.iterdir()):
            return refuse(
                PROGRAM,
                f"--out {_plain(folder)} is not empty; add --resume to continue that suite, "
                "or choose another --out",
            )
        from .exits import bad_input_errors
        from .options import RunOptions
        from .suite import run_suite

        try:
            options = RunOptions(
                workers=args.workers, out_dir=folder, progress=True, resume=args.resume
            )
            run_suite(None, options=options)
        except bad_input_errors() as exc:
            return refuse(PROGRAM, _plain(exc, 500))
        except KeyboardInterrupt:
            again = f"--run --resume --workers {args.workers} --out {folder}"
            return interrupted(PROGRAM, f"continue with {_plain(again)}")
        command = f"dune-bench --suite standard --workers {args.workers} --out {folder}"
    try:
        table = build_table(folder, command)
        if args.note:
            table["note"] = args.note
        _checked(json.loads(json.dumps(table)), folder / "suite_summary.json")
        generator = f"python -m dune_env.harness.leaderboard --from {folder}"
        page = render_markdown(table, generator + (" --publish" if args.publish else ""))
        markdown, data = _outputs(args, folder, table["version"])
        # Everything is built and checked before anything is written.
        write_text_file(data, json.dumps(table, indent=2, sort_keys=True) + "\n")
        write_text_file(markdown, page)
    except LeaderboardError as exc:
        return refuse(PROGRAM, _plain(exc, 500))
    except OSError as exc:
        return refuse(PROGRAM, f"cannot write the table ({_plain(exc, 300)})")
    print(f"wrote {_plain(markdown)} and {_plain(data)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
