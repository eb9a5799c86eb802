"""The batched vector environments (`dune_env.vector`): equality with `DuneSingleAgentEnv`,
seeds, autoreset, batched opponents, bad input, and the SB3 / Gymnasium integrations."""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
import pytest

from dune_env import DuneSingleAgentEnv
from dune_env.engine.game import IllegalOptionError
from dune_env.environment import NUM_ACTIONS, OBS_LAYOUT, IllegalActionError, InvalidActionError
from dune_env.policies.heuristics import AggressivePolicy
from dune_env.policies.observation import ObservationPolicy, ObservationPolicyError
from dune_env.vector import BatchedGames, DuneVectorEnv


def first_legal(observation: np.ndarray, mask: np.ndarray) -> int:
    """A deterministic observation policy (its choice depends on the observation)."""
    legal = np.flatnonzero(mask)
    return int(legal[int(observation.sum() * 1000) % legal.size])


class BatchedFirstLegal:
    """`first_legal` with the batched interface; records the size of each batch."""

    def __init__(self) -> None:
        self.batches: list[int] = []

    def __call__(self, observation: np.ndarray, mask: np.ndarray) -> int:
        raise AssertionError("a policy with act_batch is called batched")

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        assert observations.dtype == np.float32 and masks.dtype == np.int8
        self.batches.append(len(observations))
        return np.array([first_legal(o, m) for o, m in zip(observations, masks, strict=True)])


def random_actions(rng: np.random.Generator, masks: np.ndarray) -> np.ndarray:
    actions = np.zeros(len(masks), dtype=np.int64)
    for i, row in enumerate(masks):
        legal = np.flatnonzero(row)
        actions[i] = legal[rng.integers(legal.size)] if legal.size else 0
    return actions


def play(envs: DuneVectorEnv, seed: Any, steps: int, action_seed: int = 0) -> list[Any]:
    """The whole record (observations, masks, rewards, terminations) of `steps` random steps."""
    obs, infos = envs.reset(seed=seed)
    rng = np.random.default_rng(action_seed)
    record: list[Any] = [obs, infos["action_mask"]]
    for _ in range(steps):
        obs, rewards, terminated, _, infos = envs.step(random_actions(rng, infos["action_mask"]))
        record += [obs, infos["action_mask"], rewards, terminated]
    return record


def assert_same_record(a: list[Any], b: list[Any]) -> None:
    assert len(a) == len(b)
    for x, y in zip(a, b, strict=True):
        np.testing.assert_array_equal(x, y)


# --- equality with the single-agent environment ---------------------------------------------


@pytest.mark.parametrize(
    ("learner", "opponents"),
    [
        (2, None),
        ("rotate", None),
        ("rotate", {1: AggressivePolicy(seed=7), 3: first_legal}),
        (1, ObservationPolicy(first_legal)),
    ],
)
def test_a_sub_env_plays_exactly_as_the_single_agent_env(learner: Any, opponents: Any) -> None:
    """Same seed and same learner actions: same observations, masks, rewards and ends as
    DuneSingleAgentEnv, including rewards arriving on other seats' turns."""
    import copy

    envs = DuneVectorEnv(3, learner=learner, opponents=copy.deepcopy(opponents), num_players=4)
    single = DuneSingleAgentEnv(learner=learner, opponents=copy.deepcopy(opponents), num_players=4)
    obs, infos = envs.reset(seed=20)
    single_obs, _ = single.reset(seed=22)  # sub-env 2 has seed 20 + 2
    rng = np.random.default_rng(5)
    episodes = 0
    for _ in range(250):
        np.testing.assert_array_equal(obs[2], single_obs)
        np.testing.assert_array_equal(infos["action_mask"][2], single.action_masks())
        assert infos["learner_seat"][2] == single.learner_seat
        actions = random_actions(rng, infos["action_mask"])
        obs, rewards, terminated, truncated, infos = envs.step(actions)
        single_obs, reward, done, _, single_info = single.step(int(actions[2]))
        assert rewards[2] == reward and terminated[2] == done and not truncated.any()
        if done:
            episodes += 1
            np.testing.assert_array_equal(infos["final_obs"][2], single_obs)
            final_info = infos["final_info"]
            assert final_info["final_rewards"][2] == single_info["final_rewards"]
            single_obs, _ = single.reset()
    assert episodes >= 2


