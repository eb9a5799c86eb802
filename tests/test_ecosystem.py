"""Fit with the ecosystem (issue 14, section 3): imports, bots in a user's AEC loop, end of game,
Gymnasium registration, packaging metadata, command-line help, narration."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import numpy as np
import pytest

import dune_env
from dune_env.engine import Game, GameConfig
from dune_env.engine.constants import Token
from dune_env.engine.events import EventKind, render
from dune_env.environment import GameOverError, IllegalActionError
from dune_env.environment.action_table import KIND_OFFSET
from dune_env.policies import PolicyLoadError, load_policy

ROOT = Path(__file__).resolve().parent.parent


def _python(code: str) -> subprocess.CompletedProcess[str]:
    """Run `code` in a fresh interpreter (nothing of dune_env imported yet)."""
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
        timeout=120,
    )


def test_dune_v1_is_an_attribute_after_import_dune_env() -> None:
    done = _python(
        "import dune_env; e = dune_env.dune_v1.env(num_players=3); e.reset(seed=1); print(e.agents)"
    )
    assert done.returncode == 0, done.stderr
    assert "player_0" in done.stdout
    assert dune_env.dune_v1.raw_env is dune_env.raw_env


def test_policy_action_lets_builtin_bots_play_a_users_aec_loop() -> None:
    """Bots named in the user's loop play exactly the game the engine plays with the same
    policies, and their actions are always legal."""
    env = dune_env.env(num_players=4)
    env.reset(seed=5)
    for agent in env.agent_iter():
        _, _, termination, truncation, _ = env.last()
        if termination or truncation:
            env.step(None)
            continue
        action = env.policy_action("aggressive" if agent != "player_3" else "economic")
        assert env.action_mask()[action] == 1
        env.step(action)
    played = env.unwrapped.game
    assert played is not None and played.terminal
    game = Game(GameConfig(num_players=4), seed=5)
    bots = [load_policy("aggressive", seed=s) for s in range(3)] + [load_policy("economic", seed=3)]
    while not game.terminal:
        seat = game.state.pending_seat
        game.apply(bots[seat].act(game, seat))
    assert game.state.history == played.state.history


def test_policy_action_takes_engine_policies_and_observation_callables() -> None:
    env = dune_env.raw_env(num_players=3)
    env.reset(seed=2)
    bot = load_policy("random", seed=0)
    action = env.policy_action(bot)
    assert env.action_mask()[action] == 1
    first_legal = lambda obs, mask: int(np.flatnonzero(mask)[0])  # noqa: E731
    assert env.policy_action(first_legal) == env.legal_actions()[0]

    class Cheater:
        name = "cheater"

        def act(self, game: Game, seat: int) -> int:
            return 10_000

    with pytest.raises(IllegalActionError, match="cheater"):
        env.policy_action(Cheater())
    with pytest.raises(TypeError, match="engine policy"):
        env.policy_action(42)
    with pytest.raises(PolicyLoadError, match="unknown policy 'nope'"):
        env.policy_action("nope")


def test_the_environment_layer_resolves_no_policy_names() -> None:
    """Names are resolved by dune_env.match (dune_v1's environment); the environment layer's
    own environment plays policies only and says where names are taken."""
    from dune_env.environment import aec

    layer_env = aec.raw_env(num_players=3)
    layer_env.reset(seed=2)
    with pytest.raises(TypeError, match="resolves no policy names; build it with dune_env.env"):
        layer_env.policy_action("aggressive")
    named = dune_env.raw_env(num_players=3)
    named.reset(seed=2)
    assert isinstance(named, aec.raw_env)
    bot = load_policy("aggressive", seed=named.game.state.pending_seat)  # type: ignore[union-attr]
    assert named.policy_action("aggressive") == layer_env.policy_action(bot)


def test_single_agent_opponents_by_name() -> None:
    env = dune_env.DuneSingleAgentEnv(num_players=4, opponents="aggressive")
    assert all(getattr(p, "name", None) == "aggressive" for p in env._opponents)
    obs, info = env.reset(seed=0)
    done = False
    total = 0.0
    while not done:
        obs, reward, done, _, info = env.step(int(np.flatnonzero(env.action_masks())[0]))
        total += float(reward)
    assert total == info["final_rewards"][0]
    mixed = dune_env.DuneSingleAgentEnv(num_players=3, opponents=[None, "economic", "random"])
    assert [getattr(p, "name", None) for p in mixed._opponents] == [None, "economic", "random"]
    by_seat = dune_env.DuneSingleAgentEnv(num_players=3, opponents={"player_2": "economic"})
    assert by_seat._opponents[2] is not None and by_seat._opponents[1] is None
    with pytest.raises(PolicyLoadError, match="unknown policy 'agressive'"):
        dune_env.DuneSingleAgentEnv(num_players=3, opponents="agressive")


def test_last_after_the_game_is_over_is_a_clear_error() -> None:
    env = dune_env.env(num_players=3)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _agent in env.agent_iter():
        obs, _, termination, truncation, _ = env.last()
        env.step(
            None
            if termination or truncation
            else int(rng.choice(np.flatnonzero(obs["action_mask"])))
        )
    assert env.agents == []
    with pytest.raises(GameOverError, match=r"game is over.*reset\(\)"):
        env.last()
    env.reset(seed=1)
    assert env.last()[2] is False  # playable again


def test_gymnasium_make_single_agent_view() -> None:
    import gymnasium

    env = gymnasium.make("dune_env/Dune-v1", num_players=4, opponents="random", learner=1)
    assert isinstance(env.unwrapped, dune_env.DuneSingleAgentEnv)
    assert env.unwrapped.learner_seat == 1
    obs, _ = env.reset(seed=3)
    assert env.observation_space.contains(obs)
    # In a fresh process: `import gymnasium` then `import dune_env`, and the "module:" form.
    done = _python(
        "import gymnasium, dune_env\n"
        "e = gymnasium.make('dune_env/Dune-v1', num_players=3); print(e.reset(seed=0)[0].shape)\n"
    )
    assert done.returncode == 0, done.stderr
    done = _python(
        "import gymnasium\n"
        "e = gymnasium.make('dune_env:dune_env/Dune-v1', num_players=3); print(e.spec.id)\n"
    )
    assert done.returncode == 0, done.stderr
    assert "dune_env/Dune-v1" in done.stdout


def test_gymnasium_make_env_answers_action_masks() -> None:
    """`gymnasium.make(...)` wraps the env (OrderEnforcing, ...): `action_masks()` still answers,
    as sb3-contrib users call it, and equals the unwrapped env's legal actions."""
    import gymnasium
    from sb3_contrib.common.maskable.utils import get_action_masks

    for env in (
        gymnasium.make("dune_env/Dune-v1", num_players=4, opponents="random"),
        gymnasium.make("dune_env/Dune-v1", num_players=4, max_episode_steps=400),
    ):
        env.reset(seed=5)
        for _ in range(20):
            masks = env.action_masks()
            assert masks.dtype == bool and masks.shape == (env.action_space.n,) and masks.any()
            assert (masks == env.unwrapped.action_masks()).all()
            assert (get_action_masks(env) == masks).all()
            _, _, terminated, _, _ = env.step(int(np.flatnonzero(masks)[0]))
            if terminated:
                break
    remade = gymnasium.make(env.spec)
    remade.reset(seed=0)
    assert remade.action_masks().any()


def test_packaging_metadata() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["license"] == "MIT"
    assert "Permission is hereby granted, free of charge" in (ROOT / "LICENSE").read_text()
    assert project["requires-python"] == ">=3.11"
    assert "Programming Language :: Python :: 3.11" in project["classifiers"]
    citation = (ROOT / "CITATION.cff").read_text()
    assert "cff-version: 1.2.0" in citation and f"version: {dune_env.__version__}" in citation
    assert project["version"] == dune_env.__version__
    changelog = (ROOT / "CHANGELOG.md").read_text()
    assert "dune_v1" in changelog and "action table" in changelog
    extras = project["optional-dependencies"]
    torch_reqs = [r for e in extras.values() for r in e if r.startswith("torch")]
    assert torch_reqs and all("==" not in r for r in torch_reqs)
    ray = [r for r in extras["rllib"] if r.startswith("ray")]
    assert ray and "<" in ray[0]
    assert not any(r.startswith("ray") for r in extras["ppo"] + extras["train"])
    assert "dune-replay" in project["scripts"]
    assert "rllib.examples" not in (ROOT / "training" / "rllib_ppo.py").read_text()


def test_make_run_needs_no_ray_and_installs_the_tested_torch() -> None:
    makefile = (ROOT / "Makefile").read_text()
    run_install = re.search(r"^\$\(RUN_STAMP\):.*\n((?:\t.*\n)+)", makefile, re.M)
    assert run_install is not None
    recipe = run_install.group(1)
    assert '".[ppo]"' in recipe and "dev" not in recipe and "rllib" not in recipe
    assert "torch==2.13.0" in makefile
    assert re.search(r"^run: setup$", makefile, re.M)
    assert re.search(r"^test: lint$", makefile, re.M) and re.search(
        r"^lint: setup-dev", makefile, re.M
    )


def test_evaluate_help_shows_help_text_and_defaults() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "training.evaluate", "--help"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    text = " ".join(done.stdout.split())
    assert "whole deals) (default: 200)" in text
    # every pickle-based example (.zip, RLlib folder) carries the opt-in it needs
    examples = [line for line in done.stdout.splitlines() if "python -m training.evaluate" in line]
    pickled = [line for line in examples if ".zip" in line or "checkpoint " in line]
    assert pickled and all("--trust-checkpoints" in line for line in pickled)
    assert "players per game (3 to 8) (default: 4)" in text
    assert "(default: runs/eval)" in text


def test_narration_uses_an_before_vowels() -> None:
    assert render((EventKind.SETUP_TOKEN, 3, Token.ORNITHOPTER)) == (
        "Setup: an Ornithopter is placed in Sietch Tabr."
    )
    assert render((EventKind.SETUP_TOKEN, 3, Token.FORTRESS)).startswith("Setup: a Fortress")
    assert "an Atreides unit" in render((EventKind.STORM_LOSS, 0, 0, 0, 10))
    assert "a Harkonnen unit" in render((EventKind.KANLY_KILL, 0, 0, 1, 0))
    assert KIND_OFFSET[0] == 0


def test_dune_v0_is_a_deprecated_alias_of_dune_v1() -> None:
    """The environment version was bumped (CHANGELOG.md): `dune_v0` still imports for one minor
    release, warns, and gives `dune_v1`."""
    import importlib
    import sys

    import dune_env.dune_v1

    sys.modules.pop("dune_env.dune_v0", None)
    with pytest.warns(DeprecationWarning, match="import dune_env.dune_v1"):
        old = importlib.import_module("dune_env.dune_v0")
    assert old.env is dune_env.dune_v1.env and old.raw_env is dune_env.dune_v1.raw_env
