"""Kickstarted PPO (issue 23), in one module: the annealed imitation term, the algorithm, the
callback that hands it the teacher's labels.

Kickstarting (Schmitt et al., 2018) adds to PPO's loss `lambda x cross-entropy` between the
policy and a teacher's choice on the learner's own states: the batched environments ask the
teacher (a built-in engine policy, e.g. the strategist, which reads the live game and costs
microseconds) for its action at every learner decision (`dune_env.vector`, `teacher=`), and
the update pulls the policy towards it, with `lambda` annealed from `kickstart_coef_start` to
`kickstart_coef_end`.  PPO is free to improve on the teacher where the game rewards it, but
cannot drift far from it while lambda is large; the imitation term also keeps agreement, the
quantity the diagnostics found strength to hinge on, from decaying as PPO updates it.

- `TeacherRolloutBuffer`: sb3-contrib's masked rollout buffer plus the teacher's action for
  each stored learner state (-1: no label), handed out with each minibatch.
- `TeacherLabels`: the callback that moves the labels from the environments' infos
  (`teacher_action`, written by `dune_env.vector` with `teacher=`) into the buffer, aligned
  with the observations the buffer stores.
- `KickstartedPPO`: MaskablePPO whose update adds `lambda x cross-entropy(teacher's action)`
  to PPO's loss (`batch_loss`: the loss of the self-play recipe; `lambda` annealed by
  `kickstart_coef`), and whose first `critic_warmup_rollouts` updates train the value network
  only.  Its `train()` is sb3-contrib 2.x's MaskablePPO.train() (clipped surrogate, value
  regression, entropy, `target_kl` early stop) with those two changes; value clipping
  (`clip_range_vf`) is not supported.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Generator
from typing import Any, NamedTuple

import numpy as np
import torch
import torch.nn.functional as F
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.buffers import MaskableRolloutBuffer
from stable_baselines3.common.callbacks import BaseCallback, CallbackList
from stable_baselines3.common.utils import explained_variance

from training.fields import KickstartFields

NO_LABEL = -1


def kickstart_coef(step: int, start: float, end: float, anneal_steps: int) -> float:
    """lambda at learner step `step`: linear from `start` at 0 to `end` at `anneal_steps`,
    then `end`."""
    if anneal_steps <= 0 or step >= anneal_steps:
        return end
    return start + (end - start) * max(step, 0) / anneal_steps


class TeacherSamples(NamedTuple):
    """A minibatch: sb3-contrib's MaskableRolloutBufferSamples plus the teacher's actions."""

    observations: torch.Tensor
    actions: torch.Tensor
    old_values: torch.Tensor
    old_log_prob: torch.Tensor
    advantages: torch.Tensor
    returns: torch.Tensor
    action_masks: torch.Tensor
    teacher_actions: torch.Tensor


class TeacherRolloutBuffer(MaskableRolloutBuffer):
    """The rollout buffer with the teacher's action of each stored state.  `incoming` holds the
    labels of the observations the environments just returned (set by `TeacherLabels` before
    SB3 stores the previous ones); `add` stores `pending`, the labels of the observations being
    stored, then moves `incoming` to `pending`."""

    teacher_actions: np.ndarray

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.pending = np.full(self.n_envs, NO_LABEL, dtype=np.int64)
        self.incoming = self.pending.copy()

    def reset(self) -> None:
        super().reset()
        self.teacher_actions = np.full((self.buffer_size, self.n_envs), NO_LABEL, dtype=np.int64)

    def add(self, *args: Any, **kwargs: Any) -> None:
        self.teacher_actions[self.pos] = self.pending
        self.pending = self.incoming.copy()
        super().add(*args, **kwargs)

    def get(self, batch_size: int | None = None) -> Generator[TeacherSamples, None, None]:  # type: ignore[override]
        if not self.generator_ready:
            self.teacher_actions = self.swap_and_flatten(self.teacher_actions)
        yield from super().get(batch_size)  # type: ignore[misc]

    def _get_samples(self, batch_inds: np.ndarray, env: Any = None) -> TeacherSamples:  # type: ignore[override]
        samples = super()._get_samples(batch_inds, env)
        labels = self.to_torch(self.teacher_actions[batch_inds].flatten())
        return TeacherSamples(*samples, teacher_actions=labels)


def labels_of(infos: list[dict[str, Any]]) -> np.ndarray:
    """The `teacher_action` of each info (NO_LABEL where there is none)."""
    return np.array([int(info.get("teacher_action", NO_LABEL)) for info in infos], dtype=np.int64)


class TeacherLabels(BaseCallback):
    """Feeds the environments' teacher labels to the `TeacherRolloutBuffer` (see there)."""

    def _on_training_start(self) -> None:
        venv: Any = self.training_env
        while hasattr(venv, "venv"):  # VecMonitor and other wrappers keep their own reset_infos
            venv = venv.venv
        buffer: Any = self.model.rollout_buffer  # type: ignore[attr-defined]
        buffer.pending = labels_of(list(getattr(venv, "reset_infos", [{}] * buffer.n_envs)))

    def _on_step(self) -> bool:
        buffer: Any = self.model.rollout_buffer  # type: ignore[attr-defined]
        buffer.incoming = labels_of(self.locals["infos"])
        return True