def test_sub_env_trajectories_do_not_depend_on_the_number_of_sub_envs() -> None:
    opponents = {1: AggressivePolicy(seed=3), 2: BatchedFirstLegal()}
    small = DuneVectorEnv(2, learner="rotate", opponents=opponents, num_players=3)
    large = DuneVectorEnv(5, learner="rotate", opponents=opponents, num_players=3)
    obs_s, info_s = small.reset(seed=[11, 12])
    obs_l, info_l = large.reset(seed=[40, 11, 41, 12, 42])
    rng = np.random.default_rng(0)
    for _ in range(120):
        np.testing.assert_array_equal(obs_s, obs_l[[1, 3]])
        np.testing.assert_array_equal(info_s["action_mask"], info_l["action_mask"][[1, 3]])
        actions = random_actions(rng, info_l["action_mask"])
        obs_s, rew_s, term_s, _, info_s = small.step(actions[[1, 3]])
        obs_l, rew_l, term_l, _, info_l = large.step(actions)
        np.testing.assert_array_equal(rew_s, rew_l[[1, 3]])
        np.testing.assert_array_equal(term_s, term_l[[1, 3]])


def test_same_seeds_same_trajectories_and_different_seeds_differ() -> None:
    def make() -> DuneVectorEnv:
        return DuneVectorEnv(4, learner="rotate", num_players=5)

    first = play(make(), 3, 150)
    assert_same_record(first, play(make(), 3, 150))
    other = play(make(), 4, 150)
    assert not np.array_equal(first[0], other[0])
    # Sub-envs are seeded apart: seed s gives sub-env i the seed s + i.
    assert not np.array_equal(first[0][0], first[0][1])
    np.testing.assert_array_equal(first[0][1], other[0][0])


def test_episode_return_is_the_final_game_reward() -> None:
    envs = DuneVectorEnv(6, learner="rotate", num_players=4, win_reward=1.0, loss_reward=-1.0)
    obs, infos = envs.reset(seed=0)
    rng = np.random.default_rng(1)
    returns = np.zeros(6)
    finished = 0
    while finished < 12:
        obs, rewards, terminated, _, infos = envs.step(random_actions(rng, infos["action_mask"]))
        returns += rewards
        for i in np.flatnonzero(terminated):
            final = infos["final_info"]
            assert returns[i] == final["final_rewards"][i][final["seat"][i]]
            assert returns[i] in (1.0, -1.0)
            returns[i] = 0.0
            finished += 1
        assert infos["action_mask"].any(axis=1).all()  # SameStep: every row has a decision
        assert envs.observation_space.contains(obs)


# --- batched opponents --------------------------------------------------------------------


def test_observation_policies_are_called_once_per_round_for_all_waiting_sub_envs() -> None:
    batched = BatchedFirstLegal()
    envs = DuneVectorEnv(8, learner=0, opponents=[None, batched, batched, None], num_players=4)
    record = play(envs, 9, 40)
    assert max(batched.batches) > 1  # several sub-envs answered by one call
    assert sum(batched.batches) > len(batched.batches)
    # The per-row fallback (a plain callable) and ObservationPolicy give the same games.
    plain = DuneVectorEnv(
        8, learner=0, opponents=[None, first_legal, first_legal, None], num_players=4
    )
    assert_same_record(record, play(plain, 9, 40))
    wrapped = ObservationPolicy(first_legal)
    adapted = DuneVectorEnv(8, learner=0, opponents=[None, wrapped, wrapped, None], num_players=4)
    assert_same_record(record, play(adapted, 9, 40))


def test_engine_policies_are_copied_per_sub_env() -> None:
    """A stateful engine policy (a seeded heuristic) shared in `opponents` gets one copy per
    sub-env, so every sub-env with the same seed plays the same game."""
    envs = DuneVectorEnv(3, learner=0, opponents=AggressivePolicy(seed=1), num_players=3)
    obs, infos = envs.reset(seed=[5, 5, 5])
    for _ in range(60):
        assert (obs == obs[0]).all()
        action = random_actions(np.random.default_rng(0), infos["action_mask"][:1])
        obs, _, _, _, infos = envs.step(np.repeat(action, 3))


# --- autoreset ----------------------------------------------------------------------------


