"""Shared helpers of the environment tests: configurations and seeded random play."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from dune_env.engine import Faction
from dune_env.environment.aec import raw_env

F = Faction

# Assigned factions per player count (each faction's own rules get exercised somewhere).
ASSIGNED = {
    3: (F.ATREIDES, F.HARKONNEN, F.FREMEN),
    4: (F.ATREIDES, F.HARKONNEN, F.CORRINO, F.GUILD),
    5: (F.ATREIDES, F.HARKONNEN, F.FREMEN, F.CORRINO, F.BENE_GESSERIT),
    6: (F.ATREIDES, F.HARKONNEN, F.FREMEN, F.TLEILAX, F.CORRINO, F.SMUGGLERS),
    7: (F.ATREIDES, F.HARKONNEN, F.FREMEN, F.TLEILAX, F.CORRINO, F.GUILD, F.BENE_GESSERIT),
    8: tuple(F),
}

VARIANTS_ON: dict[str, Any] = {
    "strict_control": True,
    "desert_landing": False,  # the non-default reading (CL-6, rev. 2)
    "face_dancers": "spice",
    "guild_income_per_lander": True,
    "strict_alliance_victory": True,
    "smugglers_land_anywhere": True,
    "region_die_west_faces": (2, 5),
    "win_reward": 2.0,
    "loss_reward": 0.0,
    "skip_forced_decisions": False,
}


def config(num_players: int, setup: str, variants: bool) -> dict[str, Any]:
    """setup: "draft", "assigned" or "random"."""
    cfg: dict[str, Any] = {"num_players": num_players, "faction_mode": setup}
    if setup == "assigned":
        cfg["factions"] = tuple(int(f) for f in ASSIGNED[num_players])
    if variants:
        cfg.update(VARIANTS_ON)
    return cfg


def random_action(mask: np.ndarray, rng: random.Random) -> int:
    legal = np.flatnonzero(mask)
    assert legal.size, "the acting agent has no legal action"
    return int(legal[rng.randrange(legal.size)])


def play(
    env: raw_env,
    rng: random.Random,
    on_decision: Callable[[raw_env, str], None] | None = None,
    max_steps: int = 100_000,
) -> int:
    """Play the current game of a raw env to the end with uniformly random legal actions,
    stepping done agents with None; returns the number of live decisions taken."""
    decisions = 0
    for _ in range(max_steps):
        if not env.agents:
            return decisions
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            continue
        if on_decision is not None:
            on_decision(env, agent)
        env.step(random_action(env.action_mask(agent), rng))
        decisions += 1
    raise AssertionError("game did not end")


def agent_steps(env: Any, rng: random.Random) -> Iterator[tuple[str, Any]]:
    """(agent, action) pairs of random play through any AEC env (wrapped or not)."""
    for agent in env.agent_iter():
        obs, _, termination, truncation, _ = env.last()
        action = None if termination or truncation else random_action(obs["action_mask"], rng)
        yield agent, action
        env.step(action)
