"""The residual-PPO experiment (training/residual.py, issue 23): the strategist's action travels
as one more observation column, and a fresh model plays exactly as the strategist."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")


def test_the_teacher_column_is_the_strategists_action_for_the_observation_handed_out(
    tmp_path: Path,
) -> None:
    from dune_env.environment.observer import OBS_SIZE
    from training.residual import ResidualConfig, build_env

    env = build_env(ResidualConfig(out_dir=str(tmp_path), n_envs=1, envs_per_process=3), seed=4)
    obs = env.reset()
    assert obs.shape == (3, OBS_SIZE + 1)
    masks = env.env_method("action_masks")
    for row, mask in zip(obs, masks, strict=True):
        teacher = int(row[-1])
        assert teacher >= 0 and mask[teacher]  # a legal action: the strategist's
    obs, _, _, infos = env.step(np.array([int(r[-1]) for r in obs]))
    assert [int(r[-1]) for r in obs] == [i["teacher_action"] for i in infos]
    env.close()


def test_a_fresh_residual_model_exported_plays_exactly_as_the_strategist(tmp_path: Path) -> None:
    """Zero correction, teacher bonus beta: exported in the safe format and loaded by path as
    the harness does, its choice is the strategist's at every decision (on the clone the
    harness hands to an outside policy); an observation-only loader refuses the file."""
    from safetensors.numpy import load_file

    from dune_env.policies.registry import PolicyLoadError, load_policy
    from dune_env.policies.residual import departures
    from dune_env.policies.weights import RESIDUAL_KIND, WeightsPolicy
    from training.initial_weights import shipped_or_path
    from training.residual import ResidualConfig, build_env, export_checkpoint, new_model

    cfg = ResidualConfig(out_dir=str(tmp_path), n_envs=1, envs_per_process=2, n_steps=8)
    env = build_env(cfg, seed=0)
    model = new_model(cfg, env)
    env.close()
    shipped = load_file(str(shipped_or_path("bc-4p")))
    copied = model.policy.mlp_extractor.policy_net[0].weight.detach().numpy()
    assert np.array_equal(copied, shipped["mlp_extractor.policy_net.0.weight"])
    model.save(tmp_path / "fresh.zip")
    description = export_checkpoint(tmp_path / "fresh.zip")
    network = json.loads(description.read_text())["network"]
    assert network["kind"] == RESIDUAL_KIND and network["teacher"] == "strategist"
    assert network["beta"] == cfg.residual.beta
    with pytest.raises(PolicyLoadError, match="adds to the 'strategist' heuristic's choice"):
        WeightsPolicy(tmp_path / "fresh.safetensors")
    residual = load_policy(str(tmp_path / "fresh.safetensors"))
    choices, departed = departures(residual, games=2)
    assert sum(choices.values()) > 100 and sum(departed.values()) == 0


def test_a_network_on_a_heuristic_needs_a_known_heuristic_and_beta(tmp_path: Path) -> None:
    """The description of a RESIDUAL_KIND network is checked like any other: a teacher that is
    not a built-in heuristic, or a beta out of range, is refused naming what is expected."""
    from dune_env.policies.registry import PolicyLoadError
    from dune_env.policies.weights import read_description
    from training.residual import ResidualConfig, build_env, export_checkpoint, new_model

    cfg = ResidualConfig(out_dir=str(tmp_path), n_envs=1, envs_per_process=1, n_steps=8)
    env = build_env(cfg, seed=0)
    new_model(cfg, env).save(tmp_path / "m.zip")
    env.close()
    description = export_checkpoint(tmp_path / "m.zip")
    good = json.loads(description.read_text())
    for teacher, beta in (("random", 6.0), ("strategist", 0.0), ("strategist", "6")):
        bad = {**good, "network": {**good["network"], "teacher": teacher, "beta": beta}}
        description.write_text(json.dumps(bad))
        with pytest.raises(PolicyLoadError, match="needs 'teacher'"):
            read_description(description)


@pytest.mark.parametrize("stem", ["residual_4p", "residual_5p"])
def test_the_residual_configurations_load_and_name_their_runs_after_their_files(stem: str) -> None:
    from training.config_utils import load_config
    from training.residual import ResidualConfig

    path = Path(__file__).resolve().parents[2] / "configs" / f"{stem}.yaml"
    cfg = load_config(ResidualConfig, path)
    assert cfg.run.config_name == stem and cfg.run.num_players == int(stem[-2])
    assert cfg.residual.beta > 0 and cfg.checkpoints.checkpoint_interval > 0


def test_a_run_can_start_from_an_exported_network_on_the_strategist(tmp_path: Path) -> None:
    """init_from (e.g. the 4-player model for a 5-player run) copies every tensor, the
    correction included, through the safe format's checks."""
    import torch

    from training.residual import ResidualConfig, build_env, export_checkpoint, new_model

    cfg = ResidualConfig(out_dir=str(tmp_path), n_envs=1, envs_per_process=1, n_steps=8)
    env = build_env(cfg, seed=0)
    model = new_model(cfg, env)
    with torch.no_grad():
        model.policy.action_net.correction.bias.uniform_(-1, 1)
    model.save(tmp_path / "m.zip")
    export_checkpoint(tmp_path / "m.zip")
    five = ResidualConfig(
        out_dir=str(tmp_path), num_players=5, n_envs=1, envs_per_process=1, n_steps=8,
        init_from=str(tmp_path / "m.safetensors"),
    )  # fmt: skip
    env5 = build_env(five, seed=0)
    started = new_model(five, env5)
    env.close()
    env5.close()
    for name, tensor in model.policy.state_dict().items():
        assert torch.equal(started.policy.state_dict()[name], tensor), name


def test_the_shipped_residual_model_departs_from_the_strategist_only_sometimes() -> None:
    """residual-4p is the strategist plus a learned correction: over a few games it agrees with
    the strategist on most decisions with a choice, and departs from it on some (where PPO
    found it pays), always with a legal option."""
    from dune_env.policies.registry import load_policy
    from dune_env.policies.residual import departures

    choices, departed = departures(load_policy("residual-4p"), games=8)
    total, moved = sum(choices.values()), sum(departed.values())
    assert total > 300 and 0 < moved < 0.2 * total
    assert departed["BID"] > 0  # where it departs most (docs/models/residual-4p.md)


def test_a_residual_run_resumes_where_it_stopped(tmp_path: Path) -> None:
    """The same command run again continues from latest.zip up to the new total; every
    checkpoint is exported in the safe format beside it (the run folder of every recipe)."""
    from sb3_contrib import MaskablePPO

    from training.residual import ResidualConfig, train

    tiny = {"out_dir": str(tmp_path), "n_envs": 1, "envs_per_process": 2, "n_steps": 64}
    tiny |= {"batch_size": 64, "n_epochs": 1, "checkpoint_interval": 128}
    train(ResidualConfig(total_timesteps=128, **tiny))
    run = tmp_path / "residual_4p_seed0"
    assert (run / "checkpoints" / "checkpoint_000000128.safetensors").is_file()
    train(ResidualConfig(total_timesteps=256, **tiny))
    assert MaskablePPO.load(str(run / "final_model.zip"), device="cpu").num_timesteps == 256
    assert (run / "checkpoints" / "checkpoint_000000256.safetensors").is_file()
    assert (run / "final_model.safetensors").is_file()
    assert len((run / "progress.jsonl").read_text().splitlines()) == 2  # one line a rollout