class KickstartedPPO(MaskablePPO):
    """MaskablePPO + lambda x cross-entropy towards the teacher's labels, after a critic
    warm-up (see the module docstring); `configure_kickstart` sets the schedule."""

    kick_start = 0.0
    kick_end = 0.0
    kick_anneal_steps = 0
    critic_warmup_steps = 0

    def _setup_model(self) -> None:
        # Also when loading a checkpoint of a plain MaskablePPO run (which names its buffer).
        self.rollout_buffer_class = TeacherRolloutBuffer
        super()._setup_model()

    def configure_kickstart(self, cfg: KickstartFields, rollout_steps: int) -> None:
        """The schedule of `cfg` (re-applied on resume: its settings may change)."""
        self.kick_start = cfg.kickstart_coef_start if cfg.kickstart_teacher else 0.0
        self.kick_end = cfg.kickstart_coef_end if cfg.kickstart_teacher else 0.0
        self.kick_anneal_steps = cfg.kickstart_anneal_steps
        self.critic_warmup_steps = cfg.critic_warmup_rollouts * rollout_steps

    def current_kick_coef(self) -> float:
        return kickstart_coef(
            self.num_timesteps, self.kick_start, self.kick_end, self.kick_anneal_steps
        )

    def in_critic_warmup(self) -> bool:
        """The rollout just collected (ending at num_timesteps) is a warm-up rollout."""
        return self.num_timesteps <= self.critic_warmup_steps

    def train(self) -> None:
        """One update on the rollout buffer (sb3-contrib's loop; see the module docstring)."""
        if self.clip_range_vf is not None:
            raise ValueError("KickstartedPPO does not support clip_range_vf")
        self.policy.set_training_mode(True)
        self._update_learning_rate(self.policy.optimizer)
        clip_range = self.clip_range(self._current_progress_remaining)  # type: ignore[operator]
        coef, warmup = self.current_kick_coef(), self.in_critic_warmup()
        stats: dict[str, list[float]] = defaultdict(list)
        for _ in range(self.n_epochs):
            stopped = False
            buffer: Any = self.rollout_buffer  # a TeacherRolloutBuffer
            for batch in buffer.get(self.batch_size):
                loss, approx_kl = self.batch_loss(batch, clip_range, coef, warmup, stats)
                if not warmup and self.target_kl is not None and approx_kl > 1.5 * self.target_kl:
                    stopped = True
                    break
                self.policy.optimizer.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(self.policy.parameters(), self.max_grad_norm)
                self.policy.optimizer.step()
            self._n_updates += 1
            if stopped:
                break
        self.log_update(stats, clip_range, coef, warmup)

    def batch_loss(
        self,
        batch: TeacherSamples,
        clip_range: float,
        coef: float,
        warmup: bool,
        stats: dict[str, list[float]],
    ) -> tuple[torch.Tensor, float]:
        """(loss, approximate KL from the rollout's policy) of one minibatch; its terms are
        appended to `stats`.  In the warm-up the loss is the value term alone."""
        actions = batch.actions.long().flatten()
        masks: Any = batch.action_masks  # (a tensor: sb3-contrib's own train() passes one too)
        dist = self.policy.get_distribution(batch.observations, action_masks=masks)
        log_prob = dist.log_prob(actions)
        values = self.policy.predict_values(batch.observations).flatten()
        advantages = batch.advantages
        if self.normalize_advantage and len(advantages) > 1:
            advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
        log_ratio = log_prob - batch.old_log_prob
        ratio = torch.exp(log_ratio)
        clipped = torch.clamp(ratio, 1 - clip_range, 1 + clip_range)
        policy_loss = -torch.min(advantages * ratio, advantages * clipped).mean()
        value_loss = F.mse_loss(batch.returns, values)
        entropy: Any = dist.entropy()
        entropy_loss = -torch.mean(entropy)
        teacher_nll, agreement = self.teacher_term(dist, batch, actions)
        if warmup:
            loss = self.vf_coef * value_loss
        else:
            loss = policy_loss + self.ent_coef * entropy_loss + self.vf_coef * value_loss
            loss = loss + coef * teacher_nll
        with torch.no_grad():
            approx_kl = float(torch.mean((ratio - 1) - log_ratio))
        for key, value in (
            ("policy_gradient_loss", policy_loss.item()),
            ("value_loss", value_loss.item()),
            ("entropy_loss", entropy_loss.item()),
            ("teacher_nll", teacher_nll.item()),
            ("teacher_agreement", agreement),
            ("approx_kl", approx_kl),
            ("clip_fraction", float(torch.mean((torch.abs(ratio - 1) > clip_range).float()))),
            ("loss", loss.item()),
        ):
            stats[key].append(value)
        return loss, approx_kl

    def teacher_term(
        self, dist: Any, batch: TeacherSamples, actions: torch.Tensor
    ) -> tuple[Any, float]:
        """The imitation term of a minibatch and the greedy agreement: here the teacher's
        labels (`teacher_terms`); `AnchoredPPO` pulls towards a network's distribution."""
        return teacher_terms(dist, batch.teacher_actions, actions)

    def log_update(
        self, stats: dict[str, list[float]], clip_range: float, coef: float, warmup: bool
    ) -> None:
        """sb3's train/ entries, plus the imitation's (train/teacher_nll: the policy's mean
        negative log-likelihood of the teacher's actions; train/teacher_agreement: the share
        of states where its greedy action is the teacher's; train/kickstart_coef)."""
        for key, values in stats.items():
            self.logger.record(f"train/{key}", float(np.mean(values)))
        buffer = self.rollout_buffer
        explained = explained_variance(buffer.values.flatten(), buffer.returns.flatten())
        self.logger.record("train/explained_variance", explained)
        self.logger.record("train/n_updates", self._n_updates, exclude="tensorboard")
        self.logger.record("train/clip_range", clip_range)
        self.logger.record("train/kickstart_coef", coef)
        self.logger.record("train/critic_warmup", int(warmup))


