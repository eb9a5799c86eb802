"""PettingZoo's own conformance tests on dune_v1: api_test, seed_test and render_test, for
3, 4, 5, 6 and 8 players, drafted and assigned factions, variants on and off."""

from __future__ import annotations

import itertools
import warnings
from typing import Any

import numpy as np
import pytest

import dune_env
from dune_env import dune_v1

from .helpers import config

with warnings.catch_warnings():  # importing pettingzoo.test warns about PettingZoo's own API
    warnings.simplefilter("ignore", DeprecationWarning)
    from pettingzoo.test import api_test, render_test, seed_test

CASES = list(itertools.product((3, 4, 5, 6, 8), ("draft", "assigned"), (False, True)))
IDS = [f"{n}p-{setup}-{'variants' if v else 'plain'}" for n, setup, v in CASES]

pytestmark = [
    pytest.mark.filterwarnings("ignore:Observation is not a NumPy array:UserWarning"),
    pytest.mark.filterwarnings("ignore:Observation space for each agent:UserWarning"),
    pytest.mark.filterwarnings("ignore:.*all zeros.*:UserWarning"),
]


@pytest.mark.parametrize(("num_players", "setup", "variants"), CASES, ids=IDS)
def test_api_test(num_players: int, setup: str, variants: bool) -> None:
    api_test(dune_env.env(**config(num_players, setup, variants)), num_cycles=1000)


@pytest.mark.parametrize(("num_players", "setup", "variants"), CASES, ids=IDS)
def test_api_test_raw(num_players: int, setup: str, variants: bool) -> None:
    api_test(dune_env.raw_env(**config(num_players, setup, variants)), num_cycles=1000)


@pytest.mark.parametrize(("num_players", "setup", "variants"), CASES, ids=IDS)
def test_seed_test(num_players: int, setup: str, variants: bool) -> None:
    cfg = config(num_players, setup, variants)
    seed_test(lambda: dune_env.env(**cfg), num_cycles=500)


@pytest.mark.parametrize(("num_players", "setup", "variants"), CASES, ids=IDS)
def test_render_test(num_players: int, setup: str, variants: bool) -> None:
    cfg = config(num_players, setup, variants)

    def env_fn(render_mode: str | None = None) -> Any:
        return dune_env.env(render_mode=render_mode, **cfg)

    render_test(
        env_fn,
        custom_tests={
            "ansi": lambda text: "round" in text and "Pending" in text,
            "rgb_array": lambda image: image.shape[0] >= 300 and image.std() > 10,
        },
    )


def test_default_construction_and_versioned_module() -> None:
    env = dune_env.env(num_players=5)
    assert str(env) == "dune_v1"
    assert env.metadata["name"] == "dune_v1"
    assert env.metadata["render_modes"] == ["ansi", "human", "rgb_array"]
    assert dune_v1.env is dune_env.env
    assert dune_v1.raw_env is dune_env.raw_env
    assert isinstance(env.unwrapped, dune_env.raw_env)
    api_test(env, num_cycles=200)


def test_random_factions_are_seeded_by_reset() -> None:
    """faction_mode="random" (the default) draws the factions from reset(seed)."""
    env = dune_env.env(num_players=5)
    draws = []
    for seed in (0, 1, 2, 3, 0):
        env.reset(seed=seed)
        draws.append(tuple(env.infos[a]["faction"] for a in env.possible_agents))
    assert draws[0] == draws[4]
    assert len(set(draws)) > 1
    env.reset(seed=0)
    assert all(env.infos[a]["faction_name"] for a in env.agents)


def test_unseeded_resets_continue_the_seeded_sequence() -> None:
    a, b = dune_env.env(num_players=4), dune_env.env(num_players=4)
    for env in (a, b):
        env.reset(seed=11)
        env.reset()
    assert a.unwrapped.snapshot() == b.unwrapped.snapshot()
    a.reset(seed=11)
    first = a.unwrapped.snapshot()
    a.reset()
    assert a.unwrapped.snapshot() != first


def test_state_space_holds_every_state() -> None:
    env = dune_env.env(num_players=6)
    env.reset(seed=3)
    rng = np.random.default_rng(0)
    assert env.state_space.shape == env.state().shape
    for _agent in env.agent_iter():
        assert env.state_space.contains(env.state())
        obs, _, term, trunc, _ = env.last()
        action = None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"])))
        env.step(action)
