"""Luck-adjusted outcomes: the dice's share of a result, estimated and taken out (opt-in).

    dune-bench --policies A B --duplicate --luck-adjust ...

The estimator is the chance part of AIVAT (Burch, Schmid, Moravcik, Morrill, Bowling, "AIVAT:
a new variance reduction technique for agent evaluation in imperfect information games",
AAAI 2018).  A value function V gives, for a position, each seat's probability of winning (and
of a control win, see `LUCK_METRICS`).  Every time a decision makes the engine roll dice (a
roll or reroll: ROLL-1/2; set-up draws happen before the first decision and are the same for
every rotation of a duplicate deal), the roll's **luck** for each seat is

    luck = V(position after the roll that happened) - E[V(position after the roll)],

the expectation over the roll's outcomes, estimated by replaying the same decision from the
same position with `samples` independent rolls.  A seat's adjusted score is its outcome (1 for
a win, else 0) minus the sum of its lucks over the game.

**Why it stays unbiased, whatever V is.**  Given everything before a roll, the roll that
happened and each resampled roll are independent draws from the same distribution, so
E[V(after)] equals E[mean of the samples' V] and each luck term has mean zero given the past.
A sum of such terms (a martingale) has mean zero, so the adjusted score has the same mean as
the outcome, for every policy in every seat: differences between policies are unchanged in
expectation.  A poor V only removes less variance (it can even add some); it cannot bias the
comparison.  Tested on games with a deliberately meaningless V (tests/harness/test_luck.py).
What it does not remove: the luck of the deal (set-up draws, factions: duplicate deals share
it across the rotations) and the policies' own randomness.

**The value function** (`ValueModel`): a small network (two ReLU hidden layers, two sigmoid
outputs) on each seat's own `dune_v1` observation, trained on the project's own games: the
built-in heuristics and their noisy copies at 3-6 players, the position right after every
roll labelled with whether that seat went on to win (`python -m training.luck_value`, which
writes `data/luck_value.npz`).  Cost: about 15 microseconds per resampled roll and seat on
the compiled build (a game of ~150 rolls with 16 samples: well under a second).

The adjusted scores feed the harness's strength fit (as soft targets, `stats.fit_strength`),
its head-to-head table and the sequential test.
"""

from __future__ import annotations

import json
import math
import re
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any, Final

import numpy as np

from ..engine import Game
from ..engine.rng import ChanceRng, DiceRng
from ..engine.state import GameState, Phase
from ..game_log import roll_key, rolled

LUCK_METRICS: Final = ("win", "control")  # the outcomes V estimates, in its output order
DEFAULT_SAMPLES: Final = 16  # resampled rolls per roll: the expectation's estimate
MAX_SAMPLES: Final = 1024
VALUE_FILE: Final = Path(__file__).resolve().parent / "data" / "luck_value.npz"
_GAME_OVER: Final = int(Phase.GAME_OVER)
_SALT: Final = 0x4C55434B  # "LUCK": the resampling generator's seed differs from the deal's


class LuckModelError(ValueError):
    """A value-model file that cannot be used (missing, malformed, another observation)."""


def check_samples(samples: object) -> int:
    """`samples` as an int in 1..MAX_SAMPLES, or a ValueError saying what would do."""
    if isinstance(samples, bool) or not isinstance(samples, int) or not 1 <= samples <= MAX_SAMPLES:
        raise ValueError(
            f"luck samples={samples!r}: give the number of resampled rolls per roll, an integer "
            f"from 1 to {MAX_SAMPLES} (default {DEFAULT_SAMPLES})"
        )
    return samples


