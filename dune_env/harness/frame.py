"""The frame every protocol runs in: the line-up checked, the games played into the run folder,
the run's files written.

A protocol (the benchmark, the sequential test; the suite is line-ups of benchmarks) is its
schedule and what it makes of the rows; the rest is written once, here:

- `prepare`: the options checked against the game, the line-up loaded once in this process (a
  foreign policy in a child process, play/hosts.py) so that a bad policy fails before anything
  is written, the games scheduled (`dune_env.match.schedule`) and the run's record (run.json:
  what a resume must repeat);
- `play_run`: the backend connected first (Ray: a bad address fails before anything is
  written), the run folder's results opened or resumed (runs/outputs.py), the games played in
  blocks while the protocol wants more (`go_on`), each game's rows written as it finishes; on
  Ctrl-C what finished is kept (`Session.interrupted`);
- `run_meta`: summary.json's "meta": the run's parameters, how and how fast it was played;
- `finish_run`: summary.json, report.md, failures.txt and the plots written, then the
  interruption (if any) raised again.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..match import GameSpec, lineup, schedule
from ..provenance import software_record
from ..seatings import ROTATIONS
from .options import RunOptions
from .play.backends import check_ray_policies, import_ray, open_backend
from .play.hosts import check_loadable
from .play.replayed import as_rows
from .play.types import GameFailure, Item, SeatResult
from .play.workers import POLICY_OUTPUT_CAP, POLICY_OUTPUT_FILE
from .runs.outputs import (
    RESULTS_FILE,
    CsvSink,
    open_output,
    prepare_out_dir,
    progress_bar,
    read_results,
    write_json,
    write_output,
)

GoOn = Callable[[list[SeatResult], list[GameFailure]], bool]


def prepare(
    policies: list[str], num_players: int, games: int, duplicate: bool, options: RunOptions
) -> tuple[list[str], list[GameSpec], dict[str, Any]]:
    """The checked policy specs, the run's games and its record (run.json)."""
    options.check_game(num_players, games)
    policies = checked_policies(policies, num_players, options)
    specs = schedule(
        policies,
        num_players,
        games,
        options.seed,
        dict(options.config),
        duplicate,
        options.luck_samples,
        options.luck_model,
        options.seatings,
    )
    return policies, specs, run_record(policies, num_players, games, duplicate, options)


def checked_policies(policies: list[str], num_players: int, options: RunOptions) -> list[str]:
    """The policy specs to schedule, each loaded once here to fail fast with the loader's
    message; with `trust_checkpoints`, marked trusted so that the opt-in reaches the workers."""
    from ..policies.registry import trusted

    if options.backend == "ray":
        import_ray()  # one clear message before anything is written when Ray is missing
        check_ray_policies(policies)
    if options.trust_checkpoints:
        policies = [trusted(p) if isinstance(p, str) else p for p in policies]
    lineup(policies, num_players)  # at most one policy per seat
    check_loadable(sorted(set(policies)))  # foreign code in a child process only (hosts.py)
    _single_threaded_torch()
    return policies


def _single_threaded_torch() -> None:
    """One torch thread per process.  A model policy loaded above starts torch's thread pool,
    and worker processes forked after that deadlock in it; one game's batch-of-one inference
    is also faster on one thread, and the workers are the parallelism."""
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(1)


def run_record(
    policies: list[str], num_players: int, games: int, duplicate: bool, options: RunOptions
) -> dict[str, Any]:
    """The parameters that define a run's games (run.json; a resume must repeat them)."""
    record: dict[str, Any] = {
        "policies": list(policies),
        "num_players": num_players,
        "games": games,
        "seed": options.seed,
        "config": dict(options.config),
        "duplicate": duplicate,
        "max_decisions": options.max_decisions,
    }
    if options.luck_samples:  # (absent otherwise: run.json files of earlier versions resume)
        record["luck_samples"] = options.luck_samples
    if options.luck_model:
        record["luck_model"] = options.luck_model
    if options.seatings != ROTATIONS:  # (absent: the rotations of runs before the designs)
        record["seatings"] = options.seatings
    return record


