"""The benchmark's output folder: refuse to overwrite it, resume into it, never follow a
symlink planted in it, and progress lines that suit a log file."""

from __future__ import annotations

import csv
import errno
import json
import os
import sys
import time
from dataclasses import asdict, fields
from pathlib import Path
from typing import IO, Any

from .types import SeatResult

RUN_FILE = "run.json"  # the run's parameters, compared on --resume
RESULTS_FILE = "results.csv"


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
    """Appends rows as games finish, so that a crash never loses finished games."""

    def __init__(self, path: Path, append: bool = False) -> None:
        self.path = path
        has_rows = append and path.exists() and path.stat().st_size > 0
        self._file = open_output(path, append=append)
        self._writer = csv.DictWriter(self._file, fieldnames=[f.name for f in fields(SeatResult)])
        if not has_rows:
            self._writer.writeheader()
            self._file.flush()

    def write(self, rows: list[SeatResult]) -> None:
        for row in rows:
            self._writer.writerow(asdict(row))
        self._file.flush()

    def close(self) -> None:
        self._file.close()


# Every file a run writes (plus the partial rewrite of --resume).
OUTPUT_FILES = (
    RUN_FILE,
    RESULTS_FILE,
    RESULTS_FILE + ".partial",
    "summary.json",
    "report.md",
    "failures.txt",
    "win_rate.png",
    "win_rate_by_faction.png",
    "strength.png",
    "sprt.png",  # dune-bench --sprt
)


def prepare_out_dir(
    out_dir: Path, run: dict[str, Any], resume: bool, overwrite: bool = False
) -> None:
    """Create `out_dir`, or check that it may be used.  A non-empty folder is refused (a
    finished run is never overwritten by accident) unless `resume` (it must then hold a run
    with the same parameters) or `overwrite` (the earlier run's files are removed first;
    links are removed, never followed)."""
    if out_dir.exists() and not out_dir.is_dir():
        raise OutputError(f"--out {out_dir} is an existing file, not a folder")
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
        run_path = out_dir / RUN_FILE
        if run_path.is_symlink() or not run_path.is_file():
            raise OutputError(f"cannot resume {out_dir}: it has no {RUN_FILE} of a benchmark run")
        try:
            before = json.loads(run_path.read_text())
        except (OSError, ValueError) as exc:
            raise OutputError(f"cannot resume {out_dir}: {RUN_FILE} is unreadable") from exc
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


def read_results(path: Path, num_players: int) -> list[SeatResult]:
    """The complete games (every seat's row present) of an earlier run's results.csv."""
    if not path.exists():
        return []
    if path.is_symlink():
        raise OutputError(f"{path} is a symbolic link; refusing to read it")
    types = {f.name: f.type for f in fields(SeatResult)}
    rows: list[SeatResult] = []
    with path.open(newline="", encoding="utf-8") as handle:
        for record in csv.DictReader(handle):
            try:
                values: dict[str, Any] = {}
                for name, kind in types.items():
                    raw = record[name]
                    if kind in (float, "float"):
                        values[name] = float(raw)
                    elif kind in (int, "int"):
                        values[name] = int(raw)
                    else:
                        values[name] = raw
                rows.append(SeatResult(**values))
            except (KeyError, TypeError, ValueError):
                continue  # a row cut short by a crash: that game is played again
    seats: dict[int, set[int]] = {}
    for row in rows:
        seats.setdefault(row.game, set()).add(row.seat)
    complete = {g for g, s in seats.items() if s == set(range(num_players))}
    return [r for r in rows if r.game in complete]


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
