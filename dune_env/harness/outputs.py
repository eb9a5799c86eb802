"""The benchmark's output folder: refuse to overwrite it, resume into it, never follow a
symlink planted in it, and progress lines that suit a log file."""

from __future__ import annotations

import csv
import errno
import json
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, fields
from pathlib import Path
from typing import IO, Any

from ..game_log import DECISIONS_FILE, decisions_line
from ..match import GameSpec
from .types import GameRows, SeatResult
from .workers import POLICY_OUTPUT_FILE

RUN_FILE = "run.json"  # the run's parameters, compared on --resume
RESULTS_FILE = "results.csv"
MAX_RECORD_BYTES = 1 << 20  # run.json, suite_run.json: a few hundred bytes in practice


class OutputError(ValueError):
    """An output folder that cannot be used as asked."""


def open_output(path: Path, append: bool = False, binary: bool = False) -> IO[Any]:
    """Open `path` for writing without following a symlink (O_NOFOLLOW): a link planted in the
    output folder is refused instead of redirecting the write elsewhere."""
    flags = os.O_WRONLY | os.O_CREAT | (os.O_APPEND if append else os.O_TRUNC)
    flags |= getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags, 0o644)
    except OSError as exc:
        if exc.errno == errno.ELOOP or path.is_symlink():
            raise OutputError(f"{path} is a symbolic link; refusing to write through it") from exc
        raise OutputError(f"cannot write {path}: {exc.strerror}") from exc
    if binary:
        return os.fdopen(fd, "ab" if append else "wb")
    return os.fdopen(fd, "a" if append else "w", newline="", encoding="utf-8")


def write_output(path: Path, text: str | bytes) -> None:
    with open_output(path, binary=isinstance(text, bytes)) as handle:
        handle.write(text)


class CsvSink:
    """Appends rows as games finish, so that a crash never loses finished games.

    A run's results.csv (`path` named RESULTS_FILE) keeps decisions.jsonl beside it: a game's
    rows that carry their decisions (`types.GameRows`, what the benchmark replays) have them
    written there first, so a game's rows are never on file without its decisions."""

    def __init__(self, path: Path, append: bool = False) -> None:
        self.path = path
        has_rows = append and path.exists() and path.stat().st_size > 0
        self._decisions: IO[Any] | None = None
        if path.name == RESULTS_FILE:
            self._decisions = open_output(path.with_name(DECISIONS_FILE), append=append)
        self._file = open_output(path, append=append)
        self._writer = csv.DictWriter(self._file, fieldnames=[f.name for f in fields(SeatResult)])
        if not has_rows:
            self._writer.writeheader()
            self._file.flush()

    def write(self, rows: list[SeatResult]) -> None:
        if self._decisions is not None and isinstance(rows, GameRows) and rows:
            self._decisions.write(decisions_line(rows[0].game, rows[0].seed, rows.decisions))
            self._decisions.flush()
        for row in rows:
            self._writer.writerow(asdict(row))
        self._file.flush()

    def close(self) -> None:
        self._file.close()
        if self._decisions is not None:
            self._decisions.close()


# Every file a run writes (plus the partial rewrite of --resume).
OUTPUT_FILES = (
    RUN_FILE,
    RESULTS_FILE,
    RESULTS_FILE + ".partial",
    DECISIONS_FILE,
    DECISIONS_FILE + ".partial",
    "summary.json",
    "report.md",
    "failures.txt",
    POLICY_OUTPUT_FILE,
    "win_rate.png",
    "win_rate_by_faction.png",
    "strength.png",
    "sprt.png",  # dune-bench --sprt
)


def read_run_record(directory: Path, name: str, what: str) -> Any:
    """The parameters a run recorded in `directory/name`, read for a resume (OutputError when
    the file is missing, a symbolic link or unreadable)."""
    path = directory / name
    if path.is_symlink() or not path.is_file():
        raise OutputError(f"cannot resume {directory}: it has no {name} of {what}")
    if path.stat().st_size > MAX_RECORD_BYTES:
        raise OutputError(
            f"cannot resume {directory}: {name} has more than {MAX_RECORD_BYTES} bytes, "
            f"not the record of {what}"
        )
    try:
        record = json.loads(path.read_bytes())
    except (OSError, ValueError, RecursionError) as exc:
        why = "nested too deeply" if isinstance(exc, RecursionError) else "unreadable"
        raise OutputError(f"cannot resume {directory}: {name} is {why}") from None
    if not isinstance(record, dict):
        raise OutputError(
            f"cannot resume {directory}: {name} holds a JSON {type(record).__name__}, not the "
            f"object that records {what}"
        )
    return record


def refuse_links(directory: Path, limit: int = 100_000) -> None:
    """OutputError if `directory` or anything below it (folders included, looked at without
    following links; at most `limit` entries) is a symbolic link: a run folder of someone else
    could otherwise make a resume write outside it."""
    if directory.is_symlink():
        raise OutputError(
            f"cannot resume {directory}: it is a symbolic link; refusing to write through it "
            f"(give the folder it points to, {directory.resolve()})"
        )
    seen = 0
    for root, folders, files in os.walk(directory, followlinks=False):
        for name in sorted(folders + files):
            path = Path(root) / name
            if path.is_symlink():
                raise OutputError(
                    f"cannot resume {directory}: {path} is a symbolic link; refusing to write "
                    "through it"
                )
            seen += 1
            if seen > limit:
                raise OutputError(f"cannot resume {directory}: it holds over {limit} files")


