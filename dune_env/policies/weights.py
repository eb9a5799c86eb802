"""The safe model format: plain tensors plus a JSON architecture description.

A policy is stored as two files side by side:

- `NAME.safetensors`: the network's tensors (safetensors: a JSON header and raw little-endian
  arrays -- nothing in it is executed or unpickled), named as in a stable-baselines3
  `MaskableActorCriticPolicy` state dict, so `policy.load_state_dict(tensors)` restores them;
- `NAME.json`: what the tensors mean -- the network (an MLP actor-critic: hidden layer sizes,
  activation), the `dune_v1` observation layout it was trained on (field by field), its size,
  the action count and a fingerprint of both, the SHA-256 of the tensor file, and where the
  weights came from.

`load_weights_policy(path)` checks all of it against the installed `dune_v1`, maps the trained
observation layout onto today's by field name (`dune_env.policies.layouts`: a model keeps
loading when fields or rule variants are added) and plays greedily (the most probable legal
action, exactly as `MaskablePPO.predict(deterministic=True)` does).
Loading such files is safe whatever their origin; contrast stable-baselines3 `.zip` files and
RLlib checkpoints, which are pickle-based (see SECURITY.md).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import secrets
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from ..env_version import ENV_NAME
from . import layouts
from .observation import ObservationPolicy
from .specs import PolicyLoadError

FORMAT_NAME = "dune-env-policy"
FORMAT_VERSION = 1
NETWORK_KIND = "mlp-actor-critic"
# The same network whose logits are added to beta x one-hot of a heuristic's choice: an engine
# policy (it asks the heuristic), `dune_env.policies.residual`.  A kind of its own, so that a
# version that cannot play it refuses it rather than playing the network alone.
RESIDUAL_KIND = "mlp-actor-critic-on-heuristic"
TEACHERS = ("strategist", "economic", "aggressive")
MAX_BETA = 100.0
ACTIVATIONS = ("tanh", "relu")
MAX_JSON_BYTES = 1 << 20
MAX_LAYERS = 16
MAX_UNITS = 1 << 16
MAX_TENSOR_HEADER_BYTES = 1 << 16  # the safetensors JSON header: ~100 bytes a tensor
_CHUNK = 1 << 20
WEIGHTS_SUFFIX = ".safetensors"
ENVS_READ = (ENV_NAME, "dune_v0")  # environments whose models this version plays


def spaces_fingerprint(observation_size: int | None = None) -> str:
    """SHA-256 of the installed dune_v1 observation layout and action table: a model trained for
    another layout of the same size is refused instead of playing nonsense.  With
    `observation_size`, only the layout's leading fields that fill exactly that many entries
    count (a model trained before a field was appended sees that prefix); "" if none do."""
    from ..environment.observer import OBS_LAYOUT

    size = OBS_LAYOUT.size if observation_size is None else observation_size
    count = sum(1 for f in OBS_LAYOUT.fields if f.stop <= size)
    fields = layouts.fields_of(OBS_LAYOUT)[:count]
    if sum(f.size for f in fields) != size:
        return ""
    return layouts.fingerprint(fields, _action_names())


def _action_names() -> tuple[str, ...]:
    from ..environment.action_table import ACTIONS

    return tuple(a.name for a in ACTIONS)


def weight_paths(path: str | Path) -> tuple[Path, Path]:
    """(tensors, description) of a safe-format model named by either file or by its stem."""
    p = Path(path)
    if p.suffix in (WEIGHTS_SUFFIX, ".json"):
        p = p.with_suffix("")
    return p.with_name(p.name + WEIGHTS_SUFFIX), p.with_name(p.name + ".json")


def is_weights_spec(spec: str) -> bool:
    """Does `spec` name a safe-format model (its .safetensors or its .json description)?"""
    p = Path(spec)
    if p.suffix == WEIGHTS_SUFFIX:
        return True
    return p.suffix == ".json" and p.with_suffix(WEIGHTS_SUFFIX).is_file()


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write `data` to `path` so that readers see the old file or the whole new one, never a
    partial file (a temporary file in the same folder, then an atomic rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = temporary_path(path)
    try:
        with tmp.open("xb") as handle:  # exclusive: never writes through a planted file
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def temporary_path(path: Path) -> Path:
    """A fresh hidden name beside `path` for writing it atomically (then `os.replace`)."""
    return path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")


# --- Export ----------------------------------------------------------------------------------


def _layers(state: dict[str, Any], prefix: str) -> list[int]:
    """Hidden sizes of the Linear layers `prefix.0`, `prefix.2`, ... (activations between)."""
    sizes = []
    index = 0
    while f"{prefix}.{index}.weight" in state:
        sizes.append(int(state[f"{prefix}.{index}.weight"].shape[0]))
        index += 2
    return sizes


def export_policy(
    model: Any,
    destination: str | Path,
    source: dict[str, Any] | None = None,
    teacher: tuple[str, float] | None = None,
) -> Path:
    """Write a MaskablePPO model's policy network in the safe format; returns the .json path.

    `destination` is the file stem (or either file name).  The tensor file is written first and
    the description last, each atomically, so a description always names complete tensors.
    `teacher` (heuristic, beta): a network on a heuristic (RESIDUAL_KIND; `training.residual`:
    its observations carry the heuristic's action as one last column, its head is
    `action_net.correction`)."""
    import torch
    from safetensors.torch import save as save_tensors
    from stable_baselines3.common.torch_layers import FlattenExtractor

    from ..environment.action_table import NUM_ACTIONS
    from ..environment.observer import OBS_LAYOUT, OBS_SIZE

    policy = model.policy
    activation = {torch.nn.Tanh: "tanh", torch.nn.ReLU: "relu"}.get(policy.activation_fn)
    if activation is None:
        raise ValueError(f"cannot export activation {policy.activation_fn!r}; known: tanh, relu")
    if not isinstance(policy.features_extractor, FlattenExtractor):
        raise ValueError("only the default flat-observation MlpPolicy can be exported")
    obs_shape = getattr(model.observation_space, "shape", None)
    n_actions = getattr(model.action_space, "n", None)
    width = OBS_SIZE + (teacher is not None)
    if obs_shape != (width,) or n_actions != NUM_ACTIONS:
        raise ValueError(
            f"the model takes observations of shape {obs_shape} and {n_actions} actions; "
            f"{ENV_NAME} has ({OBS_SIZE},) and {NUM_ACTIONS}"
            + (" (plus the heuristic's action with a teacher)" if teacher else "")
        )
    state = {
        k.replace("action_net.correction.", "action_net."): v.detach()
        .to("cpu", torch.float32)
        .contiguous()
        for k, v in policy.state_dict().items()
    }
    tensors_path, json_path = weight_paths(destination)
    blob = save_tensors(state)
    description = {
        "format": FORMAT_NAME,
        "format_version": FORMAT_VERSION,
        "env": ENV_NAME,
        "observation_size": OBS_SIZE,
        "num_actions": NUM_ACTIONS,
        "spaces_fingerprint": spaces_fingerprint(),
        "observation_layout": layouts.to_record(layouts.fields_of(OBS_LAYOUT)),
        "network": {
            "kind": NETWORK_KIND if teacher is None else RESIDUAL_KIND,
            "pi": _layers(state, "mlp_extractor.policy_net"),
            "vf": _layers(state, "mlp_extractor.value_net"),
            "activation": activation,
            **({} if teacher is None else {"teacher": teacher[0], "beta": float(teacher[1])}),
        },
        "action_selection": "argmax of the masked action logits (illegal actions excluded)"
        + ("" if teacher is None else f", plus beta on the {teacher[0]} heuristic's action"),
        "tensors": {"file": tensors_path.name, "sha256": hashlib.sha256(blob).hexdigest()},
        "source": {
            "algorithm": type(model).__name__,
            "num_timesteps": int(getattr(model, "num_timesteps", 0)),
            **(source or {}),
        },
    }
    atomic_write_bytes(tensors_path, blob)
    atomic_write_bytes(json_path, (json.dumps(description, indent=2) + "\n").encode())
    return json_path


# --- Loading ---------------------------------------------------------------------------------


def _expect(condition: bool, label: str, message: str) -> None:
    if not condition:
        raise PolicyLoadError(f"model {label!r}: {message}")


def _positive_sizes(value: Any) -> bool:
    return (
        isinstance(value, list)
        and 0 < len(value) <= MAX_LAYERS
        and all(type(v) is int and 0 < v <= MAX_UNITS for v in value)
    )


def read_description(json_path: Path) -> dict[str, Any]:
    """The checked architecture description (any mismatch is a PolicyLoadError)."""
    label = str(json_path)
    _expect(json_path.is_file(), label, "the description file does not exist")
    _expect(json_path.stat().st_size <= MAX_JSON_BYTES, label, "the description is too large")
    try:
        desc = json.loads(json_path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:
        raise PolicyLoadError(f"model {label!r}: the description is not valid JSON: {exc}") from exc
    _expect(isinstance(desc, dict), label, "the description must be a JSON object")
    _expect(
        desc.get("format") == FORMAT_NAME,
        label,
        f"'format' is {desc.get('format')!r}, expected {FORMAT_NAME!r}",
    )
    _expect(
        desc.get("format_version") == FORMAT_VERSION,
        label,
        f"'format_version' is {desc.get('format_version')!r}; this dune-env reads {FORMAT_VERSION}",
    )
    # dune_v0 models read the dune_v1 observation's prefix (the rules_variant slice came last).
    _expect(
        desc.get("env") in ENVS_READ,
        label,
        f"made for env {desc.get('env')!r}, not one of {', '.join(ENVS_READ)}",
    )
    trained_layout(desc, label)  # the observation it was trained on maps onto today's
    net = desc.get("network")
    _expect(isinstance(net, dict), label, "'network' must be an object")
    _expect(
        net.get("kind") in (NETWORK_KIND, RESIDUAL_KIND),
        label,
        f"network kind must be {NETWORK_KIND!r} or {RESIDUAL_KIND!r}",
    )
    if net["kind"] == RESIDUAL_KIND:
        beta = net.get("beta")
        _expect(
            net.get("teacher") in TEACHERS and type(beta) in (int, float) and 0 < beta <= MAX_BETA,
            label,
            f"a {RESIDUAL_KIND!r} network needs 'teacher' (one of {list(TEACHERS)}) and "
            f"'beta' (a number in (0, {MAX_BETA:g}])",
        )
    _expect(
        net.get("activation") in ACTIVATIONS,
        label,
        f"activation {net.get('activation')!r} is not one of {list(ACTIVATIONS)}",
    )
    for head in ("pi", "vf"):
        _expect(
            _positive_sizes(net.get(head)),
            label,
            f"network {head!r} must be a list of 1-{MAX_LAYERS} positive layer sizes",
        )
    tensors = desc.get("tensors")
    _expect(
        isinstance(tensors, dict)
        and isinstance(tensors.get("file"), str)
        and isinstance(tensors.get("sha256"), str),
        label,
        "'tensors' must give the tensor 'file' and its 'sha256'",
    )
    return desc


def trained_layout(desc: dict[str, Any], label: str) -> tuple[layouts.TrainedField, ...]:
    """The observation layout the described model was trained on: recorded in its description,
    or (descriptions written before layouts were recorded) a layout `dune_v1` has had,
    recognised by the fingerprint.  Checked to map onto today's layout by name."""
    from ..environment.action_table import NUM_ACTIONS
    from ..environment.observer import OBS_LAYOUT

    size = desc.get("observation_size")
    _expect(
        type(size) is int and desc.get("num_actions") == NUM_ACTIONS,
        label,
        f"made for observations of size {size!r} and {desc.get('num_actions')!r} actions; "
        f"{ENV_NAME} has {NUM_ACTIONS} actions",
    )
    names = _action_names()
    recorded = desc.get("observation_layout")
    if recorded is not None:
        try:
            trained = layouts.from_record(recorded)
        except ValueError as exc:
            raise PolicyLoadError(f"model {label!r}: {exc}") from None
        known = desc.get("spaces_fingerprint") == layouts.fingerprint(trained, names)
    else:
        found = layouts.legacy_layouts(names).get(str(desc.get("spaces_fingerprint")))
        known = found is not None
        trained = found or ()
    _expect(
        known,
        label,
        f"made for another {ENV_NAME} observation layout or action table (spaces_fingerprint "
        "differs); retrain or export it again with a matching dune-env",
    )
    _expect(
        sum(f.size for f in trained) == size,
        label,
        f"made for observations of size {size}, but the layout it was trained on has "
        f"{sum(f.size for f in trained)} entries",
    )
    try:
        layouts.input_columns(trained, OBS_LAYOUT)
    except layouts.LayoutMismatch as exc:
        raise PolicyLoadError(f"model {label!r}: {exc}") from None
    return trained


