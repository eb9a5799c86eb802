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
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from training.checkpoints import ResumeError

if TYPE_CHECKING:
    from training.ppo_selfplay import PPOSelfPlayConfig


def collect_demonstrations(
    cfg: PPOSelfPlayConfig, learner: Any = None, first_game: int = 0, progress: Any = None
) -> tuple[np.ndarray, ...]:
    """(observations, masks, actions, returns) of every decision of `bc_games` games in which
    `bc_policy` plays every seat; the return is the deciding seat's final reward.  With a
    `learner` model (DAgger), the learner's action is played but the demonstrator's recorded."""
    from dune_env import dune_v1
    from dune_env.policies.registry import load_policy

    env = dune_v1.raw_env(num_players=cfg.num_players)
    policies = [
        load_policy(cfg.bc_policy, seed=cfg.seed * 100 + s, trust=cfg.trust_checkpoints)
        for s in range(8)
    ]
    obs: list[np.ndarray] = []
    masks: list[np.ndarray] = []
    actions: list[int] = []
    returns: list[float] = []
    for g in range(first_game, first_game + cfg.bc_games):
        if progress is not None:
            progress.update(g - first_game)
        env.reset(seed=cfg.seed * 1_000_003 + g)
        seats: list[int] = []
        final = [0.0] * cfg.num_players
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
            seats.append(seat)
            if learner is not None:
                chosen, _ = learner.predict(
                    observation["observation"], action_masks=mask, deterministic=True
                )
                action = int(chosen)
            env.step(action)
        returns.extend(final[s] for s in seats)
    if progress is not None:
        progress.update(cfg.bc_games)
        progress.finish()
    return (
        np.asarray(obs, np.float32),
        np.asarray(masks),
        np.asarray(actions, np.int64),
        np.asarray(returns, np.float32),
    )


def behaviour_clone(
    model: Any, cfg: PPOSelfPlayConfig, rounds_dir: Path | None = None, progress: Any = None
) -> dict[str, Any]:
    """Fit the policy to the demonstrations (masked cross-entropy) and the value head to the
    demonstrators' final rewards, with the model's own optimiser: round 0 on the demonstrator's
    games, then `bc_dagger_rounds` DAgger rounds on all the data so far.

    With `rounds_dir`, each fitted round is saved there (weights, optimiser state, statistics)
    and a rerun resumes after the last saved round: the earlier rounds' games are played again
    (their data is a function of the seeds and of the saved models, cheaper to regenerate than
    to store) but not fitted again, so an interrupted run ends with the same weights as one that
    was not interrupted.  `progress` (a training.progress.Progress) shows the games played."""
    total = cfg.bc_dagger_rounds + 1
    if rounds_dir is not None:
        _check_bc_settings(cfg, rounds_dir)
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
            lineup = cfg.bc_setting == "lineup"
            progress.start(
                f"behaviour cloning round {round_ + 1}/{total}: games of {who}{cfg.bc_policy}",
                cfg.bc_games + (cfg.bc_heldout_games if lineup else 0),
                "games",
            )
        data.append(_collect_round(cfg, learner, round_, progress))
        if round_ < fitted:
            assert rounds_dir is not None
            _load_bc_round(model, rounds_dir, round_, stats)
            print(f"behaviour cloning round {round_}: fitted in an earlier session, loaded")
            continue
        fit = _fit_round(model, cfg, data)
        round_stats = {f"round{round_}_{k}": v for k, v in fit.items()}
        stats.update(round_stats)
        if rounds_dir is not None:
            _save_bc_round(model, rounds_dir, round_, round_stats)
    return stats


def _collect_round(cfg: PPOSelfPlayConfig, learner: Any, round_: int, progress: Any) -> Any:
    """The data of imitation round `round_` in the configured `bc_setting`."""
    if cfg.bc_setting == "lineup":
        from training.dagger import collect_lineup

        return collect_lineup(cfg, learner, round_, progress)
    return collect_demonstrations(cfg, learner, first_game=round_ * cfg.bc_games, progress=progress)


def _fit_round(model: Any, cfg: PPOSelfPlayConfig, data: list[Any]) -> dict[str, Any]:
    """selfplay: refit all the data so far; lineup: fine-tune (`training.dagger`)."""
    if cfg.bc_setting == "lineup":
        from training.dagger import fit_lineup_round

        return fit_lineup_round(model, cfg, data)
    obs, masks, actions, returns = (np.concatenate(parts) for parts in zip(*data, strict=True))
    return _fit(model, cfg, obs, masks, actions, returns)


# What the saved imitation rounds depend on (bc_dagger_rounds may change: rounds are added).
BC_FIXED_ON_RESUME = (
    "num_players",
    "seed",
    "bc_policy",
    "bc_games",
    "bc_epochs",
    "batch_size",
    "learning_rate",
    "net_arch",
    "bc_setting",
)
# ... and, with bc_setting lineup, on these.
LINEUP_FIXED_ON_RESUME = (
    "heuristic_opponents",
    "bc_learner_seats",
    "bc_heldout_games",
    "bc_patience",
    "bc_replay",
    "bc_kind_weights",
)
_BEFORE_THE_SETTING = {"bc_setting": "selfplay"}  # rounds saved before bc_setting existed


def _check_bc_settings(cfg: PPOSelfPlayConfig, rounds_dir: Path) -> None:
    """Record the settings of the saved rounds, or refuse to continue them with others."""
    keys = BC_FIXED_ON_RESUME + (LINEUP_FIXED_ON_RESUME if cfg.bc_setting == "lineup" else ())
    now = json.loads(json.dumps({k: getattr(cfg, k) for k in keys}))
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


def _fit(
    model: Any,
    cfg: PPOSelfPlayConfig,
    obs: np.ndarray,
    masks: np.ndarray,
    actions: np.ndarray,
    returns: np.ndarray,
) -> dict[str, float]:
    import torch

    policy = model.policy
    rng = np.random.default_rng(cfg.seed)
    n = len(actions)
    stats: dict[str, float] = {"bc_samples": float(n)}
    for epoch in range(cfg.bc_epochs):
        order = rng.permutation(n)
        total_nll = total_mse = 0.0
        for start in range(0, n, cfg.batch_size):
            idx = order[start : start + cfg.batch_size]
            o = torch.as_tensor(obs[idx])
            a = torch.as_tensor(actions[idx])
            values, log_prob, _ = policy.evaluate_actions(o, a, action_masks=masks[idx])
            nll = -log_prob.mean()
            mse = torch.nn.functional.mse_loss(values.flatten(), torch.as_tensor(returns[idx]))
            loss = nll + 0.5 * mse
            policy.optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 0.5)
            policy.optimizer.step()
            total_nll += nll.item() * len(idx)
            total_mse += mse.item() * len(idx)
        stats[f"bc_nll_epoch{epoch}"] = total_nll / n
        stats[f"bc_value_mse_epoch{epoch}"] = total_mse / n
        print(f"behaviour cloning epoch {epoch}: nll {total_nll / n:.3f} mse {total_mse / n:.3f}")
    return stats
