"""Kickstarted PPO (issue 23): the annealed imitation weight, the teacher's labels stored with
the learner states they belong to, the cross-entropy term pulling the policy towards the
teacher, the critic warm-up leaving the policy alone, the warm start from bc-4p's weights, the
settings' validation, and a smoke run of the shipped configuration that resumes."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from dune_env.vector import DuneVecEnv
from training.config_utils import ConfigKeyError, load_config
from training.kickstart import kickstart_coef
from training.ppo_selfplay import PPOSelfPlayConfig, train

ROOT = Path(__file__).resolve().parents[2]


# One torch thread, as the recipe runs its updates (tests/training/conftest.py).
pytestmark = pytest.mark.usefixtures("one_torch_thread")


def test_the_imitation_weight_falls_linearly_then_stays_at_its_end_value() -> None:
    assert kickstart_coef(0, 1.0, 0.1, 1000) == 1.0
    assert kickstart_coef(500, 1.0, 0.1, 1000) == pytest.approx(0.55)
    assert kickstart_coef(1000, 1.0, 0.1, 1000) == pytest.approx(0.1)
    assert kickstart_coef(5000, 1.0, 0.1, 1000) == pytest.approx(0.1)
    assert kickstart_coef(10, 1.0, 0.1, 0) == 0.1  # no annealing: the end value throughout


def tiny_model(**kwargs: Any) -> Any:
    from training.kickstart import KickstartedPPO

    venv = DuneVecEnv(
        4, learner="rotate", num_players=4, opponents="economic", teacher="strategist"
    )
    venv.seed(0)
    settings = {"n_steps": 16, "batch_size": 64, "n_epochs": 1, "seed": 0, **kwargs}
    return KickstartedPPO("MlpPolicy", venv, policy_kwargs={"net_arch": [32]}, **settings)


def configure(model: Any, teacher: str = "strategist", **fields: Any) -> None:
    cfg = PPOSelfPlayConfig(kickstart_teacher=teacher, envs_per_process=4, **fields)
    model.configure_kickstart(cfg.kickstart, model.n_steps * model.n_envs)


def teacher_fit(model: Any) -> tuple[float, float]:
    """(teacher NLL, greedy agreement) of the policy over the whole rollout buffer."""
    from training.kickstart import teacher_terms

    (batch,) = model.rollout_buffer.get(None)
    with torch.no_grad():
        dist = model.policy.get_distribution(batch.observations, action_masks=batch.action_masks)
        nll, agreement = teacher_terms(dist, batch.teacher_actions, batch.actions.long().flatten())
    return float(nll), agreement


def test_the_stored_labels_belong_to_the_stored_observations() -> None:
    """The label the environment gave with each observation is the one stored with it (an
    off-by-one would pair each state with the next state's label)."""
    from stable_baselines3.common.vec_env import VecEnvWrapper

    from training.kickstart import TeacherLabels

    seen: dict[bytes, set[int]] = {}

    class Recorder(VecEnvWrapper):
        def reset(self) -> Any:
            obs = self.venv.reset()
            self._note(obs, self.venv.reset_infos)
            return obs

        def step_wait(self) -> Any:
            obs, rewards, dones, infos = self.venv.step_wait()
            self._note(obs, infos)
            return obs, rewards, dones, infos

        def _note(self, obs: np.ndarray, infos: list[dict[str, Any]]) -> None:
            for row, info in zip(obs, infos, strict=True):
                seen.setdefault(row.tobytes(), set()).add(info["teacher_action"])

    model = tiny_model()
    model.set_env(Recorder(model.env))
    configure(model, critic_warmup_rollouts=0)
    model.learn(total_timesteps=128, callback=TeacherLabels())
    buffer = model.rollout_buffer
    pairs = list(
        zip(
            buffer.observations.reshape(-1, buffer.observations.shape[-1]),
            buffer.teacher_actions.reshape(-1),
            strict=True,
        )
    )
    assert len(pairs) == 64 and all(label >= 0 for _, label in pairs)
    assert all(int(label) in seen[obs.tobytes()] for obs, label in pairs)


def test_the_imitation_term_pulls_the_policy_towards_the_teacher() -> None:
    """Updates on one fixed rollout (collected in a warm-up, so the policy is still the initial
    one): with lambda 5 the policy's NLL of the strategist's actions falls and its greedy
    agreement rises, far more than with lambda 0 (PPO alone)."""
    from training.kickstart import TeacherLabels

    fits = {}
    for coef in (0.0, 5.0):
        model = tiny_model(learning_rate=1e-3, n_epochs=4)
        configure(model, critic_warmup_rollouts=1)
        model.learn(total_timesteps=64, callback=TeacherLabels())  # one rollout, value only
        before = teacher_fit(model)
        configure(model, kickstart_coef_start=coef, kickstart_coef_end=coef)
        for _ in range(8):
            model.train()
        fits[coef] = (before, teacher_fit(model))
    (nll_0, agree_0), (nll_1, agree_1) = fits[5.0]
    assert fits[0.0][0] == pytest.approx(fits[5.0][0])  # the same start
    assert nll_1 < 0.75 * nll_0 and agree_1 > agree_0 + 0.3
    assert nll_1 < 0.75 * fits[0.0][1][0] and agree_1 > fits[0.0][1][1] + 0.3


def test_the_critic_warm_up_trains_the_value_network_only() -> None:
    from training.kickstart import TeacherLabels

    model = tiny_model(learning_rate=1e-3)
    configure(model, critic_warmup_rollouts=2)

    def snapshot() -> dict[str, torch.Tensor]:
        return {k: v.clone() for k, v in model.policy.state_dict().items()}

    def changed(a: dict[str, torch.Tensor], b: dict[str, torch.Tensor], part: str) -> bool:
        return any(not torch.equal(a[k], b[k]) for k in a if k.startswith(part))

    start = snapshot()
    model.learn(total_timesteps=128, callback=TeacherLabels())  # two warm-up rollouts
    warm = snapshot()
    assert not changed(start, warm, "mlp_extractor.policy_net") and not changed(
        start, warm, "action_net"
    )
    assert changed(start, warm, "value_net") and changed(start, warm, "mlp_extractor.value_net")
    model.learn(total_timesteps=64, callback=TeacherLabels(), reset_num_timesteps=False)
    assert changed(warm, snapshot(), "action_net")  # then the policy learns


def test_kickstart_settings_are_validated() -> None:
    with pytest.raises(ConfigKeyError, match="kickstart_teacher='sage' is not a built-in policy"):
        PPOSelfPlayConfig(kickstart_teacher="sage", envs_per_process=4)
    with pytest.raises(ConfigKeyError, match="needs envs_per_process > 1"):
        PPOSelfPlayConfig(kickstart_teacher="strategist")
    with pytest.raises(ConfigKeyError, match="kickstart_coef_end=-0.1 must be >= 0"):
        PPOSelfPlayConfig(kickstart_coef_end=-0.1)
    with pytest.raises(ConfigKeyError, match="critic_warmup_rollouts=-1 must be >= 0"):
        PPOSelfPlayConfig(critic_warmup_rollouts=-1)


def smoke_config(tmp_path: Path, **overrides: Any) -> PPOSelfPlayConfig:
    shipped = load_config(PPOSelfPlayConfig, ROOT / "configs" / "ppo_4p_kickstart.yaml")
    tiny = {
        "out_dir": str(tmp_path),
        "total_timesteps": 256,
        "n_envs": 1,
        "envs_per_process": 4,
        "n_steps": 32,
        "batch_size": 64,
        "n_epochs": 1,
        "eval_interval": 0,
        "checkpoint_interval": 128,
        "snapshot_interval": 128,
        "critic_warmup_rollouts": 1,
        "kickstart_anneal_steps": 384,
    }
    return dataclasses.replace(shipped, **{**tiny, **overrides})


def test_the_kickstart_recipe_starts_from_bc_4p_trains_and_resumes(tmp_path: Path) -> None:
    """configs/ppo_4p_kickstart.yaml on a tiny budget: it starts from bc-4p's weights (the
    pool's first snapshot is bc-4p, tensor for tensor), trains with the teacher's labels,
    writes checkpoints; the same command with more steps resumes, lambda continuing its
    schedule."""
    from safetensors.numpy import load_file

    from dune_env.policies.registry import CHECKPOINT_DIR
    from training.kickstart import KickstartedPPO

    cfg = smoke_config(tmp_path)
    assert cfg.kickstart.init_weights == "bc-4p" and cfg.kickstart.kickstart_teacher == "strategist"
    train(cfg, quiet=True)
    run = cfg.run_dir
    start = load_file(run / "pool" / "snapshot_000000000.safetensors")
    shipped = load_file(CHECKPOINT_DIR / "bc_4p.safetensors")
    assert start.keys() == shipped.keys()
    assert all(np.array_equal(start[k], shipped[k]) for k in shipped)
    assert json.loads((run / "checkpoints" / "latest.json").read_text())["num_timesteps"] == 256
    train(dataclasses.replace(cfg, total_timesteps=512), quiet=True)
    model = KickstartedPPO.load(run / "checkpoints" / "latest.zip")
    assert model.num_timesteps == 512 and model.kick_anneal_steps == 384
    assert model.current_kick_coef() == pytest.approx(cfg.kickstart.kickstart_coef_end)
    final = load_file(run / "final_model.safetensors")
    assert any(not np.array_equal(final[k], shipped[k]) for k in shipped), "PPO updated it"


def test_initial_weights_that_do_not_fit_the_network_are_refused(tmp_path: Path) -> None:
    from dune_env.policies.registry import PolicyLoadError

    cfg = smoke_config(tmp_path, net_arch=(32, 32))
    with pytest.raises(PolicyLoadError, match="does not fit the configured network"):
        train(cfg, quiet=True)
