"""Training recipes: tiny-budget smoke runs that write loadable checkpoints playing only legal
actions, resumption, reward credit, and the configuration loader."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

from dune_env.engine import Game, GameConfig
from dune_env.policies.registry import PolicyLoadError, load_policy
from training.config_utils import ConfigKeyError, load_config
from training.ppo_selfplay import PPOSelfPlayConfig, train
from training.rllib_ppo import RLlibConfig

TINY = {
    "total_timesteps": 512,
    "n_envs": 1,
    "n_steps": 256,
    "batch_size": 64,
    "n_epochs": 1,
    "snapshot_interval": 256,
    "eval_interval": 0,
    "checkpoint_interval": 256,
    "net_arch": (32, 32),
}


def play_full_games(spec: str, games: int = 2, trust: bool = False) -> None:
    """The policy plays every seat of full 4-player games; Game.apply rejects any illegal
    option, so finishing proves every action was legal."""
    policy = load_policy(spec, trust=trust)
    for seed in range(games):
        game = Game(GameConfig(num_players=4), seed=seed)
        while not game.terminal:
            game.apply(policy.act(game, game.pending.seat))
        assert len(game.rewards) == 4


def test_ppo_selfplay_smoke_writes_a_checkpoint_that_plays_legally(tmp_path: Path) -> None:
    cfg = PPOSelfPlayConfig(out_dir=str(tmp_path), config_name="tiny", **TINY)
    final = train(cfg)
    run = tmp_path / "tiny_seed0"
    assert final == run / "final_model.zip" and final.exists()
    assert (run / "checkpoints" / "latest.zip").exists()
    assert list((run / "pool").glob("snapshot_*.json")), "snapshots feed the opponent pool"
    assert list((run / "tb").rglob("events.out.tfevents.*")), "TensorBoard logs are written"
    play_full_games(str(run / "final_model.safetensors"))  # the safe export
    play_full_games(str(final), games=1, trust=True)  # the run's own pickle-based .zip


def test_ppo_selfplay_on_a_vector_env(tmp_path: Path) -> None:
    """envs_per_process > 1: the games of a process are one batched vector env (its
    frozen-snapshot opponents answered in batches); training still writes a legal model."""
    tiny = {**TINY, "n_steps": 64, "envs_per_process": 4, "p_self": 0.7, "p_heuristic": 0.3}
    cfg = PPOSelfPlayConfig(out_dir=str(tmp_path), config_name="vector", **tiny)
    final = train(cfg)
    assert list((tmp_path / "vector_seed0" / "pool").glob("snapshot_*.json"))
    play_full_games(str(final.with_suffix(".safetensors")), games=1)
    with pytest.raises(ValueError, match="shaping needs one environment per process"):
        PPOSelfPlayConfig(out_dir=str(tmp_path), **{**tiny, "shaping": 0.1})
    with pytest.raises(ValueError, match="envs_per_process=0 must be >= 1"):
        PPOSelfPlayConfig(out_dir=str(tmp_path), **{**tiny, "envs_per_process": 0})


def test_ppo_selfplay_resumes_from_its_last_checkpoint(tmp_path: Path) -> None:
    cfg = PPOSelfPlayConfig(out_dir=str(tmp_path), config_name="resume", **TINY)
    train(cfg)
    first = json.loads((tmp_path / "resume_seed0" / "checkpoints" / "latest.json").read_text())
    assert first["num_timesteps"] >= 512
    longer = PPOSelfPlayConfig(
        out_dir=str(tmp_path), config_name="resume", **{**TINY, "total_timesteps": 1024}
    )
    train(longer)
    info = json.loads((tmp_path / "resume_seed0" / "training.json").read_text())
    assert info["num_timesteps"] >= 1024
    # Only the missing steps were trained in the second session.
    assert info["learner_steps_per_second"] > 0
    second = json.loads((tmp_path / "resume_seed0" / "checkpoints" / "latest.json").read_text())
    assert second["num_timesteps"] > first["num_timesteps"]


def test_rllib_smoke_writes_a_checkpoint_that_plays_legally(tmp_path: Path) -> None:
    pytest.importorskip("ray.rllib")
    from training.rllib_ppo import main as rllib_main

    def tiny_run(iterations: int) -> int:
        return rllib_main(
            [
                "--iterations", str(iterations),
                "--train-batch-size", "300",
                "--minibatch-size", "100",
                "--num-epochs", "1",
                "--hidden", "32,32",
                "--out-dir", str(tmp_path),
            ]
        )  # fmt: skip

    code = tiny_run(1)
    assert code == 0
    checkpoint = tmp_path / "rllib_4p_seed0" / "checkpoint"
    assert (checkpoint / "rllib_checkpoint.json").exists()
    assert (tmp_path / "rllib_4p_seed0" / "metrics.jsonl").read_text().strip()
    play_full_games(str(checkpoint), games=1, trust=True)
    # Rerunning the command with more iterations resumes the run (resume is a shared field).
    code = tiny_run(2)
    assert code == 0
    rows = (tmp_path / "rllib_4p_seed0" / "metrics.jsonl").read_text().splitlines()
    assert [json.loads(r)["iteration"] for r in rows] == [1, 2]


def test_reward_credit_learner_return_equals_game_reward() -> None:
    """The learner's episode return equals its final game reward, including when the game ends
    on another player's turn (heuristic opponents, rotating learner seat)."""
    from dune_env.single_agent import DuneSingleAgentEnv

    env = DuneSingleAgentEnv(
        learner="rotate", num_players=4, opponents=load_policy("aggressive", seed=1)
    )
    rng = np.random.default_rng(0)
    obs, info = env.reset(seed=11)
    for _episode in range(6):
        total = 0.0
        done = False
        while not done:
            legal = np.flatnonzero(env.action_masks())
            obs, reward, done, truncated, info = env.step(int(rng.choice(legal)))
            total += reward
        assert total == info["final_rewards"][env.learner_seat]
        obs, info = env.reset()


