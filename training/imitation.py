"""Behaviour-cloning warm start of the self-play recipe (`training.ppo_selfplay`).

`bc_games` games of `bc_policy` playing every seat are imitated (masked cross-entropy for the
policy, regression on the final rewards for the value head), then `bc_dagger_rounds` DAgger
rounds: games played by the cloned policy, every decision labelled with the demonstrator's
choice.  With `bc_setting: lineup` the games are the benchmark's instead, with a held-out set,
early stopping and fine-tuning across rounds (`training/dagger.py`).  Each fitted round is
saved under the run's `behaviour_cloning_rounds/`, so a rerun resumes after the last saved
round.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from training.checkpoints import ResumeError
from training.cloning import Decisions, clone_epoch
from training.dagger import collect_lineup, fit_lineup_round
from training.fields import ImitationFields, PPOFields, RunFields


@dataclass(frozen=True)
class Imitation:
    """What the imitation reads: its own group, the run's (seed, players, trust), the update's
    (minibatch size; the learning rate and network the saved rounds were made with) and the
    line-up's heuristics (`bc_setting: lineup`)."""

    fields: ImitationFields
    run: RunFields
    ppo: PPOFields
    heuristics: tuple[str, ...]

    def settings(self) -> dict[str, Any]:
        """What the saved rounds depend on (`bc_dagger_rounds` may change: rounds are added)."""
        im = self.fields
        settings = {
            "num_players": self.run.num_players,
            "seed": self.run.seed,
            "bc_policy": im.bc_policy,
            "bc_games": im.bc_games,
            "bc_epochs": im.bc_epochs,
            "batch_size": self.ppo.batch_size,
            "learning_rate": self.ppo.learning_rate,
            "net_arch": self.ppo.net_arch,
            "bc_setting": im.bc_setting,
        }
        if im.bc_setting == "lineup":
            settings |= {
                "heuristic_opponents": self.heuristics,
                "bc_learner_seats": im.bc_learner_seats,
                "bc_heldout_games": im.bc_heldout_games,
                "bc_patience": im.bc_patience,
                "bc_replay": im.bc_replay,
                "bc_kind_weights": im.bc_kind_weights,
            }
        return settings


def collect_demonstrations(
    imitation: ImitationFields,
    run: RunFields,
    learner: Any = None,
    first_game: int = 0,
    progress: Any = None,
) -> Decisions:
    """Every decision of `bc_games` games in which `bc_policy` plays every seat; the return is
    the deciding seat's final reward.  With a `learner` model (DAgger), the learner's action is
    played but the demonstrator's recorded."""
    from dune_env import dune_v1
    from dune_env.policies.registry import load_policy

    env = dune_v1.raw_env(num_players=run.num_players)
    policies = [
        load_policy(imitation.bc_policy, seed=run.seed * 100 + s, trust=run.trust_checkpoints)
        for s in range(8)
    ]
    obs: list[np.ndarray] = []
    masks: list[np.ndarray] = []
    actions: list[int] = []
    returns: list[float] = []
    kinds: list[int] = []
    for g in range(first_game, first_game + imitation.bc_games):
        if progress is not None:
            progress.update(g - first_game)
        env.reset(seed=run.seed * 1_000_003 + g)
        seats: list[int] = []
        final = [0.0] * run.num_players
        for agent in env.agent_iter():
            observation, reward, terminated, truncated, _ = env.last()
            seat = env.agent_name_mapping[agent]
            if terminated or truncated:
                final[seat] = float(reward)  # the game's reward of this seat
                env.step(None)
                continue
            mask = observation["action_mask"].astype(bool)
            action = env.policy_action(policies[seat])  # the demonstrator's choice
            obs.append(observation["observation"])
            masks.append(mask)
            actions.append(action)
            kinds.append(int(env.unwrapped.game.state.pending_kind))
            seats.append(seat)
            if learner is not None:
                chosen, _ = learner.predict(
                    observation["observation"], action_masks=mask, deterministic=True
                )
                action = int(chosen)
            env.step(action)
        returns.extend(final[s] for s in seats)
    if progress is not None:
        progress.update(imitation.bc_games)
        progress.finish()
    return Decisions(
        np.asarray(obs, np.float32),
        np.asarray(masks),
        np.asarray(actions, np.int64),
        np.asarray(returns, np.float32),
        np.asarray(kinds, np.int64),
    )


