"""A finished run folder as the hostile tests edit it: copied, its results.csv read and written."""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

Rows = list[dict[str, str]]


def copy_run(finished_run: Path, tmp_path: Path) -> Path:
    out = tmp_path / "run"
    shutil.copytree(finished_run, out)
    return out


def read_results(out: Path) -> tuple[list[str], Rows]:
    with (out / "results.csv").open(newline="") as handle:
        reader = csv.DictReader(handle)
        return list(reader.fieldnames or []), list(reader)


def write_results(out: Path, fieldnames: list[str], rows: Rows) -> None:
    with (out / "results.csv").open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=fieldnames)
        writer.writeheader()
        writer.writerows(rows)
