"""Every shipped PPO self-play configuration loads (unknown keys are refused) and names its run
after its file, so two configurations never resume into each other's run directory."""

from __future__ import annotations

from pathlib import Path

import pytest

from training.config_utils import load_config
from training.ppo_selfplay import PPOSelfPlayConfig

CONFIGS = sorted((Path(__file__).resolve().parents[2] / "configs").glob("ppo_*.yaml"))


def test_the_ppo_configurations_are_found() -> None:
    assert {p.stem for p in CONFIGS} >= {"ppo_4p", "ppo_4p_strategist", "ppo_5p"}


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.stem)
def test_ppo_configuration_loads_and_names_its_run_after_its_file(path: Path) -> None:
    cfg = load_config(PPOSelfPlayConfig, path)
    assert cfg.run.config_name == path.stem
    assert 3 <= cfg.run.num_players <= 8
    assert cfg.imitation.bc_dagger_rounds == 0 or cfg.imitation.bc_games > 0  # needs a warm start


@pytest.mark.parametrize("stem", ["ppo_4p_strategist", "ppo_5p"])
def test_the_strategist_recipes_train_against_the_benchmark_not_random_seats(stem: str) -> None:
    """Issue 23's recipe defects: no random seat (66% of the former games had one), the
    benchmark's heuristics among the opponents, the batched rollout layout (2 processes x 32
    games), a KL limit on each update, and the best model kept by its paired strength against
    strategist in the benchmark's line-up."""
    cfg = load_config(PPOSelfPlayConfig, CONFIGS[[p.stem for p in CONFIGS].index(stem)])
    pool, env, ppo = cfg.pool, cfg.env, cfg.ppo
    assert pool.p_random == 0 and pool.p_self + pool.p_heuristic == 1
    assert {"strategist", "economic", "aggressive"} <= set(pool.heuristic_opponents)
    assert env.n_envs == 2 and env.envs_per_process == 32
    assert env.n_envs * env.envs_per_process * ppo.n_steps == 2048
    assert ppo.target_kl is not None and ppo.hyperparameters(0)["target_kl"] == ppo.target_kl
    assert cfg.evaluation.eval_mode == "lineup" and cfg.evaluation.best_against == "strategist"
    assert pool.opponent_weighting == "pfsp"
