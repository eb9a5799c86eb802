"""A policy's printed output goes to the run's policy-output.log, capped, not to dune-bench's
own output (issue 21, item 6)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dune_env.harness import run_benchmark
from dune_env.harness.play.workers import POLICY_OUTPUT_CAP, POLICY_OUTPUT_FILE

CHATTY = "tests.harness.bad_policies:Chatty"


def test_policy_output_is_captured_to_a_capped_log(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run"
    result = run_benchmark([CHATTY, "random"], num_players=3, games=3, out_dir=out, plots=False)
    assert result.summary["games"] == 3 and not result.failures
    printed = capfd.readouterr()
    assert "chatty" not in printed.out and "chatty" not in printed.err
    log = out / POLICY_OUTPUT_FILE
    text = log.read_text()
    assert "chatty x" in text and "chatty on stderr" in text and "chatty through fd 1" in text
    assert log.stat().st_size <= POLICY_OUTPUT_CAP + 4096  # 3 games x 8 MB were printed
    assert "output past" in text  # the cap is marked
    report = (out / "report.md").read_text()
    assert POLICY_OUTPUT_FILE in report
    meta = json.loads((out / "summary.json").read_text())["meta"]
    assert meta["policy_output_bytes"] == log.stat().st_size


def test_a_quiet_run_keeps_no_log(tmp_path: Path) -> None:
    out = tmp_path / "run"
    run_benchmark(["random"], num_players=3, games=2, out_dir=out, plots=False)
    assert not (out / POLICY_OUTPUT_FILE).exists()
    assert POLICY_OUTPUT_FILE not in (out / "report.md").read_text()