def prepare_out_dir(
    out_dir: Path, run: dict[str, Any], resume: bool, overwrite: bool = False
) -> None:
    """Create `out_dir`, or check that it may be used.  A non-empty folder is refused (a
    finished run is never overwritten by accident) unless `resume` (it must then hold a run
    with the same parameters) or `overwrite` (the earlier run's files are removed first;
    links are removed, never followed)."""
    if out_dir.exists() and not out_dir.is_dir():
        raise OutputError(f"--out {out_dir} is an existing file, not a folder")
    if resume and out_dir.is_symlink():
        refuse_links(out_dir)
    if out_dir.is_dir() and any(out_dir.iterdir()) and overwrite and not resume:
        for name in OUTPUT_FILES:
            path = out_dir / name
            if path.is_symlink() or path.is_file():
                path.unlink()
    elif out_dir.is_dir() and any(out_dir.iterdir()):
        if not resume:
            raise OutputError(
                f"output folder {out_dir} is not empty; pass --resume to continue that run, "
                "or choose another --out"
            )
        links = sorted(p.name for p in out_dir.iterdir() if p.is_symlink())
        if links:
            raise OutputError(
                f"cannot resume {out_dir}: it holds symbolic link(s) {', '.join(links)}; "
                "refusing to write through them"
            )
        before = read_run_record(out_dir, RUN_FILE, "a benchmark run")
        now = _jsonable(run)
        if before != now:
            changed = sorted(k for k in set(before) | set(now) if before.get(k) != now.get(k))
            raise OutputError(
                f"cannot resume {out_dir}: it is a run with different {', '.join(changed)}"
            )
        return
    out_dir.mkdir(parents=True, exist_ok=True)
    write_output(out_dir / RUN_FILE, json.dumps(_jsonable(run), indent=2, sort_keys=True))


def _jsonable(data: dict[str, Any]) -> dict[str, Any]:
    result: dict[str, Any] = json.loads(json.dumps(data))
    return result


def read_results(path: Path, specs: Sequence[GameSpec]) -> list[SeatResult]:
    """The complete games of an earlier run's results.csv, every row checked against the run's
    schedule `specs` and every game against the replay of its decisions in decisions.jsonl
    (resume_check.py): OutputError names the first row it could not produce.  decisions.jsonl
    is rewritten to hold the returned games only (a game cut short is played again)."""
    from ..game_log import NotReplayed, read_decisions
    from .resume_check import BadRow, check_replayed, read_checked_results

    decisions_path = path.with_name(DECISIONS_FILE)
    if not path.exists() and not decisions_path.exists():
        return []
    if path.is_symlink():
        raise OutputError(f"{path} is a symbolic link; refusing to read it")
    try:
        rows = read_checked_results(path, specs) if path.exists() else []
        try:
            decisions = read_decisions(decisions_path, specs)
        except NotReplayed as exc:
            raise BadRow(str(exc)) from None
        check_replayed(rows, decisions, specs, path.name, DECISIONS_FILE)
        kept = sorted({row.game for row in rows})
        partial = path.with_name(DECISIONS_FILE + ".partial")
        write_output(partial, "".join(decisions_line(g, specs[g].seed, decisions[g]) for g in kept))
        os.replace(partial, decisions_path)
        return rows
    except BadRow as exc:
        raise OutputError(
            f"cannot resume {path.parent}: {exc}; restore that file, or delete the game's rows "
            "to have it played again"
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise OutputError(
            f"cannot resume {path.parent}: {path.name} is unreadable ({exc})"
        ) from None


def default_out_dir(base: str = "runs/benchmark") -> Path:
    """`base`, or `base-2`, `base-3`, ... : the first that does not exist or is empty."""
    candidate = Path(base)
    number = 1
    while candidate.exists() and (not candidate.is_dir() or any(candidate.iterdir())):
        number += 1
        candidate = Path(f"{base}-{number}")
    return candidate


class LineProgress:
    """Progress for a log file or pipe: a plain line now and then (no carriage returns)."""

    def __init__(self, total: int, desc: str, stream: IO[str] | None = None) -> None:
        self.total = total
        self.desc = desc
        self.count = 0
        self.stream = stream if stream is not None else sys.stderr
        self._last = 0.0
        self._step = max(1, total // 10)

    def update(self, n: int = 1) -> None:
        self.count += n
        now = time.monotonic()
        if self.count % self._step == 0 or now - self._last > 30 or self.count == self.total:
            self._last = now
            print(f"{self.desc}: {self.count}/{self.total} games", file=self.stream, flush=True)

    def close(self) -> None:
        pass


def progress_bar(total: int, desc: str) -> Any:
    """tqdm on a terminal, plain lines otherwise."""
    if sys.stderr.isatty():
        from tqdm import tqdm

        return tqdm(total=total, unit="game", desc=desc)
    return LineProgress(total, desc)
