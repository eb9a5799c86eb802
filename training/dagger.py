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

from typing import Any

import numpy as np

from training.cloning import (
    Decisions,
    clone_epoch,
    held_out_fit,
    kind_weights,
    train_with_early_stopping,
)
from training.fields import ImitationFields, RunFields

HELDOUT_SEED_OFFSET = 500_000_000


def seating(
    imitation: ImitationFields, run: RunFields, heuristics: tuple[str, ...], learner: Any, game: int
) -> list[Any]:
    """The seats of lineup game `game`: the teacher (round 0) or the clone in the first seats,
    the heuristics in the others, rotated by the game's number."""
    from dune_env.policies.registry import load_policy

    n = run.num_players
    models = 1 if learner is None else imitation.bc_learner_seats
    others = [heuristics[i % len(heuristics)] for i in range(n - models)]
    first: Any = (
        load_policy(imitation.bc_policy, trust=run.trust_checkpoints)
        if learner is None
        else learner
    )
    table = [first] * models + [load_policy(name) for name in others]
    shift = game % n
    return table[-shift:] + table[:-shift] if shift else table


def play_labelled_game(
    imitation: ImitationFields, run: RunFields, seats: list[Any], seed: int
) -> Decisions:
    """One game of `seats` (engine policies, or the SB3 model playing greedily), every decision
    with a choice labelled with `bc_policy`'s action."""
    from dune_env import dune_v1
    from dune_env.environment.action_table import NUM_ACTIONS
    from dune_env.environment.observer import OBS_SIZE
    from dune_env.match import reseed_seats
    from dune_env.policies.registry import load_policy

    env = dune_v1.raw_env(num_players=run.num_players)
    env.reset(seed=seed)
    teacher = load_policy(imitation.bc_policy, trust=run.trust_checkpoints)
    reseed_seats([s for s in seats if hasattr(s, "act")], seed)
    rows: list[tuple[np.ndarray, np.ndarray, int, int, int]] = []
    final = [0.0] * run.num_players
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
    imitation: ImitationFields,
    run: RunFields,
    heuristics: tuple[str, ...],
    learner: Any,
    round_: int,
    progress: Any = None,
) -> tuple[Decisions, Decisions]:
    """(training data, held-out data) of imitation round `round_` in the benchmark's setting:
    `bc_games` and `bc_heldout_games` games on disjoint seeds."""
    parts: list[Decisions] = []
    held: list[Decisions] = []
    games = imitation.bc_games
    total = games + imitation.bc_heldout_games
    for g in range(total):
        if progress is not None:
            progress.update(g)
        number = round_ * total + g
        seed = run.seed * 1_000_003 + number + (HELDOUT_SEED_OFFSET if g >= games else 0)
        seats = seating(imitation, run, heuristics, learner, number)
        game = play_labelled_game(imitation, run, seats, seed)
        (parts if g < games else held).append(game)
    if progress is not None:
        progress.update(total)
        progress.finish()
    return Decisions.join(parts), Decisions.join(held)


def fit_lineup_round(
    model: Any,
    imitation: ImitationFields,
    seed: int,
    batch_size: int,
    rounds: list[tuple[Decisions, Decisions]],
) -> dict[str, Any]:
    """Fine-tune on the last round's data plus a replay sample of the earlier rounds', epoch by
    epoch until the held-out NLL stops falling (`bc_patience`), keeping the best epoch's
    weights; the statistics of every epoch (training NLL, held-out NLL and agreement)."""
    new, heldout = rounds[-1]
    rng = np.random.default_rng([seed, len(rounds)])
    data = new
    if len(rounds) > 1 and imitation.bc_replay > 0:
        old = Decisions.join([train for train, _ in rounds[:-1]])
        size = min(len(old.actions), round(imitation.bc_replay * len(new.actions)))
        data = Decisions.join([new, old.take(rng.choice(len(old.actions), size, replace=False))])
    stats: dict[str, Any] = {
        "samples": len(data.actions),
        "replayed": len(data.actions) - len(new.actions),
    }
    best = held_out_fit(model, heldout)
    stats["epoch_start"] = best
    weights = kind_weights(data.kinds, imitation.bc_kind_weights)

    def one_epoch(epoch: int) -> tuple[dict[str, Any], dict[str, Any]]:
        train_nll, _ = clone_epoch(model.policy, data, batch_size, rng, weights)
        fit = held_out_fit(model, heldout)
        print(
            f"imitation round {len(rounds) - 1} epoch {epoch}: train nll {train_nll:.3f}, held-out "
            f"nll {fit['nll']:.3f}, agreement {fit['agreement']:.1%}"
        )
        return {"train_nll": train_nll}, fit

    return train_with_early_stopping(
        model.policy, imitation.bc_epochs, imitation.bc_patience, best, "nll", one_epoch, stats
    )
