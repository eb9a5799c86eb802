"""`DuneVectorEnv`: the batched games as a Gymnasium 1.x vector environment.

    from dune_env.vector import DuneVectorEnv

    envs = DuneVectorEnv(16, learner="rotate", num_players=4)
    obs, infos = envs.reset(seed=0)              # sub-env i is seeded with 0 + i
    actions = policy(obs, infos["action_mask"])  # (16,) action ids
    obs, rewards, terminations, truncations, infos = envs.step(actions)

- Spaces: `single_observation_space` Box(OBS_SIZE,) float32, `single_action_space`
  Discrete(NUM_ACTIONS); batched `observation_space` Box(N, OBS_SIZE), `action_space`
  MultiDiscrete.
- Masks: `infos["action_mask"]` (N, NUM_ACTIONS) bool after every reset and step (also
  `envs.action_masks()`); `infos["learner_seat"]` (N,) the learning seat of each sub-env.
- Autoreset (`metadata["autoreset_mode"]`, https://farama.org/Vector-Autoreset-Mode):
  `"SameStep"` (the default, since every row then has a decision and a non-empty mask): a
  finished sub-env starts again in the same step, its last observation and info are in
  `infos["final_obs"]` / `infos["final_info"]` (with `_final_obs` / `_final_info` masks).
  `"NextStep"`: a finished sub-env returns its last observation (all-false mask) and is reset
  by the next step, whose action for it is ignored (reward 0, not terminated).
  `"Disabled"`: a finished sub-env keeps its last observation until
  `reset(options={"reset_mask": mask})` resets it; stepping it before raises.
  `reset_mask` works in every mode.
- Episodes never truncate; `truncations` is always all False.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from ..environment.action_table import NUM_ACTIONS
from ..environment.observer import OBS_LAYOUT
from .core import BatchedGames

_MODES = (AutoresetMode.SAME_STEP, AutoresetMode.NEXT_STEP, AutoresetMode.DISABLED)


class DuneVectorEnv(gymnasium.vector.VectorEnv[np.ndarray, np.ndarray, np.ndarray]):
    """N games of `dune_v1`, one learning seat each (see the module docstring).  Arguments:
    `num_envs`, `autoreset_mode` ("SameStep", "NextStep" or "Disabled"), and as `BatchedGames`:
    `learner`, `opponents`, `opponent_sampler`, `illegal_action`, `illegal_penalty` and the
    `dune_v1` configuration."""

    metadata: dict[str, Any] = {
        "render_modes": ["ansi", "rgb_array"],
        "autoreset_mode": AutoresetMode.SAME_STEP,
    }

    def __init__(
        self,
        num_envs: int,
        autoreset_mode: str | AutoresetMode = AutoresetMode.SAME_STEP,
        **kwargs: Any,
    ) -> None:
        try:
            mode = AutoresetMode(autoreset_mode)
        except ValueError:
            mode = None
        if mode not in _MODES:
            raise ValueError(
                f"autoreset_mode={autoreset_mode!r} is not supported; use "
                f"{[m.value for m in _MODES]}"
            )
        self.autoreset_mode = mode
        self.games = BatchedGames(num_envs, **kwargs)
        self.num_envs = self.games.num_envs
        self.render_mode = self.games.config.render_mode
        if self.render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(
                f"render_mode={self.render_mode!r}: DuneVectorEnv renders 'ansi' or 'rgb_array'"
            )
        self.metadata = {**self.metadata, "autoreset_mode": mode}
        self.single_observation_space = gymnasium.spaces.Box(
            low=OBS_LAYOUT.low, high=OBS_LAYOUT.high, dtype=np.float32
        )
        self.single_action_space = gymnasium.spaces.Discrete(NUM_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._truncations = np.zeros(self.num_envs, dtype=bool)

    def reset(
        self,
        *,
        seed: int | Sequence[int | None] | None = None,
        options: dict[str, Any] | None = None,
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Reset every sub-env, or those of `options={"reset_mask": bool array}`.  `seed`: an
        int s seeds sub-env i with s + i (as Gymnasium's vector environments do), a sequence
        gives one seed (or None) per sub-env."""
        options = dict(options or {})
        only = options.pop("reset_mask", None)
        if options:
            raise ValueError(
                f"DuneVectorEnv.reset takes no options but reset_mask, got {sorted(options)}"
            )
        if seed is None:
            seeds: Sequence[int | None] = [None] * self.num_envs
        elif isinstance(seed, (int, np.integer)) and not isinstance(seed, (bool, np.bool_)):
            super().reset(seed=int(seed))
            seeds = [int(seed) + i for i in range(self.num_envs)]
        elif isinstance(seed, Sequence):
            seeds = seed
        else:
            raise TypeError(f"seed must be an int, a sequence of ints or None, not {seed!r}")
        self.games.reset(seeds, only)
        return self.games.obs.copy(), self._infos()

    def step(
        self, actions: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        games = self.games
        same_step = self.autoreset_mode == AutoresetMode.SAME_STEP
        next_step = self.autoreset_mode == AutoresetMode.NEXT_STEP
        finals = games.step(actions, autoreset=same_step, reset_finished=next_step)
        infos = self._infos()
        for i, (final_obs, final_info) in finals.items():
            if same_step:
                infos = self._add_info(infos, {"final_obs": final_obs, "final_info": final_info}, i)
            else:
                infos = self._add_info(infos, final_info, i)
        return (
            games.obs.copy(),
            games.rewards.astype(np.float64),
            games.terminated.copy(),
            self._truncations.copy(),
            infos,
        )

    def action_masks(self) -> np.ndarray:
        """The learners' legal actions, (num_envs, NUM_ACTIONS) bool."""
        return self.games.masks.copy()

    def render(self) -> tuple[Any, ...] | None:
        if self.render_mode is None:
            gymnasium.logger.warn("DuneVectorEnv.render() without a render_mode")
            return None
        return tuple(self.games.render(self.render_mode))

    def _infos(self) -> dict[str, Any]:
        return {
            "action_mask": self.games.masks.copy(),
            "learner_seat": self.games.learner_seats.copy(),
        }
