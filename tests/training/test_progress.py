"""Training prints its progress to the console (phase, steps, steps/s, time left, the latest
evaluation), and the quick preset runs end to end."""

from __future__ import annotations

import dataclasses
import io
from pathlib import Path

import pytest

from training.config_utils import load_config
from training.imitation import collect_demonstrations
from training.ppo_selfplay import PPOSelfPlayConfig, train
from training.progress import Progress, duration

CONFIGS = Path(__file__).resolve().parents[2] / "configs"


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_progress_lines_give_rate_time_left_and_the_latest_evaluation() -> None:
    out, clock = io.StringIO(), Clock()
    progress = Progress(out, every=30.0, clock=clock)
    progress.start("PPO", 10_000, "steps", done=1_000)  # a resumed run: 1,000 done before
    clock.now += 10
    progress.update(2_000)  # within 30 s of the last line: nothing printed
    clock.now += 20
    progress.update(4_000)
    record = {"judgement": "level", "win_rate": 0.25, "chance_win_rate": 0.25}
    progress.evaluated(4_000, {"random": record})
    clock.now += 30
    progress.update(10_000)
    progress.finish()
    assert out.getvalue().splitlines() == [
        "PPO: 1,000/10,000 steps (10%)",
        "PPO: 4,000/10,000 steps (40%), 100.0 steps/s, 30 s so far, 1 min 0 s left",
        "evaluation at 4,000 steps: vs random level (win 25.0%, chance 25%)",
        "PPO: 10,000/10,000 steps (100%), 150.0 steps/s, 1 min 0 s so far; last evaluation at "
        "4,000 steps: vs random level (win 25.0%, chance 25%)",
        "PPO: 10,000/10,000 steps (100%), 150.0 steps/s, 1 min 0 s so far; last evaluation at "
        "4,000 steps: vs random level (win 25.0%, chance 25%)",
    ]


def test_progress_on_a_terminal_updates_one_line() -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    out, clock = Terminal(), Clock()
    progress = Progress(out, clock=clock)
    progress.start("PPO", 100)
    clock.now += 1
    progress.update(50)
    progress.finish()
    text = out.getvalue()
    assert text.count("\r") == 3 and text.endswith("\n") and text.count("\n") == 1


def test_duration_reads_naturally() -> None:
    assert [duration(s) for s in (4.4, 65, 3 * 3600 + 7 * 60)] == ["4 s", "1 min 5 s", "3 h 07 min"]


def test_behaviour_cloning_games_show_progress() -> None:
    cfg = PPOSelfPlayConfig(bc_games=2)
    out = io.StringIO()
    progress = Progress(out)
    progress.start("behaviour cloning round 1/1", cfg.imitation.bc_games, "games")
    collect_demonstrations(cfg.imitation, cfg.run, progress=progress)
    assert out.getvalue().splitlines()[-1].startswith("behaviour cloning round 1/1: 2/2 games")


def test_the_quick_preset_trains_and_prints_progress(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """configs/ppo_4p_quick.yaml (no warm start), on a tiny budget: progress lines and an
    evaluation with the chance level are printed, and a model is saved."""
    cfg = load_config(PPOSelfPlayConfig, CONFIGS / "ppo_4p_quick.yaml")
    assert cfg.imitation.bc_games == 0 and cfg.ppo.total_timesteps <= 30_000
    tiny = dataclasses.replace(
        cfg,
        out_dir=str(tmp_path),
        total_timesteps=128,
        n_envs=1,
        envs_per_process=4,
        batch_size=64,
        n_epochs=1,
        eval_interval=128,
        eval_games=4,
        heuristic_opponents=("aggressive",),
    )
    final = train(tiny)
    assert final.exists()
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "PPO: 0/128 steps (0%)"
    (evaluation,) = [line for line in lines if line.startswith("evaluation at 128 steps: ")]
    assert "vs random " in evaluation and "chance 25%" in evaluation
    assert any(line.startswith("PPO: 128/128 steps (100%)") for line in lines)
    records = (tmp_path / "ppo_4p_quick_seed0" / "evaluations.jsonl").read_text()
    assert '"judgement"' in records and '"strength_ci95"' in records


def test_a_line_up_evaluation_shows_the_paired_strength() -> None:
    from training.progress import evaluation_summary

    record = {
        "judgement": "level",
        "win_rate": 0.212,
        "chance_win_rate": 0.25,
        "strength_diff": -0.089,
        "strength_diff_ci95": [-1.32, 1.076],
    }
    assert evaluation_summary(20_480, {"strategist": record}) == (
        "evaluation at 20,480 steps: vs strategist level "
        "(paired -0.09 [-1.32, +1.08], win 21.2%, chance 25%)"
    )