def expected_shapes(network: dict[str, Any], obs_size: int, num_actions: int) -> dict[str, tuple]:
    """Every tensor of the described network, with its shape."""
    shapes: dict[str, tuple[int, ...]] = {}
    for head, prefix in (("pi", "mlp_extractor.policy_net"), ("vf", "mlp_extractor.value_net")):
        fan_in = obs_size
        for i, units in enumerate(network[head]):
            shapes[f"{prefix}.{2 * i}.weight"] = (units, fan_in)
            shapes[f"{prefix}.{2 * i}.bias"] = (units,)
            fan_in = units
    shapes["action_net.weight"] = (num_actions, network["pi"][-1])
    shapes["action_net.bias"] = (num_actions,)
    shapes["value_net.weight"] = (1, network["vf"][-1])
    shapes["value_net.bias"] = (1,)
    return shapes


def _largest_tensor_file(shapes: dict[str, tuple]) -> int:
    """The most bytes a safetensors file of these float32 tensors can take: the 8-byte header
    length, a JSON header (a few hundred bytes a tensor; generously bounded) and the data."""
    data = sum(4 * math.prod(shape) for shape in shapes.values())
    return 8 + MAX_TENSOR_HEADER_BYTES + data


def _read_hashed(path: Path, largest: int, sha256: str, label: str) -> bytes:
    """The file's bytes, refused unread when larger than the description allows, and hashed
    while they are read (one copy in memory)."""
    size = path.stat().st_size
    _expect(
        size <= largest,
        label,
        f"{path.name!r} is {size} bytes; the described network takes at most {largest}",
    )
    digest = hashlib.sha256()
    data = bytearray()
    with path.open("rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
            data += chunk
            _expect(len(data) <= largest, label, f"{path.name!r} grew while it was read")
    _expect(
        digest.hexdigest() == sha256,
        label,
        f"{path.name!r} does not match the SHA-256 in the description "
        "(a truncated, corrupted or different tensor file)",
    )
    return bytes(data)


@lru_cache(maxsize=32)
def _load_network(
    json_file: str, version: tuple[int, ...]
) -> tuple[Network, dict[str, Any], tuple[layouts.TrainedField, ...]]:
    """(the actor, the checked 'network' description, the observation layout it was trained
    on), loaded once per file version.  Loading and playing use numpy only: torch is for
    training (and a process that loads and then forks harness workers has no torch thread pool,
    which does not survive a fork)."""
    json_path = Path(json_file)
    desc = read_description(json_path)
    label = str(json_path)
    try:
        from safetensors import SafetensorError
        from safetensors.numpy import load as load_tensors
    except ImportError as exc:  # pragma: no cover - a core dependency is missing
        raise PolicyLoadError(
            "playing a saved network needs safetensors: pip install safetensors"
        ) from exc
    file_name = desc["tensors"]["file"]
    _expect(
        Path(file_name).name == file_name and Path(file_name).suffix == WEIGHTS_SUFFIX,
        label,
        f"'tensors.file' must name a {WEIGHTS_SUFFIX} file in the same folder",
    )
    tensors_path = json_path.with_name(file_name)
    _expect(tensors_path.is_file(), label, f"its tensor file {tensors_path.name!r} is missing")
    net = desc["network"]
    shapes = expected_shapes(net, desc["observation_size"], desc["num_actions"])
    blob = _read_hashed(
        tensors_path, _largest_tensor_file(shapes), desc["tensors"]["sha256"], label
    )
    try:
        state = load_tensors(blob)
    except (SafetensorError, ValueError) as exc:
        raise PolicyLoadError(f"model {label!r}: unreadable tensor file: {exc}") from exc
    _expect(
        set(state) == set(shapes),
        label,
        f"the tensor file holds {sorted(set(state) ^ set(shapes))} unexpectedly or lacks them",
    )
    for name, shape in shapes.items():
        array = state[name]
        _expect(
            array.shape == shape and array.dtype == np.float32,
            label,
            f"tensor {name!r} is {array.dtype} {array.shape}, expected float32 {shape}",
        )
        _expect(bool(np.isfinite(array).all()), label, f"tensor {name!r} is not finite")
    actor = []
    for i in range(len(net["pi"])):
        actor += [state[f"mlp_extractor.policy_net.{2 * i}.{p}"] for p in ("weight", "bias")]
    actor += [state["action_net.weight"], state["action_net.bias"]]
    return Network(actor, net["activation"]), net, trained_layout(desc, label)


class Network:
    """The actor of a safe-format network, evaluated with numpy in float32 (the dtype it was
    trained and stored in): `hidden` layers, each `activation(x @ weight_t + bias)`, then the
    action head `latent @ head.T + head_bias`.  The values are those of stable-baselines3's
    MlpPolicy up to the rounding of float32 sums (numpy's BLAS adds in another order than
    torch's); no torch is needed to play.  The arrays are read-only and shared by every policy
    loading the same file."""

    # A single observation is mostly zeros: its first layer gathers the weight rows of the
    # non-zero entries when there are fewer than this share of them.
    SPARSE_SHARE = 0.25

    def __init__(self, actor: list[np.ndarray], activation: str) -> None:
        def frozen(array: np.ndarray) -> np.ndarray:
            out = np.ascontiguousarray(array, dtype=np.float32)
            out.flags.writeable = False
            return out

        # Weights transposed to (inputs, units): a single observation's first layer gathers
        # contiguous rows, and `x @ weight_t` is a plain matrix product.
        self.hidden = [
            (frozen(actor[i].T), frozen(actor[i + 1])) for i in range(0, len(actor) - 2, 2)
        ]
        self.head = frozen(actor[-2])  # (actions, units): legal rows are gathered
        self.head_bias = frozen(actor[-1])
        self.inputs = self.hidden[0][0].shape[0]
        self.tanh = activation == "tanh"

    def latent(self, x: np.ndarray) -> np.ndarray:
        """The last hidden layer of float32 inputs `x`: one observation (1-D) or rows (2-D)."""
        weight_t, bias = self.hidden[0]
        if x.ndim == 1:
            (nonzero,) = x.nonzero()
            if nonzero.size < self.SPARSE_SHARE * x.size:
                h = x[nonzero] @ weight_t[nonzero]
            else:
                h = x @ weight_t
        else:
            h = x @ weight_t
        h += bias
        self._activate(h)
        for weight_t, bias in self.hidden[1:]:
            h = h @ weight_t
            h += bias
            self._activate(h)
        return h

    def _activate(self, h: np.ndarray) -> None:
        if self.tanh:
            np.tanh(h, out=h)
        else:
            np.maximum(h, 0.0, out=h)

    def logits(self, x: np.ndarray) -> np.ndarray:
        """Every action's logit, (rows, actions) float32, of rows `x` (2-D)."""
        out = self.latent(x) @ self.head.T
        out += self.head_bias
        return out

    def legal_logits(self, x: np.ndarray, legal: np.ndarray) -> np.ndarray:
        """The logits of the actions `legal` (ids) only, float32, of one observation `x`: the
        head's other rows are never computed."""
        out = self.head[legal] @ self.latent(x)
        out += self.head_bias[legal]
        return out


def no_legal_action(where: str) -> ValueError:
    return ValueError(
        f"{where}: the action mask allows no action; a policy is asked only when its seat has "
        "a legal action (a mask with at least one 1)"
    )


class WeightsPolicy:
    """An observation policy playing a safe-format network greedily: the legal action with
    the highest logit (the first of equal ones), as `MaskablePPO.predict(deterministic=True)`.

    It takes observations of `layout` (default: the installed `OBS_LAYOUT`) and gives the
    network the entries of the layout it was trained on, found by field name.  Inference is
    numpy only (`Network`)."""

    def __init__(self, path: str | Path, layout: Any = None, on_heuristic: bool = False) -> None:
        _, json_path = weight_paths(path)
        json_path = json_path.resolve()
        if not json_path.is_file():
            raise PolicyLoadError(
                f"model {str(path)!r}: no architecture description {json_path.name!r} beside it"
            )
        tensors_path = json_path.with_suffix(WEIGHTS_SUFFIX)
        version = tuple(
            int(x)
            for p in (json_path, tensors_path)
            if p.is_file()
            for x in (p.stat().st_mtime_ns, p.stat().st_size)
        )
        self.network, network, self.trained_layout = _load_network(str(json_path), version)
        self.activation: str = network["activation"]
        # (heuristic, beta) of a RESIDUAL_KIND network, played by `weights_policy` only.
        self.teacher: tuple[str, float] | None = None
        if network["kind"] == RESIDUAL_KIND:
            if not on_heuristic:
                raise PolicyLoadError(
                    f"model {str(path)!r} adds to the {network['teacher']!r} heuristic's choice: "
                    "it plays through the game (dune_env.policies.weights.weights_policy, or "
                    "its name or path in the harness), not from observations alone"
                )
            self.teacher = (network["teacher"], float(network["beta"]))
        if layout is None:
            from ..environment.observer import OBS_LAYOUT

            layout = OBS_LAYOUT
        try:
            # The entries of today's observation the network reads, in its trained order.
            self.columns = layouts.input_columns(self.trained_layout, layout)
        except layouts.LayoutMismatch as exc:
            raise PolicyLoadError(f"model {str(path)!r}: {exc}") from None
        self.path = str(path)

    def inputs(self, observations: np.ndarray) -> np.ndarray:
        """The network's float32 input of one observation (1-D) or rows of them (2-D)."""
        return np.asarray(observations, dtype=np.float32)[..., self.columns]

    def logits(self, observations: np.ndarray) -> np.ndarray:
        """Unmasked action logits, a float32 array of shape (rows, actions), of one
        observation or a batch of them."""
        rows = self.inputs(observations)
        return self.network.logits(rows.reshape(-1, rows.shape[-1]))

    def legal_logits(self, observation: np.ndarray, legal: np.ndarray) -> np.ndarray:
        """The logits (float32) of the action ids `legal` of one observation."""
        return self.network.legal_logits(self.inputs(observation), legal)

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The greedy legal action of each row (one forward pass for the whole batch)."""
        logits = self.logits(observations)
        legal = np.asarray(masks).astype(bool).reshape(logits.shape)
        empty = np.flatnonzero(~legal.any(axis=1))
        if empty.size:
            raise no_legal_action(f"model {self.path!r}, row {int(empty[0])}")
        return np.where(legal, logits, -np.inf).argmax(axis=1)

    def __call__(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        observation = np.asarray(observation)
        if observation.ndim != 1:
            return int(self.act_batch(observation, action_mask)[0])
        (legal,) = np.asarray(action_mask).nonzero()
        if not legal.size:
            raise no_legal_action(f"model {self.path!r}")
        return int(legal[np.argmax(self.legal_logits(observation, legal))])


def weights_policy(path: str) -> Any:
    """The safe-format model at `path`: a `WeightsPolicy` (an observation policy), or for a
    network on a heuristic (RESIDUAL_KIND) the engine policy `ResidualWeightsPolicy`."""
    weights = WeightsPolicy(path, on_heuristic=True)
    if weights.teacher is None:
        return weights
    from .residual import ResidualWeightsPolicy

    return ResidualWeightsPolicy(weights, name=weight_paths(path)[0].with_suffix("").name)


def load_weights_policy(path: str) -> Any:
    """An engine policy playing the safe-format model at `path` (its .safetensors or .json)."""
    stem = weight_paths(path)[0].with_suffix("").name
    policy = weights_policy(path)
    return policy if hasattr(policy, "act") else ObservationPolicy(policy, name=stem)
