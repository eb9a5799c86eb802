"""Rendering: text ("ansi", "human") and the map picture ("rgb_array")."""

from __future__ import annotations

import random

import numpy as np
import pytest

import dune_env
from dune_env.environment.render import FACTION_COLOURS, unit_box

from .helpers import play, random_action


def test_ansi_describes_the_public_state() -> None:
    env = dune_env.env(num_players=5, render_mode="ansi")
    env.reset(seed=1)
    text = env.render()
    assert isinstance(text, str)
    game = env.unwrapped.game
    s = game.state
    assert f"round {s.round}/6" in text and f"storm over sector {s.storm_sector}" in text
    for name in ("Cielago Plain", "Polar Cap", "Tuek's Sietch"):
        assert name in text
    for faction in s.seat_faction:
        assert dune_env.engine.FACTION_NAMES_BY_ID[faction] in text
    assert f"Pending: seat {s.pending_seat}" in text


def test_human_prints_the_ansi_text(capsys: pytest.CaptureFixture[str]) -> None:
    env = dune_env.env(num_players=3, render_mode="human")
    env.reset(seed=2)
    capsys.readouterr()
    assert env.render() is None
    printed = capsys.readouterr().out
    env.unwrapped.render_mode = "ansi"
    assert printed == env.render() + "\n"
    env.unwrapped.render_mode = "human"
    env.step(int(np.flatnonzero(env.last()[0]["action_mask"])[0]))  # human renders each step
    assert "Pending" in capsys.readouterr().out


def test_no_render_mode_warns_and_returns_none() -> None:
    env = dune_env.env(num_players=3)
    env.reset(seed=0)
    with pytest.warns(UserWarning, match="without specifying any render mode"):
        assert env.render() is None


def test_rgb_array_shows_units_storm_and_survives_game_end() -> None:
    env = dune_env.raw_env(num_players=6, render_mode="rgb_array")
    env.reset(seed=3)
    rng = random.Random(3)
    for _ in range(40):
        env.step(random_action(env.action_mask(), rng))
    first = env.render()
    assert isinstance(first, np.ndarray) and first.dtype == np.uint8
    assert first.ndim == 3 and first.shape[2] == 3
    game = env.game
    assert game is not None
    # Each occupied region shows a box in the colour of its first faction (faction order).
    s = game.state
    checked = 0
    for region in range(10):
        present = [f for f in range(8) if s.units[f][region * 2] + s.units[f][region * 2 + 1]]
        if not present:
            continue
        x0, y0, x1, y1 = unit_box(region, 0)
        patch = first[int(y0) + 1 : int(y1), int(x0) + 1 : int(x1)]
        colour = np.array(FACTION_COLOURS[present[0]])
        assert (np.abs(patch.astype(int) - colour).sum(axis=2) < 10).any(), region
        checked += 1
    assert checked >= 3
    play(env, rng)
    last = env.render()
    assert last.shape == first.shape and not np.array_equal(last, first)


def test_rgb_frame_has_a_legend_and_a_readable_font() -> None:
    """The frame carries a key of every faction colour under the map, and text is drawn with a
    scalable font of at least 13 px (Pillow's 10 px bitmap font was too small to read)."""
    from dune_env.environment import render

    env = dune_env.raw_env(num_players=3, render_mode="rgb_array")
    env.reset(seed=0)
    frame = env.render()
    assert isinstance(frame, np.ndarray)
    legend = frame[render._MAP_SIZE :, :, :].astype(int)
    for colour in FACTION_COLOURS:  # every faction's swatch, also those not in this game
        assert (np.abs(legend - np.array(colour)).sum(axis=2) < 6).sum() >= 100, colour
    assert render._font().size >= 13
