"""The sequential test (`dune-bench --sprt`): the LLR and bounds against hand-computed values,
its error rates on synthetic deals with a known effect, and a real run through the CLI that
resumes into the same decision."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import dune_env.harness.sprt_run as sprt_run
from dune_env.harness.cli import main as bench_main
from dune_env.harness.sprt import (
    H0,
    H1,
    UNDECIDED,
    SprtDesign,
    block_means,
    deal_scores,
    decide,
    fixed_sample_deals,
    llr,
    llr_trace,
    simulate,
    synthetic_deal_scores,
)
from dune_env.harness.types import SeatResult


def test_bounds_are_walds() -> None:
    design = SprtDesign(alpha=0.05, beta=0.2)
    assert design.upper == pytest.approx(math.log(0.8 / 0.05))  # ln 16 = 2.773
    assert design.lower == pytest.approx(math.log(0.2 / 0.95))  # -1.558
    assert SprtDesign().upper == pytest.approx(math.log(19)) == -SprtDesign().lower


def test_llr_against_hand_computed_values() -> None:
    x = [0.1, -0.1, 0.2, 0.0]
    # Variance about 0 (H0): (0.01 + 0.01 + 0.04 + 0) / 4 = 0.015; about 0.05 (H1):
    # (0.0025 + 0.0225 + 0.0225 + 0.0025) / 4 = 0.0125; LLR = 4/2 * ln(0.015 / 0.0125).
    assert llr(x, 0.0, 0.05) == pytest.approx(2 * math.log(1.2))
    # After two values: mean 0, variance about 0 = 0.01, about 0.05 = 0.0125.
    trace = llr_trace(x, 0.0, 0.05)
    assert trace[1] == pytest.approx(math.log(0.01 / 0.0125))
    assert trace[0] == 0.0  # one value has no spread: no evidence yet
    assert np.all(llr_trace([0.25] * 5, 0.0, 0.05) == 0.0)
    assert llr(np.array(x) + 0.05, 0.05, 0.1) == pytest.approx(2 * math.log(1.2))  # shift-free


def test_decide_stops_at_the_first_block_past_a_bound() -> None:
    design = SprtDesign(delta0=0.0, delta1=0.1, block=2)
    assert list(block_means([1, 2, 3, 4, 5], 2)) == [1.5, 3.5]  # the partial block waits
    rising = [0.1, 0.3] * 40  # block means all 0.2: no spread, then one block of 0.0
    rising[2:4] = [0.0, 0.0]
    decision = decide(rising, design)
    assert decision.decision == H1 and decision.llr >= design.upper
    assert decision.deals == 2 * len(decision.trace)
    assert all(design.lower < v < design.upper for v in decision.trace[:-1])
    assert decide([-x for x in rising], design).decision == H0
    assert decide([0.0, 0.1, 0.2], design) == decide([0.0, 0.1], design)  # block of 2 unfinished
    assert decide([], design).decision == UNDECIDED


@pytest.mark.parametrize(
    "bad", [{"alpha": 0.0}, {"beta": 0.6}, {"delta0": 0.1, "delta1": 0.1}, {"block": 0}]
)
def test_a_bad_design_is_refused(bad: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match=next(iter(bad)).rstrip("01")):
        SprtDesign(**bad)


def _error_rate(
    design: SprtDesign, pa: float, pb: float, wrong: str, seed: int
) -> tuple[float, float]:
    result = simulate(design, pa, pb, runs=3000, deals=1200, seed=seed)
    assert result[UNDECIDED] < 0.01
    return result[wrong], result["mean_deals"]


def test_simulated_error_rates_are_within_their_targets() -> None:
    """Synthetic deals like aggressive's against its 20%-random copy (4% control wins per seat;
    under H1 5.5% against 2.5%, an effect of exactly delta1 = 3 points).  3,000 runs per case:
    a rate's Monte Carlo standard error is 0.4 points, hence the 1-point margin."""
    design = SprtDesign(delta0=0.0, delta1=0.03, alpha=0.05, beta=0.05)
    alpha, deals_h0 = _error_rate(design, 0.04, 0.04, H1, seed=1)
    beta, deals_h1 = _error_rate(design, 0.055, 0.025, H0, seed=2)
    assert alpha <= design.alpha + 0.01 and beta <= design.beta + 0.01, (alpha, beta)
    # The saving: the fixed-size test at the same error rates needs 120 deals here (~103 used).
    sd = math.sqrt(4 * (0.08 + 0.08)) / 8  # under H0 a game adds +1, -1 or 0, mean 0
    fixed = fixed_sample_deals(sd, design)
    assert max(deals_h0, deals_h1) < 0.9 * fixed, (deals_h0, deals_h1, fixed)
    # With stricter targets the errors shrink with them.
    strict = SprtDesign(delta0=0.0, delta1=0.03, alpha=0.01, beta=0.01)
    assert _error_rate(strict, 0.04, 0.04, H1, seed=3)[0] <= 0.01 + 0.005


def test_synthetic_deals_have_the_stated_rates() -> None:
    x = synthetic_deal_scores(np.random.default_rng(0), 0.055, 0.025, 200, 100)
    assert x.shape == (200, 100) and set(np.unique(x * 8)) <= set(range(-4, 5))
    assert x.mean() == pytest.approx(0.03, abs=0.002)


