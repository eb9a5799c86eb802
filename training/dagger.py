"""Imitation in the benchmark's setting (issue 23, item 2): `bc_setting: lineup`.

The former imitation (`bc_setting: selfplay`, bc-4p's recipe) cloned the teacher from games of
the teacher in every seat, then from games of the clone in every seat, refitting all the data
each round and logging the training NLL only.  The benchmark, though, seats the model among
the heuristics.  Here:

- **Data in the benchmark's setting.** Round 0: `bc_policy` in one seat and
  `heuristic_opponents` in the others (the benchmark's line-up with the teacher as the model);
  DAgger rounds: the clone (greedy) in `bc_learner_seats` seats among the heuristics.  The seats
  rotate from game to game; every seat's decisions are labelled with `bc_policy`'s choice, and
  only decisions with a choice are kept (a forced one teaches nothing).
- **A held-out set per round**: `bc_heldout_games` more games of the same setting (other
  seeds); after each epoch its NLL and greedy agreement, in all and per decision kind, are
  logged (`stats`, behaviour_cloning.json).
- **Early stopping**: a round stops after `bc_patience` epochs without a lower held-out NLL and
  keeps its best epoch's weights.
- **Data kept across rounds, fine-tuned rather than refitted**: each round trains on its new
  data plus a replay sample of the earlier rounds' (`bc_replay` x the new size), starting from
  the weights the previous round left: the cost per round stays flat.
- **Loss weights per decision kind** (`bc_kind_weights`, e.g. {FIX_DICE: 2.0}).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

if TYPE_CHECKING:
    from training.ppo_selfplay import PPOSelfPlayConfig

BC_SETTINGS = ("selfplay", "lineup")
HELDOUT_SEED_OFFSET = 500_000_000


@dataclass
class LineupImitationFields:
    """The imitation fields of `PPOSelfPlayConfig` for `bc_setting: lineup` (a mixin)."""

    bc_setting: str = "selfplay"
    """Where the imitation's data comes from: "selfplay" (bc_policy in every seat, then the
    clone in every seat; bc-4p's recipe) or "lineup" (the benchmark's setting, with a held-out
    set, early stopping and fine-tuning across rounds: training/dagger.py)."""
    bc_learner_seats: int = 1
    """lineup: the clone's seats in each DAgger game (the others are heuristic_opponents)."""
    bc_heldout_games: int = 20
    """lineup: held-out games per round, for the NLL and agreement logged after each epoch."""
    bc_patience: int = 1
    """lineup: epochs without a lower held-out NLL before a round stops (its best epoch kept)."""
    bc_replay: float = 1.0
    """lineup: each round trains on its new data plus this many times as many samples drawn
    from the earlier rounds' data."""
    bc_kind_weights: dict[str, float] = field(default_factory=dict)
    """lineup: loss weight of each decision kind by name (e.g. {FIX_DICE: 2.0, BID: 2.0}); 1
    for the kinds not named."""

    def _check_imitation(self, num_players: int) -> None:
        from dune_env.engine.decisions import DecisionKind

        if self.bc_setting not in BC_SETTINGS:
            raise ValueError(
                f"bc_setting={self.bc_setting!r} is not valid; use one of {BC_SETTINGS}"
            )
        if not 1 <= self.bc_learner_seats < num_players:
            raise ValueError(
                f"bc_learner_seats={self.bc_learner_seats!r} must be 1..{num_players - 1}"
            )
        if self.bc_setting == "lineup" and self.bc_heldout_games < 1:
            raise ValueError("bc_setting lineup needs bc_heldout_games >= 1 (early stopping)")
        if self.bc_patience < 0:
            raise ValueError(f"bc_patience={self.bc_patience!r} must be >= 0")
        if not self.bc_replay >= 0:
            raise ValueError(f"bc_replay={self.bc_replay!r} must be >= 0")
        kinds = [k.name for k in DecisionKind]
        unknown = [k for k in self.bc_kind_weights if k not in kinds]
        bad = [k for k, w in self.bc_kind_weights.items() if not float(w) >= 0]
        if unknown or bad:
            raise ValueError(
                f"bc_kind_weights: unknown kinds {unknown} or negative weights {bad}; "
                f"kinds: {kinds}"
            )


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
    return table[kinds]


def seating(cfg: PPOSelfPlayConfig, learner: Any, game: int) -> list[Any]:
    """The seats of lineup game `game`: the teacher (round 0) or the clone in the first seats,
    the heuristics in the others, rotated by the game's number."""
    from dune_env.policies.registry import load_policy

    n = cfg.num_players
    models = 1 if learner is None else cfg.bc_learner_seats
    others = [cfg.heuristic_opponents[i % len(cfg.heuristic_opponents)] for i in range(n - models)]
    first: Any = (
        load_policy(cfg.bc_policy, trust=cfg.trust_checkpoints) if learner is None else learner
    )
    table = [first] * models + [load_policy(name) for name in others]
    shift = game % n
    return table[-shift:] + table[:-shift] if shift else table


