"""Egocentric encoding: the observer is relative seat 0, the others follow clockwise."""

from __future__ import annotations

import random

import numpy as np
import pytest

from dune_env.engine.constants import NUM_FACTIONS
from dune_env.environment import OBS_LAYOUT
from dune_env.environment.aec import raw_env
from dune_env.environment.layout import MAX_SEATS

from .helpers import random_action

SEAT_FIELDS = [f for f in OBS_LAYOUT.fields if f.seat_axis is not None]
PRIVATE = {"own_bid_units", "own_bid_leaders", "bg_prediction"}


def _mid_game(num_players: int, seed: int, steps: int, **cfg: object) -> raw_env:
    env = raw_env(num_players=num_players, **cfg)
    env.reset(seed=seed)
    rng = random.Random(seed)
    for _ in range(steps):
        agent = env.agent_selection
        if env.terminations[agent]:
            break
        env.step(random_action(env.action_mask(agent), rng))
    return env


@pytest.mark.parametrize(
    ("num_players", "seed", "steps", "cfg"),
    [
        (3, 1, 60, {}),
        (5, 2, 200, {}),
        (8, 3, 350, {}),
        (6, 4, 3, {"faction_mode": "draft"}),  # mid-draft: some seats without a faction
    ],
)
def test_rotations(num_players: int, seed: int, steps: int, cfg: dict[str, object]) -> None:
    env = _mid_game(num_players, seed, steps, **cfg)
    game = env.game
    assert game is not None and not game.terminal
    s = game.state
    n = num_players
    views = [env.observe(f"player_{k}")["observation"] for k in range(n)]
    for k in range(n):
        obs = views[k]
        # Explicit expectations from the state.
        for r in range(MAX_SEATS):
            seat = (k + r) % n
            units = OBS_LAYOUT.raw(obs, "units")[r].reshape(-1)
            faction_onehot = OBS_LAYOUT.view(obs, "seat_faction")[r]
            if r >= n:
                assert not units.any() and not faction_onehot.any()
                assert OBS_LAYOUT.view(obs, "seat_in_game")[r] == 0
                continue
            assert OBS_LAYOUT.view(obs, "seat_in_game")[r] == 1
            faction = s.seat_faction[seat]
            if faction < 0:
                assert not faction_onehot.any() and not units.any()
            else:
                assert faction_onehot.argmax() == faction and faction_onehot.sum() == 1
                assert units.tolist() == s.units[faction]
                assert OBS_LAYOUT.raw(obs, "leaders")[r].tolist() == s.leaders[faction]
                assert OBS_LAYOUT.raw(obs, "storage")[r] == s.storage[faction]
        assert OBS_LAYOUT.view(obs, "active_seat").argmax() == (s.active_seat - k) % n
        assert OBS_LAYOUT.view(obs, "first_seat").argmax() == (s.first_seat - k) % n
        assert OBS_LAYOUT.view(obs, "decision_seat").argmax() == (s.pending_seat - k) % n
        # The same position from seat k is seat 0's view rotated by k.
        for field in SEAT_FIELDS:
            if field.name in PRIVATE:
                continue
            mine = OBS_LAYOUT.view(obs, field.name)
            base = OBS_LAYOUT.view(views[0], field.name)
            slots = field.shape[field.seat_axis]
            order = [(k + r) % n if r < n else r for r in range(slots)]
            expected = np.take(base, order, axis=field.seat_axis)
            np.testing.assert_array_equal(mine, expected, err_msg=field.name)
        # Fields without a seat axis are the same for everyone (private ones aside).
        for field in OBS_LAYOUT.fields:
            if field.seat_axis is None and field.name not in PRIVATE:
                np.testing.assert_array_equal(
                    OBS_LAYOUT.view(obs, field.name), OBS_LAYOUT.view(views[0], field.name)
                )


def test_a_hand_made_rotation() -> None:
    """5 players seen from seat 2: relative seats 0..4 are absolute seats 2, 3, 4, 0, 1."""
    env = _mid_game(5, 7, 50)
    game = env.game
    assert game is not None
    sf = game.state.seat_faction
    obs = env.observe("player_2")["observation"]
    onehots = OBS_LAYOUT.view(obs, "seat_faction")
    assert [int(onehots[r].argmax()) for r in range(5)] == [sf[2], sf[3], sf[4], sf[0], sf[1]]
    assert not onehots[5:].any()
    assert onehots.shape == (MAX_SEATS, NUM_FACTIONS)
