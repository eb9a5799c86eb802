"""One configuration base for both training recipes: shared typed fields, a docstring for
every field, the shipped YAML files loading, clear errors for unknown keys and bad values."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from training.config_utils import ConfigKeyError, RunConfig, field_docs, load_config
from training.ppo_selfplay import PPOSelfPlayConfig
from training.residual import ResidualConfig
from training.rllib_ppo import RLlibConfig

RECIPES = (PPOSelfPlayConfig, RLlibConfig, ResidualConfig)
ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("cls", RECIPES)
def test_both_recipes_share_the_run_fields_and_document_every_field(cls: type) -> None:
    assert issubclass(cls, RunConfig)
    shared = {f.name for f in dataclasses.fields(RunConfig)}
    assert {"seed", "num_players", "out_dir", "resume", "config_name"} <= shared
    assert shared <= {f.name for f in dataclasses.fields(cls)}
    docs = field_docs(cls)
    undocumented = [f.name for f in dataclasses.fields(cls) if not docs.get(f.name)]
    assert undocumented == []


def test_every_shipped_yaml_config_loads() -> None:
    configs = sorted((ROOT / "configs").glob("*.yaml"))
    assert configs
    for path in configs:
        prefixes = {"rllib": RLlibConfig, "residual": ResidualConfig}
        cls = next((c for p, c in prefixes.items() if path.name.startswith(p)), PPOSelfPlayConfig)
        cfg = load_config(cls, path)
        assert 3 <= cfg.num_players <= 8


def test_shipped_4p_config_uses_the_batched_envs_and_pfsp() -> None:
    """The shipped config's rollout keeps its size (2 x 32 x 32 = 2048 learner steps, as
    2 x 1024 before issue 12), its snapshots answered in batches, its opponents PFSP-drawn."""
    cfg = load_config(PPOSelfPlayConfig, ROOT / "configs" / "ppo_4p.yaml")
    assert cfg.n_envs * cfg.envs_per_process * cfg.n_steps == 2048
    assert cfg.envs_per_process > 1 and cfg.opponent_weighting == "pfsp"


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
