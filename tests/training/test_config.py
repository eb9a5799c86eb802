"""One configuration frame for every training recipe: field groups declared once and shared
(run, ppo, ...), a docstring for every field, flat keys in YAML and on the command line, the
shipped YAML files loading, clear errors for unknown keys and bad values."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from training.config_utils import ConfigKeyError, field_docs, flat_dict, load_config
from training.distill import DistillConfig
from training.fields import PPOFields, RunFields
from training.ppo_selfplay import PPOSelfPlayConfig
from training.residual import ResidualConfig
from training.rllib_ppo import RLlibConfig

RECIPES = (PPOSelfPlayConfig, RLlibConfig, ResidualConfig, DistillConfig)
ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("cls", RECIPES)
def test_every_recipe_shares_the_run_and_ppo_groups_and_documents_every_field(cls: type) -> None:
    """The groups are declared once (training/fields.py): every recipe's `run` is a RunFields
    and its `ppo` a PPOFields, with the recipe's own defaults; every field of every group has
    a docstring (shown by --help)."""
    cfg = cls()
    assert isinstance(cfg.run, RunFields) and isinstance(cfg.ppo, PPOFields)
    assert {"seed", "num_players", "out_dir", "resume", "config_name"} <= set(flat_dict(cfg))
    for f in dataclasses.fields(cfg):
        group = type(getattr(cfg, f.name))
        docs = field_docs(group)
        undocumented = [g.name for g in dataclasses.fields(group) if not docs.get(g.name)]
        assert undocumented == [], group


def test_flat_keys_go_to_their_groups_and_config_json_stays_flat() -> None:
    """`PPOSelfPlayConfig(n_steps=64)` sets the ppo group's field; the flat form (config.json,
    YAML) has the same keys as before the groups, so old run folders compare with new ones."""
    cfg = PPOSelfPlayConfig(n_steps=64, p_self=0.2, p_heuristic=0.8, seed=3)
    assert cfg.ppo.n_steps == 64 and cfg.pool.p_self == 0.2 and cfg.run.seed == 3
    flat = flat_dict(cfg)
    assert flat["n_steps"] == 64 and "ppo" not in flat and "pool" not in flat
    assert (
        load_config(
            PPOSelfPlayConfig,
            None,
            ["--n-steps", "64", "--p-self", "0.2", "--p-heuristic", "0.8", "--seed", "3"],
        )
        == cfg
    )
    with pytest.raises(ConfigKeyError, match="has no field 'n_step'"):
        PPOSelfPlayConfig(n_step=64)


def test_the_rllib_recipe_reads_its_former_key_names_and_refuses_unused_ppo_fields() -> None:
    """configs written before the shared PPO group (lr, hidden, entropy_coeff, ...) still load;
    a PPO field RLlib does not read is refused, not silently ignored."""
    cfg = RLlibConfig(lr=1e-3, hidden=(32, 32), entropy_coeff=0.0, num_epochs=2)
    assert cfg.ppo.learning_rate == 1e-3 and cfg.ppo.net_arch == (32, 32)
    assert cfg.ppo.ent_coef == 0.0 and cfg.ppo.n_epochs == 2
    assert load_config(RLlibConfig, None, ["--lr", "0.001"]).ppo.learning_rate == 1e-3
    with pytest.raises(ConfigKeyError, match="total_timesteps: not used by the RLlib recipe"):
        RLlibConfig(total_timesteps=5)


def test_every_shipped_yaml_config_loads() -> None:
    configs = sorted((ROOT / "configs").glob("*.yaml"))
    assert configs
    for path in configs:
        prefixes = {"rllib": RLlibConfig, "residual": ResidualConfig, "distill": DistillConfig}
        cls = next((c for p, c in prefixes.items() if path.name.startswith(p)), PPOSelfPlayConfig)
        cfg = load_config(cls, path)
        assert 3 <= cfg.run.num_players <= 8


def test_shipped_4p_config_uses_the_batched_envs_and_pfsp() -> None:
    """The shipped config's rollout keeps its size (2 x 32 x 32 = 2048 learner steps, as
    2 x 1024 before issue 12), its snapshots answered in batches, its opponents PFSP-drawn."""
    cfg = load_config(PPOSelfPlayConfig, ROOT / "configs" / "ppo_4p.yaml")
    assert cfg.env.n_envs * cfg.env.envs_per_process * cfg.ppo.n_steps == 2048
    assert cfg.env.envs_per_process > 1 and cfg.pool.opponent_weighting == "pfsp"


def test_run_folders_keep_their_names() -> None:
    ppo = PPOSelfPlayConfig(config_name="ppo_4p", seed=3, out_dir="runs/ppo")
    assert ppo.run_dir == Path("runs/ppo/ppo_4p_seed3")
    assert RLlibConfig(num_players=5).run_dir == Path("runs/rllib/rllib_5p_seed0")
    assert RLlibConfig(run_name="mine").run_dir == Path("runs/rllib/mine")


def test_unknown_keys_and_bad_values_are_named(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("seed: 1\nopponent_weigthing: pfsp\n")
    with pytest.raises(ConfigKeyError) as info:
        load_config(PPOSelfPlayConfig, bad)
    message = str(info.value)
    assert "'opponent_weigthing'" in message and "did you mean" in message
    assert "'opponent_weighting'" in message and "known keys of PPOSelfPlayConfig" in message
    with pytest.raises(ConfigKeyError, match="no such file"):
        load_config(PPOSelfPlayConfig, tmp_path / "missing.yaml")
    with pytest.raises(ConfigKeyError, match="opponent_weighting='best' is not valid"):
        load_config(PPOSelfPlayConfig, None, ["--opponent-weighting", "best"])
    with pytest.raises(ConfigKeyError, match="num_players=9 is not valid; use 3..8"):
        load_config(RLlibConfig, None, ["--num-players", "9"])
    with pytest.raises(ConfigKeyError, match="torch_threads=0 must be >= 1"):
        PPOSelfPlayConfig(torch_threads=0)


def test_sigterm_stops_training_in_one_line_and_says_how_to_resume(monkeypatch, capsys, tmp_path):
    """A scheduler's SIGTERM (or Ctrl-C) ends `python -m training.ppo_selfplay` with exit code
    130 and one line naming the run folder to resume, not a traceback; the handler is undone."""
    import signal

    import training.ppo_selfplay as ppo

    def terminated(cfg, quiet=False):
        handler = signal.getsignal(signal.SIGTERM)  # what SIGTERM would run now
        assert callable(handler), "no SIGTERM handler while training"
        handler(signal.SIGTERM, None)
        raise AssertionError("SIGTERM did not interrupt training")

    monkeypatch.setattr(ppo, "train", terminated)
    before = signal.getsignal(signal.SIGTERM)
    code = ppo.main(["--config", "configs/ppo_4p_quick.yaml", "--out-dir", str(tmp_path)])
    err = capsys.readouterr().err.strip()
    assert code == 130
    assert err.count("\n") == 0 and "interrupted" in err and "ppo_4p_quick_seed0" in err
    assert signal.getsignal(signal.SIGTERM) == before
