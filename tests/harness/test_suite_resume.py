"""The standard suite: an interrupted suite resumes into the same results, and its reports
give the speed, the verdicts and a chart across player counts."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

import dune_env.harness.benchmark as harness
from dune_env.harness import suite
from dune_env.harness.cli import main as bench_main

ARGS = ["--suite", "standard-short", "--policies", "random", "--workers", "1", "--no-progress"]


def _results(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): p.read_text() for p in sorted(folder.rglob("results.csv"))}


def _strength(folder: Path) -> Any:
    return json.loads((folder / "suite_summary.json").read_text())["strength"]


@pytest.mark.usefixtures("cheap_suite")
def test_an_interrupted_suite_resumes_into_the_same_results(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    whole = tmp_path / "whole"
    assert bench_main([*ARGS, "--out", str(whole)]) == 0
    printed = capsys.readouterr().out
    assert "Strength per player count" in printed and "How to read this" in printed
    report = (whole / "4p" / "report.md").read_text()
    speed = re.search(r"([\d.]+) games/s on 1 worker\(s\)", report)
    assert speed is not None and float(speed.group(1)) > 0, "the report gives the games' speed"
    assert (whole / "suite_strength.png").stat().st_size > 1000

    # Interrupted at the 4-player line-up, with the 3-player line-up's last game cut short.
    real = harness.run_benchmark
    calls = []

    def interrupted(*args: Any, **kwargs: Any) -> Any:
        calls.append(kwargs["num_players"])
        if kwargs["num_players"] == 4:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    cut = tmp_path / "cut"
    monkeypatch.setattr(harness, "run_benchmark", interrupted)
    assert bench_main([*ARGS, "--out", str(cut), "--no-plots"]) == 130
    err = capsys.readouterr().err
    assert f"continue with --suite standard-short --policies random --resume --out {cut}" in err
    monkeypatch.setattr(harness, "run_benchmark", real)
    csv = cut / "3p" / "lineup0" / "results.csv"
    lines = csv.read_text().splitlines(keepends=True)
    csv.write_text("".join(lines[:-2]))  # the last game lost two of its seats

    # Without --resume the folder is refused; with another candidate the resume is refused.
    assert bench_main([*ARGS, "--out", str(cut)]) == 2
    assert "not empty; pass --resume" in capsys.readouterr().err
    other = ["--suite", "standard-short", "--policies", "strategist", "--workers", "1"]
    assert bench_main([*other, "--no-progress", "--resume", "--out", str(cut)]) == 2
    assert "a suite with different policies" in capsys.readouterr().err

    assert bench_main([*ARGS, "--out", str(cut), "--resume", "--no-plots"]) == 0
    assert _results(cut) == _results(whole)
    assert _strength(cut) == _strength(whole)


@pytest.mark.usefixtures("cheap_suite")
def test_suite_progress_names_the_line_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The progress lines (plain lines off a terminal) say which line-up they count."""
    monkeypatch.setattr(suite, "PLAYER_COUNTS", (3,))
    suite.run_suite(["strategist"], short=True, out_dir=tmp_path, plots=False, progress=True)
    err = capsys.readouterr().err
    # strategist, economic, aggressive, random: 4 line-ups of 3, a deal of 6 seatings each
    assert "3p line-up 1/4: 6/6 games" in err and "3p line-up 4/4: 6/6 games" in err