def test_single_deal_steps_would_miss_the_target() -> None:
    """Why the test runs on blocks of deals: on single deals the skewed statistic makes the
    normal model accept H0 too often under H1."""
    design = SprtDesign(delta0=0.0, delta1=0.03, block=1)
    beta, _ = _error_rate(design, 0.055, 0.025, H0, seed=4)
    assert beta > design.beta + 0.01


def _row(game: int, seed: int, seat: int, policy: str, won: int, kind: str) -> SeatResult:
    return SeatResult(game, seed, 4, seat, "Atreides", policy, won, float(won), kind, 0, 5, 50)


def test_deal_scores_are_per_seat_rate_differences_in_deal_order() -> None:
    rows = []
    for game in range(8):  # deal 0 = games 0-3 (seed 70), deal 1 = games 4-7 (seed 30)
        seed = 70 if game < 4 else 30
        for seat in range(4):
            policy = "A" if (seat + game) % 2 == 0 else "B"
            won = int(seat == 0 and game in (0, 1, 5))
            rows.append(_row(game, seed, seat, policy, won, "solo" if game != 5 else "timeout"))
    # Deal 0: A won by control in game 0 (seat 0 = A), B in game 1 -> 1/8 - 1/8 = 0.
    # Deal 1: the only win is a time-out: no control win; as a win, game 5 seat 0 is B.
    assert deal_scores(rows, "A", "B", "control") == [0.0, 0.0]
    assert deal_scores(rows, "A", "B", "win") == [0.0, -1 / 8]
    with pytest.raises(ValueError, match="control, win"):
        deal_scores(rows, "A", "B", "elo")


ARGS = ["--sprt", "--policies", "aggressive", "random", "--players", "4", "--workers", "1"]
ARGS += ["--max-games", "48", "--sprt-block", "2", "--sprt-delta", "0", "0.1", "--no-progress"]


def test_a_real_run_decides_and_reports(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    code = bench_main([*ARGS, "--out", str(out)])
    printed = capsys.readouterr().out
    summary = json.loads((out / "summary.json").read_text())
    s = summary["sprt"]
    assert code == (3 if s["decision"] == UNDECIDED else 0)
    assert s["a"] == "aggressive" and s["b"] == "random" and s["design"]["block"] == 2
    assert s["games_used"] == 8 * len(s["trace"]) and s["games_used"] <= summary["games"] <= 48
    assert [t["games"] for t in s["trace"]] == list(range(8, s["games_used"] + 1, 8))
    assert s["bounds"] == pytest.approx([math.log(0.05 / 0.95), math.log(0.95 / 0.05)])
    assert f"decision: {s['decision_text']}" in printed
    assert "LLR after each block" in (out / "report.md").read_text()
    assert (out / "sprt.png").stat().st_size > 1000


@pytest.mark.parametrize(
    "args, message",
    [
        (["--sprt", "--policies", "aggressive", "random", "--games", "8"], "drop --games"),
        (["--sprt-delta", "0", "0.1"], "--sprt-delta need --sprt"),
        (["--sprt", "--policies", "aggressive"], "needs --policies A B"),
        (["--sprt", "--policies", "aggressive", "random", "--max-games", "40"], "multiple of 64"),
        (["--sprt", "--policies", "aggressive", "random", "--alpha", "0.7"], "alpha=0.7"),
    ],
)
def test_bad_sprt_arguments_get_one_line(
    args: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert bench_main([*args, "--out", str(tmp_path / "x"), "--no-progress"]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1, err


def test_an_interrupted_test_resumes_into_the_same_decision(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    whole, cut = tmp_path / "whole", tmp_path / "cut"
    bench_main([*ARGS, "--out", str(whole)])
    real = sprt_run.play_items
    played = []

    def interrupted(pool: Any, specs: Any) -> Iterator[Any]:
        for item in real(pool, specs):
            played.append(item)
            if len(played) == 11:  # in the second block
                raise KeyboardInterrupt
            yield item

    monkeypatch.setattr(sprt_run, "play_items", interrupted)
    assert bench_main([*ARGS, "--out", str(cut)]) == 130
    assert "--resume --out" in capsys.readouterr().err
    monkeypatch.setattr(sprt_run, "play_items", real)
    lines = (cut / "results.csv").read_text().splitlines(keepends=True)
    (cut / "results.csv").write_text("".join(lines[:-2]))  # the last game cut short
    assert bench_main([*ARGS, "--out", str(cut)]) == 2  # not without --resume
    other = [a if a != "0.1" else "0.2" for a in ARGS]
    assert bench_main([*other, "--resume", "--out", str(cut)]) == 2  # nor another design
    assert "different sprt" in capsys.readouterr().err
    bench_main([*ARGS, "--resume", "--out", str(cut)])
    a = json.loads((whole / "summary.json").read_text())["sprt"]
    b = json.loads((cut / "summary.json").read_text())["sprt"]
    assert b == a
    assert json.loads((cut / "summary.json").read_text())["meta"]["resumed"] is True
