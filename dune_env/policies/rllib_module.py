"""The action-masking PPO module of the RLlib recipe (training/rllib_ppo.py).

RLlib ships one as an example (`ray.rllib.examples...action_masking_rlm`), but its examples
package is not a stable API; this is the same idea on RLlib's public PPO module.  Observations
are dicts {"observations": the dune_v1 vector, "action_mask": float 0/1 over the action
table}; the network sees the vector only, and illegal actions get logits of about -3.4e38.
Checkpoints name this class, so it lives in the package (importable wherever a checkpoint is
loaded).  Needs the `rllib` extra.
"""

from __future__ import annotations

from typing import Any

import gymnasium
from ray.rllib.algorithms.ppo.torch.ppo_torch_rl_module import PPOTorchRLModule
from ray.rllib.core.columns import Columns
from ray.rllib.utils.torch_utils import FLOAT_MIN

OBS_KEY = "observations"
MASK_KEY = "action_mask"


class ActionMaskingTorchRLModule(PPOTorchRLModule):
    """PPO's default torch module with masked action logits."""

    def __init__(self, *, observation_space: Any = None, **kwargs: Any) -> None:
        if not isinstance(observation_space, gymnasium.spaces.Dict) or set(
            observation_space.spaces
        ) != {OBS_KEY, MASK_KEY}:
            raise ValueError(
                "ActionMaskingTorchRLModule needs a Dict observation space with keys "
                f"{OBS_KEY!r} and {MASK_KEY!r}, not {observation_space!r}"
            )
        self.observation_space_with_mask = observation_space
        # The networks are built for the observation vector alone.
        super().__init__(observation_space=observation_space[OBS_KEY], **kwargs)

    def setup(self) -> None:
        super().setup()
        self.observation_space = self.observation_space_with_mask

    def _split(self, batch: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
        obs = batch[Columns.OBS]
        if isinstance(obs, dict):
            batch[MASK_KEY] = obs[MASK_KEY]
            batch[Columns.OBS] = obs[OBS_KEY]
        return batch[MASK_KEY], batch

    @staticmethod
    def _masked(outs: dict[str, Any], mask: Any) -> dict[str, Any]:
        import torch

        outs[Columns.ACTION_DIST_INPUTS] = outs[Columns.ACTION_DIST_INPUTS] + torch.clamp(
            torch.log(mask), min=FLOAT_MIN
        )
        return outs

    def _forward_inference(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        mask, batch = self._split(batch)
        return self._masked(super()._forward_inference(batch, **kwargs), mask)

    def _forward_exploration(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        mask, batch = self._split(batch)
        return self._masked(super()._forward_exploration(batch, **kwargs), mask)

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        mask, batch = self._split(batch)
        return self._masked(super()._forward_train(batch, **kwargs), mask)

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> Any:
        _, batch = self._split(batch)
        return super().compute_values(batch, embeddings)
