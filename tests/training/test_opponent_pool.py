"""The opponent pool: results recorded per opponent, prioritized fictitious self-play (PFSP)
weights that grow with the learner's loss rate, the results kept in the run folder across
resumed sessions; the environments' final infos that feed it."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

from training.ppo_selfplay import (
    RESULTS_FILE,
    OpponentPool,
    PoolResults,
    PPOSelfPlayConfig,
    learner_won,
    train,
)

TINY = {
    "total_timesteps": 256,
    "n_envs": 1,
    "envs_per_process": 4,
    "n_steps": 32,
    "batch_size": 64,
    "n_epochs": 1,
    "snapshot_interval": 128,
    "eval_interval": 0,
    "checkpoint_interval": 128,
    "net_arch": (32, 32),
    "opponent_weighting": "pfsp",
}


def write_results(pool_dir: Path, records: dict[str, tuple[int, int]]) -> None:
    pool_dir.mkdir(parents=True, exist_ok=True)
    results = PoolResults(pool_dir)
    for name, (games, wins) in records.items():
        for g in range(games):
            results.record([None, name], won=g < wins)
    results.save()


def test_learner_won_is_the_highest_reward_not_shared_by_everyone() -> None:
    """END-7 rewards: +1 to each winner, -1 to the others (alliance wins have two winners)."""
    assert learner_won([1.0, -1.0, -1.0, -1.0], 0)
    assert not learner_won([1.0, -1.0, -1.0, -1.0], 1)
    assert learner_won([1.0, 1.0, -1.0, -1.0, -1.0], 1)  # an alliance win
    assert not learner_won([-1.0, -1.0, -1.0, -1.0], 2)  # nobody won


def test_pfsp_weights_grow_with_the_learners_loss_rate(tmp_path: Path) -> None:
    """Weight (1 - win rate)^p with the win rate smoothed by prior games at 1/num_players."""
    results = PoolResults(tmp_path)
    for _ in range(6):
        results.record([None, "economic", "economic", "aggressive"], won=False)
    for _ in range(6):
        results.record([None, "aggressive"], won=True)
    assert results.records == {"economic": [6, 0], "aggressive": [12, 6]}  # once per game
    rate_e = results.win_rate("economic", 0.25, 4.0)
    rate_a = results.win_rate("aggressive", 0.25, 4.0)
    assert rate_e == pytest.approx(1 / 10) and rate_a == pytest.approx(7 / 16)
    weights = results.weights(["economic", "aggressive", "never_played"], 2.0, 0.25, 4.0)
    raw = np.array([(1 - 0.1) ** 2, (1 - 7 / 16) ** 2, 0.75**2])
    assert weights == pytest.approx(raw / raw.sum())
    assert weights[0] > weights[2] > weights[1]  # lost most to economic: drawn most
    uniform = results.weights(["economic", "aggressive"], 0.0, 0.25, 4.0)
    assert uniform == pytest.approx([0.5, 0.5])  # exponent 0: uniform


def test_pool_draws_follow_the_recorded_results(tmp_path: Path) -> None:
    """With weighting="pfsp" the heuristic seats are drawn in proportion to the PFSP weights
    of the results file; the pool reads the file again when it changes."""
    pool_dir = tmp_path / "pool"
    write_results(pool_dir, {"aggressive": (40, 30), "economic": (40, 0)})
    pool = OpponentPool(str(pool_dir), 4, p_self=0.0, p_heuristic=1.0, weighting="pfsp")
    expected = pool.probabilities(["aggressive", "economic"])
    assert expected[1] > 5 * expected[0]
    rng = np.random.default_rng(0)
    names = [p.name for _ in range(300) for p in pool(rng)]
    share = names.count("economic") / len(names)
    assert share == pytest.approx(expected[1], abs=0.03)
    write_results(pool_dir, {"aggressive": (40, 0), "economic": (40, 30)})  # now reversed
    names = [p.name for _ in range(300) for p in pool(rng)]
    assert names.count("aggressive") / len(names) == pytest.approx(expected[1], abs=0.03)
    uniform = OpponentPool(str(pool_dir), 4, p_self=0.0, p_heuristic=1.0)
    names = [p.name for _ in range(300) for p in uniform(rng)]
    assert names.count("economic") / len(names) == pytest.approx(0.5, abs=0.05)


def test_pool_results_file_is_validated(tmp_path: Path) -> None:
    results = PoolResults(tmp_path)
    (tmp_path / RESULTS_FILE).write_text(json.dumps({"version": 2, "opponents": {}}))
    with pytest.raises(ValueError, match="not a version-1 pool results file"):
        results.load()
    bad = {"version": 1, "opponents": {"aggressive": {"games": 2, "wins": 3}}}
    (tmp_path / RESULTS_FILE).write_text(json.dumps(bad))
    with pytest.raises(ValueError, match="aggressive has 3 wins in 2 games"):
        results.load()
    with pytest.raises(ValueError, match="weighting='best'"):
        OpponentPool(str(tmp_path), 4, 0.5, 0.5, weighting="best")


def test_final_infos_name_the_opponents_and_count_the_decisions() -> None:
    """Both the single-agent env and the vector env end an episode with `opponents` (None at
    the learner's seat) and `decisions` (of every seat), identically for the same seed."""
    from dune_env.environment.single_agent import DuneSingleAgentEnv
    from dune_env.policies.registry import load_policy
    from dune_env.vector import DuneVecEnv

    opponents = [None, load_policy("aggressive", seed=1), load_policy("economic", seed=2), None]
    env = DuneSingleAgentEnv(learner=0, num_players=4, opponents=opponents)
    env.reset(seed=5)
    venv = DuneVecEnv(1, learner=0, num_players=4, opponents=opponents)
    venv.seed(5)
    venv.reset()
    done, info, vinfo = False, {}, {}
    while not done:
        action = int(np.flatnonzero(env.action_masks())[0])
        _, _, done, _, info = env.step(action)
        _, _, vdone, vinfos = venv.step(np.array([action]))
        assert bool(vdone[0]) == done
        vinfo = vinfos[0]
    assert info["opponents"] == [None, "aggressive", "economic", "random"]
    assert info["decisions"] > 0 and len(info["final_rewards"]) == 4
    for key in ("opponents", "decisions", "final_rewards", "seat"):
        assert vinfo[key] == info[key]


def test_training_records_results_and_a_resumed_run_keeps_them(tmp_path: Path) -> None:
    """The results of a run's games are written to {run}/pool/results.json; rerunning the
    same command continues from them (not from zero), and draws in the resumed session use
    them."""
    cfg = PPOSelfPlayConfig(
        out_dir=str(tmp_path), config_name="pfsp", p_self=0.4, p_heuristic=0.4, **TINY
    )
    train(cfg)
    path = cfg.run_dir / "pool" / RESULTS_FILE
    first = json.loads(path.read_text())["opponents"]
    assert first, "the games of the session were recorded"
    assert set(first) <= {"aggressive", "economic", "random"} | {
        p.with_suffix("").name for p in (cfg.run_dir / "pool").glob("snapshot_*.json")
    }
    info = json.loads((cfg.run_dir / "training.json").read_text())
    assert info["agent_steps_per_learner_step"] > 1  # every seat's decisions are counted
    # A record far from anything one session could produce: the resumed run must start from it.
    edited = {**first, "economic": {"games": 1000, "wins": 0}}
    path.write_text(json.dumps({"version": 1, "opponents": edited}))
    train(dataclasses.replace(cfg, total_timesteps=512))
    second = json.loads(path.read_text())["opponents"]
    assert second["economic"]["games"] >= 1000 and second["economic"]["wins"] <= 256
    assert sum(r["games"] for r in second.values()) > sum(r["games"] for r in edited.values())
    pool = OpponentPool(str(cfg.run_dir / "pool"), 4, 0.0, 1.0, weighting="pfsp")
    weights = pool.probabilities(["aggressive", "economic"])
    assert weights[1] > weights[0]  # the never-beaten economic is drawn most


def test_strategic_regions_held_is_public_and_bounded() -> None:
    """The shaping potential comes from `DuneSingleAgentEnv.strategic_regions_held()` (DEF-6,
    END-1): 0 without a game, between 0 and the strategic regions during one, and not always 0."""
    from dune_env.engine.rules import STRATEGIC_REGIONS
    from dune_env.environment.single_agent import DuneSingleAgentEnv
    from dune_env.policies.registry import load_policy

    env = DuneSingleAgentEnv(learner="rotate", num_players=4, opponents="aggressive")
    assert env.strategic_regions_held() == 0
    seen = set()
    aggressive = load_policy("aggressive", seed=0)
    for episode in range(3):
        env.reset(seed=episode)
        done = False
        while not done:
            held = env.strategic_regions_held()
            assert 0 <= held <= len(STRATEGIC_REGIONS)
            seen.add(held)
            action = env.aec.policy_action(aggressive)
            _, _, done, _, _ = env.step(action)
        assert env.strategic_regions_held() == 0  # the game is over
    assert max(seen) > 0


def test_pool_draws_heuristics_only_from_the_configured_list(tmp_path: Path) -> None:
    """`heuristic_opponents` decides which heuristics the pool seats (here strategist only)."""
    pool = OpponentPool(str(tmp_path), 4, p_self=0.0, p_heuristic=1.0, heuristics=("strategist",))
    rng = np.random.default_rng(0)
    names = {getattr(p, "name", None) for _ in range(20) for p in pool(rng)}
    assert names == {"strategist"}


def test_heuristic_opponents_must_be_built_in_policies() -> None:
    """An unknown or empty list is refused at configuration time, naming the valid names."""
    with pytest.raises(ValueError, match="unknown: \\['nope'\\].*built-in"):
        PPOSelfPlayConfig(heuristic_opponents=("strategist", "nope"))
    with pytest.raises(ValueError, match="at least one"):
        PPOSelfPlayConfig(heuristic_opponents=())
    assert PPOSelfPlayConfig(heuristic_opponents=("strategist",)).heuristic_opponents == (
        "strategist",
    )
