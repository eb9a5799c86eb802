"""The opponent pool: the opponent mix (validated, never a random seat when p_random is 0),
pairwise results recorded per opponent, prioritized fictitious self-play (PFSP) weights that
grow with the learner's loss rate, the results kept in the run folder across resumed sessions;
the environments' final infos that feed it."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

from training.opponent_pool import (
    RESULTS_FILE,
    OpponentPool,
    PoolResults,
    learner_won,
    pairwise_outcomes,
)
from training.ppo_selfplay import PPOSelfPlayConfig, train

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
    for name, (decided, wins) in records.items():
        for g in range(decided):
            results.record(name, won=g < wins)
    results.save()


def test_learner_won_is_the_highest_reward_not_shared_by_everyone() -> None:
    """END-7 rewards: +1 to each winner, -1 to the others (alliance wins have two winners)."""
    assert learner_won([1.0, -1.0, -1.0, -1.0], 0)
    assert not learner_won([1.0, -1.0, -1.0, -1.0], 1)
    assert learner_won([1.0, 1.0, -1.0, -1.0, -1.0], 1)  # an alliance win
    assert not learner_won([-1.0, -1.0, -1.0, -1.0], 2)  # nobody won


def test_pairwise_outcomes_credit_only_the_seats_that_finished_apart_from_the_learner() -> None:
    """END-7 rewards (+1 each winner, -1 the others): a learner's win beats every other seat; a
    game won by one opponent is a loss against that opponent only (the other losers finished
    level with the learner); nobody winning, or winning together (an alliance, END-2), decides
    nothing between the two."""
    names = [None, "strategist", "economic", "snapshot_000000100"]
    assert pairwise_outcomes(names, [1.0, -1.0, -1.0, -1.0], 0) == [
        ("strategist", True), ("economic", True), ("snapshot_000000100", True),
    ]  # fmt: skip
    assert pairwise_outcomes(names, [-1.0, -1.0, 1.0, -1.0], 0) == [("economic", False)]
    assert pairwise_outcomes(names, [-1.0] * 4, 0) == []
    # Allied with seat 2 in a win: no outcome against it; two strategist seats, two pairings.
    five = ["aggressive", None, "strategist", "economic", "strategist"]
    assert pairwise_outcomes(five, [-1.0, 1.0, 1.0, -1.0, -1.0], 1) == [
        ("aggressive", True), ("economic", True), ("strategist", True),
    ]  # fmt: skip


def test_a_game_won_by_one_opponent_is_not_held_against_the_others(tmp_path: Path) -> None:
    """The former bookkeeping credited the learner's loss to every opponent of the game, so
    the opponents that lost with it looked as strong as the winner; now only the winner's
    record shows the loss, and its pairwise win rate falls below the others'."""
    results = PoolResults(tmp_path)
    opponents = [None, "strategist", "economic", "aggressive"]
    for _ in range(10):
        results.record_game(opponents, [-1.0, 1.0, -1.0, -1.0], seat=0)  # strategist wins
    results.record_game(opponents, [1.0, -1.0, -1.0, -1.0], seat=0)  # the learner wins once
    assert results.records == {"strategist": [11, 1], "economic": [1, 1], "aggressive": [1, 1]}
    weights = results.weights(["strategist", "economic", "aggressive"], 3.0, 0.5, 4.0)
    assert weights[0] > 5 * weights[1] and weights[1] == pytest.approx(weights[2])


def test_pfsp_weights_grow_with_the_learners_loss_rate(tmp_path: Path) -> None:
    """Weight (1 - win rate)^p with the pairwise win rate smoothed by prior pairings at 0.5."""
    results = PoolResults(tmp_path)
    for won in [False] * 6:
        results.record("economic", won)
    for won in [True, False] * 6:
        results.record("aggressive", won)
    assert results.records == {"economic": [6, 0], "aggressive": [12, 6]}
    rate_e = results.win_rate("economic", 0.5, 4.0)
    rate_a = results.win_rate("aggressive", 0.5, 4.0)
    assert rate_e == pytest.approx(2 / 10) and rate_a == pytest.approx(8 / 16)
    weights = results.weights(["economic", "aggressive", "never_played"], 2.0, 0.5, 4.0)
    raw = np.array([(1 - 0.2) ** 2, (1 - 0.5) ** 2, 0.5**2])
    assert weights == pytest.approx(raw / raw.sum())
    assert weights[0] > weights[1] == pytest.approx(weights[2])  # lost most to economic
    uniform = results.weights(["economic", "aggressive"], 0.0, 0.5, 4.0)
    assert uniform == pytest.approx([0.5, 0.5])  # exponent 0: uniform