def play_labelled_game(cfg: PPOSelfPlayConfig, seats: list[Any], seed: int) -> Decisions:
    """One game of `seats` (engine policies, or the SB3 model playing greedily), every decision
    with a choice labelled with `bc_policy`'s action."""
    from dune_env import dune_v1
    from dune_env.environment.action_table import NUM_ACTIONS
    from dune_env.environment.observer import OBS_SIZE
    from dune_env.match import reseed_seats
    from dune_env.policies.registry import load_policy

    env = dune_v1.raw_env(num_players=cfg.num_players)
    env.reset(seed=seed)
    teacher = load_policy(cfg.bc_policy, trust=cfg.trust_checkpoints)
    reseed_seats([s for s in seats if hasattr(s, "act")], seed)
    rows: list[tuple[np.ndarray, np.ndarray, int, int, int]] = []
    final = [0.0] * cfg.num_players
    for agent in env.agent_iter():
        observation, reward, terminated, truncated, _ = env.last()
        seat = env.agent_name_mapping[agent]
        if terminated or truncated:
            final[seat] = float(reward)
            env.step(None)
            continue
        mask = observation["action_mask"].astype(bool)
        label = env.policy_action(teacher)
        if mask.sum() > 1:
            kind = int(env.unwrapped.game.state.pending_kind)
            rows.append((observation["observation"], mask, label, seat, kind))
        policy = seats[seat]
        if hasattr(policy, "act"):  # an engine policy: a heuristic, or the teacher itself
            action = env.policy_action(policy)
        else:  # the SB3 model, greedy
            chosen, _ = policy.predict(
                observation["observation"], action_masks=mask, deterministic=True
            )
            action = int(chosen)
        env.step(action)
    return Decisions(
        np.asarray([r[0] for r in rows], np.float32).reshape(len(rows), OBS_SIZE),
        np.asarray([r[1] for r in rows], bool).reshape(len(rows), NUM_ACTIONS),
        np.asarray([r[2] for r in rows], np.int64),
        np.asarray([final[r[3]] for r in rows], np.float32),
        np.asarray([r[4] for r in rows], np.int64),
    )


def collect_lineup(
    cfg: PPOSelfPlayConfig, learner: Any, round_: int, progress: Any = None
) -> tuple[Decisions, Decisions]:
    """(training data, held-out data) of imitation round `round_` in the benchmark's setting:
    `bc_games` and `bc_heldout_games` games on disjoint seeds."""
    parts: list[Decisions] = []
    held: list[Decisions] = []
    total = cfg.bc_games + cfg.bc_heldout_games
    for g in range(total):
        if progress is not None:
            progress.update(g)
        number = round_ * total + g
        seed = cfg.seed * 1_000_003 + number + (HELDOUT_SEED_OFFSET if g >= cfg.bc_games else 0)
        game = play_labelled_game(cfg, seating(cfg, learner, number), seed)
        (parts if g < cfg.bc_games else held).append(game)
    if progress is not None:
        progress.update(total)
        progress.finish()
    return Decisions.join(parts), Decisions.join(held)


def fit_lineup_round(
    model: Any, cfg: PPOSelfPlayConfig, rounds: list[tuple[Decisions, Decisions]]
) -> dict[str, Any]:
    """Fine-tune on the last round's data plus a replay sample of the earlier rounds', epoch by
    epoch until the held-out NLL stops falling (`bc_patience`), keeping the best epoch's
    weights; the statistics of every epoch (training NLL, held-out NLL and agreement)."""
    import copy

    new, heldout = rounds[-1]
    rng = np.random.default_rng([cfg.seed, len(rounds)])
    data = new
    if len(rounds) > 1 and cfg.bc_replay > 0:
        old = Decisions.join([train for train, _ in rounds[:-1]])
        size = min(len(old.actions), round(cfg.bc_replay * len(new.actions)))
        data = Decisions.join([new, old.take(rng.choice(len(old.actions), size, replace=False))])
    stats: dict[str, Any] = {
        "samples": len(data.actions),
        "replayed": len(data.actions) - len(new.actions),
    }
    best = held_out_fit(model, heldout)
    stats["epoch_start"] = best
    best_state, waited = copy.deepcopy(model.policy.state_dict()), 0
    for epoch in range(cfg.bc_epochs):
        train_nll = train_epoch(model, cfg, data, rng)
        fit = held_out_fit(model, heldout)
        stats[f"epoch{epoch}"] = {"train_nll": train_nll, **fit}
        print(
            f"imitation round {len(rounds) - 1} epoch {epoch}: train nll {train_nll:.3f}, held-out "
            f"nll {fit['nll']:.3f}, agreement {fit['agreement']:.1%}"
        )
        if fit["nll"] < best["nll"]:
            best, best_state, waited = fit, copy.deepcopy(model.policy.state_dict()), 0
        else:
            waited += 1
            if waited > cfg.bc_patience:
                break
    model.policy.load_state_dict(best_state)
    stats["best"] = best
    return stats


def train_epoch(model: Any, cfg: PPOSelfPlayConfig, data: Decisions, rng: Any) -> float:
    """One pass of minibatches: kind-weighted masked cross-entropy plus value regression on the
    final rewards; the mean (unweighted) NLL."""
    import torch

    policy = model.policy
    weights = kind_weights(data.kinds, cfg.bc_kind_weights)
    order = rng.permutation(len(data.actions))
    total = 0.0
    for start in range(0, len(order), cfg.batch_size):
        idx = order[start : start + cfg.batch_size]
        obs = torch.as_tensor(data.obs[idx])
        values, log_prob, _ = policy.evaluate_actions(
            obs, torch.as_tensor(data.actions[idx]), action_masks=data.masks[idx]
        )
        w = torch.as_tensor(weights[idx])
        nll = -(w * log_prob).sum() / w.sum().clamp(min=1e-8)
        mse = torch.nn.functional.mse_loss(values.flatten(), torch.as_tensor(data.returns[idx]))
        policy.optimizer.zero_grad()
        (nll + 0.5 * mse).backward()
        torch.nn.utils.clip_grad_norm_(policy.parameters(), 0.5)
        policy.optimizer.step()
        total += float(-log_prob.detach().sum())
    return total / max(len(order), 1)


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
