"""Dynamics of dune_v1: rewards, terminations and dead steps, illegal actions, bad input,
snapshots."""

from __future__ import annotations

import json
import pickle
import random
from typing import Any

import numpy as np
import pytest

import dune_env
from dune_env.engine import ConfigError, DecisionKind, Game, SnapshotError
from dune_env.environment import (
    KIND_OFFSET,
    NUM_ACTIONS,
    STATE_LAYOUT,
    IllegalActionError,
    InvalidActionError,
)
from dune_env.environment.aec import raw_env

from .helpers import agent_steps, play, random_action

# --- rewards and terminations --------------------------------------------------------------------


@pytest.mark.parametrize("make", [dune_env.env, dune_env.raw_env], ids=["wrapped", "raw"])
@pytest.mark.parametrize("num_players", [3, 5, 8])
def test_game_end_rewards_and_dead_steps(make: Any, num_players: int) -> None:
    env = make(num_players=num_players, win_reward=3.0, loss_reward=-0.5)
    env.reset(seed=num_players)
    rng = random.Random(0)
    returns = dict.fromkeys(env.possible_agents, 0.0)
    done_seen: list[str] = []
    for agent in env.agent_iter():
        obs, reward, termination, truncation, info = env.last()
        assert isinstance(reward, float)
        returns[agent] += reward
        assert truncation is False
        if termination:
            assert all(env.terminations.values())  # everyone ends together
            assert not obs["action_mask"].any()
            assert info["decision"] is None
            done_seen.append(agent)
            env.step(None)
        else:
            assert env.infos[agent]["decision"] is not None
            env.step(random_action(obs["action_mask"], rng))
    game = env.unwrapped.game
    assert game.terminal and env.agents == []
    assert sorted(done_seen) == env.possible_agents  # each agent stepped out once
    assert [returns[a] for a in env.possible_agents] == game.rewards
    assert set(game.rewards) <= {3.0, -0.5}
    assert game.rewards.count(3.0) == len(game.winners)
    # stepping after every agent stepped out is an error, wrapped or raw
    with pytest.raises(InvalidActionError, match="game is over.*call reset"):
        env.step(0)
    with pytest.raises(InvalidActionError, match="game is over"):
        env.step(None)


def test_dead_agent_must_step_with_none() -> None:
    env = dune_env.env(num_players=3)
    env.reset(seed=1)
    rng = random.Random(1)
    while not any(env.terminations.values()):
        env.step(random_action(env.last()[0]["action_mask"], rng))
    agent = env.agent_selection
    with pytest.raises(InvalidActionError, match=f"{agent} is done.*step it with None"):
        env.step(0)
    env.step(None)
    assert agent not in env.agents


def test_rewards_arrive_only_at_the_end_and_sum_to_the_game_rewards() -> None:
    env = raw_env(num_players=4)
    env.reset(seed=9)
    totals = dict.fromkeys(env.possible_agents, 0.0)

    def collect(env: raw_env, agent: str) -> None:
        for a, r in env.rewards.items():
            totals[a] += r
            assert r == 0.0  # nothing before the end

    play(env, random.Random(9), collect)
    assert env.game is not None
    assert len(env.game.winners) <= 2 and env.game.terminal


# --- illegal actions -----------------------------------------------------------------------------


def _first_illegal(env: Any) -> int:
    mask = env.observe(env.agent_selection)["action_mask"]
    return int(np.flatnonzero(mask == 0)[0])


def test_illegal_action_raises_by_default_and_changes_nothing() -> None:
    env = dune_env.env(num_players=5)
    env.reset(seed=2)
    before = env.unwrapped.snapshot()
    agent = env.agent_selection
    faction = env.infos[agent]["faction_name"]
    action = _first_illegal(env)
    pattern = (
        rf"action {action} \('CHOOSE_FACTION: Atreides'\) is not legal for {agent} "
        rf"\({faction}\) at decision \w+; legal actions: \[\d+='"
    )
    with pytest.raises(IllegalActionError, match=pattern):
        env.step(action)
    assert env.unwrapped.snapshot() == before
    assert env.agent_selection == agent
    assert not any(env.terminations.values())
    assert isinstance(IllegalActionError("x"), ValueError)


