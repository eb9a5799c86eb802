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

import dune_env.harness.frame as frame
import dune_env.harness.stats.sprt as sprt
from dune_env.harness.cli import main as bench_main
from dune_env.harness.play.types import SeatResult
from dune_env.harness.stats.sprt import (
    H0,
    H1,
    UNDECIDED,
    SprtDesign,
    deal_scores,
    decide,
    default_block,
    fixed_sample_deals,
    llr,
    llr_trace,
    simulate,
    synthetic_deal_scores,
)


def test_bounds_are_walds() -> None:
    design = SprtDesign(alpha=0.05, beta=0.2)
    assert design.upper == pytest.approx(math.log(0.8 / 0.05))  # ln 16 = 2.773
    assert design.lower == pytest.approx(math.log(0.2 / 0.95))  # -1.558
    assert SprtDesign().upper == pytest.approx(math.log(19)) == -SprtDesign().lower


def test_llr_against_hand_computed_values() -> None:
    """Wald's normal-mean LLR with the variance estimated from the deals (widened by
    VARIANCE_WIDENING / m for its own error): m (d1 - d0) (mean - middle) / s^2."""
    x = [0.1, -0.1, 0.2, 0.0]
    # mean 0.05, sample variance (0.0025 + 0.0225 + 0.0225 + 0.0025) / 3 = 0.05 / 3.
    variance = 0.05 / 3 * (1 + sprt.VARIANCE_WIDENING / 4)
    assert llr(x, 0.0, 0.05) == pytest.approx(4 * 0.05 * (0.05 - 0.025) / variance)
    trace = llr_trace(x, 0.0, 0.05)
    # After two values: mean 0, sample variance 0.02: below the middle, so negative.
    assert trace[1] == pytest.approx(
        2 * 0.05 * (0.0 - 0.025) / (0.02 * (1 + sprt.VARIANCE_WIDENING / 2))
    )
    assert trace[0] == 0.0  # one value has no spread: no evidence yet
    # No spread at all: the side of the middle decides, as the limit of the formula.
    assert llr_trace([0.25] * 5, 0.0, 0.05)[1:].tolist() == [math.inf] * 4
    assert llr_trace([0.0] * 5, 0.01, 0.05)[-1] == -math.inf
    assert llr(np.array(x) + 0.05, 0.05, 0.1) == pytest.approx(llr(x, 0.0, 0.05))  # shift-free


def test_the_llr_grows_with_the_distance_from_both_hypotheses() -> None:
    """The generalized SPRT used until 0.2 saturated: its increase per deal fell towards 0 as
    the effect moved away from [delta0, delta1], so a policy far below its opponent took more
    games than the fixed-size test (960 against ~712).  Wald's statistic is linear in the mean."""
    rng = np.random.default_rng(5)
    noise = rng.normal(0.0, 0.1, 200)
    near, far = llr(noise - 0.02, 0.0, 0.03), llr(noise - 0.13, 0.0, 0.03)
    assert far < 3 * near < 0


def test_decide_stops_at_the_first_ready_look_past_a_bound() -> None:
    design = SprtDesign(delta0=0.0, delta1=0.1, block=2)
    rng = np.random.default_rng(1)
    strong = list(rng.normal(0.3, 0.1, 200))  # far above delta1: H1
    decision = decide(strong, design)
    assert decision.decision == H1 and decision.llr >= design.upper
    assert decision.deals == 2 * len(decision.trace) and decision.deals % 2 == 0
    # Not before MIN_DEALS deals, however clear the first ones are.
    assert decision.deals == max(sprt.MIN_DEALS, 4)
    assert all(v >= design.upper for v in decision.trace[-1:])
    assert decide([-x for x in strong], design).decision == H0
    assert decide(strong[:41], design) == decide(strong[:40], design)  # block of 2 unfinished
    assert decide(strong[: sprt.MIN_DEALS - 2], design).decision == UNDECIDED
    assert decide([], design).decision == UNDECIDED


def test_no_decision_before_a_share_of_the_fixed_tests_deals() -> None:
    """With a wide spread the fixed-size test needs many deals; the sequential test waits for
    MIN_SHARE_OF_FIXED of them (at the spread seen so far) before trusting its variance."""
    design = SprtDesign(delta0=0.0, delta1=0.03, block=2)
    rng = np.random.default_rng(2)
    x = rng.normal(0.2, 0.3, 2000)  # a large effect, but noisy
    decision = decide(x, design)
    sd = float(np.std(x[: decision.deals], ddof=1))
    assert decision.decision == H1
    assert decision.deals >= sprt.MIN_SHARE_OF_FIXED * fixed_sample_deals(sd, design) - 2


