"""Kickstarted PPO (issue 23): the settings, the annealed imitation weight, the warm start from a
shipped model's weights.  The algorithm itself (MaskablePPO plus the imitation term, the
rollout buffer keeping the teacher's labels) is `training/kickstart_ppo.py`, imported only when
training starts (it needs stable-baselines3).

Kickstarting (Schmitt et al., 2018) adds to PPO's loss `lambda x cross-entropy` between the
policy and a teacher's choice on the learner's own states: the batched environments ask the
teacher (a built-in engine policy, e.g. the strategist, which reads the live game and costs
microseconds) for its action at every learner decision (`dune_env.vector`, `teacher=`), and
the update pulls the policy towards it, with `lambda` annealed from `kickstart_coef_start` to
`kickstart_coef_end`.  PPO is free to improve on the teacher where the game rewards it, but
cannot drift far from it while lambda is large; the imitation term also keeps agreement, the
quantity the diagnostics found strength to hinge on, from decaying as PPO updates it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass
class KickstartFields:
    """The kickstart and warm-start fields of `PPOSelfPlayConfig` (a mixin)."""

    init_weights: str = ""
    """A safe-format model (a shipped name such as bc-4p, or a .safetensors / .json path) whose
    policy and value weights start a new run; its network must be `net_arch` (tanh) on today's
    observation.  Ignored when the run resumes from a checkpoint ("": random initialisation)."""
    kickstart_teacher: str = ""
    """A built-in engine policy (e.g. strategist) whose choice at each of the learner's own
    decisions the policy is pulled towards: loss = PPO + lambda x cross-entropy(teacher's
    action).  Needs envs_per_process > 1 (the batched envs label the states).  "": plain PPO."""
    kickstart_coef_start: float = 1.0
    """lambda at learner step 0."""
    kickstart_coef_end: float = 0.1
    """lambda after `kickstart_anneal_steps` learner steps, and from then on."""
    kickstart_anneal_steps: int = 1_000_000
    """Learner steps over which lambda falls linearly from start to end (counted from the
    run's step 0, so a resumed run continues the schedule; 0: the end value throughout)."""
    critic_warmup_rollouts: int = 0
    """Rollouts at the start of the run whose updates train the value network only (no policy,
    entropy or imitation term), so that the first policy updates use advantages from a critic
    fitted to the learner's own games rather than to the imitation data's."""

    def _check_kickstart(self, envs_per_process: int) -> None:
        """ValueError naming what is wrong, for the fields above."""
        from dune_env.policies.registry import BUILTIN_POLICIES

        if self.kickstart_teacher and self.kickstart_teacher not in BUILTIN_POLICIES:
            raise ValueError(
                f"kickstart_teacher={self.kickstart_teacher!r} is not a built-in policy; use one "
                f"of {sorted(BUILTIN_POLICIES)}"
            )
        if self.kickstart_teacher and envs_per_process < 2:
            raise ValueError(
                "kickstart_teacher needs envs_per_process > 1: the batched environments label "
                "the learner's states"
            )
        for name in ("kickstart_coef_start", "kickstart_coef_end"):
            if not getattr(self, name) >= 0:
                raise ValueError(f"{name}={getattr(self, name)!r} must be >= 0")
        for name in ("kickstart_anneal_steps", "critic_warmup_rollouts"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name}={getattr(self, name)!r} must be >= 0")

    @property
    def uses_kickstart_ppo(self) -> bool:
        """Whether the run needs `KickstartedPPO` (an imitation term or a critic warm-up)."""
        return bool(self.kickstart_teacher) or self.critic_warmup_rollouts > 0


def kickstart_coef(step: int, start: float, end: float, anneal_steps: int) -> float:
    """lambda at learner step `step`: linear from `start` at 0 to `end` at `anneal_steps`,
    then `end`."""
    if anneal_steps <= 0 or step >= anneal_steps:
        return end
    return start + (end - start) * max(step, 0) / anneal_steps


def shipped_or_path(spec: str) -> Path:
    """The .safetensors file of a shipped model name (bc-4p) or of a path."""
    from dune_env.policies.registry import CHECKPOINT_DIR, SHIPPED_MODELS
    from dune_env.policies.weights import weight_paths

    if spec in SHIPPED_MODELS:
        return CHECKPOINT_DIR / SHIPPED_MODELS[spec]
    return weight_paths(spec)[0]


def load_initial_weights(model: Any, spec: str) -> None:
    """Copy a safe-format model's tensors (policy and value networks) into `model`'s policy,
    after the checks of `WeightsPolicy` (description, SHA-256, layout); the network must take
    today's observation unchanged and have the model's layers.  PolicyLoadError otherwise."""
    import numpy as np
    import torch
    from safetensors.torch import load as load_tensors

    from dune_env.policies.registry import PolicyLoadError
    from dune_env.policies.weights import WeightsPolicy

    path = shipped_or_path(spec)
    checked = WeightsPolicy(path)  # raises PolicyLoadError on a bad file
    width = int(model.observation_space.shape[0])
    columns = checked.columns
    if isinstance(columns, slice):
        columns = np.arange(width)[columns]
    if not np.array_equal(columns, np.arange(width)):
        raise PolicyLoadError(
            f"init_weights={spec!r} was trained on another observation layout; a warm start "
            "needs a model of today's observation (e.g. bc-4p)"
        )
    if checked.activation != "tanh":
        raise PolicyLoadError(
            f"init_weights={spec!r} uses {checked.activation}; the recipe's MlpPolicy uses tanh"
        )
    state = load_tensors(path.read_bytes())
    own = model.policy.state_dict()
    mismatched = sorted(
        k
        for k in set(own) | set(state)
        if k not in state or k not in own or own[k].shape != state[k].shape
    )
    if mismatched:
        raise PolicyLoadError(
            f"init_weights={spec!r} does not fit the configured network (net_arch, tanh): "
            f"tensors {mismatched[:4]} differ; set net_arch to the model's layers"
        )
    with torch.no_grad():
        model.policy.load_state_dict(state)


def algorithm_of(cfg: KickstartFields) -> Any:
    """The SB3 algorithm class of a run: `KickstartedPPO` when it uses an imitation term or a
    critic warm-up, else sb3-contrib's MaskablePPO."""
    if cfg.uses_kickstart_ppo:
        from training.kickstart_ppo import KickstartedPPO

        return KickstartedPPO
    from sb3_contrib import MaskablePPO

    return MaskablePPO


def configure_algorithm(model: Any, cfg: KickstartFields) -> None:
    """Apply the kickstart schedule of `cfg` to a new or resumed `KickstartedPPO`."""
    configure = getattr(model, "configure_kickstart", None)
    if configure is not None:
        configure(cfg, model.n_steps * model.n_envs)


def with_teacher_labels(callback: Any, cfg: KickstartFields) -> Any:
    """`callback` plus the `TeacherLabels` callback when the run has a teacher."""
    if not cfg.kickstart_teacher:
        return callback
    from stable_baselines3.common.callbacks import CallbackList

    from training.kickstart_ppo import TeacherLabels

    return CallbackList([callback, TeacherLabels()])
