"""The one action codec (`dune_env.environment.action_table`): every adapter converts action ids,
fills masks and words illegal actions through it, and it agrees with the engine (RULES.md §9:
the legal options of the pending decision are the legal actions)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from dune_env.engine import Game, GameConfig
from dune_env.engine.decisions import OPTION_COUNTS, DecisionKind
from dune_env.engine.game import legal_options
from dune_env.environment.action_table import (
    ACTIONS,
    NUM_ACTIONS,
    action_ids,
    action_mask,
    action_of,
    decode_action,
    fill_mask,
    illegal_action_message,
    legal_action_ids,
    option_of,
)

PACKAGE = Path(__file__).resolve().parents[2] / "dune_env"


def test_action_of_and_option_of_round_trip_every_action() -> None:
    for action in ACTIONS:
        assert action_of(action.kind, action.option) == action.id
        assert option_of(action.kind, action.id) == action.option
        assert decode_action(action.id) == (action.kind, action.option)


def test_option_of_refuses_ids_of_another_kind() -> None:
    """An id outside the pending kind's block can never be legal: -1, not a wrapped option."""
    for kind in DecisionKind:
        first = action_of(kind, 0)
        last = action_of(kind, OPTION_COUNTS[kind] - 1)
        if first > 0:
            assert option_of(kind, first - 1) == -1
        if last + 1 < NUM_ACTIONS:
            assert option_of(kind, last + 1) == -1


def test_masks_and_legal_ids_are_the_engine_legal_options_section_9() -> None:
    """RULES.md §9: the mask marks exactly the engine's legal options, for the deciding seat
    only, at every decision of a seeded random game."""
    game = Game(GameConfig(num_players=5), seed=3)
    rng = np.random.default_rng(3)
    while not game.terminal:
        state = game.state
        legal = game.legal_options()
        ids = legal_action_ids(state)
        assert ids == action_ids(state.pending_kind, legal)
        assert [decode_action(a) for a in ids] == [(state.pending_kind, o) for o in legal]
        for seat in range(5):
            mask = action_mask(state, seat)
            expected = ids if seat == state.pending_seat else []
            assert np.flatnonzero(mask).tolist() == sorted(expected)
        flat = np.zeros(2 * NUM_ACTIONS, dtype=bool)
        flat[legal_action_ids(state, NUM_ACTIONS)] = True
        assert not flat[:NUM_ACTIONS].any()
        np.testing.assert_array_equal(
            flat[NUM_ACTIONS:], fill_mask(np.zeros(NUM_ACTIONS, dtype=bool), state)
        )
        game.apply(legal[int(rng.integers(len(legal)))])
    assert legal_action_ids(game.state) == []


def test_illegal_action_message_names_the_action_and_the_legal_ones() -> None:
    game = Game(GameConfig(num_players=4), seed=0)
    state = game.state
    legal = game.legal_options()
    bad = next(a for a in range(NUM_ACTIONS) if a not in legal_action_ids(state))
    text = illegal_action_message(bad, state.pending_kind, legal, "player_1 (Fremen)")
    assert text.startswith(f"action {bad} ({ACTIONS[bad].name!r}) is not legal for player_1")
    assert DecisionKind(state.pending_kind).name in text
    first = legal_action_ids(state)[0]
    assert f"{first}={ACTIONS[first].name!r}" in text


def test_no_adapter_converts_action_ids_by_hand() -> None:
    """The offset arithmetic lives in the codec only: no other module of the package reads
    KIND_OFFSET (it stays exported for users)."""
    allowed = {PACKAGE / "environment" / "action_table.py", PACKAGE / "environment" / "__init__.py"}
    offenders = [
        str(path.relative_to(PACKAGE))
        for path in PACKAGE.rglob("*.py")
        if path not in allowed and re.search(r"\bKIND_OFFSET\b", path.read_text(encoding="utf-8"))
    ]
    assert offenders == []


@pytest.mark.parametrize("mode", ["aec", "vector"])
def test_every_adapter_words_an_illegal_action_alike(mode: str) -> None:
    """The AEC env and the vector env raise the codec's message for the same illegal action."""
    from dune_env.environment import IllegalActionError, raw_env
    from dune_env.vector.core import BatchedGames

    if mode == "aec":
        env = raw_env(num_players=4)
        env.reset(seed=1)
        state = env.game.state
        bad = next(a for a in range(NUM_ACTIONS) if a not in legal_action_ids(state))
        with pytest.raises(IllegalActionError) as info:
            env.step(bad)
    else:
        games = BatchedGames(1, num_players=4)
        games.reset(seeds=[1])
        state = games.subenvs[0].state
        bad = next(a for a in range(NUM_ACTIONS) if a not in legal_action_ids(state))
        with pytest.raises(IllegalActionError) as info:
            games.step(np.array([bad]))
    expected = illegal_action_message(bad, state.pending_kind, legal_options(state), "X")
    tail = expected.split(" at decision ", 1)[1]
    assert str(info.value).endswith(tail)
    assert f"action {bad} ({ACTIONS[bad].name!r}) is not legal for " in str(info.value)