@pytest.mark.parametrize(
    "bad",
    [{"alpha": 0.0}, {"beta": 0.6}, {"delta0": 0.1, "delta1": 0.1}, {"block": 0}, {"delta1": 2}],
)
def test_a_bad_design_is_refused(bad: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match=next(iter(bad)).rstrip("01")):
        SprtDesign(**bad)


def _run(design: SprtDesign, pa: float, pb: float, seed: int, **deal: int) -> dict[str, float]:
    scores = synthetic_deal_scores(np.random.default_rng(seed), pa, pb, 3000, 400, **deal)
    result = simulate(design, scores)
    assert result[UNDECIDED] < 0.01
    return result


@pytest.mark.parametrize("deal", [{}, {"games_per_deal": 6, "seats_each": 2}])
def test_simulated_error_rates_are_within_their_targets(deal: dict[str, int]) -> None:
    """Synthetic deals with 4% control wins per seat for both (H0 true) and 5.5% against 2.5%
    (an effect of exactly delta1 = 3 points): in a 4-player deal of four different policies
    (24 games, the default) and of the line-up `A B` (6 games).  3,000 runs per case: a rate's
    Monte Carlo standard error is 0.4 points, hence the 1-point margin."""
    design = SprtDesign(
        delta0=0.0, delta1=0.03, block=default_block(deal.get("games_per_deal", 24))
    )
    alpha = _run(design, 0.04, 0.04, seed=1, **deal)[H1]
    beta = _run(design, 0.055, 0.025, seed=2, **deal)[H0]
    assert alpha <= design.alpha + 0.01 and beta <= design.beta + 0.01, (alpha, beta)


@pytest.mark.parametrize("effect", [-0.13, -0.05, -0.01, 0.04, 0.08, 0.15])
def test_never_slower_than_the_fixed_test_outside_the_indifference_zone(effect: float) -> None:
    """For any effect outside [delta0, delta1] the mean number of deals stays below the
    fixed-size test's at the same error rates (the issue's -13 points among them)."""
    design = SprtDesign(delta0=0.0, delta1=0.03, block=2)
    result = _run(design, 0.1 + effect / 2, 0.1 - effect / 2, seed=3)
    assert result["mean_deals"] < result["fixed_deals"], result


def test_synthetic_deals_have_the_stated_rates() -> None:
    x = synthetic_deal_scores(np.random.default_rng(0), 0.055, 0.025, 200, 100)
    assert x.shape == (200, 100) and set(np.unique(x * 24)) <= set(range(-24, 25))
    assert x.mean() == pytest.approx(0.03, abs=0.002)
    pairs = synthetic_deal_scores(np.random.default_rng(0), 0.055, 0.025, 200, 100, 6, 2)
    assert set(np.unique(pairs * 12)) <= set(range(-6, 7))


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
ARGS += ["--max-games", "192", "--sprt-block", "4", "--sprt-delta", "0", "0.1", "--no-progress"]


def test_a_real_run_decides_and_reports(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    code = bench_main([*ARGS, "--out", str(out)])
    printed = capsys.readouterr().out
    summary = json.loads((out / "summary.json").read_text())
    s = summary["sprt"]
    assert code == (3 if s["decision"] == UNDECIDED else 0)
    # `A B` at 4 players: deals of the 6 distinct balanced seatings of A B A B, 4 deals a look.
    assert s["a"] == "aggressive" and s["b"] == "random" and s["design"]["block"] == 4
    assert s["games_per_deal"] == 6 and summary["meta"]["seatings"] == "balanced"
    assert s["games_used"] == 24 * len(s["trace"]) and s["games_used"] <= summary["games"] <= 192
    assert [t["games"] for t in s["trace"]] == list(range(24, s["games_used"] + 1, 24))
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
        (["--sprt", "--policies", "aggressive", "random", "--max-games", "40"], "multiple of 48"),
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
    real = frame.play_items
    played = []

    def interrupted(pool: Any, specs: Any) -> Iterator[Any]:
        for item in real(pool, specs):
            played.append(item)
            if len(played) == 30:  # in the second block
                raise KeyboardInterrupt
            yield item

    monkeypatch.setattr(frame, "play_items", interrupted)
    assert bench_main([*ARGS, "--out", str(cut)]) == 130
    assert "--resume --out" in capsys.readouterr().err
    monkeypatch.setattr(frame, "play_items", real)
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