class ValueModel:
    """Each seat's P(win) and P(control win) from its own observation: an MLP in numpy.

    `layers`: (weight (in, out), bias (out,)) pairs; ReLU between them, a sigmoid at the end."""

    def __init__(self, layers: Sequence[tuple[np.ndarray, np.ndarray]], info: dict[str, Any]):
        with np.errstate(over="ignore", invalid="ignore"):  # (past float32: refused below)
            self.layers = [
                (np.asarray(w, np.float32), np.asarray(b, np.float32)) for w, b in layers
            ]
        self.info = dict(info)
        for i, (w, b) in enumerate(self.layers):
            if not (np.isfinite(w).all() and np.isfinite(b).all()):  # (also past float32's range)
                raise LuckModelError(f"layer {i} holds weights that are not finite numbers")
        sizes = [w.shape for w, _ in self.layers]
        for (w, b), nxt in zip(self.layers, sizes[1:] + [None], strict=True):
            if w.ndim != 2 or b.shape != (w.shape[1],) or (nxt and nxt[0] != w.shape[1]):
                raise LuckModelError(f"inconsistent layer shapes {sizes}")
        if self.layers[-1][0].shape[1] != len(LUCK_METRICS):
            raise LuckModelError(f"the last layer must have {len(LUCK_METRICS)} outputs")
        self.input_size = self.layers[0][0].shape[0]
        self._observers: dict[int, Any] = {}

    def __call__(self, features: np.ndarray) -> np.ndarray:
        """Probabilities (rows, 2) for observation rows (rows, input_size)."""
        x = features
        for i, (w, b) in enumerate(self.layers):
            x = x @ w + b
            if i < len(self.layers) - 1:
                np.maximum(x, 0.0, out=x)
        return 1.0 / (1.0 + np.exp(-x))

    def seat_values(self, states: Sequence[GameState]) -> np.ndarray:
        """V of every seat in every state (states of one player count): (states, seats, 2)."""
        n = int(states[0].config.num_players)
        rows = np.empty((len(states) * n, self.input_size), np.float32)
        for k, state in enumerate(states):
            self.observations(state, out=rows[k * n : (k + 1) * n])
        return self(rows).reshape(len(states), n, len(LUCK_METRICS))

    def observations(self, state: GameState, out: np.ndarray | None = None) -> np.ndarray:
        """Every seat's own observation of `state`, one row per seat (what V reads)."""
        n = int(state.config.num_players)
        observer = self._observer(n)
        rows = np.empty((n, self.input_size), np.float32) if out is None else out
        key = object()  # a new position: the observer rebuilds its public part once
        for seat in range(n):
            observer.observe(state, key, seat, out=rows[seat])
        return rows

    def check_observation(self) -> None:
        """LuckModelError unless the model reads the installed `dune_v1` observation."""
        from ..environment.fields import OBS_SIZE

        if OBS_SIZE != self.input_size:
            raise LuckModelError(
                f"the value model reads observations of {self.input_size} entries, the "
                f"installed dune_v1 has {OBS_SIZE}: retrain it (python -m training.luck_value)"
            )

    def _observer(self, num_players: int) -> Any:
        if num_players not in self._observers:
            from ..environment.observer import Observer

            self.check_observation()
            self._observers[num_players] = Observer(num_players)
        return self._observers[num_players]

    def save(self, path: str | Path) -> None:
        arrays: dict[str, Any] = {"info": np.array(json.dumps(self.info, sort_keys=True))}
        for i, (w, b) in enumerate(self.layers):
            arrays[f"w{i}"], arrays[f"b{i}"] = w, b
        with open(path, "wb") as handle:
            np.savez_compressed(handle, **arrays)

    @classmethod
    def load(cls, path: str | Path = VALUE_FILE) -> ValueModel:
        """Read a model written by `save` (plain arrays: nothing in the file is executed),
        with bounds (`read_model_arrays`): LuckModelError, one line naming the file and what
        is wrong, for anything else."""
        try:
            arrays = read_model_arrays(Path(path))
            info = json.loads(str(arrays.pop("info")))
        except LuckModelError as exc:
            raise LuckModelError(f"cannot read the luck value model {path}: {exc}") from None
        except (ValueError, RecursionError):
            raise LuckModelError(
                f"cannot read the luck value model {path}: its info is not JSON"
            ) from None
        count = sum(1 for name in arrays if name.startswith("w"))
        if not count or not isinstance(info, dict) or len(arrays) != 2 * count:
            raise LuckModelError(f"{path} holds no value model (layers w0, b0, ... and info)")
        try:
            layers = [(arrays[f"w{i}"], arrays[f"b{i}"]) for i in range(count)]
        except KeyError as exc:
            raise LuckModelError(f"{path} has no layer array {exc.args[0]}") from None
        for name, array in arrays.items():
            if array.dtype.kind != "f":
                raise LuckModelError(f"{path}: {name} holds {array.dtype}, not floating point")
        try:
            return cls(layers, info)
        except LuckModelError as exc:
            raise LuckModelError(f"{path}: {exc}") from None


MAX_MODEL_BYTES: Final = 64 << 20  # a value model's arrays, uncompressed (the shipped: 0.4 MB)
MAX_MODEL_MEMBERS: Final = 2 * 16 + 1  # info and up to 16 layers
_MEMBER = re.compile(r"(info|[wb](0|[1-9][0-9]?))\.npy")


