"""What a recipe's command says (issue 33, item 3): at the end what it trained, where the safe
model is and the commands that benchmark it (and those commands accept it), also off a
terminal; a rerun of a finished run says so instead of training again; a wrong path, a bad
config or a missing `[train]` extra is one line, not a traceback; `--export` is in --help."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from training import ppo_selfplay, residual

ROOT = Path(__file__).resolve().parents[2]
TINY_PPO = [
    "--config", "configs/ppo_4p_quick.yaml", "--total-timesteps", "128", "--n-envs", "1",
    "--envs-per-process", "4", "--n-steps", "32", "--batch-size", "64", "--n-epochs", "1",
    "--eval-interval", "0", "--net-arch", "16,16",
]  # fmt: skip
TINY_RESIDUAL = [
    "--config", "configs/residual_4p.yaml", "--total-timesteps", "128", "--n-envs", "1",
    "--envs-per-process", "2", "--n-steps", "64", "--batch-size", "64", "--n-epochs", "1",
    "--checkpoint-interval", "128",
]  # fmt: skip

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def closing_lines(out: str) -> tuple[str, Path, list[str]]:
    """(the head line, the model's path, the benchmark commands) of a recipe's report."""
    lines = out.splitlines()
    (where,) = [line for line in lines if line.strip().startswith("the model: ")]
    model = Path(where.split("the model: ")[1].split(" ")[0])
    commands = [line.strip() for line in lines if line.strip().startswith(("python -m", "dune-"))]
    head = next(line for line in lines if "trained" in line or "is finished" in line)
    return head, model, commands


def test_ppo_selfplay_names_a_safe_model_the_evaluation_accepts_and_a_rerun_is_finished(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out_dir = ["--out-dir", str(tmp_path)]
    assert ppo_selfplay.main(TINY_PPO + out_dir) == 0
    out = capsys.readouterr().out  # pytest's capture is no terminal: the plain-line mode
    head, model, commands = closing_lines(out)
    assert head.startswith("ppo_selfplay: trained ppo_4p_quick_seed0 to 128 learner steps")
    assert model == tmp_path / "ppo_4p_quick_seed0" / "final_model.safetensors"
    assert model.is_file() and "PPO: 128/128 steps (100%)" in out
    evaluate = next(c for c in commands if c.startswith("python -m training.evaluate"))
    bench = next(c for c in commands if c.startswith("dune-bench --policies"))
    assert f" {model} " in f"{evaluate} " and f" {model} " in bench
    assert "aggressive economic" in bench and "--players 4" in bench

    from training.evaluate import main as evaluate_main

    arguments = evaluate.split()[3:] + ["--games", "4", "--opponents", "random"]
    arguments += ["--workers", "1", "--out", str(tmp_path / "eval")]
    assert evaluate_main(arguments) == 0  # the file the recipe names, no --trust-checkpoints
    assert json.loads((tmp_path / "eval" / "evaluation.json").read_text())["random"]["games"] == 4
    capsys.readouterr()

    record = (tmp_path / "ppo_4p_quick_seed0" / "training.json").read_text()
    assert ppo_selfplay.main(TINY_PPO + out_dir) == 0
    head, again, _ = closing_lines(capsys.readouterr().out)
    assert "is finished: 128 learner steps of total_timesteps 128" in head
    assert "--total-timesteps" in head and again == model
    assert (tmp_path / "ppo_4p_quick_seed0" / "training.json").read_text() == record  # untrained


def test_residual_prints_what_it_trained_and_its_export_is_a_documented_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert residual.main(TINY_RESIDUAL + ["--out-dir", str(tmp_path)]) == 0
    head, model, commands = closing_lines(capsys.readouterr().out)
    assert head.startswith("residual: trained residual_4p_seed0 to 128 learner steps")
    assert model == tmp_path / "residual_4p_seed0" / "final_model.safetensors"
    assert model.is_file()
    assert any(c.startswith(f"dune-bench --policies {model} strategist economic") for c in commands)
    with pytest.raises(SystemExit) as done:
        residual.main(["--help"])
    assert done.value.code == 0
    assert "python -m training.residual --export CHECKPOINT.zip" in capsys.readouterr().out
    checkpoint = tmp_path / "residual_4p_seed0" / "checkpoints" / "latest.zip"
    assert residual.main(["--export", str(checkpoint), str(tmp_path / "copy")]) == 0
    assert (tmp_path / "copy.safetensors").is_file()


@pytest.mark.parametrize(
    ("main", "argv", "says"),
    [
        (residual.main, ["--export", "nonexist.zip"], "--export nonexist.zip: no such checkpoint"),
        (residual.main, ["--export"], "usage: python -m training.residual --export"),
        (ppo_selfplay.main, ["--config", "configs/nope.yaml"], "no such file"),
        (ppo_selfplay.main, ["--n-stepz", "3"], "unknown option(s) ['--n-stepz', '3']"),
        (residual.main, ["--init-from", "x.zip"], "pickle-based .zip"),
    ],
)
def test_a_wrong_path_or_value_is_one_line(
    main, argv: list[str], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and says in err and "Traceback" not in err


def test_a_missing_train_extra_is_one_line_naming_the_install(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A `make run` venv has the [ppo] extra only: no pyyaml (the configs), no tensorboard."""
    monkeypatch.setitem(sys.modules, "yaml", None)  # `import yaml` fails as if not installed
    assert ppo_selfplay.main(["--config", "configs/ppo_4p_quick.yaml"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "pip install -e '.[train]'" in err and "yaml" in err
    monkeypatch.setitem(sys.modules, "torch", None)
    assert residual.main(["--out-dir", str(tmp_path)]) == 2
    assert "pip install -e '.[train]'" in capsys.readouterr().err


def test_the_recipe_modules_start_without_the_training_stack() -> None:
    """`python -m training.residual` in an environment without torch, stable-baselines3 and
    pyyaml: the one line, exit 2 (the recipe modules import them only when training)."""
    blocked = "torch stable_baselines3 sb3_contrib yaml tensorboard".split()
    script = (
        "import runpy, sys\n"
        f"for name in {blocked!r}: sys.modules[name] = None\n"
        "sys.argv = ['residual', '--config', 'configs/residual_4p.yaml']\n"
        "runpy.run_module('training.residual', run_name='__main__', alter_sys=True)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().count("\n") == 0 and "pip install -e '.[train]'" in done.stderr
