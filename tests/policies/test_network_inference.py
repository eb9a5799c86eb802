"""The shipped networks play without torch and choose exactly what the torch inference chose
(`network_decisions.py` recorded it before issue 34 replaced it by numpy)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from dune_env.policies.registry import SHIPPED_MODELS

from .heuristics_fingerprint import engine_fingerprint
from .network_decisions import FIXTURE, GAMES, game_decisions, position_decisions, positions

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def recorded() -> dict[str, object]:
    data = json.loads(FIXTURE.read_text())
    assert data["engine"] == engine_fingerprint(), (
        "the engine's dice changed since the fixture was recorded, so every position differs: "
        "regenerate it from a tree whose network inference is unchanged "
        "(python -m tests.policies.network_decisions --write)"
    )
    return data


@pytest.mark.parametrize("name", sorted(SHIPPED_MODELS))
def test_shipped_network_chooses_the_recorded_action_in_every_position(
    name: str, recorded: dict[str, dict[str, list]]
) -> None:
    expected = recorded[name]["positions"]
    chosen = position_decisions(name, positions())
    assert len(chosen) == len(expected) > 400
    differ = [i for i, (a, b) in enumerate(zip(chosen, expected, strict=True)) if a != b]
    assert differ == [], f"{name}: positions {differ[:10]} choose differently"


@pytest.mark.parametrize("name", sorted(SHIPPED_MODELS))
def test_shipped_network_plays_the_recorded_games(
    name: str, recorded: dict[str, dict[str, list]]
) -> None:
    for index in range(GAMES):
        expected = recorded[name]["games"][index]
        assert game_decisions(name, index) == expected, f"{name}: game {index} differs"


def test_playing_every_shipped_model_never_imports_torch() -> None:
    """Loading a shipped model (plain network or on a heuristic) and playing a whole game with
    it, through `act` and the batched `act_batch`, leaves torch unimported."""
    script = textwrap.dedent(
        """
        import sys
        import numpy as np
        from dune_env.engine import Game, GameConfig
        from dune_env.policies.observation import observation_and_mask
        from dune_env.policies.registry import SHIPPED_MODELS, load_policy

        for name in sorted(SHIPPED_MODELS):
            policy = load_policy(name)
            game = Game(GameConfig(num_players=4), seed=3)
            while not game.terminal:
                game.apply(policy.act(game, game.state.pending_seat))
            batch = getattr(policy, "act_batch", None)
            if batch is not None:
                start = Game(GameConfig(num_players=4), seed=1)
                obs, mask = observation_and_mask(start, start.state.pending_seat)
                batch(np.stack([obs, obs]), np.stack([mask, mask]))
        print("torch" in sys.modules, "safetensors.torch" in sys.modules)
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert out.stdout.split() == ["False", "False"]


def test_a_network_on_a_heuristic_decides_on_the_live_game_without_changing_it() -> None:
    """`residual-4p` is trusted with the live game by the harness (no clone a decision): its
    decisions leave the game's snapshot as it was."""
    from dune_env.engine import Game, GameConfig
    from dune_env.match import is_builtin
    from dune_env.policies.registry import load_policy

    policy = load_policy("residual-4p")
    assert is_builtin(policy)
    game = Game(GameConfig(num_players=4), seed=11)
    decisions = 0
    while not game.terminal:
        before = game.snapshot()
        option = policy.act(game, game.state.pending_seat)
        assert game.snapshot() == before
        game.apply(option)
        decisions += 1
    assert decisions > 100
