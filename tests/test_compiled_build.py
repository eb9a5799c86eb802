"""The compiled build (mypyc) and the pure-Python sources: which runs, the stale-build guard,
and that both play the same games.

These run on whichever build the process has (`make test` runs them on both: once as part of
the whole suite on the compiled build, once with DUNE_ENV_PURE=1).  The comparison tests play
seeded games here and in a subprocess on the other build and compare every byte.
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import pickle
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import dune_env
from dune_env import compiled_build as _compiled
from dune_env.engine import Game, GameConfig
from dune_env.engine.rng import DiceRng
from dune_env.engine.state import GameState

ROOT = Path(dune_env.__file__).resolve().parent.parent
HAS_COMPILED = any(_compiled.extension_file(p) for p in _compiled.compiled_sources())
needs_compiled = pytest.mark.skipif(
    not HAS_COMPILED, reason="no compiled build here (make build / setup.py build_ext --inplace)"
)


def _on_both_builds(code: str) -> dict[bool, Any]:
    """The JSON that `code` prints, run on the compiled build (False) and the pure one (True)."""
    results = {}
    for pure in (False, True):
        run = _run_python(code, pure=pure)
        assert run.returncode == 0, run.stderr
        results[pure] = json.loads(run.stdout)
    return results


def _run_python(code: str, *, pure: bool, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env.pop(_compiled.PURE_ENV_VAR, None)
    if pure:
        env[_compiled.PURE_ENV_VAR] = "1"
    env["PYTHONPATH"] = str(cwd or ROOT)
    return subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd=cwd or ROOT
    )


def test_build_info_describes_the_running_modules() -> None:
    info = dune_env.build_info()
    names = {_compiled.module_name(p) for p in _compiled.compiled_sources()}
    assert set(info["modules"]) | set(info["pure_modules"]) == names
    assert "dune_env.engine.game" in names and "dune_env.environment.observer" in names
    assert info["compiled"] == (not info["pure_modules"])
    assert info["source_hash_ok"] is True
    for name in info["modules"]:
        assert sys.modules[name].__file__.endswith(tuple(_compiled_suffixes()))
    for name in info["pure_modules"]:
        assert sys.modules[name].__file__.endswith(".py")
    assert info["pure_forced"] == _compiled.pure_forced()
    if info["pure_forced"]:
        assert not info["modules"]


def _compiled_suffixes() -> list[str]:
    import importlib.machinery

    return importlib.machinery.EXTENSION_SUFFIXES


def test_dune_env_pure_forces_the_sources() -> None:
    result = _run_python(
        "import json, dune_env; print(json.dumps(dune_env.build_info()))", pure=True
    )
    assert result.returncode == 0, result.stderr
    info = json.loads(result.stdout)
    assert info["compiled"] is False and info["modules"] == [] and info["pure_forced"] is True


@needs_compiled
def test_the_default_build_here_is_compiled() -> None:
    result = _run_python(
        "import json, dune_env; print(json.dumps(dune_env.build_info()))", pure=False
    )
    assert result.returncode == 0, result.stderr
    info = json.loads(result.stdout)
    assert info["compiled"] is True and info["pure_modules"] == []
    assert info["compiler"].startswith("mypyc ")


def _copy_package(tmp_path: Path) -> Path:
    target = tmp_path / "dune_env"
    shutil.copytree(
        ROOT / "dune_env",
        target,
        ignore=shutil.ignore_patterns("__pycache__", "checkpoints", "assets"),
    )
    return tmp_path


def test_a_compiled_module_without_a_manifest_is_refused_at_import(tmp_path: Path) -> None:
    """An extension module that no build manifest vouches for is never imported silently."""
    root = _copy_package(tmp_path)
    for leftover in root.rglob("*_compiled_manifest*"):
        leftover.unlink()
    suffix = _compiled_suffixes()[0]
    (root / "dune_env/engine" / f"rules{suffix}").write_bytes(b"not a real extension")
    result = _run_python("import dune_env.engine", pure=False, cwd=root)
    assert result.returncode != 0
    assert "StaleBuildError" in result.stderr and "no build manifest" in result.stderr
    assert "DUNE_ENV_PURE=1" in result.stderr
    # The escape hatch works: the sources run.
    forced = _run_python("import dune_env.engine.rules", pure=True, cwd=root)
    assert forced.returncode == 0, forced.stderr


@needs_compiled
def test_an_edited_source_next_to_its_compiled_module_is_refused_at_import(
    tmp_path: Path,
) -> None:
    root = _copy_package(tmp_path)
    source = root / "dune_env/engine/game.py"
    source.write_text(source.read_text() + "\n# edited after the build\n")
    result = _run_python("import dune_env", pure=False, cwd=root)
    assert result.returncode != 0
    assert "StaleBuildError" in result.stderr and "dune_env/engine/game.py" in result.stderr
    forced = _run_python(
        "import dune_env; print(dune_env.build_info()['compiled'])", pure=True, cwd=root
    )
    assert forced.returncode == 0 and forced.stdout.strip() == "False", forced.stderr


# --- the same games on both builds ---------------------------------------------------------

PLAY = r"""
import hashlib, json, sys
import dune_env
from dune_env.engine import Game, GameConfig
from dune_env.engine.rng import DiceRng

