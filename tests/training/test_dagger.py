"""Imitation in the benchmark's setting (`bc_setting: lineup`, issue 23 item 2): games of the
teacher or the clone among the heuristics, every seat labelled with the teacher's choice, a
held-out set with NLL and per-kind agreement, early stopping keeping the best epoch, data kept
across rounds as a bounded replay sample, loss weights per decision kind."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from dune_env.engine.decisions import DecisionKind
from training.checkpoints import ResumeError
from training.cloning import held_out_fit, kind_weights
from training.config_utils import ConfigKeyError
from training.dagger import collect_lineup, fit_lineup_round, play_labelled_game, seating
from training.imitation import behaviour_clone
from training.ppo_selfplay import PPOSelfPlayConfig, imitation_of, train

LINEUP = {
    "bc_setting": "lineup",
    "bc_policy": "strategist",
    "heuristic_opponents": ("economic", "aggressive"),
    "bc_games": 2,
    "bc_heldout_games": 1,
    "bc_dagger_rounds": 1,
    "bc_epochs": 3,
    "batch_size": 64,
    "net_arch": (32, 32),
    "total_timesteps": 0,
    "n_envs": 1,
    "envs_per_process": 4,
    "n_steps": 32,
    "eval_interval": 0,
}


# One torch thread, as the recipe runs its updates (tests/training/conftest.py).
pytestmark = pytest.mark.usefixtures("one_torch_thread")


def tiny_model() -> Any:
    from sb3_contrib import MaskablePPO

    from dune_env.vector import DuneVecEnv

    venv = DuneVecEnv(1, num_players=4)
    return MaskablePPO("MlpPolicy", venv, policy_kwargs={"net_arch": [32]}, seed=0)


def test_the_seats_are_the_benchmarks_line_up_with_the_teacher_or_the_clone() -> None:
    cfg = PPOSelfPlayConfig(**{**LINEUP, "bc_learner_seats": 2})
    heuristics = cfg.pool.heuristic_opponents
    names = [
        getattr(p, "name", "model") for p in seating(cfg.imitation, cfg.run, heuristics, None, 0)
    ]
    assert names == ["strategist", "economic", "aggressive", "economic"]
    model = tiny_model()
    for game in range(4):
        seats = seating(cfg.imitation, cfg.run, heuristics, model, game)
        where = [i for i, p in enumerate(seats) if p is model]
        assert where == sorted({game % 4, (game + 1) % 4})  # two seats, rotating
        assert sorted(p.name for p in seats if p is not model) == ["aggressive", "economic"]


def test_a_labelled_game_keeps_every_seats_choices_labelled_by_the_teacher() -> None:
    """Every seat's decisions with a choice are kept (forced ones are not), each with the
    strategist's legal choice, its kind and the seat's final reward."""
    from dune_env.policies.heuristics.strategist import StrategistPolicy

    cfg = PPOSelfPlayConfig(**LINEUP)
    im, run, heuristics = cfg.imitation, cfg.run, cfg.pool.heuristic_opponents
    seats = seating(im, run, heuristics, tiny_model(), 1)
    game = play_labelled_game(im, run, seats, seed=3)
    n = len(game.actions)
    assert n > 50 and game.obs.shape[0] == game.masks.shape[0] == n
    assert (game.masks.sum(axis=1) > 1).all()  # only decisions with a choice
    assert game.masks[np.arange(n), game.actions].all()  # the labels are legal
    assert set(np.unique(game.returns)) <= {-1.0, 1.0}
    assert {DecisionKind(int(k)).name for k in game.kinds} >= {"FIX_DICE", "MOVE"}
    # The teacher plays its seat in round 0: its own decisions are labelled with themselves.
    assert isinstance(seating(im, run, heuristics, None, 0)[0], StrategistPolicy)


def test_kind_weights_and_their_validation() -> None:
    kinds = np.array([DecisionKind.FIX_DICE, DecisionKind.MOVE, DecisionKind.BID])
    assert kind_weights(kinds, {"FIX_DICE": 3.0, "BID": 0.5}).tolist() == [3.0, 1.0, 0.5]
    with pytest.raises(ConfigKeyError, match="unknown kinds \\['DICE'\\]"):
        PPOSelfPlayConfig(bc_kind_weights={"DICE": 2.0})
    with pytest.raises(ConfigKeyError, match="bc_setting='dagger' is not valid"):
        PPOSelfPlayConfig(bc_setting="dagger")
    with pytest.raises(ConfigKeyError, match="needs bc_heldout_games >= 1"):
        PPOSelfPlayConfig(bc_setting="lineup", bc_heldout_games=0)
    with pytest.raises(ConfigKeyError, match="bc_learner_seats=4 must be 1..3"):
        PPOSelfPlayConfig(bc_learner_seats=4)


def test_a_round_fine_tunes_on_new_data_plus_a_replay_and_keeps_its_best_epoch() -> None:
    """Round 1 trains on its own data plus as many replayed samples of round 0 (not all of
    it); the weights kept are the epoch with the lowest held-out NLL, which is what the
    held-out set measures afterwards; every epoch logs NLL and per-kind agreement."""
    cfg = PPOSelfPlayConfig(**{**LINEUP, "bc_patience": 5, "bc_kind_weights": {"FIX_DICE": 2.0}})
    model = tiny_model()
    im, run, heuristics = cfg.imitation, cfg.run, cfg.pool.heuristic_opponents
    rounds = [collect_lineup(im, run, heuristics, None, 0)]
    first = fit_lineup_round(model, im, 0, cfg.ppo.batch_size, rounds)
    assert first["replayed"] == 0 and first["samples"] == len(rounds[0][0].actions)
    assert first["best"]["nll"] < first["epoch_start"]["nll"]  # the imitation learns
    rounds.append(collect_lineup(im, run, heuristics, model, 1))
    second = fit_lineup_round(model, im, 0, cfg.ppo.batch_size, rounds)
    new = len(rounds[1][0].actions)
    assert second["replayed"] == min(new, len(rounds[0][0].actions))
    assert second["samples"] == new + second["replayed"]
    epochs = [second[f"epoch{e}"] for e in range(im.bc_epochs)]
    best = min([second["epoch_start"], *epochs], key=lambda fit: fit["nll"])
    assert held_out_fit(model, rounds[1][1])["nll"] == pytest.approx(best["nll"], abs=1e-5)
    kinds = epochs[0]["agreement_by_kind"]
    assert "FIX_DICE" in kinds and 0 <= kinds["FIX_DICE"]["agreement"] <= 1


def test_early_stopping_ends_a_round_once_the_held_out_nll_stops_falling(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import training.dagger as dagger

    scripted = iter([3.0, 2.0, 2.5, 2.6, 1.0, 0.5])  # start, then one per epoch
    monkeypatch.setattr(
        dagger, "held_out_fit", lambda model, data: {"nll": next(scripted), "agreement": 0.0}
    )
    monkeypatch.setattr(dagger, "clone_epoch", lambda policy, data, size, rng, w: (0.0, 0.0))
    cfg = PPOSelfPlayConfig(**{**LINEUP, "bc_epochs": 5, "bc_patience": 1})
    model = tiny_model()
    empty = dagger.Decisions(*(np.zeros((0,) * 1) for _ in range(5)))
    stats = fit_lineup_round(model, cfg.imitation, 0, 64, [(empty, empty)])
    # 2.5 and 2.6 did not beat 2.0: stopped after patience 1, before 1.0 and 0.5.
    epochs = [k for k in stats if k.startswith("epoch") and k != "epoch_start"]
    assert epochs == ["epoch0", "epoch1", "epoch2"]
    assert stats["best"]["nll"] == 2.0


def test_the_lineup_imitation_trains_resumes_and_refuses_other_settings(tmp_path: Path) -> None:
    cfg = PPOSelfPlayConfig(out_dir=str(tmp_path), config_name="lineup", **LINEUP)
    train(cfg, quiet=True)
    stats = json.loads((cfg.run_dir / "behaviour_cloning.json").read_text())
    assert {"round0_best", "round1_best", "round1_replayed"} <= stats.keys()
    assert stats["round1_replayed"] > 0
    rounds_dir = cfg.run_dir / "behaviour_cloning_rounds"
    assert sorted(p.name for p in rounds_dir.glob("round*.pt")) == ["round0.pt", "round1.pt"]
    other = PPOSelfPlayConfig(**{**LINEUP, "bc_learner_seats": 2})
    with pytest.raises(ResumeError, match="bc_learner_seats=1"):
        behaviour_clone(None, imitation_of(other), rounds_dir)
