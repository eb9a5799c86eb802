"""Observation callables for the harness tests of issue 31 that must never be imported in the
benchmark's own process (tests/harness/test_hostile_round3.py checks sys.modules), and that
fail as a policy can: loaded as `tests.harness.import_marker:NAME`."""

from __future__ import annotations

import os
import sys

import numpy as np


def picker(observation: np.ndarray, action_mask: np.ndarray) -> int:
    return int(np.flatnonzero(action_mask)[0])


def returns_a_float(observation: np.ndarray, action_mask: np.ndarray) -> float:
    return 1.5


def raises(observation: np.ndarray, action_mask: np.ndarray) -> int:
    raise LookupError("deliberate")


def exits(observation: np.ndarray, action_mask: np.ndarray) -> int:
    sys.exit(3)


def dies(observation: np.ndarray, action_mask: np.ndarray) -> int:
    os._exit(9)


class NumpyOption:
    """An engine policy returning its option as a numpy integer (the engine refuses it)."""

    name = "numpy-option"

    def act(self, game: object, seat: int) -> object:
        return np.int64(game.legal_options()[0])  # type: ignore[attr-defined]


class HugeOption:
    """An engine policy returning an integer of 5,000 digits."""

    name = "huge-option"

    def act(self, game: object, seat: int) -> int:
        return 10**5000