def play_engine():
    digest = hashlib.sha256()
    for players, seed, extra in ((3, 0, {}), (4, 1, {}), (5, 2, {"record_events": True}),
                                 (6, 3, {}), (8, 4, {})):
        game = Game(GameConfig(num_players=players, **extra), seed=seed)
        chooser = DiceRng(1000 + seed)
        while not game.terminal:
            options = game.legal_options()
            game.apply(options[chooser.below(len(options))])
        digest.update(game.to_json().encode())
        digest.update(json.dumps([game.rewards, game.winners]).encode())
    return digest.hexdigest()

def play_env():
    import numpy as np
    digest = hashlib.sha256()
    env = dune_env.env(num_players=4)
    rng = np.random.default_rng(7)
    for game in range(3):
        env.reset(seed=game)
        for agent in env.agent_iter():
            obs, reward, term, trunc, _ = env.last()
            digest.update(obs["observation"].tobytes())
            digest.update(obs["action_mask"].tobytes())
            digest.update(repr((agent, float(reward), term, trunc)).encode())
            legal = np.flatnonzero(obs["action_mask"])
            env.step(None if term or trunc else int(rng.choice(legal)))
        digest.update(env.unwrapped.game.to_json().encode())
    return digest.hexdigest()

print(json.dumps({"compiled": dune_env.build_info()["compiled"],
                  "engine": play_engine(), "env": play_env()}))
"""


@needs_compiled
def test_compiled_and_pure_builds_play_bit_identical_games() -> None:
    """Seeded random games (3-8 players) end in byte-identical snapshots, and the environment's
    observations, masks and rewards are byte-identical, on the compiled and the pure build."""
    results = _on_both_builds(PLAY)
    assert results[False]["compiled"] is True and results[True]["compiled"] is False
    assert results[False]["engine"] == results[True]["engine"]
    assert results[False]["env"] == results[True]["env"]


HEURISTIC_GAMES = """
import hashlib, json
import dune_env
from dune_env.engine import Game, GameConfig
from dune_env.policies.registry import load_policy
digest = hashlib.sha256()
lineups = (["strategist", "economic", "aggressive", "random"],
           ["strategist", "economic", "aggressive", "strategist", "economic"])
for seed, names in enumerate(lineups * 2):
    game = Game(GameConfig(num_players=len(names)), seed=seed)
    policies = [load_policy(n, seed=seed * 10 + i) for i, n in enumerate(names)]
    while not game.terminal:
        game.apply(policies[game.state.pending_seat].act(game, game.state.pending_seat))
    digest.update(game.to_json().encode())
print(json.dumps({"compiled": dune_env.build_info()["compiled"], "games": digest.hexdigest()}))
"""


@needs_compiled
def test_compiled_and_pure_heuristics_choose_the_same_options() -> None:
    """The heuristics (compiled too) play seeded 4- and 5-player games of strategist, economic,
    aggressive and random to byte-identical ends on both builds: same choices, decision by
    decision (a float coerced differently would change one)."""
    results = _on_both_builds(HEURISTIC_GAMES)
    assert results[False]["compiled"] is True and results[True]["compiled"] is False
    assert results[False]["games"] == results[True]["games"]


LAYOUTS = """
import json
from dune_env.environment.observer import OBS_LAYOUT, STATE_LAYOUT
from dune_env.policies.weights import spaces_fingerprint
fields = [[f.name, list(f.shape), repr(f.scale), repr(f.max_raw), f.seat_axis, f.start]
          for layout in (OBS_LAYOUT, STATE_LAYOUT) for f in layout.fields]
print(json.dumps({"fields": fields, "fingerprint": spaces_fingerprint(),
                  "legacy": spaces_fingerprint(717)}))