@pytest.mark.parametrize("make", [dune_env.env, dune_env.raw_env], ids=["wrapped", "raw"])
def test_penalize_ends_the_game_with_the_penalty(make: Any) -> None:
    env = make(num_players=5, illegal_action="penalize", illegal_penalty=-7.5)
    env.reset(seed=3)
    rng = random.Random(3)
    for _ in range(30):  # somewhere into the game
        env.step(random_action(env.last()[0]["action_mask"], rng))
    offender = env.agent_selection
    env.step(_first_illegal(env))
    assert all(env.terminations.values())
    assert env.rewards == {a: (-7.5 if a == offender else 0.0) for a in env.possible_agents}
    assert env.infos[offender]["illegal_action"] >= 0
    seen = {}
    for agent in env.agent_iter():
        _, reward, termination, _, _ = env.last()
        assert termination
        seen[agent] = reward
        env.step(None)
    assert seen == {a: (-7.5 if a == offender else 0.0) for a in env.possible_agents}


# --- bad input -----------------------------------------------------------------------------------


@pytest.mark.parametrize("make", [dune_env.env, dune_env.raw_env], ids=["wrapped", "raw"])
def test_bad_actions_name_the_problem(make: Any) -> None:
    env = make(num_players=4)
    env.reset(seed=0)
    agent = env.agent_selection
    before = env.unwrapped.snapshot()
    for bad in (1.0, "3", [3], True, np.float32(2), np.array([1, 2])):
        with pytest.raises(TypeError, match=f"action of {agent} must be an int action id"):
            env.step(bad)
    for bad in (-1, NUM_ACTIONS, 10**9, np.int64(NUM_ACTIONS)):
        with pytest.raises(InvalidActionError, match=rf"action {bad} of {agent} is out of range"):
            env.step(bad)
    with pytest.raises(InvalidActionError, match="must act: None is only for agents that are done"):
        env.step(None)
    assert env.unwrapped.snapshot() == before
    legal = int(np.flatnonzero(env.last()[0]["action_mask"])[0])
    env.step(np.int32(legal))  # numpy integers are fine
    legal = int(np.flatnonzero(env.last()[0]["action_mask"])[0])
    env.step(np.array(legal))


def test_bad_configuration_names_the_problem() -> None:
    with pytest.raises(
        ConfigError,
        match=r"unknown configuration key\(s\) \['players'\].*known keys:.*num_players.*"
        r"illegal_action",
    ):
        dune_env.env(players=5)
    with pytest.raises(
        ConfigError, match=r"render_mode='video' is unknown.*'ansi', 'human', 'rgb_array'"
    ):
        dune_env.env(render_mode="video")
    with pytest.raises(
        ConfigError, match="illegal_action='ignore' is unknown.*'raise', 'penalize'"
    ):
        dune_env.env(illegal_action="ignore")
    with pytest.raises(ConfigError, match="illegal_penalty must be a finite number"):
        dune_env.env(illegal_penalty=float("nan"))
    with pytest.raises(ConfigError, match="num_players=2 is not allowed"):
        dune_env.env(num_players=2)
    with pytest.raises(ConfigError, match="faction 6 is not available with 4 players"):
        dune_env.env(num_players=4, faction_mode="assigned", factions=[0, 1, 2, 6])
    with pytest.raises(ConfigError, match="factions must be a list or tuple"):
        dune_env.env(num_players=3, faction_mode="assigned", factions="012")


def test_misuse_before_reset_and_bad_reset_arguments() -> None:
    raw = raw_env(num_players=3)
    with pytest.raises(RuntimeError, match="call reset"):
        raw.step(0)
    with pytest.raises(RuntimeError, match="call reset"):
        raw.observe("player_0")
    wrapped = dune_env.env(num_players=3)
    with pytest.raises(AssertionError, match="reset"):
        wrapped.step(0)
    with pytest.raises(TypeError, match="seed must be an int"):
        raw.reset(seed=1.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="seed must be in"):
        raw.reset(seed=-1)
    with pytest.raises(TypeError, match="options must be a dict"):
        raw.reset(seed=1, options=[1])  # type: ignore[arg-type]
    raw.reset(seed=1, options={"anything": 1})
    with pytest.raises(KeyError, match="unknown agent 'player_3'"):
        raw.observe("player_3")
    with pytest.raises(KeyError, match="unknown agent"):
        raw.action_space("nobody")


