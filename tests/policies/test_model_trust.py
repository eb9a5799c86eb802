"""Model files and the trust model (SECURITY.md): pickle-based files (stable-baselines3 .zip,
RLlib checkpoints) can run code when loaded, so they load only with an explicit opt-in; the
safe format (.safetensors + .json) loads from anyone and plays exactly as the original."""

from __future__ import annotations

import base64
import json
import pickle
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from dune_env.engine import Game, GameConfig
from dune_env.environment.observer import Observer
from dune_env.policies.observation import observation_and_mask
from dune_env.policies.registry import (
    PolicyLoadError,
    UntrustedCheckpointError,
    load_policy,
)

pytest.importorskip("sb3_contrib")

REPO = Path(__file__).resolve().parents[2]
ORIGINAL_ZIP = REPO / "tests" / "data" / "ppo_4p_sb3.zip"  # the SB3 file ppo-4p was exported from


class _WriteMarker:
    """A pickle payload: unpickling it creates the file `path` (standing in for any code)."""

    def __init__(self, path: Path) -> None:
        self.path = str(path)

    def __reduce__(self) -> Any:
        return (exec, (f"open({self.path!r}, 'w').write('pwned')",))


def tiny_dune_model(net_arch: list[int] | None = None) -> Any:
    """An untrained MaskablePPO with dune_v1's spaces (no environment is stepped)."""
    import gymnasium
    from sb3_contrib import MaskablePPO

    from dune_env.environment.action_table import NUM_ACTIONS
    from dune_env.environment.observer import OBS_LAYOUT, OBS_SIZE

    class Spaces(gymnasium.Env):
        observation_space = gymnasium.spaces.Box(0, OBS_LAYOUT.high, (OBS_SIZE,), np.float32)
        action_space = gymnasium.spaces.Discrete(NUM_ACTIONS)

        def reset(self, *, seed=None, options=None):
            return np.zeros(OBS_SIZE, np.float32), {}

        def step(self, action):
            return np.zeros(OBS_SIZE, np.float32), 0.0, True, False, {}

        def action_masks(self):
            return np.ones(NUM_ACTIONS, bool)

    return MaskablePPO(
        "MlpPolicy", Spaces(), n_steps=16, batch_size=16, seed=0,
        policy_kwargs={"net_arch": net_arch or [16]}, device="cpu",
    )  # fmt: skip


def poisoned_zip(tmp_path: Path, marker: Path) -> Path:
    """A genuine SB3 .zip whose `data` carries a pickle payload in `ep_info_buffer`, as an
    attacker would ship it: the model loads and plays normally after running the payload."""
    clean = tmp_path / "clean.zip"
    tiny_dune_model().save(clean)
    evil = tmp_path / "evil.zip"
    with zipfile.ZipFile(clean) as src, zipfile.ZipFile(evil, "w") as dst:
        for item in src.infolist():
            payload = src.read(item.filename)
            if item.filename == "data":
                data = json.loads(payload)
                data["ep_info_buffer"] = {
                    ":type:": "<class 'collections.deque'>",
                    ":serialized:": base64.b64encode(pickle.dumps(_WriteMarker(marker))).decode(),
                }
                payload = json.dumps(data).encode()
            dst.writestr(item, payload)
    return evil


def test_poisoned_sb3_zip_runs_no_code_without_the_opt_in(tmp_path: Path) -> None:
    marker = tmp_path / "marker"
    evil = poisoned_zip(tmp_path, marker)
    with pytest.raises(UntrustedCheckpointError, match="pickle-based.*--trust-checkpoints"):
        load_policy(str(evil))
    from dune_env.policies.sb3 import load_sb3_policy

    with pytest.raises(UntrustedCheckpointError):
        load_sb3_policy(str(evil))
    assert not marker.exists()
    # The payload is real: with the explicit opt-in the file is unpickled and it runs.
    load_policy(str(evil), trust=True)
    assert marker.read_text() == "pwned"


def test_dune_bench_refuses_a_pickle_based_model_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from dune_env.harness.cli import main

    marker = tmp_path / "marker"
    evil = poisoned_zip(tmp_path, marker)
    code = main(["--policies", str(evil), "random", "--games", "1", "--workers", "1",
                 "--out", str(tmp_path / "bench"), "--no-progress", "--no-plots"])  # fmt: skip
    err = capsys.readouterr().err.strip()
    assert code == 2 and not marker.exists()
    assert len(err.splitlines()) == 1 and "--trust-checkpoints" in err


