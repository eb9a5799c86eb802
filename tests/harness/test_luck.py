"""Luck-adjusted outcomes (dune_env/harness/luck.py): the dice's luck measured at every roll
(ROLL-1, ROLL-2), unbiased whatever the value model, plumbed into the fit, the paired table,
the sequential test, results.csv and the command line."""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from dune_env.engine.events import EventKind
from dune_env.environment.fields import OBS_SIZE
from dune_env.harness import run_benchmark
from dune_env.harness.cli import main as bench_main
from dune_env.harness.luck import (
    LUCK_METRICS,
    LuckMeter,
    LuckModelError,
    ValueModel,
    check_samples,
    default_model,
)
from dune_env.harness.report import head_to_head, outcomes
from dune_env.harness.runner import play_outcome
from dune_env.harness.sprt import deal_scores
from dune_env.harness.stats import GameOutcome, fit_strength
from dune_env.match import play_seated, schedule, seat_spec


def meaningless_model(seed: int = 1) -> ValueModel:
    """A value model with random weights: its values mean nothing about who wins."""
    rng = np.random.default_rng(seed)
    w0 = rng.normal(0, 0.3, (OBS_SIZE, 8)).astype(np.float32)
    w1 = rng.normal(0, 1.0, (8, len(LUCK_METRICS))).astype(np.float32)
    return ValueModel([(w0, np.zeros(8, np.float32)), (w1, np.zeros(2, np.float32))], {})


def play_with_meter(spec, model, samples=2):
    game, policies = seat_spec(spec)
    rolls_before = sum(1 for e in game.state.events if e[0] == EventKind.ROLL)
    meter = LuckMeter(game, samples, spec.seed, model)
    play_seated(spec, game, policies, step=meter.apply)
    return game, meter, rolls_before


def test_the_meter_counts_every_roll_a_decision_makes_ROLL_1_ROLL_2():
    """ROLL-1/ROLL-2: every roll after the first decision (the first turn's roll, and the
    rerolls after each fixing) is a chance event the meter accounts for, and only those."""
    spec = schedule(["random", "aggressive", "economic"], 3, 1, seed=5)[0]
    game, meter, before = play_with_meter(spec, meaningless_model())
    rolls = sum(1 for e in game.state.events if e[0] == EventKind.ROLL)
    assert rolls - before > 20
    assert meter.rolls == rolls - before


def test_measuring_luck_does_not_change_the_game():
    """The meter replays rolls on copies: the game itself is the same, decision for decision."""
    spec = schedule(["random", "aggressive", "economic"], 3, 1, seed=9)[0]
    plain = play_outcome(spec)
    measured = play_outcome(replace(spec, luck_samples=2))
    assert replace(measured, luck=()) == plain
    assert len(measured.luck) == 3 and all(len(v) == len(LUCK_METRICS) for v in measured.luck)
    assert any(abs(v) > 1e-6 for seat in measured.luck for v in seat)


def test_luck_has_mean_zero_whatever_the_value_model():
    """Unbiasedness: with a value model whose outputs mean nothing, each seat's summed luck
    still averages to zero over games (the roll that happened and the resampled rolls are
    draws from one distribution).  A stale observation, a replay from the wrong position or a
    biased resample would shift the mean by many standard errors."""
    model = meaningless_model()
    totals = []
    for spec in schedule(["random"], 3, 90, seed=3):
        _, meter, _ = play_with_meter(spec, model, samples=2)
        totals.extend(meter.luck.ravel().tolist())
    values = np.array(totals)
    se = values.std(ddof=1) / math.sqrt(len(values))
    assert values.std() > 0.05  # the meaningless model does move: the test has power
    assert abs(values.mean()) < 4 * se


def test_the_shipped_model_reads_the_installed_observation():
    model = default_model()
    assert model.input_size == OBS_SIZE
    spec = schedule(["random", "aggressive", "economic", "strategist"], 4, 1, seed=2)[0]
    game, _ = seat_spec(spec)
    values = model.seat_values([game.state])
    assert values.shape == (1, 4, len(LUCK_METRICS))
    assert np.all((values > 0) & (values < 1))
    assert 0.02 < model.info["held_out"]["win_base_rate"] < 0.5


def test_a_broken_model_file_is_refused_by_name(tmp_path: Path):
    bad = tmp_path / "model.npz"
    bad.write_bytes(b"not a zip file")
    with pytest.raises(LuckModelError, match="model.npz"):
        ValueModel.load(bad)
    wrong = tmp_path / "wrong.npz"
    ValueModel([(np.zeros((5, 2)), np.zeros(2))], {}).save(wrong)
    spec = schedule(["random", "aggressive", "economic"], 3, 1, seed=2)[0]
    game, _ = seat_spec(spec)
    with pytest.raises(LuckModelError, match="5 entries"):
        ValueModel.load(wrong).seat_values([game.state])


@pytest.mark.parametrize("samples", [0, -1, 2.5, True, 100_000])
def test_bad_sample_counts_are_refused(samples):
    with pytest.raises(ValueError, match="resampled rolls"):
        check_samples(samples)