# --- infos, state, snapshots ---------------------------------------------------------------------


def test_infos_name_faction_and_pending_decision_during_a_draft() -> None:
    env = raw_env(num_players=4, faction_mode="draft")
    env.reset(seed=4)
    assert all(
        info["faction"] == -1 and info["faction_name"] is None for info in env.infos.values()
    )
    agent = env.agent_selection
    assert env.infos[agent]["decision"] == "CHOOSE_FACTION"
    choose_guild = KIND_OFFSET[DecisionKind.CHOOSE_FACTION] + 5
    env.step(choose_guild)
    assert env.infos[agent]["faction"] == 5
    assert env.infos[agent]["faction_name"] == "Spacing Guild"
    assert env.infos[agent]["decision"] is None or env.agent_selection == agent


def test_state_is_absolute_and_holds_the_hidden_fields() -> None:
    env = raw_env(num_players=5, faction_mode="assigned", factions=(6, 0, 1, 2, 4))
    env.reset(seed=0)
    play_until = DecisionKind.FIX_DICE
    rng = random.Random(0)
    while env.game is not None and env.game.state.pending_kind != play_until:
        env.step(random_action(env.action_mask(), rng))
    state = env.state()
    assert state.dtype == np.float32 and state.shape == (STATE_LAYOUT.size,)
    assert env.state_space.contains(state)
    prediction = env.game.state.bg_prediction
    assert STATE_LAYOUT.view(state, "bg_prediction").argmax() == prediction
    onehots = STATE_LAYOUT.view(state, "seat_faction")
    assert [int(onehots[s].argmax()) for s in range(5)] == [6, 0, 1, 2, 4]
    assert state is not env.state()  # fresh arrays


def test_snapshot_and_restore_replay_exactly() -> None:
    env = raw_env(num_players=6)
    env.reset(seed=12)
    rng = random.Random(12)
    for _ in range(150):
        env.step(random_action(env.action_mask(), rng))
    snapshot = env.snapshot()
    json.dumps(snapshot)  # JSON-compatible
    actions: list[int] = []
    observations = []
    while not any(env.terminations.values()):
        action = random_action(env.action_mask(), rng)
        observations.append(env.observe(env.agent_selection)["observation"])
        actions.append(action)
        env.step(action)
    final = env.snapshot()
    env.restore(json.dumps(snapshot))  # JSON text works too
    assert env.agents == env.possible_agents and not any(env.terminations.values())
    for action, obs in zip(actions, observations, strict=True):
        np.testing.assert_array_equal(env.observe(env.agent_selection)["observation"], obs)
        env.step(action)
    assert env.snapshot() == final
    assert all(env.terminations.values())


def test_restore_errors_and_finished_games() -> None:
    env = raw_env(num_players=3)
    other = Game(num_players=4, seed=0)
    with pytest.raises(ValueError, match="4-player game; this environment has 3 agents"):
        env.restore(other.snapshot())
    with pytest.raises(SnapshotError):
        env.restore({"version": 1})
    with pytest.raises(TypeError, match="snapshot dict or its JSON text"):
        env.restore(42)  # type: ignore[arg-type]
    finished = Game(num_players=3, seed=5)
    rng = random.Random(5)
    while not finished.terminal:
        options = finished.legal_options()
        finished.apply(options[rng.randrange(len(options))])
    env.restore(finished.snapshot())
    assert all(env.terminations.values())
    assert [env._cumulative_rewards[a] for a in env.possible_agents] == finished.rewards
    for _ in env.possible_agents:
        env.step(None)
    assert env.agents == []


def test_env_pickles_by_configuration() -> None:
    env = raw_env(num_players=4, strict_control=True, illegal_action="penalize")
    copy = pickle.loads(pickle.dumps(env))
    assert copy.config == env.config


def test_wrapped_agent_iter_plays_to_the_end() -> None:
    env = dune_env.env(num_players=7, faction_mode="draft")
    env.reset(seed=7)
    steps = sum(1 for _ in agent_steps(env, random.Random(7)))
    assert steps > 100 and env.agents == []
