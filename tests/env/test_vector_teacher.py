"""The vector env's teacher labels (issue 23's kickstarted training): at every learner decision
the action a built-in policy would take there, aligned with the observation handed out (also the
first one after an automatic reset), legal, and without changing the games."""

from __future__ import annotations

import numpy as np
import pytest

from dune_env.environment.action_table import action_of
from dune_env.policies.heuristics.strategist import StrategistPolicy
from dune_env.vector import DuneVecEnv


def test_teacher_labels_are_the_teachers_choice_on_the_shown_state_and_change_nothing() -> None:
    kwargs = {"learner": "rotate", "num_players": 4, "opponents": "economic"}
    taught = DuneVecEnv(3, teacher="strategist", **kwargs)
    plain = DuneVecEnv(3, **kwargs)
    for venv in (taught, plain):
        venv.seed(11)
    obs, plain_obs = taught.reset(), plain.reset()
    labels = np.array([info["teacher_action"] for info in taught.reset_infos])
    assert "teacher_action" not in plain.reset_infos[0]
    judge = StrategistPolicy()
    finished = 0
    for _ in range(250):
        assert np.array_equal(obs, plain_obs)  # the teacher only looks
        games = plain.get_attr("game")
        seats = plain.get_attr("learner_seat")
        expected = [
            action_of(g.state.pending_kind, judge.act(g, s))
            for g, s in zip(games, seats, strict=True)
        ]
        assert labels.tolist() == expected
        assert taught.action_masks()[np.arange(3), labels].all()  # legal
        # Follow the teacher on two sub-envs, something else on the third.
        actions = labels.copy()
        actions[2] = int(np.flatnonzero(plain.action_masks()[2])[0])
        obs, rewards, dones, infos = taught.step(actions)
        plain_obs, plain_rewards, _, _ = plain.step(actions)
        assert np.array_equal(rewards, plain_rewards)
        labels = np.array([info["teacher_action"] for info in infos])
        finished += int(dones.sum())
    assert finished > 0, "labels after an automatic reset were checked too"


def test_only_a_built_in_engine_policy_may_teach() -> None:
    with pytest.raises(ValueError, match="must be a built-in engine policy"):
        DuneVecEnv(1, num_players=4, teacher=lambda observation, mask: 0)
    with pytest.raises(ValueError, match="unknown|not"):
        DuneVecEnv(1, num_players=4, teacher="no-such-policy")
