"""The observer's incremental cache never differs from a fresh build, and its declarations are
complete (issue 9: a declarative observer, one declaration per field).

At every decision of many varied games (3-8 players, drafted and random factions, every rule
variant on and off, battle bids in progress (BATTLE-5), the Bene Gesserit prediction (BG-0),
game over), the observation of every seat and the global state built by one observer that
followed the whole game (and, for some games, first followed another game) equal those of a new
observer with an empty cache.
"""

from __future__ import annotations

import ast
import operator
import random
import re
from pathlib import Path

import numpy as np
import pytest

import dune_env
from dune_env.engine import Game, GameConfig, Phase
from dune_env.engine.information import resample
from dune_env.engine.rng import DiceRng
from dune_env.engine.state import GameState
from dune_env.environment import observer
from dune_env.environment.observer import (
    OBS_LAYOUT,
    PUBLIC_FEATURES,
    PUBLIC_LAYOUT,
    STATE_LAYOUT,
    Observer,
)
from dune_env.environment.render import render_ansi
from dune_env.policies.heuristics import AggressivePolicy
from tests.test_engine_records import state_attributes

VARIANTS = {
    "strict_control": True,
    "desert_landing": True,
    "face_dancers": "spice",
    "guild_income_per_lander": True,
    "strict_alliance_victory": True,
    "smugglers_land_anywhere": True,
    "region_die_west_faces": (1, 4),
}


# Games with battles (few 3- and 4-player games of this play reach one).
SEEDS = {3: (34, 37, 39, 30), 4: (42, 43, 40, 41)}


def _config(num_players: int, variant: int) -> GameConfig:
    options: dict[str, object] = dict(VARIANTS) if variant % 2 else {}
    if variant % 3 == 0:
        options["faction_mode"] = "draft"
    return GameConfig(num_players=num_players, **options)  # type: ignore[arg-type]


def _positions(num_players: int, seed: int) -> list[GameState]:
    """Every position of one game (clones), the last one game over: each decision is the
    aggressive heuristic's (it seeks battles) or a random legal option, half and half."""
    game = Game(_config(num_players, seed), seed=seed)
    bots = [AggressivePolicy(seed=seed * 10 + seat) for seat in range(num_players)]
    rng = random.Random(seed)
    positions = [game.state.clone()]
    while not game.terminal:
        seat = game.state.pending_seat
        if rng.random() < 0.5:
            game.apply(bots[seat].act(game, seat))
        else:
            options = game.legal_options()
            game.apply(options[rng.randrange(len(options))])
        positions.append(game.state.clone())
    return positions


def _assert_same(incremental: Observer, state: GameState, key: object) -> None:
    fresh = Observer(state.num_players)
    for seat in range(state.num_players):
        a = incremental.observe(state, key, seat)
        b = fresh.observe(state, None, seat)
        if not np.array_equal(a, b):
            wrong = [
                f.name for f in OBS_LAYOUT.fields if not np.array_equal(a[f.slice], b[f.slice])
            ]
            raise AssertionError(
                f"decision {state.decision_count}, phase {Phase(state.phase).name}, seat "
                f"{seat}: the cached observation differs from a fresh one in {wrong}"
            )
    a = incremental.global_state(state, key)
    b = fresh.global_state(state, None)
    wrong = [f.name for f in STATE_LAYOUT.fields if not np.array_equal(a[f.slice], b[f.slice])]
    assert not wrong, f"decision {state.decision_count}: global state differs in {wrong}"


@pytest.mark.parametrize("num_players", range(3, 9))
def test_incremental_observations_equal_fresh_ones(num_players: int) -> None:
    """BATTLE-5 / BG-0 included: at every decision of four games per player count, for every
    seat, cached == fresh; one observer follows all four games (reset between, as the
    environments do)."""
    incremental = Observer(num_players)
    seen_phases: set[int] = set()
    predictions = 0
    for seed in SEEDS.get(num_players, range(10 * num_players, 10 * num_players + 4)):
        incremental.invalidate()
        for state in _positions(num_players, seed):
            _assert_same(incremental, state, state.decision_count)
            seen_phases.add(state.phase)
            predictions += state.bg_prediction >= 0
    # The games reached what makes observations seat-dependent and the end.
    assert Phase.GAME_OVER in seen_phases
    assert Phase.BATTLE_BID_ATTACKER in seen_phases or Phase.BATTLE_BID_DEFENDER in seen_phases
    if num_players >= 5:
        assert predictions > 0


