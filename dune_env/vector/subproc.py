"""`SubprocDuneVecEnv`: sub-envs per process x processes, as one stable-baselines3 `VecEnv`.

    venv = SubprocDuneVecEnv(2, 32, learner="rotate", num_players=4)   # 64 sub-envs, 2 cores

Each worker process steps a `DuneVecEnv` of `envs_per_process` sub-envs (its opponents'
network decisions batched within the process); sub-env j of process p is sub-env
p * envs_per_process + j, and behaves exactly as that sub-env of a single-process `DuneVecEnv`
of the same total size with the same seeds.  Errors raised in a worker (an illegal action, a
misbehaving opponent) are raised again in the caller, naming the global sub-env.
"""

from __future__ import annotations

import multiprocessing as mp
from collections.abc import Sequence
from multiprocessing.connection import Connection
from typing import Any

import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import (
    CloudpickleWrapper,
    VecEnvIndices,
    VecEnvObs,
    VecEnvStepReturn,
)

from .core import per_env_illegal_modes
from .sb3 import DuneVecEnv, SubEnvMethods


def _worker(remote: Connection, parent: Connection, kwargs: CloudpickleWrapper) -> None:
    parent.close()
    venv: DuneVecEnv | None = None
    while True:
        try:
            command, data = remote.recv()
        except (EOFError, ConnectionResetError):
            break  # the parent is gone (closed, or killed): nothing left to serve
        try:
            if command == "make":
                venv = DuneVecEnv(**kwargs.var)
                result: Any = None
            elif command == "close":
                remote.send(("ok", None))
                break
            else:
                assert venv is not None
                if command == "reset":
                    venv._seeds = list(data)
                    obs = venv.reset()
                    result = (obs, venv.games.masks.copy(), venv.reset_infos)
                elif command == "check":
                    venv.games.check_actions(data)
                    result = None
                elif command == "step":
                    obs, rewards, dones, infos = venv.step(data)
                    result = (obs, rewards, dones, infos, venv.games.masks.copy())
                elif command == "get_attr":
                    result = venv.get_attr(data[0], data[1])
                elif command == "has_attr":  # a bool, never the attribute (it may not pickle)
                    result = venv.has_attr(data)
                elif command == "env_method":
                    name, args, kw, indices = data
                    result = venv.env_method(name, *args, indices=indices, **kw)
                else:
                    raise ValueError(f"unknown command {command!r}")
            remote.send(("ok", result))
        except Exception as exc:  # sent back and raised again in the caller
            remote.send(("error", exc))