@dataclass
class Session:
    """The games of one run as this session leaves them."""

    rows: list[SeatResult]
    """Every finished game's rows, the resumed ones included, by game and seat."""
    failures: list[GameFailure]
    """The games that failed in this session, by game."""
    interrupted: bool
    """Whether Ctrl-C (or SIGTERM) stopped the games."""
    played: int
    """Games finished or failed in this session."""
    resumed: int
    """Games the run folder held already."""
    seconds: float
    """How long this session's games took."""
    workers: int
    """Games played at once (on Ray: its CPUs, unless limited)."""


def play_run(
    specs: Sequence[GameSpec],
    run: dict[str, Any],
    options: RunOptions,
    label: str,
    block: int | None = None,
    go_on: GoOn | None = None,
) -> Session:
    """Play the games `specs` of the run `run` (its record) into the run folder; see the module
    doc.  `block`: games played before `go_on(rows, failures)` is asked again whether to play
    on (default: all at once).  `label`: the progress bar's, unless `options.progress` names
    one."""
    directory = options.folder
    output_log = directory / POLICY_OUTPUT_FILE if directory is not None else None
    with backend_for(options, output_log) as pool:  # connected first: fails before any write
        rows: list[SeatResult] = []
        sink, todo = None, list(specs)
        if directory is not None:
            rows, sink, todo = _open_results(directory, run, specs, options)
        resumed = len({r.game for r in rows})
        bar = None
        if options.progress:
            name = options.progress if isinstance(options.progress, str) else label
            bar = progress_bar(len(specs), name)
            if resumed:
                bar.update(resumed)
        failures: list[GameFailure] = []
        start = time.perf_counter()
        interrupted, played = _play(pool, todo, block, go_on, rows, failures, sink, bar)
        seconds = time.perf_counter() - start
    rows.sort(key=lambda r: (r.game, r.seat))
    failures.sort(key=lambda f: f.game)
    return Session(rows, failures, interrupted, played, resumed, seconds, pool.size)


def backend_for(options: RunOptions, output_log: Path | None = None) -> Any:
    """The backend of `options` (play/backends.py: `open_backend`), a context manager whose
    `play(specs)` yields each game as it finishes; `output_log` takes what the policies print."""
    return open_backend(
        options.backend,
        options.workers,
        options.move_timeout,
        options.max_decisions,
        options.address,
        str(output_log) if output_log is not None else None,
    )


def _open_results(
    directory: Path, run: dict[str, Any], specs: Sequence[GameSpec], options: RunOptions
) -> tuple[list[SeatResult], CsvSink, list[GameSpec]]:
    """Prepare the run folder: (rows already played, the results sink, games to play)."""
    prepare_out_dir(directory, run, options.resume, options.overwrite)
    open_output(directory / POLICY_OUTPUT_FILE, append=options.resume).close()
    results_path = directory / RESULTS_FILE
    if not options.resume:
        return [], CsvSink(results_path), list(specs)
    rows = read_results(results_path, specs)
    done = {r.game for r in rows}
    # Keep only complete games' rows (a crash may have cut the last one short): write them to a
    # new file that replaces the old one whole, then append to it.
    partial = directory / (RESULTS_FILE + ".partial")
    rewrite = CsvSink(partial)
    rewrite.write(rows)
    rewrite.close()
    os.replace(partial, results_path)
    return rows, CsvSink(results_path, append=True), [s for s in specs if s.index not in done]