"""


@needs_compiled
def test_both_builds_declare_the_same_layouts_and_model_fingerprint() -> None:
    """The observation and state layouts, down to the type of each scale (a compiled float
    parameter once turned the int 12 into 12.0), and so the fingerprint a saved model is checked
    against, are the same on both builds: a model loads on either."""
    results = _on_both_builds(LAYOUTS)
    assert results[False] == results[True]


# --- pickling and copying (the compiled classes need `__reduce__`) --------------------------


def _mid_game(players: int = 4, seed: int = 5, decisions: int = 60) -> Game:
    game = Game(GameConfig(num_players=players, record_events=True), seed=seed)
    chooser = DiceRng(seed)
    for _ in range(decisions):
        options = game.legal_options()
        game.apply(options[chooser.below(len(options))])
    return game


def _finish(game: Game, seed: int) -> str:
    chooser = DiceRng(seed)
    while not game.terminal:
        options = game.legal_options()
        game.apply(options[chooser.below(len(options))])
    return game.to_json()


@pytest.mark.parametrize("how", ["pickle", "deepcopy", "copy", "clone"])
def test_a_game_survives_pickle_and_copy_and_plays_on_identically(how: str) -> None:
    game = _mid_game()
    if how == "pickle":
        other = pickle.loads(pickle.dumps(game))
    elif how == "deepcopy":
        other = copy.deepcopy(game)
    elif how == "copy":
        other = copy.copy(game)
        other = other.clone()  # a shallow copy shares the state; its clone does not
    else:
        other = game.clone()
    assert type(other) is Game and other is not game and other.state is not game.state
    assert other.to_json() == game.to_json()
    assert _finish(other, 9) == _finish(game, 9)


@pytest.mark.parametrize("how", ["pickle", "deepcopy"])
def test_states_configs_and_generators_pickle_and_deepcopy(how: str) -> None:
    roundtrip = (lambda x: pickle.loads(pickle.dumps(x))) if how == "pickle" else copy.deepcopy
    game = _mid_game()
    state = roundtrip(game.state)
    assert isinstance(state, GameState) and state is not game.state
    assert Game.from_state(state).to_json() == game.to_json()
    config = GameConfig(num_players=5, win_reward=2, loss_reward=-1, faction_mode="random")
    copied = roundtrip(config)
    assert copied == config and copied.to_dict() == config.to_dict()
    # Rewards keep their type (a compiled frozen dataclass once turned ints into floats).
    assert type(copied.win_reward) is type(config.win_reward)
    rng = DiceRng(42)
    rng.below(6)
    twin = roundtrip(rng)
    assert [twin.below(6) for _ in range(20)] == [rng.below(6) for _ in range(20)]


@pytest.mark.parametrize("how", ["pickle", "deepcopy"])
def test_an_environment_and_its_observer_pickle_and_observe_identically(how: str) -> None:
    """The observer (a compiled class) copies with empty caches; a `dune_v1` environment pickles
    and deep-copies (vector-env workers and SB3 send them across processes) and its copy plays
    the same seeded game with the same observations and masks."""
    import numpy as np

    from dune_env.environment.observer import Observer

    roundtrip = (lambda x: pickle.loads(pickle.dumps(x))) if how == "pickle" else copy.deepcopy
    observer = roundtrip(Observer(5))
    game = _mid_game(players=5)
    assert observer.num_players == 5
    assert np.array_equal(observer.observe(game.state, 1, 2), Observer(5).observe(game.state, 1, 2))
    env = dune_env.env(num_players=4)
    env.reset(seed=3)
    played = []
    for _ in range(25):
        played.append(int(np.flatnonzero(env.last()[0]["action_mask"])[-1]))
        env.step(played[-1])
    # Gymnasium's EzPickle: a copy is a fresh environment of the same arguments (no game).
    twin = roundtrip(env)
    twin.reset(seed=3)
    for action in played:
        twin.step(action)
    for _ in range(40):
        (a, *_), (b, *_) = env.last(), twin.last()
        assert env.agent_selection == twin.agent_selection
        assert np.array_equal(a["observation"], b["observation"])
        assert np.array_equal(a["action_mask"], b["action_mask"])
        action = int(np.flatnonzero(a["action_mask"])[0])
        env.step(action)
        twin.step(action)


def test_a_config_keeps_the_reward_values_it_was_given() -> None:
    config = GameConfig(num_players=4, win_reward=2, loss_reward=-1)
    assert config.to_dict()["win_reward"] == 2 and config.to_dict()["loss_reward"] == -1
    assert json.loads(json.dumps(config.to_dict())) == config.to_dict()
    assert GameConfig.from_dict(config.to_dict()) == config


def test_sha_of_a_fixed_game_is_stable_across_runs() -> None:
    """Same seed + same actions = same game, here and in a fresh process (this build)."""
    here = hashlib.sha256(_finish(_mid_game(), 3).encode()).hexdigest()
    code = (
        "import hashlib, sys; sys.path.insert(0, 'tests');"
        "from tests.test_compiled_build import _finish, _mid_game;"
        "print(hashlib.sha256(_finish(_mid_game(), 3).encode()).hexdigest())"
    )
    run = _run_python(code, pure=_compiled.pure_forced())
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == here


_SWAPPABLE_REGISTRIES = {("handlers.py", "HANDLERS")}  # (tests swap the heuristics' table)


def test_module_level_constants_of_compiled_modules_are_final() -> None:
    """Compiled code looks up a module-level name that is not `Final` in the module's dictionary
    at every use (and inlines a `Final` int): each UPPER_CASE module-level assignment of a
    compiled module is declared `Final` (docs/performance.md).  Exempt: registries that tests
    replace and that only set-up code reads."""
    import ast
    import re

    missing = []
    for path in _compiled.compiled_sources():
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.Assign):
                names = [t.id for t in node.targets if isinstance(t, ast.Name)]
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                if "Final" in ast.unparse(node.annotation):
                    continue
                names = [node.target.id]
            else:
                continue
            missing += [
                f"{path.name}:{node.lineno} {name}"
                for name in names
                if re.fullmatch(r"_?[A-Z][A-Z0-9_]*", name)
                and (path.name, name) not in _SWAPPABLE_REGISTRIES
            ]
    assert not missing, f"declare these module-level constants Final: {missing}"
