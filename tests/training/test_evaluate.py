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
        assert record["games"] == 12  # 10 rounded up to whole deals of 3 seatings
        assert record["chance_win_rate"] == pytest.approx(1 / 3)
        # 4 deals: fewer than the 10 an interval needs, so no verdict beyond "not known"
        assert record["judgement"] in ("too few deals", "cannot tell apart")
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


def test_lineup_evaluation_pairs_the_model_with_each_other_policy_over_the_same_deals() -> None:
    """eval_mode "lineup": the benchmark's line-up on duplicate deals; each record is the paired
    strength of the evaluated policy minus the other's, with the sign the right way round
    whichever name the harness sorted first."""
    from training.evaluate import evaluate_lineup, lineup_of, paired_record

    assert lineup_of(("strategist", "economic", "aggressive"), 4) == [
        "strategist", "economic", "aggressive",
    ]  # fmt: skip
    assert lineup_of(("strategist", "economic", "aggressive"), 5)[-1] == "strategist"
    summary = evaluate_lineup("economic", ["random", "aggressive"], 3, 10)
    # whole deals of the line-up's 6 balanced seatings (no seat-order offset)
    assert summary["games"] == 12 and summary["duplicate"] is True
    assert summary["meta"]["seatings"] == "balanced"
    for other in ("random", "aggressive"):
        mine = paired_record(summary, "economic", other)
        theirs = paired_record(summary, other, "economic")
        assert mine["games"] == 12 and mine["chance_win_rate"] == pytest.approx(1 / 3)
        assert mine["control_win_rate_diff"] == pytest.approx(-theirs["control_win_rate_diff"])
        if mine["strength_diff"] is not None:
            assert mine["strength_diff"] == pytest.approx(-theirs["strength_diff"])
        # 2 deals: fewer than an interval needs (the harness prints n/a), so no judgement
        assert mine["strength_diff_ci95"] is None and mine["judgement"] == "cannot tell apart"


def test_the_best_evaluated_model_is_kept_by_its_paired_strength(tmp_path: Path) -> None:
    """best_against: an evaluation better than the best so far exports best_model and
    records it in best.json (read again by a resumed run); a worse one leaves both."""
    from sb3_contrib import MaskablePPO

    from dune_env.vector import DuneVecEnv
    from training.callbacks import Periodic
    from training.checkpoints import RunFolder
    from training.ppo_selfplay import PPOSelfPlayConfig, SelfPlay
    from training.skeleton import export_safe

    cfg = PPOSelfPlayConfig(
        heuristic_opponents=("strategist", "economic", "aggressive"),
        eval_mode="lineup",
        best_against="strategist",
    )
    model = MaskablePPO("MlpPolicy", DuneVecEnv(1, num_players=4), policy_kwargs={"net_arch": [8]})
    plan = SelfPlay(cfg).evaluation

    def periodic() -> Periodic:
        return Periodic(RunFolder(tmp_path), cfg.checkpoints, export_safe, evaluation=plan)

    callback = periodic()
    callback.init_callback(model)
    for steps, score in ((100, -0.4), (200, -0.6), (300, -0.1), (400, None)):
        callback.num_timesteps = steps
        record = {"strength_diff": score, "strength_diff_ci95": None, "games": 8}
        callback._keep_if_best(record, "strategist")
        best = json.loads((tmp_path / "best.json").read_text())
        assert best["num_timesteps"] == (100 if steps < 300 else 300)
    assert best["against"] == "strategist" and best["strength_diff"] == -0.1
    assert (tmp_path / "best_model.safetensors").is_file()
    resumed = periodic()
    resumed.init_callback(model)
    resumed._keep_if_best({"strength_diff": -0.2}, "strategist")
    assert json.loads((tmp_path / "best.json").read_text())["num_timesteps"] == 300


def test_evaluation_settings_are_validated() -> None:
    from training.config_utils import ConfigKeyError
    from training.ppo_selfplay import PPOSelfPlayConfig

    with pytest.raises(ConfigKeyError, match="eval_mode='all' is not valid"):
        PPOSelfPlayConfig(eval_mode="all")
    with pytest.raises(ConfigKeyError, match="best_against='strategist' needs eval_mode 'lineup'"):
        PPOSelfPlayConfig(best_against="strategist", heuristic_opponents=("strategist",))
    with pytest.raises(ConfigKeyError, match="a name among heuristic_opponents"):
        PPOSelfPlayConfig(eval_mode="lineup", best_against="strategist")
    with pytest.raises(ConfigKeyError, match="target_kl=0.0 must be > 0"):
        PPOSelfPlayConfig(target_kl=0.0)
