"""The single-agent Gymnasium wrapper: checkers, reward credit, masks, opponents."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env as gym_check_env
from stable_baselines3.common.env_checker import check_env as sb3_check_env

from dune_env import DuneSingleAgentEnv
from dune_env.environment import NUM_ACTIONS, OBS_LAYOUT, InvalidActionError


def _play_episode(env: DuneSingleAgentEnv, seed: int | None) -> tuple[float, dict[str, Any], int]:
    obs, info = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    total, steps = 0.0, 0
    while True:
        mask = env.action_masks()
        assert mask.dtype == bool and mask.any()
        assert env.observation_space.contains(obs)
        action = int(rng.choice(np.flatnonzero(mask)))
        obs, reward, terminated, truncated, info = env.step(action)
        assert type(reward) is float and type(terminated) is bool and truncated is False
        total += reward
        steps += 1
        if terminated:
            return total, info, steps


@pytest.mark.parametrize("learner", [0, 2, "player_1", "rotate"])
def test_episode_return_equals_the_final_game_reward(learner: Any) -> None:
    env = DuneSingleAgentEnv(learner=learner, num_players=5, win_reward=1.0, loss_reward=-1.0)
    outcomes = set()
    for episode in range(8):
        total, info, _ = _play_episode(env, seed=episode if episode % 2 else None)
        seat = env.learner_seat
        assert info["final_rewards"][seat] == total
        outcomes.add(total)
    assert outcomes <= {1.0, -1.0}


def test_rewards_on_other_players_turns_are_credited() -> None:
    """Find episodes whose game ended on another seat's decision: the learner's last
    transition still carries its final reward."""
    env = DuneSingleAgentEnv(learner=1, num_players=4)
    ended_elsewhere = 0
    for seed in range(12):
        total, info, _ = _play_episode(env, seed)
        game = env.aec.game
        assert game is not None
        last_decider = game.state.history[-1][0]
        if last_decider != 1:
            ended_elsewhere += 1
        assert total == info["final_rewards"][1] == game.rewards[1]
    assert ended_elsewhere > 0


def test_rotation_moves_the_learner_and_restarts_on_seeded_reset() -> None:
    env = DuneSingleAgentEnv(learner="rotate", num_players=3)
    seats = []
    for i in range(5):
        env.reset(seed=100 if i == 3 else None)
        seats.append(env.learner_seat)
        assert env.aec.agent_selection == f"player_{env.learner_seat}"
    assert seats == [0, 1, 2, 0, 1]


def test_gymnasium_check_env() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gym_check_env(DuneSingleAgentEnv(num_players=5))
        gym_check_env(DuneSingleAgentEnv(learner="rotate", num_players=3, faction_mode="draft"))


def test_sb3_check_env() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # not even a warning
        sb3_check_env(DuneSingleAgentEnv(num_players=5), warn=True)
        sb3_check_env(DuneSingleAgentEnv(learner=3, num_players=8), warn=True)


def test_illegal_action_ends_the_episode_with_the_penalty() -> None:
    env = DuneSingleAgentEnv(num_players=5, illegal_penalty=-3.0)
    obs, _ = env.reset(seed=0)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    obs, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, truncated) == (-3.0, True, False)
    assert info["illegal_action"] == illegal
    assert not env.action_masks().any()
    with pytest.raises(RuntimeError, match="episode is over: call reset"):
        env.step(0)
    with pytest.raises(InvalidActionError, match="out of range"):
        env.reset(seed=0)
        env.step(NUM_ACTIONS)
    with pytest.raises(TypeError, match="must be an int action id"):
        env.step(0.5)


def test_opponent_policies_are_called_with_their_own_view() -> None:
    calls: list[tuple[int, int]] = []

    def first_legal(observation: np.ndarray, mask: np.ndarray) -> int:
        assert observation.shape == (OBS_LAYOUT.size,) and mask.dtype == np.int8
        seat_zero_faction = OBS_LAYOUT.view(observation, "seat_faction")[0].argmax()
        decider = OBS_LAYOUT.view(observation, "decision_seat").argmax()
        calls.append((int(seat_zero_faction), int(decider)))
        return int(np.flatnonzero(mask)[0])

    env = DuneSingleAgentEnv(
        learner=0, opponents={"player_1": first_legal, 2: first_legal}, num_players=3
    )
    _play_episode(env, seed=4)
    assert calls and all(decider == 0 for _, decider in calls)  # egocentric: "me"
    env = DuneSingleAgentEnv(learner=0, opponents=[None, first_legal, None], num_players=3)
    _play_episode(env, seed=5)
    env = DuneSingleAgentEnv(learner=0, opponents=first_legal, num_players=3)
    _play_episode(env, seed=6)


def test_bad_wrapper_arguments() -> None:
    with pytest.raises(ValueError, match="learner=7 is not a seat"):
        DuneSingleAgentEnv(learner=7, num_players=5)
    with pytest.raises(ValueError, match="opponents has 2 entries; give one per seat"):
        DuneSingleAgentEnv(opponents=[None, None], num_players=3)
    with pytest.raises(TypeError, match="opponents must be a callable"):
        DuneSingleAgentEnv(opponents=42, num_players=3)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="opponents key 'x' is not a seat"):
        DuneSingleAgentEnv(opponents={"x": print}, num_players=3)  # type: ignore[dict-item]
    with pytest.raises(ValueError, match="do not pass illegal_action"):
        DuneSingleAgentEnv(illegal_action="raise", num_players=3)
    env = DuneSingleAgentEnv(num_players=3)
    with pytest.raises(RuntimeError, match="call reset"):
        env.step(0)


def test_stable_baselines3_trains_on_the_wrapper() -> None:
    """Existing training code runs unchanged: a few PPO updates on the flat observation."""
    torch = pytest.importorskip("torch")
    from stable_baselines3 import PPO

    torch.set_num_threads(1)
    env = DuneSingleAgentEnv(learner="rotate", num_players=3)
    model = PPO("MlpPolicy", env, n_steps=64, batch_size=32, n_epochs=1, seed=0, device="cpu")
    model.learn(total_timesteps=128)
    obs, _ = env.reset(seed=1)
    action, _ = model.predict(obs, deterministic=True)
    assert 0 <= int(action) < NUM_ACTIONS


@pytest.mark.parametrize("opponents", ["random", "aggressive-eps20"])
def test_reset_with_a_seed_replays_the_game_with_stochastic_named_opponents(opponents: str) -> None:
    """Same seed and same actions give the same game, also when the opponents are stochastic
    policies given by name: they are reseeded from each game's seed, as in the harness."""

    def play(env: DuneSingleAgentEnv) -> list[bytes]:
        obs, info = env.reset(seed=7)
        seen = [obs.tobytes()]
        for _ in range(60):
            action = int(np.flatnonzero(env.action_masks())[0])
            obs, _, terminated, truncated, _ = env.step(action)
            seen.append(obs.tobytes())
            if terminated or truncated:
                break
        return seen

    env = DuneSingleAgentEnv(num_players=4, opponents=opponents)
    first = play(env)
    assert play(env) == first  # the same object, reset again
    assert play(DuneSingleAgentEnv(num_players=4, opponents=opponents)) == first
