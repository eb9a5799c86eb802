"""The behaviour-cloning loss, written once: labelled decisions (`Decisions`) and one pass of
minibatches over them (`clone_epoch`), used by the self-play imitation
(`training/imitation.py`) and the imitation in the benchmark's setting (`training/dagger.py`).

The loss of a minibatch: the masked cross-entropy of the teacher's actions (optionally weighted
per decision kind) plus half the squared error of the value head against the deciding seat's
final reward; gradients clipped to norm 0.5, one step of the policy's own optimiser.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np


class Decisions(NamedTuple):
    """Labelled decisions: observation, legal mask, the teacher's action, the deciding seat's
    final reward, the decision kind."""

    obs: np.ndarray
    masks: np.ndarray
    actions: np.ndarray
    returns: np.ndarray
    kinds: np.ndarray

    @staticmethod
    def join(parts: list[Decisions]) -> Decisions:
        return Decisions(*(np.concatenate(arrays) for arrays in zip(*parts, strict=True)))

    def take(self, index: np.ndarray) -> Decisions:
        return Decisions(*(array[index] for array in self))


def kind_weights(kinds: np.ndarray, weights: dict[str, float]) -> np.ndarray:
    """The loss weight of each decision (by its kind's name; 1 if not named)."""
    from dune_env.engine.decisions import DecisionKind

    table = np.ones(len(DecisionKind), dtype=np.float32)
    for name, weight in weights.items():
        table[DecisionKind[name]] = float(weight)
    return table[np.asarray(kinds, dtype=np.int64)]


def clone_epoch(
    policy: Any,
    data: Decisions,
    batch_size: int,
    rng: np.random.Generator,
    weights: np.ndarray | None = None,
) -> tuple[float, float]:
    """One pass of minibatches in the order `rng` draws, each one step on the cloning loss
    (the module docstring; `weights`: per-decision weights of the cross-entropy, None: the
    plain mean); (mean NLL, mean value MSE) over the pass, unweighted."""
    import torch

    order = rng.permutation(len(data.actions))
    total_nll = total_mse = 0.0
    for start in range(0, len(order), batch_size):
        idx = order[start : start + batch_size]
        values, log_prob, _ = policy.evaluate_actions(
            torch.as_tensor(data.obs[idx]),
            torch.as_tensor(data.actions[idx]),
            action_masks=data.masks[idx],
        )
        if weights is None:
            nll = -log_prob.mean()
        else:
            w = torch.as_tensor(weights[idx])
            nll = -(w * log_prob).sum() / w.sum().clamp(min=1e-8)
        mse = torch.nn.functional.mse_loss(values.flatten(), torch.as_tensor(data.returns[idx]))
        policy.optimizer.zero_grad()
        (nll + 0.5 * mse).backward()
        torch.nn.utils.clip_grad_norm_(policy.parameters(), 0.5)
        policy.optimizer.step()
        total_nll += float(-log_prob.detach().sum())
        total_mse += float(mse.detach()) * len(idx)
    count = max(len(order), 1)
    return total_nll / count, total_mse / count


def held_out_fit(model: Any, data: Decisions) -> dict[str, Any]:
    """NLL of the teacher's actions and greedy agreement with them, in all and per decision
    kind, on `data`."""
    import torch

    from dune_env.engine.decisions import DecisionKind

    with torch.no_grad():
        obs = torch.as_tensor(data.obs)
        dist = model.policy.get_distribution(obs, action_masks=data.masks)
        nll = -dist.log_prob(torch.as_tensor(data.actions)).numpy()
        agree = (dist.mode().numpy() == data.actions).astype(np.float64)
    by_kind = {}
    for kind in np.unique(data.kinds):
        rows = data.kinds == kind
        by_kind[DecisionKind(int(kind)).name] = {
            "agreement": float(agree[rows].mean()),
            "decisions": int(rows.sum()),
        }
    return {
        "nll": float(nll.mean()) if len(nll) else 0.0,
        "agreement": float(agree.mean()) if len(agree) else 0.0,
        "agreement_by_kind": by_kind,
    }


# --- The same loss on a search's statistics: soft targets (`training.distill`) --------------


def masked_log_policy(policy: Any, obs: Any, masks: Any) -> tuple[Any, Any]:
    """(log-probabilities over the legal actions, illegal ones -inf; the value estimates) of
    an SB3 actor-critic `policy` on float32 observations and bool masks (tensors)."""
    import torch

    features = policy.extract_features(obs)
    latent_pi, latent_vf = policy.mlp_extractor(features)
    logits = policy.action_net(latent_pi).masked_fill(~masks, -torch.inf)
    return torch.log_softmax(logits, dim=1), policy.value_net(latent_vf).flatten()


def distill_epoch(
    policy: Any,
    labels: Any,
    rows: np.ndarray,
    batch_size: int,
    rng: np.random.Generator,
    visit_share: float,
    weights: np.ndarray | None = None,
) -> tuple[float, float]:
    """One pass of minibatches over `rows` of `labels` (a `training.search_labels.Labels`):
    the cloning loss with the teacher's target distribution (`Labels.targets`: its choice and
    its candidates' visits) in place of a single action, i.e. the cross-entropy -sum_a t(a)
    log pi(a) (weighted per decision by `weights`), plus half the value head's squared error
    against the final reward; gradients clipped to norm 0.5.  (mean cross-entropy, mean
    value MSE) over the pass, unweighted."""
    import torch

    order = rng.permutation(rows)
    total_ce = total_mse = 0.0
    for start in range(0, len(order), batch_size):
        idx = order[start : start + batch_size]
        obs = torch.as_tensor(labels.obs[idx], dtype=torch.float32)
        masks = torch.as_tensor(labels.masks(idx))
        target = torch.as_tensor(labels.targets(idx, visit_share))
        log_pi, values = masked_log_policy(policy, obs, masks)
        ce = -(target * log_pi.masked_fill(~masks, 0.0)).sum(dim=1)
        if weights is None:
            loss_ce = ce.mean()
        else:
            w = torch.as_tensor(weights[idx])
            loss_ce = (w * ce).sum() / w.sum().clamp(min=1e-8)
        mse = torch.nn.functional.mse_loss(values, torch.as_tensor(labels.returns[idx]))
        policy.optimizer.zero_grad()
        (loss_ce + 0.5 * mse).backward()
        torch.nn.utils.clip_grad_norm_(policy.parameters(), 0.5)
        policy.optimizer.step()
        total_ce += float(ce.detach().sum())
        total_mse += float(mse.detach()) * len(idx)
    count = max(len(order), 1)
    return total_ce / count, total_mse / count


def distill_fit(policy: Any, labels: Any, visit_share: float, batch: int = 4096) -> dict[str, Any]:
    """On held-out `labels`: the cross-entropy of the target distributions, the greedy
    agreement with the teacher's choice and with the strategist's (where the search saw it),
    in all and per decision kind."""
    import torch

    from dune_env.engine.decisions import DecisionKind

    ce_parts, greedy_parts = [], []
    with torch.no_grad():
        for start in range(0, labels.size, batch):
            idx = np.arange(start, min(start + batch, labels.size))
            masks = torch.as_tensor(labels.masks(idx))
            obs = torch.as_tensor(labels.obs[idx], dtype=torch.float32)
            log_pi, _ = masked_log_policy(policy, obs, masks)
            target = torch.as_tensor(labels.targets(idx, visit_share))
            ce_parts.append((-(target * log_pi.masked_fill(~masks, 0.0)).sum(dim=1)).numpy())
            greedy_parts.append(log_pi.argmax(dim=1).numpy())
    ce = np.concatenate(ce_parts) if ce_parts else np.zeros(0)
    greedy = np.concatenate(greedy_parts) if greedy_parts else np.zeros(0, np.int64)
    agree = greedy == labels.choice
    searched = labels.preferred >= 0
    with_strategist = greedy[searched] == labels.preferred[searched]
    by_kind = {}
    for kind in np.unique(labels.kinds):
        rows = labels.kinds == kind
        by_kind[DecisionKind(int(kind)).name] = {
            "decisions": int(rows.sum()),
            "agreement": float(agree[rows].mean()),
            "teacher_departs": float(
                (labels.preferred[rows & searched] != labels.choice[rows & searched]).mean()
            )
            if (rows & searched).any()
            else 0.0,
        }
    mean = lambda a: float(a.mean()) if len(a) else 0.0  # noqa: E731
    return {
        "decisions": int(labels.size),
        "cross_entropy": mean(ce),
        "agreement": mean(agree),
        "agreement_with_strategist": mean(with_strategist),
        "teacher_departs_from_strategist": mean(
            labels.preferred[searched] != labels.choice[searched]
        ),
        "agreement_by_kind": by_kind,
    }


def train_with_early_stopping(
    policy: Any,
    epochs: int,
    patience: int,
    best: dict[str, Any],
    score: str,
    one_epoch: Callable[[int], tuple[dict[str, Any], dict[str, Any]]],
    stats: dict[str, Any],
) -> dict[str, Any]:
    """Train epoch by epoch (`one_epoch(epoch)` -> (training figures, held-out fit)) until the
    held-out `score` has not fallen for more than `patience` epochs, then restore the weights of
    the best epoch (`best` is the fit before training); `stats` gains every epoch's figures and
    the best fit. One loop for every imitation loss (behaviour cloning, distillation)."""
    import copy

    best_state, waited = copy.deepcopy(policy.state_dict()), 0
    for epoch in range(epochs):
        trained, fit = one_epoch(epoch)
        stats[f"epoch{epoch}"] = {**trained, **fit}
        if fit[score] < best[score]:
            best, best_state, waited = fit, copy.deepcopy(policy.state_dict()), 0
        else:
            waited += 1
            if waited > patience:
                break
    policy.load_state_dict(best_state)
    stats["best"] = best
    return stats
