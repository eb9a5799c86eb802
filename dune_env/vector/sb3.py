"""`DuneVecEnv`: the batched games as a stable-baselines3 `VecEnv` (MaskablePPO uses it directly).

    from sb3_contrib import MaskablePPO
    from dune_env.vector import DuneVecEnv

    venv = DuneVecEnv(64, learner="rotate", num_players=4)
    venv.seed(0)                       # sub-env i gets seed 0 + i at the next reset()
    model = MaskablePPO("MlpPolicy", venv).learn(100_000)

- `action_masks()` returns the (N, NUM_ACTIONS) bool masks, and `env_method("action_masks")`
  one row per sub-env, which is how sb3-contrib's `get_action_masks` reads them.
- Autoreset as every SB3 VecEnv: a finished sub-env starts its next episode in the same
  step; its last observation is `infos[i]["terminal_observation"]`, with `final_rewards`,
  `decisions`, `opponents` (as `DuneSingleAgentEnv`'s final info), `seat`, `faction_name`
  (and `illegal_action` under illegal_action="penalize").
- With `teacher=` (a built-in engine policy's name, e.g. "strategist"), every step's info and
  every reset info has `teacher_action`: the teacher's choice at the learner's decision that
  the returned observation shows (`BatchedGames.teacher_actions`).
- Sub-env attributes for `get_attr` / `env_method`: `learner_seat`, `game`, `num_players`,
  `render_mode`, `illegal_action`, `observation_space`, `action_space`, `action_masks()`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import (
    VecEnv,
    VecEnvIndices,
    VecEnvObs,
    VecEnvStepReturn,
)

from ..environment.action_table import NUM_ACTIONS
from ..environment.observer import OBS_LAYOUT
from .core import BatchedGames


class _SubEnvView:
    """What `get_attr` / `env_method` see as sub-env i (there is no per-game env object)."""

    def __init__(self, venv: DuneVecEnv, index: int) -> None:
        self._venv = venv
        self._index = index

    @property
    def learner_seat(self) -> int:
        return int(self._venv.games.learner_seats[self._index])

    @property
    def game(self) -> Any:
        return self._venv.games.subenvs[self._index].game

    @property
    def illegal_action(self) -> str:
        return self._venv.games.subenvs[self._index].illegal_action

    @property
    def num_players(self) -> int:
        return self._venv.games.num_players

    @property
    def render_mode(self) -> str | None:
        return self._venv._render_mode

    @property
    def observation_space(self) -> gymnasium.spaces.Space[Any]:
        return self._venv.observation_space

    @property
    def action_space(self) -> gymnasium.spaces.Space[Any]:
        return self._venv.action_space

    def action_masks(self) -> np.ndarray:
        return self._venv.games.masks[self._index].copy()


class SubEnvMethods(VecEnv):
    """The VecEnv methods both Dune VecEnvs answer alike: no settable attributes, nothing
    wrapped, `env_method("action_masks")` from the learners' masks without a call per sub-env
    (MaskablePPO's hot path), other methods by `_sub_env_method`."""

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        raise AttributeError(
            f"cannot set {attr_name!r}: the sub-envs of {type(self).__name__} have no settable "
            "attributes (configure them when constructing it)"
        )

    def env_method(
        self,
        method_name: str,
        *method_args: Any,
        indices: VecEnvIndices = None,
        **method_kwargs: Any,
    ) -> list[Any]:
        chosen = list(self._get_indices(indices))
        if method_name == "action_masks" and not method_args and not method_kwargs:
            masks = self.action_masks()  # a copy: the rows handed out are the caller's
            return [masks[i] for i in chosen]
        return self._sub_env_method(method_name, method_args, method_kwargs, chosen)

    def _sub_env_method(
        self, method_name: str, args: tuple[Any, ...], kwargs: dict[str, Any], indices: Any
    ) -> list[Any]:
        raise NotImplementedError

    def action_masks(self) -> np.ndarray:
        raise NotImplementedError

    def env_is_wrapped(
        self, wrapper_class: type[gymnasium.Wrapper], indices: VecEnvIndices = None
    ) -> list[bool]:
        return [False for _ in self._get_indices(indices)]


class DuneVecEnv(SubEnvMethods):
    """N games of `dune_v1`, one learning seat each, as an SB3 VecEnv (see the module
    docstring).  Arguments as `BatchedGames`: `num_envs`, `learner`, `opponents`,
    `opponent_sampler`, `illegal_action`, `illegal_penalty` and the `dune_v1` configuration."""

    def __init__(self, num_envs: int, **kwargs: Any) -> None:
        self.games = BatchedGames(num_envs, **kwargs)
        self._render_mode = self.games.config.render_mode
        self._views = [_SubEnvView(self, i) for i in range(self.games.num_envs)]
        self._actions: np.ndarray | None = None
        observation_space = gymnasium.spaces.Box(
            low=OBS_LAYOUT.low, high=OBS_LAYOUT.high, dtype=np.float32
        )
        super().__init__(
            self.games.num_envs, observation_space, gymnasium.spaces.Discrete(NUM_ACTIONS)
        )

    # --- the VecEnv API ------------------------------------------------------------------------

    def reset(self) -> VecEnvObs:
        games = self.games
        games.reset(self._seeds)
        self._reset_seeds()
        self._reset_options()  # (the environment takes no reset options)
        self.reset_infos = [{"seat": int(seat)} for seat in games.learner_seats]
        self._add_teacher_actions(self.reset_infos)
        return games.obs.copy()

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = actions

    def step_wait(self) -> VecEnvStepReturn:
        if self._actions is None:
            raise RuntimeError("step_wait() without step_async(): call step(actions)")
        actions, self._actions = self._actions, None
        games = self.games
        finals = games.step(actions, autoreset=True)
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        for i, (final_obs, final_info) in finals.items():
            info = infos[i]
            info.update(final_info)
            info["terminal_observation"] = final_obs
            info["TimeLimit.truncated"] = False
        self._add_teacher_actions(infos)
        return games.obs.copy(), games.rewards.copy(), games.terminated.copy(), infos

    def _add_teacher_actions(self, infos: list[dict[str, Any]]) -> None:
        """`teacher_action` of each observation handed out (with a teacher)."""
        if self.games.teacher is not None:
            for info, label in zip(infos, self.games.teacher_actions.tolist(), strict=True):
                info["teacher_action"] = label

    def action_masks(self) -> np.ndarray:
        """The learners' legal actions, (num_envs, NUM_ACTIONS) bool."""
        return self.games.masks.copy()

    def close(self) -> None:
        pass

    def get_images(self) -> Sequence[np.ndarray | None]:
        if self.render_mode != "rgb_array":
            raise ValueError(
                f"get_images() needs render_mode='rgb_array'; this VecEnv has {self.render_mode!r}"
            )
        return self.games.render("rgb_array")

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        return [getattr(self._views[i], attr_name) for i in self._get_indices(indices)]

    def _sub_env_method(
        self, method_name: str, args: tuple[Any, ...], kwargs: dict[str, Any], indices: Any
    ) -> list[Any]:
        return [getattr(self._views[i], method_name)(*args, **kwargs) for i in indices]