def test_trust_reaches_harness_workers_with_each_spec(tmp_path: Path) -> None:
    """--trust-checkpoints marks each spec (a TrustedSpec), which survives pickling into the
    harness's worker processes; the results stay keyed by the plain path.  This process has
    built a torch network first, so the policy host and the load check forked from it inherit
    a used OpenMP pool: without `hosts.one_torch_thread` in every forked child they hung in
    the network's initialisation (run alone, this test hung every time)."""
    from dune_env.harness.cli import main
    from dune_env.harness.play.runner import play_game
    from dune_env.match import schedule
    from dune_env.policies.registry import TrustedSpec, trusted

    model = tmp_path / "mine.zip"
    tiny_dune_model().save(model)
    spec = schedule([trusted(str(model)), "random"], 4, 1, seed=0)[0]
    shipped = pickle.loads(pickle.dumps(spec))  # as sent to a worker process
    assert isinstance(shipped.seat_policies[0], TrustedSpec)
    assert len(play_game(shipped)) == 4
    out = tmp_path / "bench"
    code = main(["--policies", str(model), "random", "--games", "2", "--workers", "1",
                 "--out", str(out), "--no-progress", "--no-plots",
                 "--trust-checkpoints"])  # fmt: skip
    assert code == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["policies"][str(model)]["seats_played"] == 4


def test_evaluate_refuses_a_pickle_based_model(tmp_path: Path) -> None:
    from training.evaluate import main

    marker = tmp_path / "marker"
    evil = poisoned_zip(tmp_path, marker)
    with pytest.raises(SystemExit) as exit_info:
        main([str(evil), "--games", "1", "--workers", "1", "--out", str(tmp_path / "eval")])
    assert exit_info.value.code == 2 and not marker.exists()


def poisoned_rllib_checkpoint(tmp_path: Path, marker: Path) -> Path:
    """A folder shaped like an RLlib checkpoint whose module pickle carries a payload."""
    root = tmp_path / "rllib_checkpoint"
    module = root / "learner_group" / "learner" / "rl_module" / "shared"
    module.mkdir(parents=True)
    (root / "rllib_checkpoint.json").write_text('{"type": "Algorithm"}')
    (module / "rllib_checkpoint.json").write_text(
        json.dumps({"type": "RLModule", "format": "cloudpickle", "state_file": "state.pkl"})
    )
    (module / "class_and_ctor_args.pkl").write_bytes(pickle.dumps(_WriteMarker(marker)))
    return root


def test_poisoned_rllib_checkpoint_runs_no_code_without_the_opt_in(tmp_path: Path) -> None:
    marker = tmp_path / "marker"
    checkpoint = poisoned_rllib_checkpoint(tmp_path, marker)
    with pytest.raises(UntrustedCheckpointError, match="RLlib checkpoint"):
        load_policy(str(checkpoint))
    assert not marker.exists()


def test_broken_rllib_checkpoint_fails_with_a_policy_load_error(tmp_path: Path) -> None:
    """With the opt-in, a checkpoint that does not load is a PolicyLoadError naming the folder,
    not a bare FileNotFoundError from inside RLlib."""
    pytest.importorskip("ray.rllib")
    checkpoint = poisoned_rllib_checkpoint(tmp_path, tmp_path / "marker")
    with pytest.raises(PolicyLoadError, match="does not load as an RLlib checkpoint"):
        load_policy(str(checkpoint), trust=True)


def states(games: int, players: tuple[int, ...]) -> list[tuple[np.ndarray, np.ndarray]]:
    """(observation, mask) of every decision of seeded games played by uniform random moves."""
    rng = np.random.default_rng(0)
    found = []
    for seed in range(games):
        for n in players:
            game = Game(GameConfig(num_players=n), seed=seed)
            observer = Observer(n)
            while not game.terminal:
                found.append(observation_and_mask(game, game.state.pending_seat, observer))
                legal = game.legal_options()
                game.apply(legal[int(rng.integers(len(legal)))])
    return found


def test_shipped_ppo_4p_plays_exactly_as_the_sb3_original() -> None:
    """The safe-format `ppo-4p` chooses the same action as the MaskablePPO .zip it was exported
    from (deterministic predict) in every 2nd state of seeded 3-, 4-, 5- and 8-player games."""
    original = load_policy(str(ORIGINAL_ZIP), trust=True)
    shipped = load_policy("ppo-4p")
    observed = states(1, (3, 4, 5, 8))[::2]
    assert len(observed) > 400
    differ = [i for i, (o, m) in enumerate(observed) if original.fn(o, m) != shipped.fn(o, m)]
    assert differ == []


