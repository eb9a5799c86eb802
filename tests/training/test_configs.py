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
    assert cfg.config_name == path.stem
    assert 3 <= cfg.num_players <= 8
    assert cfg.bc_dagger_rounds == 0 or cfg.bc_games > 0  # DAgger needs a warm start
