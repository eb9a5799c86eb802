"""The behaviour-cloning loss, written once: labelled decisions (`Decisions`) and one pass of
minibatches over them (`clone_epoch`), used by the self-play imitation
(`training/imitation.py`) and the imitation in the benchmark's setting (`training/dagger.py`).

The loss of a minibatch: the masked cross-entropy of the teacher's actions (optionally weighted
per decision kind) plus half the squared error of the value head against the deciding seat's
final reward; gradients clipped to norm 0.5, one step of the policy's own optimiser.
"""

from __future__ import annotations

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