def test_next_step_autoreset() -> None:
    envs = DuneVectorEnv(4, autoreset_mode="NextStep", learner="rotate", num_players=3)
    assert envs.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.NEXT_STEP
    obs, infos = envs.reset(seed=2)
    rng = np.random.default_rng(0)
    ended = 0
    pending = np.zeros(4, dtype=bool)
    seats = infos["learner_seat"]
    while ended < 4:
        actions = random_actions(rng, infos["action_mask"])
        actions[pending] = NUM_ACTIONS - 1  # ignored: those sub-envs are being reset
        obs, rewards, terminated, _, infos = envs.step(actions)
        assert (rewards[pending] == 0).all() and not terminated[pending].any()
        assert (infos["learner_seat"][pending] == (seats[pending] + 1) % 3).all()
        assert infos["action_mask"][pending].any(axis=1).all()
        assert not infos["action_mask"][terminated].any()  # a finished row has no decision
        for i in np.flatnonzero(terminated):
            assert rewards[i] == infos["final_rewards"][i][infos["seat"][i]]
            ended += 1
        pending = terminated.copy()
        seats = infos["learner_seat"]


def test_gymnasium_vector_wrappers_record_the_episodes() -> None:
    from gymnasium.wrappers.vector import RecordEpisodeStatistics

    envs = RecordEpisodeStatistics(DuneVectorEnv(4, num_players=3, learner="rotate"))
    obs, infos = envs.reset(seed=0)
    rng = np.random.default_rng(0)
    while len(envs.return_queue) < 3:
        obs, _, _, _, infos = envs.step(random_actions(rng, infos["action_mask"]))
    assert set(envs.return_queue) <= {1.0, 0.0, -1.0}
    assert envs.single_observation_space.shape == (OBS_LAYOUT.size,)
    assert envs.action_space.shape == (4,)


def test_render_returns_one_frame_per_sub_env() -> None:
    envs = DuneVectorEnv(2, num_players=3, render_mode="ansi")
    envs.reset(seed=0)
    frames = envs.render()
    assert frames is not None and len(frames) == 2 and all(isinstance(f, str) for f in frames)


# --- bad input ------------------------------------------------------------------------------


@pytest.mark.parametrize("num_envs", [0, -3, 2.5, True, "4", None])
def test_wrong_num_envs(num_envs: Any) -> None:
    with pytest.raises(ValueError, match="num_envs must be an int >= 1"):
        DuneVectorEnv(num_envs, num_players=3)


def test_bad_actions_raise_naming_the_sub_env_and_change_nothing() -> None:
    envs = DuneVectorEnv(4, num_players=4)
    obs, infos = envs.reset(seed=1)
    masks = infos["action_mask"]
    good = random_actions(np.random.default_rng(0), masks)
    with pytest.raises(ValueError, match=r"shape \(4,\).*got shape \(3,\)"):
        envs.step(good[:3])
    with pytest.raises(ValueError, match=r"got shape \(4, 1\)"):
        envs.step(good[:, None])
    with pytest.raises(TypeError, match="not dtype float64"):
        envs.step(good.astype(np.float64))
    with pytest.raises(TypeError, match="not dtype bool"):
        envs.step(np.ones(4, dtype=bool))
    bad = good.copy()
    bad[2] = NUM_ACTIONS
    with pytest.raises(InvalidActionError, match=f"sub-env 2: action {NUM_ACTIONS} is out of"):
        envs.step(bad)
    bad[2] = int(np.flatnonzero(~masks[2])[0])
    with pytest.raises(IllegalActionError, match=rf"sub-env 2: action {bad[2]} \(.*not legal"):
        envs.step(bad)
    # Nothing changed: the good actions give what they give on a fresh copy.
    after, _, _, _, _ = envs.step(good)
    fresh = DuneVectorEnv(4, num_players=4)
    fresh.reset(seed=1)
    np.testing.assert_array_equal(after, fresh.step(good)[0])


def test_illegal_action_penalize_per_sub_env() -> None:
    envs = DuneVectorEnv(
        3, illegal_action=["raise", "penalize", "raise"], illegal_penalty=-5.0, num_players=3
    )
    obs, infos = envs.reset(seed=0)
    actions = random_actions(np.random.default_rng(0), infos["action_mask"])
    actions[1] = int(np.flatnonzero(~infos["action_mask"][1])[0])
    obs, rewards, terminated, _, infos = envs.step(actions)
    assert rewards[1] == -5.0 and terminated.tolist() == [False, True, False]
    assert infos["final_info"]["illegal_action"][1] == actions[1]
    assert infos["action_mask"][1].any()  # the next episode has started
    actions = random_actions(np.random.default_rng(1), infos["action_mask"])
    actions[0] = int(np.flatnonzero(~infos["action_mask"][0])[0])
    with pytest.raises(IllegalActionError, match="sub-env 0"):
        envs.step(actions)


