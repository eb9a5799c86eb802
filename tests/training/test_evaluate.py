"""`python -m training.evaluate` on the harness: duplicate deals, a verdict with the strength
interval against each opponent and the chance level, evaluation.json."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from training.evaluate import main


def test_evaluate_prints_a_verdict_per_opponent_on_duplicate_deals(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "eval"
    args = ["economic", "--opponents", "random", "aggressive", "--games", "10"]
    assert main([*args, "--players", "3", "--workers", "1", "--out", str(out)]) == 0
    printed = capsys.readouterr().out.splitlines()
    for opponent in ("random", "aggressive"):
        (line,) = [x for x in printed if x.startswith(f"economic vs {opponent}: ")]
        assert "(chance at 3 players is 33%)" in line
        if "cannot tell apart" not in line:
            assert " log-odds" in line
    assert any(line.startswith("How to read this") for line in printed)
    data = json.loads((out / "evaluation.json").read_text())
    for record in data.values():
        assert record["games"] == 12  # 10 rounded up to whole deals of 3 rotations
        assert record["chance_win_rate"] == pytest.approx(1 / 3)
        assert record["judgement"] in ("above", "below", "level", "cannot tell apart")
    summary = json.loads((out / "vs_random" / "summary.json").read_text())
    assert summary["duplicate"] is True


def test_evaluate_refuses_the_checkpoint_as_its_own_opponent(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["random", "--opponents", "aggressive", "random", "--out", str(tmp_path)])
    assert stop.value.code == 2
    assert capsys.readouterr().err == (
        "evaluate: random cannot be measured against itself; drop it from --opponents\n"
    )
    assert not any(tmp_path.iterdir())