def test_safe_format_batched_actions_equal_row_by_row_and_read_the_legacy_prefix() -> None:
    """`act_batch` (one forward pass, as the vector envs and the opponent pool use it) chooses
    what one-row calls choose; the shipped model, trained before the `rules_variant` slice was
    appended, reads only its prefix, so that slice cannot change its choice."""
    from dune_env.environment.observer import OBS_LAYOUT

    shipped = load_policy("ppo-4p")
    observed = states(1, (4, 5))[::3]
    observations = np.stack([o for o, _ in observed])
    masks = np.stack([m for _, m in observed])
    batched = shipped.fn.act_batch(observations, masks)
    assert list(batched) == [shipped.fn(o, m) for o, m in observed]
    variant = OBS_LAYOUT.slices["rules_variant"]
    changed = observations.copy()
    changed[:, variant] = 1.0 - changed[:, variant]
    assert list(shipped.fn.act_batch(changed, masks)) == list(batched)


def test_export_round_trip_plays_identically_and_restores_the_state_dict(tmp_path: Path) -> None:
    import torch
    from safetensors.torch import load_file

    from dune_env.policies.export import main as export_main

    model = tiny_dune_model([24, 12])
    source = tmp_path / "model.zip"
    model.save(source)
    assert export_main([str(source), str(tmp_path / "safe")]) == 2  # needs the opt-in
    assert not (tmp_path / "safe.json").exists()
    assert export_main([str(source), str(tmp_path / "safe"), "--trust-checkpoints"]) == 0
    exported = load_policy(str(tmp_path / "safe.safetensors"))
    original = load_policy(str(source), trust=True)
    for o, m in states(1, (4, 6)):
        assert exported.fn(o, m) == original.fn(o, m)
    tensors = load_file(tmp_path / "safe.safetensors")
    fresh = tiny_dune_model([24, 12])
    fresh.policy.load_state_dict(tensors)  # strict: the names are SB3's
    for name, value in model.policy.state_dict().items():
        assert torch.equal(fresh.policy.state_dict()[name], value)
    description = json.loads((tmp_path / "safe.json").read_text())
    assert description["network"] == {
        "kind": "mlp-actor-critic", "pi": [24, 12], "vf": [24, 12], "activation": "tanh",
    }  # fmt: skip


def _safe_copy(tmp_path: Path) -> tuple[Path, Path, dict[str, Any]]:
    from dune_env.policies.registry import CHECKPOINT_DIR

    tensors = tmp_path / "m.safetensors"
    tensors.write_bytes((CHECKPOINT_DIR / "ppo_4p.safetensors").read_bytes())
    description = json.loads((CHECKPOINT_DIR / "ppo_4p.json").read_text())
    description["tensors"]["file"] = tensors.name
    return tensors, tmp_path / "m.json", description


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda d: d.update(format="pickle"), "'format'"),
        (lambda d: d.update(format_version=2), "format_version"),
        (lambda d: d.update(observation_size=10), "observations of size 10"),
        (lambda d: d.update(spaces_fingerprint="0" * 64), "another dune_v1 observation layout"),
        (lambda d: d["network"].update(activation="os.system"), "activation"),
        (lambda d: d["network"].update(pi=[256, -1]), "positive layer sizes"),
        (lambda d: d["network"].update(pi=[128, 256]), "the described network takes at most"),
        (lambda d: d["network"].update(pi=[512, 512]), "expected float32"),
        (lambda d: d["tensors"].update(sha256="0" * 64), "does not match the SHA-256"),
        (lambda d: d["tensors"].update(file="../m.safetensors"), "same folder"),
    ],
)
def test_safe_format_description_is_checked(tmp_path: Path, edit: Any, message: str) -> None:
    _, json_path, description = _safe_copy(tmp_path)
    edit(description)
    json_path.write_text(json.dumps(description))
    with pytest.raises(PolicyLoadError, match=message):
        load_policy(str(json_path))


def test_truncated_safe_tensors_are_refused(tmp_path: Path) -> None:
    tensors, json_path, description = _safe_copy(tmp_path)
    json_path.write_text(json.dumps(description))
    load_policy(str(tensors))  # the intact copy loads
    tensors.write_bytes(tensors.read_bytes()[:1000])
    with pytest.raises(PolicyLoadError, match="SHA-256"):
        load_policy(str(tensors))
    json_path.write_text("{not json")
    with pytest.raises(PolicyLoadError, match="not valid JSON"):
        load_policy(str(tensors))
