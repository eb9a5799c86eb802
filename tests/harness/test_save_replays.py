"""`dune-bench --save-replays N` (issue 14): browser replays of a run's games, linked from
report.md, the first failed game among them, replayed up to its failure."""

from __future__ import annotations

from pathlib import Path

import pytest

from dune_env.harness.cli import main
from dune_env.harness.play.types import GameFailure, SeatResult
from dune_env.harness.runs.replays import pick_replays

BAD = "tests.harness.bad_policies"


def test_save_replays_keeps_the_failed_game_and_a_sample(tmp_path: Path, capsys) -> None:
    out = tmp_path / "run"
    code = main(
        [
            "--policies", "random", f"{BAD}:Raise",
            "--players", "3", "--games", "6", "--workers", "1", "--no-progress", "--no-plots",
            "--out", str(out), "--save-replays", "3",
        ]
    )  # fmt: skip
    assert code == 1  # games 0, 2 and 4 failed
    files = sorted(p.name for p in (out / "replays").iterdir())
    assert files == ["game_00000.html", "game_00001.html", "game_00003.html"]
    report = (out / "report.md").read_text()
    assert "## Replays" in report
    assert "[game 0](replays/game_00000.html) (failed game)" in report
    assert "[game 1](replays/game_00001.html)" in report
    failed = (out / "replays" / "game_00000.html").read_text()
    assert "failed at decision" in failed and "deliberate failure" in failed
    assert "3 replay(s) written" in capsys.readouterr().out


def test_replays_of_finished_games_match_the_benchmark(tmp_path: Path) -> None:
    """A kept replay is the game the benchmark played (benchmark_record checks results.csv)."""
    out = tmp_path / "run"
    assert main(
        [
            "--policies", "aggressive", "random", "--players", "3", "--games", "6",
            "--duplicate", "--workers", "1", "--no-progress", "--no-plots",
            "--out", str(out), "--save-replays", "2",
        ]
    ) == 0  # fmt: skip
    report = (out / "report.md").read_text()
    assert report.count("](replays/game_") == 2 and "not replayed" not in report


def test_pick_replays_prefers_a_replayable_failure() -> None:
    rows = [
        SeatResult(g, g, 3, 0, "Atreides", "p", 0, 0.0, "none", 0, 6, 100) for g in (1, 3, 5, 7)
    ]
    hang = GameFailure(0, 0, "timeout", kind="timeout")
    crash = GameFailure(2, 2, "raised", kind="exception")
    assert pick_replays(rows, [hang, crash], 3) == [2, 1, 5]
    assert pick_replays(rows, [hang], 2) == [1, 5]
    assert pick_replays(rows, [], 0) == []


def test_save_replays_bad_input_is_one_line(tmp_path: Path, capsys) -> None:
    assert main(["--save-replays", "-1", "--out", str(tmp_path / "a")]) == 2
    assert capsys.readouterr().err.strip() == "dune-bench: --save-replays must be 0 or more"
    assert (
        main(["--suite", "standard-short", "--save-replays", "2", "--out", str(tmp_path / "b")])
        == 2
    )
    assert "--save-replays" in capsys.readouterr().err


@pytest.fixture(autouse=True)
def _no_torch_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
