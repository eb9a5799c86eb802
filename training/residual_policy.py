"""The network of the residual recipe (`training/residual.py`): the strategist's action as one
more observation column (`TeacherInObservation`), SB3's MLP on the observation without it
(`ResidualExtractor`), and the head `logits = beta x one-hot(teacher) + correction(hidden)`
(`ResidualHead`, the correction starting at 0), in `ResidualPolicy`.  Checkpoints name these
classes (a checkpoint of the former layout names them in `training.residual`, which hands them
on)."""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import MlpExtractor
from stable_baselines3.common.vec_env import VecEnvWrapper
from torch import nn

from dune_env.environment.action_table import NUM_ACTIONS

# --- the teacher's action as an observation column ------------------------------------------


class TeacherInObservation(VecEnvWrapper):
    """Appends each observation's `teacher_action` (an action id, -1 when none) as one column."""

    def __init__(self, venv: Any) -> None:
        space = venv.observation_space
        low = np.append(space.low, -1.0).astype(np.float32)
        high = np.append(space.high, float(NUM_ACTIONS)).astype(np.float32)
        super().__init__(venv, observation_space=gymnasium.spaces.Box(low, high, dtype=np.float32))

    def reset(self) -> np.ndarray:
        obs = self.venv.reset()
        # the wrappers between keep their own (empty) reset_infos: read the base env's
        return self._with_teacher(np.asarray(obs), self.unwrapped.reset_infos)

    def step_wait(self) -> Any:
        obs, rewards, dones, infos = self.venv.step_wait()
        for info in infos:
            if "terminal_observation" in info:
                info["terminal_observation"] = np.append(info["terminal_observation"], -1.0)
        return self._with_teacher(np.asarray(obs), infos), rewards, dones, infos

    @staticmethod
    def _with_teacher(obs: np.ndarray, infos: list[dict[str, Any]]) -> np.ndarray:
        teacher = np.array([info.get("teacher_action", -1) for info in infos], dtype=np.float32)
        return np.concatenate([obs, teacher[:, None]], axis=1).astype(np.float32)


def teacher_onehot(features: torch.Tensor) -> torch.Tensor:
    teacher = features[:, -1].long()
    onehot = torch.zeros(features.shape[0], NUM_ACTIONS, device=features.device)
    has = teacher >= 0
    onehot[has, teacher[has]] = 1.0
    return onehot


class ResidualExtractor(MlpExtractor):
    """SB3's MLP extractor on the observation without its teacher column; the actor's latent
    carries the teacher's one-hot on to the head."""

    def __init__(self, feature_dim: int, net_arch: Any, activation_fn: Any, device: Any) -> None:
        super().__init__(feature_dim - 1, net_arch, activation_fn, device)
        self.latent_dim_pi += NUM_ACTIONS

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        hidden = self.policy_net(features[:, :-1])
        return torch.cat([hidden, teacher_onehot(features)], dim=1)

    def forward_critic(self, features: torch.Tensor) -> torch.Tensor:
        return self.value_net(features[:, :-1])


class ResidualHead(nn.Module):
    """logits = beta * teacher one-hot + a linear correction of the hidden layer (starts at 0)."""

    def __init__(self, hidden: int, beta: float) -> None:
        super().__init__()
        self.hidden = hidden
        self.beta = beta
        self.correction = nn.Linear(hidden, NUM_ACTIONS)
        nn.init.zeros_(self.correction.weight)
        nn.init.zeros_(self.correction.bias)

    def forward(self, latent: torch.Tensor) -> torch.Tensor:
        return self.correction(latent[:, : self.hidden]) + self.beta * latent[:, self.hidden :]


class ResidualPolicy(MaskableActorCriticPolicy):
    def __init__(self, *args: Any, beta: float = 6.0, **kwargs: Any) -> None:
        self.beta = beta
        super().__init__(*args, **kwargs)

    def _build_mlp_extractor(self) -> None:
        self.mlp_extractor = ResidualExtractor(
            self.features_dim, self.net_arch, self.activation_fn, self.device
        )

    def _build(self, lr_schedule: Any) -> None:
        super()._build(lr_schedule)
        self.action_net = ResidualHead(self.mlp_extractor.latent_dim_pi - NUM_ACTIONS, self.beta)
        self.optimizer = self.optimizer_class(  # type: ignore[call-arg]
            self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs
        )


def copy_initial_weights(model: Any, spec: str) -> None:
    """bc-4p's hidden layers (policy and value) and value head; the correction stays 0."""
    from safetensors.torch import load as load_tensors

    from training.initial_weights import shipped_or_path

    state = load_tensors(shipped_or_path(spec).read_bytes())
    kept = {k: v for k, v in state.items() if not k.startswith("action_net.")}
    missing, unexpected = model.policy.load_state_dict(kept, strict=False)
    if unexpected or set(missing) != {"action_net.correction.weight", "action_net.correction.bias"}:
        raise ValueError(f"init_weights={spec!r} does not fit: {missing=}, {unexpected=}")


def copy_residual_weights(model: Any, spec: str) -> None:
    """Every tensor of a safe-format network on the strategist (checked as any loaded model)."""
    from safetensors.torch import load as load_tensors

    from dune_env.policies.registry import PolicyLoadError
    from dune_env.policies.weights import WeightsPolicy
    from training.initial_weights import shipped_or_path

    path = shipped_or_path(spec)
    checked = WeightsPolicy(path, on_heuristic=True)  # description, SHA-256, layout
    if checked.teacher != ("strategist", float(model.policy.beta)):
        raise PolicyLoadError(
            f"init_from={spec!r} is not a network on the strategist with beta {model.policy.beta}"
        )
    state = load_tensors(path.read_bytes())
    renamed = {k.replace("action_net.", "action_net.correction."): v for k, v in state.items()}
    model.policy.load_state_dict(renamed)