def test_config_loader_rejects_unknown_keys(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("seed: 1\nlearnig_rate: 0.1\n")
    with pytest.raises(ConfigKeyError, match="learnig_rate.*known keys"):
        load_config(PPOSelfPlayConfig, bad)
    with pytest.raises(ConfigKeyError, match="unknown option"):
        load_config(PPOSelfPlayConfig, None, ["--learnig-rate", "0.1"])
    with pytest.raises(ConfigKeyError, match="not a valid int"):
        load_config(PPOSelfPlayConfig, None, ["--seed", "abc"])
    with pytest.raises(ConfigKeyError, match="known keys"):
        load_config(RLlibConfig, bad)


def test_config_loader_reads_yaml_and_overrides() -> None:
    cfg = load_config(
        PPOSelfPlayConfig, "configs/ppo_4p.yaml", ["--seed", "3", "--net-arch", "64,64"]
    )
    assert cfg.run.config_name == "ppo_4p" and cfg.run.seed == 3
    assert cfg.ppo.net_arch == (64, 64) and cfg.run.num_players == 4


def test_checkpoint_with_wrong_spaces_is_refused(tmp_path: Path) -> None:
    """A model whose spaces do not match dune_v1 fails with a clear message."""
    import gymnasium
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.env_util import make_vec_env

    class Tiny(gymnasium.Env):
        observation_space = gymnasium.spaces.Box(0, 1, (3,), np.float32)
        action_space = gymnasium.spaces.Discrete(2)

        def reset(self, *, seed=None, options=None):
            return np.zeros(3, np.float32), {}

        def step(self, action):
            return np.zeros(3, np.float32), 0.0, True, False, {}

        def action_masks(self):
            return np.ones(2, bool)

    model = MaskablePPO("MlpPolicy", make_vec_env(Tiny, 1), n_steps=16, batch_size=16)
    path = tmp_path / "tiny.zip"
    model.save(path)
    with pytest.raises(PolicyLoadError, match="does not match dune_v1"):
        load_policy(str(path), trust=True)
    with pytest.raises(PolicyLoadError, match="does not exist"):
        load_policy(str(tmp_path / "missing.zip"))
    (tmp_path / "junk.zip").write_text("not a zip")
    with pytest.raises(PolicyLoadError, match="not a stable-baselines3"):
        load_policy(str(tmp_path / "junk.zip"), trust=True)


@pytest.mark.parametrize("name", ["ppo-4p", "bc-4p", "bc-5p", "residual-4p", "residual-5p"])
def test_shipped_checkpoint_loads_and_plays_full_games_legally(name: str) -> None:
    """Each registered shipped model loads and plays every seat of full games, and has its
    model card (docs/models/<name>.md)."""
    from dune_env.policies.registry import CHECKPOINT_DIR, SHIPPED_MODELS

    assert sorted(SHIPPED_MODELS) == ["bc-4p", "bc-5p", "ppo-4p", "residual-4p", "residual-5p"]
    assert (CHECKPOINT_DIR / SHIPPED_MODELS[name]).is_file()
    assert (Path(__file__).resolve().parents[2] / "docs" / "models" / f"{name}.md").is_file()
    play_full_games(name, games=3)


def test_a_model_saved_again_is_reloaded(tmp_path: Path) -> None:
    """The harness and the loader reload a model file that changed (periodic evaluations save
    the learner to a file again and again)."""
    from dune_env.policies.sb3 import load_model

    cfg = PPOSelfPlayConfig(out_dir=str(tmp_path), config_name="reload", **TINY)
    final = train(cfg)
    load_policy(str(final), trust=True)
    misses = load_model.cache_info().misses
    load_policy(str(final), trust=True)
    assert load_model.cache_info().misses == misses  # unchanged file: cached
    import os

    os.utime(final, ns=(1, 1))  # the file changed
    load_policy(str(final), trust=True)
    assert load_model.cache_info().misses == misses + 1


def test_shaping_telescopes_to_the_game_reward() -> None:
    """With gamma = 1 the shaped return of a game is its reward minus the potential at the
    learner's first decision (potential-based shaping changes no final outcome)."""
    from dune_env.single_agent import DuneSingleAgentEnv
    from training.ppo_selfplay import StrategicShaping

    env = StrategicShaping(
        DuneSingleAgentEnv(learner="rotate", num_players=4, opponents=load_policy("aggressive")),
        weight=0.1,
        gamma=1.0,
    )
    rng = np.random.default_rng(1)
    for episode in range(4):
        env.reset(seed=episode)
        start_phi = env.last_phi
        total, done, info = 0.0, False, {}
        while not done:
            legal = np.flatnonzero(env.action_masks())
            _, reward, done, _, info = env.step(int(rng.choice(legal)))
            total += reward
        final = info["final_rewards"][env.unwrapped.learner_seat]
        assert total == pytest.approx(final - start_phi)


def test_checkpoints_keep_the_last_k_and_resume_falls_back_past_truncated_ones(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Checkpoints are numbered, the newest `keep_checkpoints` kept, all written atomically (no
    temporary files left); a truncated latest.zip (a crash, a full disk) does not stop resuming:
    the newest checkpoint that loads is used."""
    cfg = PPOSelfPlayConfig(
        out_dir=str(tmp_path), config_name="keep",
        **{**TINY, "total_timesteps": 768, "keep_checkpoints": 2},
    )  # fmt: skip
    train(cfg)
    ckpt = tmp_path / "keep_seed0" / "checkpoints"
    assert sorted(p.name for p in ckpt.glob("checkpoint_*.zip")) == [
        "checkpoint_000000512.zip", "checkpoint_000000768.zip",
    ]  # fmt: skip
    assert not list((tmp_path / "keep_seed0").rglob("*.tmp")), "no temporary files are left"
    for broken in ("latest.zip", "checkpoint_000000768.zip"):
        data = (ckpt / broken).read_bytes()
        (ckpt / broken).write_bytes(data[: len(data) // 2])
    capsys.readouterr()
    train(dataclasses.replace(cfg, total_timesteps=1024))
    out = capsys.readouterr().out
    assert "checkpoint_000000768.zip does not load" in out
    assert "resuming keep_seed0 from 512 learner steps" in out
    info = json.loads((ckpt.parent / "training.json").read_text())
    assert info["num_timesteps"] >= 1024


def test_resume_plays_fresh_games_and_discards_the_saved_last_obs(tmp_path: Path) -> None:
    """A resumed session seeds its environments afresh (it does not replay the first games of
    the run), and the rollout state saved in the checkpoint (_last_obs, observations of the
    previous session's environments) is not reused: learning starts from a fresh reset."""
    import zipfile

    from training.checkpoints import resume_from_checkpoint, session_seed_of
    from training.ppo_selfplay import build_env

    def build_envs(cfg: PPOSelfPlayConfig, pool: Path, start_steps: int):
        return build_env(cfg, pool, session_seed_of(cfg.run.seed, start_steps))

    cfg = PPOSelfPlayConfig(out_dir=str(tmp_path), config_name="seeds", **TINY)
    train(cfg)
    run = tmp_path / "seeds_seed0"
    data = json.loads(zipfile.ZipFile(run / "checkpoints" / "latest.zip").read("data"))
    assert data["_last_obs"] is not None, "SB3 saves the last observations in checkpoints"
    started: list[int] = []

    def build(start_steps: int):
        started.append(start_steps)
        return build_envs(cfg, run / "pool", start_steps)

    resumed = resume_from_checkpoint(run, "cpu", build)
    assert resumed is not None
    model, venv = resumed
    assert started == [model.num_timesteps] and model.num_timesteps >= 512
    assert model._last_obs is None  # learn() resets the new environments first
    assert session_seed_of(0, model.num_timesteps) != session_seed_of(0, 0)
    first_session = build_envs(cfg, run / "pool", 0)
    again = build_envs(cfg, run / "pool", 0)
    fresh_obs, first_obs, again_obs = venv.reset(), first_session.reset(), again.reset()
    assert np.array_equal(first_obs, again_obs)  # seeded: reproducible
    assert not np.array_equal(fresh_obs, first_obs)  # but not the first session's games
    for v in (venv, first_session, again):
        v.close()


def test_resume_trusts_only_regular_files_inside_its_run_directory(tmp_path: Path) -> None:
    """The run trusts (unpickles) only checkpoints it wrote itself: a checkpoint name that is a
    link to a file elsewhere is not a resume candidate."""
    from training.checkpoints import resume_candidates

    run = tmp_path / "run"
    (run / "checkpoints").mkdir(parents=True)
    (run / "checkpoints" / "checkpoint_000000256.zip").write_bytes(b"own")
    outside = tmp_path / "foreign.zip"
    outside.write_bytes(b"foreign")
    (run / "checkpoints" / "latest.zip").symlink_to(outside)
    (run / "checkpoints" / "checkpoint_000000512.zip").symlink_to(outside)
    assert resume_candidates(run) == [run / "checkpoints" / "checkpoint_000000256.zip"]


def test_resume_refuses_settings_the_checkpoint_cannot_honour(tmp_path: Path) -> None:
    """A resumed run keeps the saved model's rollout settings; changing one is an error that
    names it, not a setting silently ignored."""
    from training.checkpoints import ResumeError

    cfg = PPOSelfPlayConfig(out_dir=str(tmp_path), config_name="fixed", **TINY)
    train(cfg)
    changed = PPOSelfPlayConfig(
        out_dir=str(tmp_path), config_name="fixed", **{**TINY, "n_epochs": 3, "gamma": 0.9}
    )
    with pytest.raises(ResumeError, match=r"other n_epochs, gamma"):
        train(changed)
    fresh = PPOSelfPlayConfig(
        out_dir=str(tmp_path), config_name="fixed", **{**TINY, "n_epochs": 3, "resume": False}
    )
    assert train(fresh).exists()  # --resume false starts the run again


def test_a_drawn_pool_snapshot_survives_its_file_being_deleted(tmp_path: Path) -> None:
    """The pool may delete an old snapshot while an episode still plays it: the weights are
    read when the snapshot is drawn, so the episode goes on."""
    from dune_env.single_agent import DuneSingleAgentEnv
    from training.opponent_pool import FrozenPolicy, OpponentPool

    cfg = PPOSelfPlayConfig(out_dir=str(tmp_path), config_name="pool", **TINY)
    train(cfg)
    pool_dir = tmp_path / "pool_seed0" / "pool"
    pool = OpponentPool(str(pool_dir), 4, p_self=1.0, p_heuristic=0.0)
    seats = pool(np.random.default_rng(0))
    assert all(isinstance(seat, FrozenPolicy) for seat in seats)
    for path in pool_dir.iterdir():
        path.unlink()
    env = DuneSingleAgentEnv(num_players=4, opponents=seats)
    env.reset(seed=0)
    for _ in range(30):
        _, _, terminated, _, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
        if terminated:
            break
    again = pool(np.random.default_rng(1))  # nothing left to draw: no snapshot seats
    assert not any(isinstance(seat, FrozenPolicy) for seat in again)
    assert pool._frozen_policies == {}


@pytest.mark.parametrize("stem", ["bc_4p", "bc_5p", "residual_4p", "residual_5p"])
def test_the_imitations_were_trained_on_dune_v1_and_read_the_whole_observation(stem: str) -> None:
    """The imitation baselines are `dune_v1` models (all 729 entries of the v1 layout, whatever
    today's layout), unlike `ppo-4p`, which reads the legacy 717-entry prefix."""
    from dune_env.environment.action_table import ACTIONS
    from dune_env.policies.layouts import LAYOUT_V1, fingerprint
    from dune_env.policies.registry import CHECKPOINT_DIR

    description = json.loads((CHECKPOINT_DIR / f"{stem}.json").read_text())
    assert description["env"] == "dune_v1" and description["observation_size"] == 729
    names = [a.name for a in ACTIONS]
    assert description["spaces_fingerprint"] == fingerprint(LAYOUT_V1, names)
    assert description["tensors"]["file"] == f"{stem}.safetensors"


TINY_IMITATION = {
    **TINY,
    "total_timesteps": 0,
    "bc_games": 2,
    "bc_policy": "aggressive",
    "bc_epochs": 1,
    "bc_dagger_rounds": 1,
}


def _final_weights(run_dir: Path) -> dict[str, np.ndarray]:
    from safetensors.numpy import load_file

    return load_file(str(run_dir / "final_model.safetensors"))


def test_an_interrupted_imitation_resumes_after_its_last_fitted_round(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Behaviour cloning + DAgger saves each fitted round; rerunning the same command after an
    interruption fits only the rounds left and ends with the weights of an uninterrupted run."""
    import training.imitation as recipe

    whole = PPOSelfPlayConfig(out_dir=str(tmp_path / "whole"), config_name="bc", **TINY_IMITATION)
    train(whole, quiet=True)

    real_fit = recipe._fit
    fitted_rounds: list[int] = []

    def interrupted_fit(*args: object, **kwargs: object) -> dict[str, float]:
        if len(fitted_rounds) == 1:
            raise KeyboardInterrupt  # the session ends during the DAgger round
        fitted_rounds.append(len(fitted_rounds))
        return real_fit(*args, **kwargs)  # type: ignore[arg-type]

    cut = PPOSelfPlayConfig(out_dir=str(tmp_path / "cut"), config_name="bc", **TINY_IMITATION)
    monkeypatch.setattr(recipe, "_fit", interrupted_fit)
    with pytest.raises(KeyboardInterrupt):
        train(cut, quiet=True)
    rounds_dir = cut.run_dir / "behaviour_cloning_rounds"
    assert sorted(p.name for p in rounds_dir.glob("round*.pt")) == ["round0.pt"]

    calls: list[int] = []

    def counted_fit(*args: object, **kwargs: object) -> dict[str, float]:
        calls.append(1)
        return real_fit(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(recipe, "_fit", counted_fit)
    train(cut, quiet=True)
    assert len(calls) == 1  # round 0 was loaded, only the DAgger round was fitted
    resumed, uninterrupted = _final_weights(cut.run_dir), _final_weights(whole.run_dir)
    assert resumed.keys() == uninterrupted.keys()
    for name, value in uninterrupted.items():
        assert np.array_equal(resumed[name], value), name
    stats = json.loads((cut.run_dir / "behaviour_cloning.json").read_text())
    assert {"round0_bc_samples", "round1_bc_samples"} <= stats.keys()


def test_saved_imitation_rounds_refuse_other_settings(tmp_path: Path) -> None:
    """The saved rounds are continued only with the settings that made them."""
    from training.checkpoints import ResumeError
    from training.imitation import behaviour_clone
    from training.ppo_selfplay import imitation_of

    cfg = PPOSelfPlayConfig(out_dir=str(tmp_path), config_name="bc", **TINY_IMITATION)
    rounds_dir = tmp_path / "rounds"
    rounds_dir.mkdir()
    (rounds_dir / "settings.json").write_text(json.dumps({"bc_games": 3}))
    with pytest.raises(ResumeError, match="bc_games=3"):
        behaviour_clone(None, imitation_of(cfg), rounds_dir)