def test_the_default_pfsp_weighting_discriminates_between_opponents(tmp_path: Path) -> None:
    """With the default exponent (3), an opponent the learner beats in 30% of their decided
    pairings is drawn more than twice as often as an even one and 10x as often as one it
    beats 70% of the time; the former (1 - w)^2 on whole-game win rates 0.15 vs 0.35 gave
    less than 1.7x."""
    exponent = PPOSelfPlayConfig().pool.pfsp_exponent
    results = PoolResults(tmp_path)
    for name, wins in (("strong", 30), ("even", 50), ("weak", 70)):
        for g in range(100):
            results.record(name, g < wins)
    strong, even, weak = results.weights(["strong", "even", "weak"], exponent, 0.5, 0.0)
    assert strong / even > 2.5 and strong / weak > 10


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
    (tmp_path / RESULTS_FILE).write_text(json.dumps({"version": 3, "opponents": {}}))
    with pytest.raises(ValueError, match="not a version-2 pool results file"):
        results.load()
    bad = {"version": 2, "opponents": {"aggressive": {"decided": 2, "wins": 3}}}
    (tmp_path / RESULTS_FILE).write_text(json.dumps(bad))
    with pytest.raises(ValueError, match="aggressive has 3 wins in 2 pairings"):
        results.load()
    # A version-1 file (whole games credited to every opponent) is not comparable: not read.
    old = {"version": 1, "opponents": {"aggressive": {"games": 9, "wins": 1}}}
    (tmp_path / RESULTS_FILE).write_text(json.dumps(old))
    results.load()
    assert results.records == {}
    with pytest.raises(ValueError, match="weighting='best'"):
        OpponentPool(str(tmp_path), 4, 0.5, 0.5, weighting="best")


@pytest.mark.parametrize(
    ("mix", "message"),
    [
        ((0.4, 0.3, 0.0), "must sum to 1.*got 0.4 \\+ 0.3 \\+ 0.0 = 0.7"),
        ((0.4, 0.6, 0.3), "= 1.3"),
        ((-0.1, 1.1, 0.0), "p_self=-0.1 must be a probability in \\[0, 1\\]"),
        ((0.0, 1.5, -0.5), "p_heuristic=1.5 must be a probability"),
    ],
)
def test_the_opponent_mix_is_validated(
    tmp_path: Path, mix: tuple[float, ...], message: str
) -> None:
    """p_self + p_heuristic + p_random: each a probability, summing to 1, or a clear error from
    the pool and from the configuration (before anything runs)."""
    p_self, p_heuristic, p_random = mix
    with pytest.raises(ValueError, match=message):
        OpponentPool(str(tmp_path), 4, p_self, p_heuristic, p_random=p_random)
    with pytest.raises(ValueError, match=message):
        PPOSelfPlayConfig(p_self=p_self, p_heuristic=p_heuristic, p_random=p_random)


def test_the_pool_never_seats_random_when_p_random_is_zero(tmp_path: Path) -> None:
    """Seeded draws with snapshots in the pool and without: no seat is ever the random policy
    (None) when p_random is 0, while p_random 0.3 does seat it (so the check can fail)."""
    from sb3_contrib import MaskablePPO

    from dune_env.vector import DuneVecEnv
    from training.opponent_pool import FrozenPolicy, save_snapshot

    empty = tmp_path / "empty"
    empty.mkdir()
    filled = tmp_path / "filled"
    model = MaskablePPO("MlpPolicy", DuneVecEnv(1, num_players=4), policy_kwargs={"net_arch": [8]})
    save_snapshot(model, filled, 100, 5)
    for pool_dir in (empty, filled):
        pool = OpponentPool(str(pool_dir), 4, 0.4, 0.6, heuristics=("strategist", "economic"))
        seats = [s for _ in range(150) for s in pool(np.random.default_rng(7))]
        seats += [s for g in range(150) for s in pool(np.random.default_rng(g))]
        assert None not in seats
        snapshots = sum(isinstance(s, FrozenPolicy) for s in seats)
        assert (snapshots > 0) == (pool_dir == filled)
        mixed = OpponentPool(str(pool_dir), 4, 0.4, 0.3, p_random=0.3)
        assert None in [s for g in range(50) for s in mixed(np.random.default_rng(g))]


def test_final_infos_name_the_opponents_and_count_the_decisions() -> None:
    """Both the single-agent env and the vector env end an episode with `opponents` (None at
    the learner's seat) and `decisions` (of every seat), identically for the same seed."""
    from dune_env.policies.registry import load_policy
    from dune_env.single_agent import DuneSingleAgentEnv
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
        out_dir=str(tmp_path),
        config_name="pfsp",
        p_self=0.4,
        p_heuristic=0.4,
        p_random=0.2,
        **TINY,
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
    edited = {**first, "economic": {"decided": 1000, "wins": 0}}
    path.write_text(json.dumps({"version": 2, "opponents": edited}))
    train(dataclasses.replace(cfg, total_timesteps=512))
    second = json.loads(path.read_text())["opponents"]
    assert second["economic"]["decided"] >= 1000 and second["economic"]["wins"] <= 256
    assert sum(r["decided"] for r in second.values()) > sum(r["decided"] for r in edited.values())
    pool = OpponentPool(str(cfg.run_dir / "pool"), 4, 0.0, 1.0, weighting="pfsp")
    weights = pool.probabilities(["aggressive", "economic"])
    assert weights[1] > weights[0]  # the never-beaten economic is drawn most


def test_strategic_regions_held_is_public_and_bounded() -> None:
    """The shaping potential comes from `DuneSingleAgentEnv.strategic_regions_held()` (DEF-6,
    END-1): 0 without a game, between 0 and the strategic regions during one, and not always 0."""
    from dune_env.engine.rules import STRATEGIC_REGIONS
    from dune_env.policies.registry import load_policy
    from dune_env.single_agent import DuneSingleAgentEnv

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
    assert PPOSelfPlayConfig(heuristic_opponents=("strategist",)).pool.heuristic_opponents == (
        "strategist",
    )