def behaviour_clone(
    model: Any, imitation: Imitation, rounds_dir: Path | None = None, progress: Any = None
) -> dict[str, Any]:
    """Fit the policy to the demonstrations (masked cross-entropy) and the value head to the
    demonstrators' final rewards, with the model's own optimiser: round 0 on the demonstrator's
    games, then `bc_dagger_rounds` DAgger rounds on all the data so far.

    With `rounds_dir`, each fitted round is saved there (weights, optimiser state, statistics)
    and a rerun resumes after the last saved round: the earlier rounds' games are played again
    (their data is a function of the seeds and of the saved models, cheaper to regenerate than
    to store) but not fitted again, so an interrupted run ends with the same weights as one that
    was not interrupted.  `progress` (a training.progress.Progress) shows the games played."""
    im = imitation.fields
    total = im.bc_dagger_rounds + 1
    if rounds_dir is not None:
        _check_bc_settings(imitation, rounds_dir)
    fitted = 0
    while rounds_dir is not None and fitted < total and _bc_round_path(rounds_dir, fitted).exists():
        fitted += 1
    stats: dict[str, Any] = {}
    if rounds_dir is not None and fitted == total:  # all done: no game to play again
        return _load_bc_round(model, rounds_dir, total - 1, stats)
    data: list[Any] = []
    for round_ in range(total):
        # Round r's games are played by the model as round r - 1 left it (DAgger).
        learner = model if round_ else None
        if progress is not None:
            who = "the model, labelled by " if learner is not None else ""
            lineup = im.bc_setting == "lineup"
            progress.start(
                f"behaviour cloning round {round_ + 1}/{total}: games of {who}{im.bc_policy}",
                im.bc_games + (im.bc_heldout_games if lineup else 0),
                "games",
            )
        data.append(_collect_round(imitation, learner, round_, progress))
        if round_ < fitted:
            assert rounds_dir is not None
            _load_bc_round(model, rounds_dir, round_, stats)
            print(f"behaviour cloning round {round_}: fitted in an earlier session, loaded")
            continue
        fit = _fit_round(model, imitation, data)
        round_stats = {f"round{round_}_{k}": v for k, v in fit.items()}
        stats.update(round_stats)
        if rounds_dir is not None:
            _save_bc_round(model, rounds_dir, round_, round_stats)
    return stats


def _collect_round(imitation: Imitation, learner: Any, round_: int, progress: Any) -> Any:
    """The data of imitation round `round_` in the configured `bc_setting`."""
    im, run = imitation.fields, imitation.run
    if im.bc_setting == "lineup":
        return collect_lineup(im, run, imitation.heuristics, learner, round_, progress)
    first = round_ * im.bc_games
    return collect_demonstrations(im, run, learner, first_game=first, progress=progress)


def _fit_round(model: Any, imitation: Imitation, data: list[Any]) -> dict[str, Any]:
    """selfplay: refit all the data so far; lineup: fine-tune (`training.dagger`)."""
    im, seed = imitation.fields, imitation.run.seed
    if im.bc_setting == "lineup":
        return fit_lineup_round(model, im, seed, imitation.ppo.batch_size, data)
    return _fit(model, im.bc_epochs, seed, imitation.ppo.batch_size, Decisions.join(data))


_BEFORE_THE_SETTING = {"bc_setting": "selfplay"}  # rounds saved before bc_setting existed


def _check_bc_settings(imitation: Imitation, rounds_dir: Path) -> None:
    """Record the settings of the saved rounds, or refuse to continue them with others."""
    now = json.loads(json.dumps(imitation.settings()))
    keys = list(now)
    path = rounds_dir / "settings.json"
    if path.is_file():
        before = json.loads(path.read_text())
        changed = [k for k in keys if before.get(k, _BEFORE_THE_SETTING.get(k)) != now[k]]
        if changed:
            raise ResumeError(
                f"{rounds_dir} holds behaviour-cloning rounds made with other "
                f"{', '.join(f'{k}={before.get(k)!r}' for k in changed)}; use the same settings, "
                "another --config-name or --seed, or --resume false"
            )
        return
    from dune_env.policies.weights import atomic_write_bytes

    atomic_write_bytes(path, json.dumps(now, indent=2).encode())


def _bc_round_path(rounds_dir: Path, round_: int) -> Path:
    return rounds_dir / f"round{round_}.pt"


def _save_bc_round(model: Any, rounds_dir: Path, round_: int, stats: dict[str, Any]) -> None:
    """The policy's weights and its optimiser's state after `round_` (tensors only, read back
    with `weights_only=True`), then its statistics; each file written atomically."""
    import io

    import torch

    from dune_env.policies.weights import atomic_write_bytes

    rounds_dir.mkdir(parents=True, exist_ok=True)
    state = {"policy": model.policy.state_dict(), "optimizer": model.policy.optimizer.state_dict()}
    buffer = io.BytesIO()
    torch.save(state, buffer)
    atomic_write_bytes(rounds_dir / f"round{round_}.json", json.dumps(stats, indent=2).encode())
    atomic_write_bytes(_bc_round_path(rounds_dir, round_), buffer.getvalue())


def _load_bc_round(
    model: Any, rounds_dir: Path, round_: int, stats: dict[str, Any]
) -> dict[str, Any]:
    """Restore the model as `round_` left it; add that round's statistics to `stats`."""
    import torch

    path = _bc_round_path(rounds_dir, round_)
    state = torch.load(path, map_location=model.device, weights_only=True)
    model.policy.load_state_dict(state["policy"])
    model.policy.optimizer.load_state_dict(state["optimizer"])
    stats.update(json.loads((rounds_dir / f"round{round_}.json").read_text()))
    return stats


def _fit(model: Any, epochs: int, seed: int, batch_size: int, data: Decisions) -> dict[str, float]:
    """Refit all the data: `epochs` passes of the cloning loss (`training.cloning`)."""
    rng = np.random.default_rng(seed)
    stats: dict[str, float] = {"bc_samples": float(len(data.actions))}
    for epoch in range(epochs):
        nll, mse = clone_epoch(model.policy, data, batch_size, rng)
        stats[f"bc_nll_epoch{epoch}"] = nll
        stats[f"bc_value_mse_epoch{epoch}"] = mse
        print(f"behaviour cloning epoch {epoch}: nll {nll:.3f} mse {mse:.3f}")
    return stats