def teacher_terms(dist: Any, teacher: torch.Tensor, actions: torch.Tensor) -> tuple[Any, float]:
    """(mean negative log-likelihood of the teacher's actions under the masked distribution,
    with gradient; share of those states where the greedy action is the teacher's), over the
    labelled states (0 and 0.0 without any)."""
    labelled = teacher >= 0
    count = int(labelled.sum())
    if count == 0:
        return torch.zeros((), device=actions.device), 0.0
    chosen = torch.where(labelled, teacher.long(), actions)  # any legal action where unlabelled
    log_likelihood = dist.log_prob(chosen)
    nll = -(log_likelihood * labelled).sum() / count
    agreement = float((dist.mode()[labelled] == teacher[labelled]).float().mean())
    return nll, agreement


class AnchoredPPO(KickstartedPPO):
    """KickstartedPPO whose imitation term is the KL divergence from a frozen network's policy
    (the anchor, e.g. the distillation PPO starts from) to the learner's, on each minibatch's
    own states: loss = PPO + lambda x KL(anchor || policy), lambda annealed as the kickstart
    coefficient is (`configure_kickstart`'s schedule).  The anchor is a safe-format model read
    with numpy (`set_anchor`, applied to new and resumed models alike); it needs no labels from
    the environments."""

    anchor: Any = None
    anchor_path = ""

    def set_anchor(self, path: str) -> None:
        """The anchor's safe-format file, read at the first update (it may be written after the
        model is built: the distillation before PPO)."""
        self.anchor_path, self.anchor = path, None

    def _excluded_save_params(self) -> list[str]:
        return [*super()._excluded_save_params(), "anchor"]  # the file is named, not pickled

    def teacher_term(
        self, dist: Any, batch: TeacherSamples, actions: torch.Tensor
    ) -> tuple[Any, float]:
        """(KL(anchor || policy) averaged over the minibatch, with gradient; the share of its
        states where the policy's greedy action is the anchor's)."""
        if self.anchor is None:
            from dune_env.policies.weights import WeightsPolicy

            if not self.anchor_path:
                raise ValueError("AnchoredPPO needs its anchor network: set_anchor(path) first")
            self.anchor = WeightsPolicy(self.anchor_path)
        masks = batch.action_masks.bool()
        logits = self.anchor.logits(batch.observations.cpu().numpy())
        anchor = torch.log_softmax(torch.as_tensor(logits).masked_fill(~masks, -torch.inf), dim=1)
        own = torch.log_softmax(dist.distribution.logits.masked_fill(~masks, -torch.inf), dim=1)
        p = anchor.exp()
        kl = torch.where(masks, p * (anchor - own), torch.zeros_like(p)).sum(dim=1).mean()
        agreement = float((own.argmax(dim=1) == anchor.argmax(dim=1)).float().mean())
        return kl, agreement


def algorithm_of(cfg: KickstartFields) -> Any:
    """The SB3 algorithm class of a run: `KickstartedPPO` when it uses an imitation term or a
    critic warm-up, else sb3-contrib's MaskablePPO."""
    return KickstartedPPO if cfg.uses_kickstart_ppo else MaskablePPO


def configure_algorithm(model: Any, cfg: KickstartFields) -> None:
    """Apply the kickstart schedule of `cfg` to a new or resumed `KickstartedPPO`."""
    configure = getattr(model, "configure_kickstart", None)
    if configure is not None:
        configure(cfg, model.n_steps * model.n_envs)


def with_teacher_labels(callback: Any, cfg: KickstartFields) -> Any:
    """`callback` plus the `TeacherLabels` callback when the run has a teacher."""
    if not cfg.kickstart_teacher:
        return callback
    return CallbackList([callback, TeacherLabels()])
