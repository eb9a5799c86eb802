"""Seeded games through the wrapped `dune_v1` give the same observations, masks, rewards,
terminations, infos and global states as the code they were recorded from (commit 3b34f6f,
before issue 34's work on the environment's speed): a SHA-256 over every value the AEC API
returned while playing seeded random games, byte for byte.  It guards speed work on the
environment (the observer's buffers, the wrappers, the step path): any change of a returned
value, even in the last bit of one float, changes the digest.

Also: an observation returned by `last()` / `observe()` is the caller's own array, which later
steps do not change (kept references stay valid).

To accept an intended change of the environment's values: rerun `python -m
tests.env.test_seeded_digest` and replace `EXPECTED`, and say why in the commit.
"""

from __future__ import annotations

import hashlib
import json
import random
from typing import Any

import numpy as np

import dune_env

from .helpers import VARIANTS_ON

# (players, faction mode, rule variants on, seed, illegal action policy, penalized step)
GAMES: tuple[tuple[int, str, bool, int, str, int], ...] = (
    (3, "random", False, 11, "raise", -1),
    (4, "random", False, 12, "raise", -1),
    (4, "draft", True, 13, "raise", -1),
    (5, "random", True, 14, "raise", -1),
    (6, "draft", False, 15, "raise", -1),
    (8, "random", False, 16, "raise", -1),
    (4, "random", False, 17, "penalize", 40),  # an illegal action at the 40th step
)
EXPECTED = "9374c5d50a382133dc1cd7a8c4293afc00ae0c6118fc82ae458b588b51a4abdf"


def _game_digest(
    players: int, mode: str, variants: bool, seed: int, illegal: str, bad_step: int
) -> bytes:
    config: dict[str, Any] = {"num_players": players, "faction_mode": mode}
    if variants:
        config.update(VARIANTS_ON)
    config["illegal_action"] = illegal
    env = dune_env.env(**config)
    rng = random.Random(seed)
    digest = hashlib.sha256()
    for episode in range(2):  # the second reset continues the seeded sequence
        env.reset(seed=seed if episode == 0 else None)
        for step, agent in enumerate(env.agent_iter()):
            obs, reward, termination, truncation, info = env.last()
            digest.update(agent.encode())
            digest.update(obs["observation"].tobytes())
            digest.update(obs["action_mask"].tobytes())
            values = [reward, termination, truncation, info, env.rewards]
            digest.update(json.dumps(values, sort_keys=True).encode())
            if step % 7 == 0:  # every agent's view now and then, and the global state
                for other in env.possible_agents:
                    seen = env.observe(other)
                    digest.update(seen["observation"].tobytes())
                    digest.update(seen["action_mask"].tobytes())
                digest.update(env.state().tobytes())
            if termination or truncation:
                action = None
            elif step == bad_step:
                action = int(np.flatnonzero(obs["action_mask"] == 0)[0])
            else:
                legal = np.flatnonzero(obs["action_mask"])
                action = int(legal[rng.randrange(legal.size)])
            env.step(action)
        digest.update(json.dumps(env.unwrapped._cumulative_rewards, sort_keys=True).encode())
    return digest.digest()


def seeded_digest() -> str:
    digest = hashlib.sha256()
    for game in GAMES:
        digest.update(_game_digest(*game))
    return digest.hexdigest()


def test_seeded_games_return_the_recorded_values() -> None:
    assert seeded_digest() == EXPECTED


def test_a_returned_observation_is_not_changed_by_later_steps() -> None:
    env = dune_env.env(num_players=4)
    env.reset(seed=3)
    rng = random.Random(3)
    kept: list[tuple[dict[str, np.ndarray], dict[str, np.ndarray]]] = []
    for step, _agent in enumerate(env.agent_iter()):
        obs, _, termination, truncation, _ = env.last()
        kept.append((obs, {k: v.copy() for k, v in obs.items()}))
        if step == 60:
            break
        legal = np.flatnonzero(obs["action_mask"])
        env.step(None if termination or truncation else int(legal[rng.randrange(legal.size)]))
    assert len({id(obs["observation"]) for obs, _ in kept}) == len(kept)
    for obs, copy in kept:
        for key, value in obs.items():
            assert np.array_equal(value, copy[key]), key


if __name__ == "__main__":
    print(seeded_digest())