class SubprocDuneVecEnv(SubEnvMethods):
    """`num_processes` worker processes, each stepping `envs_per_process` sub-envs (see the
    module docstring).  Other keyword arguments configure every worker's `DuneVecEnv`."""

    def __init__(
        self,
        num_processes: int,
        envs_per_process: int,
        start_method: str | None = None,
        **kwargs: Any,
    ) -> None:
        for name, value in (
            ("num_processes", num_processes),
            ("envs_per_process", envs_per_process),
        ):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
                raise ValueError(f"{name} must be an int >= 1, not {value!r}")
        self.per_process = int(envs_per_process)
        total = int(num_processes) * self.per_process
        self._modes = per_env_illegal_modes(kwargs.pop("illegal_action", "raise"), total)
        # Validate the configuration here, before starting any process.
        probe = DuneVecEnv(1, **kwargs)
        self._render_mode = probe.render_mode
        if start_method is None:
            start_method = "forkserver" if "forkserver" in mp.get_all_start_methods() else "spawn"
        ctx = mp.get_context(start_method)
        self.remotes: list[Connection] = []
        self.processes: list[Any] = []
        for p in range(num_processes):
            remote, work_remote = ctx.Pipe()
            config = {
                **kwargs,
                "num_envs": self.per_process,
                "first_index": p * self.per_process,
                "illegal_action": self._modes[p * self.per_process : (p + 1) * self.per_process],
            }
            process = ctx.Process(  # type: ignore[attr-defined]
                target=_worker, args=(work_remote, remote, CloudpickleWrapper(config)), daemon=True
            )
            process.start()
            work_remote.close()
            self.remotes.append(remote)
            self.processes.append(process)
        self.closed = False
        self._call_all([("make", None)] * num_processes)
        self._masks = np.zeros(
            (num_processes * self.per_process, *probe.games.masks.shape[1:]), bool
        )
        super().__init__(
            num_processes * self.per_process, probe.observation_space, probe.action_space
        )

    def _call_all(self, messages: Sequence[tuple[str, Any]]) -> list[Any]:
        for remote, message in zip(self.remotes, messages, strict=True):
            remote.send(message)
        return self._gather()

    def _gather(self) -> list[Any]:
        answers = [remote.recv() for remote in self.remotes]
        for status, payload in answers:
            if status == "error":
                raise payload
        return [payload for _, payload in answers]

    def _slices(self) -> list[slice]:
        k = self.per_process
        return [slice(p * k, (p + 1) * k) for p in range(len(self.remotes))]

    # --- the VecEnv API ------------------------------------------------------------------------

    def reset(self) -> VecEnvObs:
        seeds = self._seeds
        answers = self._call_all([("reset", seeds[s]) for s in self._slices()])
        self._reset_seeds()
        self._reset_options()
        self._masks = np.concatenate([masks for _, masks, _ in answers])
        self.reset_infos = [info for _, _, infos in answers for info in infos]
        return np.concatenate([obs for obs, _, _ in answers])

    def step_async(self, actions: np.ndarray) -> None:
        array = np.asarray(actions)
        if array.shape != (self.num_envs,):
            raise ValueError(
                f"actions must have shape ({self.num_envs},): one action id per sub-env; got "
                f"shape {array.shape}"
            )
        # Bad input is refused before any worker steps (the worker whose sub-env is at fault
        # raises the error, with the sub-env's legal actions).
        if array.dtype.kind in "iu":
            rows = np.arange(self.num_envs)
            in_range = (array >= 0) & (array < self._masks.shape[1])
            legal = np.zeros(self.num_envs, dtype=bool)
            legal[in_range] = self._masks[rows[in_range], array[in_range]]
            penalized = np.array([mode != "raise" for mode in self._modes])
            bad = np.flatnonzero(~in_range | (~legal & ~penalized))
        else:
            bad = np.zeros(1, dtype=np.intp)
        if bad.size:
            p = int(bad[0]) // self.per_process
            self.remotes[p].send(("check", array[self._slices()[p]]))
            status, payload = self.remotes[p].recv()
            if status == "error":
                raise payload
        for remote, s in zip(self.remotes, self._slices(), strict=True):
            remote.send(("step", array[s]))

    def step_wait(self) -> VecEnvStepReturn:
        answers = self._gather()
        self._masks = np.concatenate([a[4] for a in answers])
        return (
            np.concatenate([a[0] for a in answers]),
            np.concatenate([a[1] for a in answers]),
            np.concatenate([a[2] for a in answers]),
            [info for a in answers for info in a[3]],
        )

    def action_masks(self) -> np.ndarray:
        """The learners' legal actions, (num_envs, NUM_ACTIONS) bool."""
        return self._masks.copy()

    def close(self) -> None:
        if self.closed:
            return
        for remote in self.remotes:
            try:
                remote.send(("close", None))
                remote.recv()
            except (BrokenPipeError, EOFError):  # pragma: no cover - a worker died
                pass
        for process in self.processes:
            process.join(timeout=10)
        self.closed = True

    def _by_process(self, indices: VecEnvIndices) -> dict[int, list[int]]:
        groups: dict[int, list[int]] = {}
        for i in self._get_indices(indices):
            groups.setdefault(i // self.per_process, []).append(i % self.per_process)
        return groups

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        if attr_name == "render_mode":  # asked by VecEnv.__init__ before the workers answer
            return [self._render_mode for _ in self._get_indices(indices)]
        out: list[Any] = []
        for p, local in self._by_process(indices).items():
            self.remotes[p].send(("get_attr", (attr_name, local)))
            status, payload = self.remotes[p].recv()
            if status == "error":
                raise payload
            out += payload
        return out

    def has_attr(self, attr_name: str) -> bool:
        """Whether every sub-env has `attr_name`, asked in the workers: SB3's default fetches
        the attribute itself, and a bound method (MaskablePPO asks for `action_masks`) would
        pickle the whole sub-env across the pipe."""
        answers = []
        for remote in self.remotes:
            remote.send(("has_attr", attr_name))
            status, payload = remote.recv()
            if status == "error":
                raise payload
            answers.append(bool(payload))
        return all(answers)

    def _sub_env_method(
        self, method_name: str, args: tuple[Any, ...], kwargs: dict[str, Any], indices: Any
    ) -> list[Any]:
        out: list[Any] = []
        for p, local in self._by_process(indices).items():
            self.remotes[p].send(("env_method", (method_name, args, kwargs, local)))
            status, payload = self.remotes[p].recv()
            if status == "error":
                raise payload
            out += payload
        return out