def test_bad_configuration() -> None:
    with pytest.raises(ValueError, match="illegal_action of sub-env 1 is 'ignore'"):
        DuneVectorEnv(2, illegal_action=["raise", "ignore"], num_players=3)
    with pytest.raises(ValueError, match="one per sub-env"):
        DuneVectorEnv(2, illegal_action=["raise"], num_players=3)
    with pytest.raises(ValueError, match="learner=9 is not a seat"):
        DuneVectorEnv(2, learner=9, num_players=3)
    with pytest.raises(ValueError, match="autoreset_mode='Later' is not supported"):
        DuneVectorEnv(2, autoreset_mode="Later", num_players=3)
    with pytest.raises(ValueError, match="unknown configuration key"):
        DuneVectorEnv(2, num_player=3)
    envs = DuneVectorEnv(2, num_players=3)
    with pytest.raises(RuntimeError, match=r"call reset\(\) before step\(\)"):
        envs.step(np.zeros(2, dtype=np.int64))
    with pytest.raises(ValueError, match="got 3 seeds for 2 sub-envs"):
        envs.reset(seed=[1, 2, 3])
    with pytest.raises(ValueError, match="takes no options but reset_mask, got"):
        envs.reset(options={"mode": 1})
    with pytest.raises(RuntimeError, match="the first reset"):
        envs.reset(options={"reset_mask": np.array([True, False])})
    envs.reset(seed=0)
    with pytest.raises(ValueError, match=r"bool array of shape \(2,\)"):
        envs.reset(options={"reset_mask": np.array([1, 0])})


