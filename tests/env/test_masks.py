"""The action mask is exactly the engine's legal options, at every decision of many random
games, for every decision kind of RULES.md §9; and step's legality check agrees with it."""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest

from dune_env.engine import DecisionKind
from dune_env.environment import KIND_OFFSET, NUM_ACTIONS, IllegalActionError
from dune_env.environment.aec import raw_env

from .helpers import play
from .scenarios import RARE

NUM_GAMES = 120


def game_config(i: int) -> dict[str, object]:
    """A spread of configurations: 3-8 players, random and drafted factions, forced decisions
    skipped or asked, both face-dancer modes, variants on and off."""
    return {
        "num_players": 3 + i % 6,
        "faction_mode": ("random", "draft")[i // 6 % 2],
        "skip_forced_decisions": bool(i // 12 % 2),
        "face_dancers": ("dice", "spice")[i // 24 % 2],
        "strict_control": bool(i // 48 % 2),
        "desert_landing": bool(i // 48 % 2),
    }


def expected_mask(env: raw_env) -> np.ndarray:
    game = env.game
    assert game is not None and game.pending is not None
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    mask[[KIND_OFFSET[game.pending.kind] + o for o in game.pending.options]] = 1
    return mask


def check_decision(env: raw_env, agent: str, seen: Counter[int], step: int) -> None:
    game = env.game
    assert game is not None
    pending = game.pending
    assert pending is not None
    assert agent == f"player_{pending.seat}"
    assert env.infos[agent]["decision"] == pending.kind.name
    obs = env.observe(agent)
    assert obs["action_mask"].dtype == np.int8
    np.testing.assert_array_equal(obs["action_mask"], expected_mask(env))
    assert sorted(env.legal_actions()) == sorted(np.flatnonzero(obs["action_mask"]).tolist())
    if step % 7 == 0:  # every other agent's mask is all zeros
        for other in env.agents:
            if other != agent:
                assert not env.observe(other)["action_mask"].any()
                assert env.infos[other]["decision"] is None
    seen[pending.kind] += 1


def test_every_decision_kind_is_reached_and_its_mask_is_the_engines_legal_options() -> None:
    seen: Counter[int] = Counter()
    for i in range(NUM_GAMES):
        env = raw_env(**game_config(i))
        env.reset(seed=i)
        rng = random.Random(i)
        counter = iter(range(10**9))
        play(env, rng, lambda e, a, c=counter: check_decision(e, a, seen, next(c)))
    from_random_play = set(seen)
    # Positions for the kinds random play reaches rarely.
    for kind, build in RARE.items():
        game = build()
        env = raw_env(**game.config.to_dict())
        env.restore(game.snapshot())
        assert game.pending is not None and game.pending.kind == kind
        check_decision(env, env.agent_selection, seen, 0)
        play(env, random.Random(int(kind)), lambda e, a: check_decision(e, a, seen, 1))
    missing = [k.name for k in DecisionKind if seen[k] == 0]
    assert not missing, f"decision kinds never reached: {missing}"
    # Random play alone reaches nearly every kind (a drift here means the engine changed).
    assert len(from_random_play) >= len(DecisionKind) - 3, sorted(
        DecisionKind(k).name for k in set(DecisionKind) - from_random_play
    )


@pytest.mark.parametrize("num_players", [3, 6])
def test_step_refuses_exactly_what_the_mask_refuses(num_players: int) -> None:
    """illegal_action="raise": every id the mask refuses raises IllegalActionError and leaves
    the environment unchanged; the ids it allows are accepted."""
    env = raw_env(num_players=num_players, faction_mode="draft", skip_forced_decisions=False)
    env.reset(seed=5)
    rng = random.Random(5)
    checked = 0
    while env.agents:
        agent = env.agent_selection
        if env.terminations[agent]:
            env.step(None)
            continue
        mask = env.observe(agent)["action_mask"]
        if checked % 5 == 0:
            before = env.snapshot()
            refused = np.flatnonzero(mask == 0)
            for action in rng.sample(refused.tolist(), 5):
                with pytest.raises(IllegalActionError, match=f"action {action} "):
                    env.step(action)
            assert env.snapshot() == before
            assert env.agent_selection == agent
            np.testing.assert_array_equal(env.observe(agent)["action_mask"], mask)
        checked += 1
        legal = np.flatnonzero(mask)
        env.step(int(legal[rng.randrange(legal.size)]))
    assert checked > 50