def test_a_position_seen_again_after_others_is_rebuilt() -> None:
    """Jumping between games and back (search, restored snapshots) keeps cached == fresh."""
    a = _positions(5, 1)
    b = _positions(5, 2)
    incremental = Observer(5)
    for i in range(0, min(len(a), len(b)), 7):
        for state in (a[i], b[i], a[-1 - i], b[len(b) // 2]):
            _assert_same(incremental, state, object())


# --- the declarations ---------------------------------------------------------------------------

OBSERVER_SOURCE = Path(dune_env.__file__).parent / "environment" / "observer.py"


def _functions() -> dict[str, ast.FunctionDef]:
    tree = ast.parse(OBSERVER_SOURCE.read_text())
    return {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}


def _state_reads(name: str, param: int, functions: dict[str, ast.FunctionDef]) -> set[str]:
    """The attributes the function `name` reads from its parameter number `param` (the state),
    following the module's own functions it passes the state to."""
    node = functions[name]
    state = node.args.args[param].arg
    reads: set[str] = set()
    for inner in ast.walk(node):
        if (
            isinstance(inner, ast.Attribute)
            and isinstance(inner.value, ast.Name)
            and inner.value.id == state
        ):
            reads.add(inner.attr)
        if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name):
            for position, arg in enumerate(inner.args):
                if isinstance(arg, ast.Name) and arg.id == state:
                    if inner.func.id not in functions:
                        raise AssertionError(f"{name} passes the state to {inner.func.id}")
                    reads |= _state_reads(inner.func.id, position, functions)
    return reads


def test_every_feature_declares_what_its_extractor_reads() -> None:
    """A feature is re-extracted only when an attribute in its `reads` changed: an attribute it
    reads but does not declare would leave stale entries."""
    functions = _functions()
    attributes = state_attributes()
    for feature in PUBLIC_FEATURES:
        if isinstance(feature.extract, operator.attrgetter):  # reads one attribute, as named
            read = set(re.findall(r"'(\w+)'", repr(feature.extract)))
        else:
            read = _state_reads(feature.extract.__name__, 0, functions)
        assert read, feature.field.name
        missing = read - set(feature.reads)
        assert not missing, f"{feature.field.name} reads {sorted(missing)} without declaring it"
        unused = set(feature.reads) - read
        assert not unused, f"{feature.field.name} declares {sorted(unused)} but never reads it"
        for attr in feature.reads:
            assert attr in attributes, f"{feature.field.name}: no state field {attr}"


def test_the_checker_follows_helpers() -> None:
    functions = _functions()
    assert _state_reads("_last_battle_attacker", 0, functions) == {"last_battle", "faction_seat"}
    assert _state_reads("_shield_holder", 0, functions) == {"shield_holder", "faction_seat"}


def test_public_fields_are_the_declared_features_in_order() -> None:
    assert [f.name for f in PUBLIC_LAYOUT.fields] == [f.field.name for f in PUBLIC_FEATURES]
    encodings = {observer.INDEX, observer.SCALAR, observer.DENSE, observer.ONE_HOT}
    encodings |= {observer.SPARSE, observer.ROWS}
    assert all(f.encoding in encodings for f in PUBLIC_FEATURES)


def test_renderer_shows_no_secret() -> None:
    """BATTLE-5 / BG-0: the text rendering of any position equals that of the position with
    every secret of any seat re-drawn (engine.information.resample)."""
    for seed in range(3):
        for state in _positions(6, 40 + seed)[::5]:
            text = render_ansi(state)
            for seat in range(6):
                assert render_ansi(resample(state, seat, DiceRng(seed))) == text