def test_misbehaving_opponents_raise_naming_the_sub_env() -> None:
    def wrong_batch(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        return np.zeros(len(observations) + 1, dtype=np.int64)

    class WrongShape:
        act_batch = staticmethod(wrong_batch)

        def __call__(self, observation: np.ndarray, mask: np.ndarray) -> int:
            return 0

    with pytest.raises(ObservationPolicyError, match="act_batch returned shape"):
        DuneVectorEnv(2, learner=0, opponents=WrongShape(), num_players=3).reset(seed=0)

    def illegal(observation: np.ndarray, mask: np.ndarray) -> int:
        return int(np.flatnonzero(mask == 0)[0])

    with pytest.raises(ObservationPolicyError, match=r"sub-env \d: .* is not legal"):
        DuneVectorEnv(2, learner=0, opponents=illegal, num_players=3).reset(seed=0)

    class BadEngine:
        name = "bad-engine"

        def act(self, game: Any, seat: int) -> int:
            return 10_000

    with pytest.raises(IllegalOptionError, match=r"sub-env \d: engine policy 'bad-engine'"):
        DuneVectorEnv(2, learner=0, opponents=BadEngine(), num_players=3).reset(seed=0)


def test_core_buffers_are_reused_but_results_are_copies() -> None:
    envs = DuneVectorEnv(2, num_players=3)
    obs, infos = envs.reset(seed=0)
    games: BatchedGames = envs.games
    assert obs is not games.obs and infos["action_mask"] is not games.masks
    before = obs.copy()
    envs.step(random_actions(np.random.default_rng(0), infos["action_mask"]))
    np.testing.assert_array_equal(obs, before)  # a returned batch is not overwritten


# --- stable-baselines3 ----------------------------------------------------------------------


def test_sb3_vec_env_api_and_masks() -> None:
    pytest.importorskip("stable_baselines3")
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
    from stable_baselines3.common.vec_env import VecCheckNan, VecMonitor

    from dune_env.vector import DuneVecEnv

    venv = DuneVecEnv(4, learner="rotate", num_players=3)
    venv.seed(30)
    obs = venv.reset()
    assert obs.shape == (4, OBS_LAYOUT.size) and obs.dtype == np.float32
    assert is_masking_supported(venv)
    masks = get_action_masks(venv)
    assert masks.shape == (4, NUM_ACTIONS) and masks.dtype == bool
    np.testing.assert_array_equal(masks, venv.action_masks())
    assert venv.get_attr("learner_seat") == [0, 0, 0, 0]
    assert venv.env_method("action_masks", indices=[1])[0].shape == (NUM_ACTIONS,)
    assert venv.env_is_wrapped(gymnasium.Wrapper) == [False] * 4
    # Sub-env 1 was seeded with 31, as DuneSingleAgentEnv.reset(seed=31).
    single = DuneSingleAgentEnv(learner="rotate", num_players=3)
    np.testing.assert_array_equal(obs[1], single.reset(seed=31)[0])

    checked = VecMonitor(VecCheckNan(venv, raise_exception=True))
    checked.reset()
    rng = np.random.default_rng(0)
    episodes = 0
    while episodes < 4:
        obs, rewards, dones, infos = checked.step(random_actions(rng, get_action_masks(checked)))
        assert rewards.dtype == np.float32 and dones.dtype == bool
        for i in np.flatnonzero(dones):
            info = infos[i]
            assert info["terminal_observation"].shape == (OBS_LAYOUT.size,)
            assert info["episode"]["r"] == info["final_rewards"][info["seat"]]
            assert info["TimeLimit.truncated"] is False
            episodes += 1
    with pytest.raises(AttributeError, match="no settable attributes"):
        venv.set_attr("learner_seat", 1)


def test_maskable_ppo_learns_on_the_vec_env_and_plays_back_batched(tmp_path: Any) -> None:
    """MaskablePPO trains on DuneVecEnv directly; the saved model, loaded as a policy, answers
    a batch exactly as row by row and serves as a batched opponent."""
    torch = pytest.importorskip("torch")
    from sb3_contrib import MaskablePPO

    from dune_env.policies.sb3 import load_sb3_policy
    from dune_env.vector import DuneVecEnv

    torch.set_num_threads(1)
    venv = DuneVecEnv(4, learner="rotate", num_players=3)
    model = MaskablePPO("MlpPolicy", venv, n_steps=16, batch_size=32, n_epochs=1, seed=0)
    model.learn(total_timesteps=128)
    assert model.num_timesteps >= 128
    path = tmp_path / "model.zip"
    model.save(path)
    policy = load_sb3_policy(str(path), trust=True)  # the test wrote it
    venv.seed(0)
    obs = venv.reset()
    masks = venv.action_masks().astype(np.int8)
    batch = policy.act_batch(obs, masks)
    assert batch.tolist() == [policy.fn(o, m) for o, m in zip(obs, masks, strict=True)]
    opponents = DuneVecEnv(3, learner=0, opponents=policy, num_players=3)
    opponents.reset()
    opponents.step(random_actions(np.random.default_rng(0), opponents.action_masks()))


def test_subprocess_vec_env_matches_the_single_process_one() -> None:
    """Sub-envs per process x processes: the same games as one DuneVecEnv of the same size;
    bad input is refused before any worker steps, naming the global sub-env."""
    pytest.importorskip("stable_baselines3")
    from dune_env.vector import DuneVecEnv
    from dune_env.vector.subproc import SubprocDuneVecEnv

    multi = SubprocDuneVecEnv(2, 2, learner="rotate", num_players=3)
    try:
        single = DuneVecEnv(4, learner="rotate", num_players=3)
        multi.seed(8)
        single.seed(8)
        np.testing.assert_array_equal(multi.reset(), single.reset())
        rng = np.random.default_rng(0)
        for _ in range(60):
            masks = multi.action_masks()
            np.testing.assert_array_equal(masks, single.action_masks())
            actions = random_actions(rng, masks)
            got, expected = multi.step(actions), single.step(actions)
            for x, y in zip(got[:3], expected[:3], strict=True):
                np.testing.assert_array_equal(x, y)
            assert [sorted(i) for i in got[3]] == [sorted(i) for i in expected[3]]
        assert multi.get_attr("learner_seat") == single.get_attr("learner_seat")
        # MaskablePPO's check: answered in the workers (the bound method would not pickle on
        # the compiled build, and would ship the whole sub-env across the pipe if it did).
        assert multi.has_attr("action_masks") and not multi.has_attr("no_such_attribute")
        from sb3_contrib.common.maskable.utils import is_masking_supported

        assert is_masking_supported(multi)
        before = multi.action_masks()
        actions = random_actions(rng, before)
        actions[3] = int(np.flatnonzero(~before[3])[0])
        with pytest.raises(IllegalActionError, match=f"sub-env 3: action {actions[3]} "):
            multi.step(actions)
        actions[3] = int(np.flatnonzero(before[3])[0])
        np.testing.assert_array_equal(multi.step(actions)[0], single.step(actions)[0])
    finally:
        multi.close()


@pytest.mark.parametrize("mode", ["SameStep", "NextStep", "Disabled"])
def test_matches_gymnasium_sync_vector_env_of_single_agent_envs(mode: str) -> None:
    """Gymnasium's own reference vectorisation of DuneSingleAgentEnv, in the same autoreset
    mode, gives the same observations, masks, rewards, terminations and final observations."""
    from gymnasium.vector import SyncVectorEnv

    def make() -> DuneSingleAgentEnv:
        return DuneSingleAgentEnv(learner="rotate", num_players=3)

    reference = SyncVectorEnv([make] * 3, autoreset_mode=mode)
    envs = DuneVectorEnv(3, autoreset_mode=mode, learner="rotate", num_players=3)
    ref_obs, _ = reference.reset(seed=6)
    obs, infos = envs.reset(seed=6)
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(150):
        np.testing.assert_array_equal(obs, ref_obs)
        np.testing.assert_array_equal(
            infos["action_mask"], np.stack(reference.call("action_masks"))
        )
        actions = random_actions(rng, infos["action_mask"])
        ref_obs, ref_rewards, ref_term, ref_trunc, ref_infos = reference.step(actions)
        obs, rewards, terminated, truncated, infos = envs.step(actions)
        np.testing.assert_array_equal(rewards, ref_rewards)
        np.testing.assert_array_equal(terminated, ref_term)
        np.testing.assert_array_equal(truncated, ref_trunc)
        if mode == "SameStep" and terminated.any():
            np.testing.assert_array_equal(infos["_final_obs"], ref_infos["_final_obs"])
            for i in np.flatnonzero(terminated):
                np.testing.assert_array_equal(infos["final_obs"][i], ref_infos["final_obs"][i])
        ended += int(terminated.sum())
        if mode == "Disabled" and terminated.any():
            with pytest.raises(RuntimeError, match=r"sub-env \d has finished its episode"):
                envs.step(actions)
            ref_obs, _ = reference.reset(options={"reset_mask": terminated.copy()})
            obs, infos = envs.reset(options={"reset_mask": terminated.copy()})
    assert ended >= 3


def test_matches_sb3_dummy_vec_env_of_single_agent_envs() -> None:
    """SB3's own reference vectorisation (DummyVecEnv) of DuneSingleAgentEnv gives the same
    observations, masks, rewards, dones and terminal observations."""
    pytest.importorskip("stable_baselines3")
    from sb3_contrib.common.maskable.utils import get_action_masks
    from stable_baselines3.common.vec_env import DummyVecEnv

    from dune_env.vector import DuneVecEnv

    def make() -> DuneSingleAgentEnv:
        return DuneSingleAgentEnv(learner="rotate", num_players=4)

    reference = DummyVecEnv([make] * 3)
    venv = DuneVecEnv(3, learner="rotate", num_players=4)
    reference.seed(12)
    venv.seed(12)
    np.testing.assert_array_equal(venv.reset(), reference.reset())
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(150):
        masks = get_action_masks(venv)
        np.testing.assert_array_equal(masks, get_action_masks(reference))
        actions = random_actions(rng, masks)
        obs, rewards, dones, infos = venv.step(actions)
        ref_obs, ref_rewards, ref_dones, ref_infos = reference.step(actions)
        np.testing.assert_array_equal(obs, ref_obs)
        np.testing.assert_array_equal(rewards, ref_rewards)
        np.testing.assert_array_equal(dones, ref_dones)
        for i in np.flatnonzero(dones):
            np.testing.assert_array_equal(
                infos[i]["terminal_observation"], ref_infos[i]["terminal_observation"]
            )
            assert infos[i]["final_rewards"] == ref_infos[i]["final_rewards"]
            ended += 1
    assert ended >= 3


def test_vector_reset_with_seeds_replays_stochastic_named_opponents() -> None:
    """The vector env reseeds stochastic opponents from each game's seed: resetting the same
    object with the same seeds replays the same games."""
    from dune_env.vector.core import BatchedGames

    def play(games: BatchedGames) -> list[bytes]:
        games.reset([0, 1])
        seen = [games.obs.tobytes()]
        for _ in range(40):
            actions = np.array([int(np.flatnonzero(row)[0]) for row in games.masks])
            games.step(actions)
            seen.append(games.obs.tobytes())
        return seen

    games = BatchedGames(2, num_players=4, opponents="random")
    assert play(games) == play(games)