def test_without_luck_the_soft_fit_is_the_winner_fit():
    """Soft targets equal to the winners (solo wins, no luck) give the likelihood fit's
    strengths: the adjusted fit is the same model fed other scores."""
    rng = np.random.default_rng(0)
    names, factions = ("a", "b", "c"), ("x", "y", "z")
    games = []
    for k in range(300):
        winner = int(rng.choice(3, p=[0.5, 0.3, 0.2]))
        order = tuple(names[(i + k) % 3] for i in range(3))
        w = order.index(names[winner])
        games.append(GameOutcome(order, factions, (w,), group=k))
    hard = fit_strength(games, "c", bootstrap=0)
    soft = fit_strength(
        [replace(g, scores=tuple(float(i in g.winners) for i in range(3))) for g in games],
        "c",
        bootstrap=0,
    )
    for p in names:
        assert soft.strength[p] == pytest.approx(hard.strength[p], abs=1e-4)
    assert hard.strength["a"] > hard.strength["b"] > 0


def test_adjusted_scores_feed_the_fit_the_paired_table_and_the_sprt(tmp_path: Path):
    """A luck-adjusted run: results.csv holds each seat's luck, the paired table and the
    sequential test's deal scores are the adjusted ones, the unadjusted fit is kept."""

    def luck_run(resume: bool):
        return run_benchmark(
            ["aggressive", "random"],
            4,
            12,  # two deals of the 6 balanced seatings of A B A B
            duplicate=True,
            out_dir=tmp_path,
            luck_samples=2,
            bootstrap=0,
            plots=False,
            resume=resume,
        )

    result = luck_run(resume=False)
    rows = result.rows
    assert any(r.luck_win != 0.0 for r in rows)
    assert json.loads((tmp_path / "run.json").read_text())["luck_samples"] == 2
    header = (tmp_path / "results.csv").read_text().splitlines()[0].split(",")
    assert header[-2:] == ["luck_win", "luck_control"]
    summary = result.summary
    assert summary["luck_adjusted"]["strength_fit_unadjusted"]["games_fitted"] >= 0
    pair = summary["head_to_head"][0]
    raw = head_to_head(rows)[0]
    scores = deal_scores(rows, pair["a"], pair["b"], "control", luck_adjusted=True)
    assert pair["control_win_rate_diff"] == pytest.approx(float(np.mean(scores)))
    assert pair["control_win_rate_diff"] != pytest.approx(raw["control_win_rate_diff"])
    adjusted = outcomes(rows, luck_adjusted=True)
    assert all(len(g.scores) == 4 for g in adjusted)
    # resume: the rows read back with their luck
    again = luck_run(resume=True)
    assert [r.luck_win for r in again.rows] == [r.luck_win for r in rows]


def test_results_written_before_luck_existed_still_resume(tmp_path: Path):
    run_benchmark(["aggressive", "random"], 3, games=3, out_dir=tmp_path, bootstrap=0, plots=False)
    path = tmp_path / "results.csv"
    lines = path.read_text().splitlines()
    path.write_text("\n".join(",".join(line.split(",")[:-2]) for line in lines) + "\n")
    again = run_benchmark(
        ["aggressive", "random"],
        3,
        games=3,
        out_dir=tmp_path,
        bootstrap=0,
        plots=False,
        resume=True,
    )
    assert len(again.rows) == 9 and all(r.luck_win == 0.0 for r in again.rows)


def small_run(out: Path, *extra: str) -> int:
    """`dune-bench` on 3 games of aggressive and random at 3 players, plus `extra` flags."""
    return bench_main(
        ["--policies", "aggressive", "random", "--games", "3", "--players", "3", "--out",
         str(out), "--no-progress", "--no-plots", "--workers", "1", *extra]
    )  # fmt: skip


def test_the_command_line_refuses_bad_luck_settings_in_one_line(capsys, tmp_path: Path):
    code = small_run(tmp_path / "a", "--luck-adjust", "-2")
    err = capsys.readouterr().err.strip()
    assert code == 2 and "\n" not in err and "resampled rolls" in err
    code = bench_main(["--suite", "standard-short", "--luck-adjust", "--out", str(tmp_path / "b")])
    assert code == 2 and "--luck-adjust" in capsys.readouterr().err


def test_a_value_model_of_ones_own_is_used_and_recorded(tmp_path: Path, capsys):
    """--luck-model FILE: the luck is valued by that model (a constant model: zero luck)."""
    constant = tmp_path / "constant.npz"
    ValueModel([(np.zeros((OBS_SIZE, 2), np.float32), np.zeros(2, np.float32))], {}).save(constant)
    out = tmp_path / "run"
    assert small_run(out, "--luck-adjust", "2", "--luck-model", str(constant)) == 0
    assert json.loads((out / "run.json").read_text())["luck_model"] == str(constant)
    lines = (out / "results.csv").read_text().splitlines()[1:]
    assert lines and all(line.endswith(",0.0,0.0") for line in lines)
    capsys.readouterr()
    assert small_run(tmp_path / "b", "--luck-model", str(constant)) == 2
    assert "--luck-adjust" in capsys.readouterr().err


def test_a_luck_adjusted_run_says_so_up_front_and_with_its_results(capsys, tmp_path: Path):
    """The terminal says before the games that they will be slow and after them what the
    adjustment touched; summary.json says the rates are the raw ones, as report.md does."""
    assert small_run(tmp_path / "run", "--luck-adjust", "2", "--bootstrap", "0") == 0
    out = capsys.readouterr().out
    assert out.index("Luck-adjusted run (--luck-adjust 2)") < out.index("Luck-adjusted: the")
    assert "about 100 times as long" in out
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    estimator = summary["luck_adjusted"]["estimator"]
    assert "win_rate and control_win_rate are the raw ones" in estimator
    assert (
        "control-win rates below are the raw ones" in (tmp_path / "run" / "report.md").read_text()
    )