def _play(
    pool: Any,
    specs: list[GameSpec],
    block: int | None,
    go_on: GoOn | None,
    rows: list[SeatResult],
    failures: list[GameFailure],
    sink: CsvSink | None,
    bar: Any,
) -> tuple[bool, int]:
    """Play `specs` in game order, `block` at a time while `go_on`; keep each result in
    `rows` / `failures` (and `sink`, `bar`, closed at the end): (interrupted, games played)."""
    remaining = sorted(specs, key=lambda s: s.index)
    step = block or max(1, len(remaining))
    played = 0
    try:
        while remaining and (go_on is None or go_on(rows, failures)):
            batch, remaining = remaining[:step], remaining[step:]
            games = play_items(pool, batch)
            try:
                for _spec, result in games:
                    played += 1
                    keep_result(result, rows, failures, sink, bar)
            finally:
                games.close()  # stops the games still running (Ctrl-C)
    except KeyboardInterrupt:
        return True, played
    finally:
        if sink is not None:
            sink.close()
        if bar is not None:
            bar.close()
    return False, played


def play_items(pool: Any, specs: Sequence[GameSpec]) -> Generator[Item, None, None]:
    """The pool's games as they finish, each record replayed into rows here (play/replayed.py)."""
    played = pool.play(specs)
    try:
        for item in played:
            yield as_rows(item)
    finally:
        played.close()


def keep_result(
    result: list[SeatResult] | GameFailure,
    rows: list[SeatResult],
    failures: list[GameFailure],
    sink: CsvSink | None,
    bar: Any,
) -> None:
    """One finished game: its rows kept (and written at once), or its failure; the bar moves."""
    if isinstance(result, GameFailure):
        failures.append(result)
    else:
        rows.extend(result)
        if sink is not None:
            sink.write(result)
    if bar is not None:
        bar.update(1)


# The run's parameters in summary.json's "meta", as recorded in run.json (with the values that
# a record of an earlier version leaves out).
_RECORDED = ("policies", "num_players", "seed", "config", "max_decisions")
_LEFT_OUT = {"luck_samples": 0, "luck_model": "", "seatings": ROTATIONS}


def run_meta(run: dict[str, Any], session: Session, options: RunOptions) -> dict[str, Any]:
    """summary.json's "meta": the run's parameters, how it was played and how long it took (the
    speed counts only the games played in this session: a resume keeps the others)."""
    meta = {key: run[key] for key in _RECORDED}
    meta |= {key: run.get(key, default) for key, default in _LEFT_OUT.items()}
    meta |= {
        "workers": session.workers,
        "backend": options.backend,
        "move_timeout": options.move_timeout,
        "resumed": options.resume,
        "seconds": session.seconds,
        "games_played": session.played,
        "games_resumed": session.resumed,
        "games_per_second": (
            session.played / session.seconds if session.played and session.seconds > 0 else 0.0
        ),
        "software": software_record(),  # the build, versions and commit behind the figures
    }
    return meta


def finish_run(
    session: Session,
    summary: dict[str, Any],
    report: str,
    options: RunOptions,
    plot: Callable[[dict[str, Any], Path], Any] | None = None,
) -> None:
    """Write summary.json, report.md (`report`, plus a note when the policies printed),
    failures.txt and (`plot`) the plots into the run folder, if there is one; then raise
    KeyboardInterrupt again if the session was interrupted."""
    directory = options.folder
    if directory is not None:
        output_log = directory / POLICY_OUTPUT_FILE
        printed = output_log.stat().st_size if output_log.is_file() else 0
        if not printed and output_log.is_file() and not output_log.is_symlink():
            output_log.unlink()  # nothing printed: no file
        summary["meta"]["policy_output_bytes"] = printed
        if printed:
            report += (
                f"\nThe policies printed output: {printed} bytes are in {POLICY_OUTPUT_FILE} "
                f"(stdout and stderr of the worker processes; at most {POLICY_OUTPUT_CAP} "
                "bytes are kept, the rest is dropped).\n"
            )
        write_json(directory / "summary.json", summary)
        write_output(directory / "report.md", report)
        if session.failures:
            write_output(
                directory / "failures.txt",
                "\n\n".join(
                    f"game {f.game} seed {f.seed} ({f.kind}): {f.error}\n{f.detail}"
                    for f in session.failures
                ),
            )
        if plot is not None:
            plot(summary, directory)
    if session.interrupted:
        raise KeyboardInterrupt