def read_model_arrays(path: Path) -> dict[str, np.ndarray]:
    """The arrays of a value-model file (an .npz: a zip of .npy files), read with bounds:
    every member named info.npy, wN.npy or bN.npy (no folders, no other files), their declared
    sizes summing to at most MAX_MODEL_BYTES, each array's header (dtype and shape) read and
    checked against its member's size before any data is, no pickled objects.  LuckModelError
    (one line) for a missing, empty, truncated or otherwise malformed file."""
    try:
        archive = zipfile.ZipFile(path)
    except FileNotFoundError:
        raise LuckModelError("no such file") from None
    except (OSError, zipfile.BadZipFile, ValueError) as exc:
        raise LuckModelError(f"not a value-model file (.npz): {exc}") from None
    with archive:
        members = archive.infolist()
        if len(members) > MAX_MODEL_MEMBERS:
            raise LuckModelError(f"it holds {len(members)} files, more than a model has")
        declared = sum(m.file_size for m in members)
        if declared > MAX_MODEL_BYTES:
            raise LuckModelError(
                f"its arrays would take {declared} bytes, more than {MAX_MODEL_BYTES}"
            )
        arrays: dict[str, np.ndarray] = {}
        for member in members:
            if not _MEMBER.fullmatch(member.filename):
                raise LuckModelError(f"it holds {member.filename[:80]!r}, not a model array")
            name = member.filename[: -len(".npy")]
            try:
                with archive.open(member) as handle:
                    arrays[name] = _read_npy(handle, member.file_size, name)
            except (OSError, EOFError, ValueError, zipfile.BadZipFile) as exc:
                raise LuckModelError(f"{member.filename} is unreadable ({exc})") from None
    if "info" not in arrays:
        raise LuckModelError("it has no info array")
    return arrays


def _read_npy(handle: IO[bytes], size: int, name: str) -> np.ndarray:
    """One .npy array from `handle` (a zip member of `size` bytes uncompressed), its header
    checked before its data is read."""
    from numpy.lib import format as npy

    version = npy.read_magic(handle)
    if version == (1, 0):
        shape, fortran, dtype = npy.read_array_header_1_0(handle)
    elif version == (2, 0):
        shape, fortran, dtype = npy.read_array_header_2_0(handle)
    else:
        raise LuckModelError(f"{name}.npy is of .npy version {version}")
    if dtype.hasobject:
        raise LuckModelError(f"{name}.npy holds Python objects, not numbers")
    if len(shape) > 2 or any(not 0 <= d <= MAX_MODEL_BYTES for d in shape):
        raise LuckModelError(f"{name}.npy has the shape {shape}, not a layer's")
    count = math.prod(shape)
    if count * dtype.itemsize > size:
        raise LuckModelError(
            f"{name}.npy declares {count} values of {dtype.itemsize} bytes, more than its "
            f"{size} bytes hold"
        )
    data = handle.read(count * dtype.itemsize)
    if len(data) != count * dtype.itemsize:
        raise LuckModelError(f"{name}.npy is cut short")
    array = np.frombuffer(data, dtype=dtype).reshape(shape, order="F" if fortran else "C")
    return array.copy()


_MODELS: dict[str, ValueModel] = {}


def value_model(path: str = "") -> ValueModel:
    """The value model in `path` ("": the shipped one), loaded once per process."""
    if path not in _MODELS:
        _MODELS[path] = ValueModel.load(path or VALUE_FILE)
    return _MODELS[path]


def default_model() -> ValueModel:
    """The shipped value model (loaded once per process)."""
    return value_model("")


class LuckMeter:
    """Plays decisions (`apply`, the `step` of `match.play`) and sums each seat's luck."""

    def __init__(self, game: Game, samples: int, seed: int, model: ValueModel | None = None):
        self.samples = check_samples(samples)
        self.model = model if model is not None else default_model()
        self.num_players = int(game.state.config.num_players)
        self.luck = np.zeros((self.num_players, len(LUCK_METRICS)))
        self.rolls = 0
        self._rng = DiceRng((seed ^ _SALT) & ((1 << 64) - 1))

    def apply(self, game: Game, option: object) -> None:
        """Apply `option` to `game`; if it rolled dice, add the roll's luck."""
        before = roll_key(game.state)
        position = game.clone()
        game.apply(option)
        if rolled(before, game.state):
            self.luck += self.roll_luck(position, option, game.state)
            self.rolls += 1

    def roll_luck(self, position: Game, option: object, after: GameState) -> np.ndarray:
        """V(after) minus the mean V over `samples` replays of `option` from `position`, each
        with its own independent roll: (seats, metrics)."""
        states = [after]
        turn_roll = position.state.rng.turn_roll
        for _ in range(self.samples):
            replay = position.clone()
            replay.state.rng = ChanceRng(self._rng.next_u64(), turn_roll=turn_roll)
            replay.apply(option)
            states.append(replay.state)
        values = self.model.seat_values(states)
        luck: np.ndarray = values[0] - values[1:].mean(axis=0)
        return luck

    def result(self) -> tuple[tuple[float, ...], ...]:
        """Each seat's summed luck, one value per metric (LUCK_METRICS order)."""
        return tuple(tuple(float(v) for v in seat) for seat in self.luck)


# What `dune-bench --luck-adjust` says before the games and with the results.
LUCK_START = (
    "Luck-adjusted run (--luck-adjust {samples}): every roll is replayed {samples} times to "
    "value its luck, so games take about 100 times as long as without it (heuristics: about "
    "half a game a second on one core)."
)
LUCK_RESULT = (
    "Luck-adjusted: the strengths and the paired control-win differences below use each "
    "seat's score minus its dice luck; the win and control-win rates are the raw ones "
    "(summary.json's luck_adjusted holds the unadjusted fit)."
)
