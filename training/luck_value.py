"""Train the value model of luck-adjusted benchmarks (dune_env/harness/play/luck.py).

    python -m training.luck_value --games 3000 --out dune_env/harness/data/luck_value.npz

1. **Data**: `--games` games of the built-in heuristics (and their 20%-random copies, and
   `random`) at 3-6 players, line-ups drawn at random, played by the harness's own loop
   (`dune_env.match`).  After every roll, with probability `--keep`, each seat's observation
   is kept, labelled with whether that seat went on to win and to win by control
   (`harness.stats.scores.is_control_win`).  Games are split into training and held-out sets
   by game.
2. **Model**: an MLP (`--hidden`, ReLU) with two sigmoid outputs, binary cross-entropy, Adam,
   the epoch with the best held-out loss kept.
3. **Report**: held-out log-loss and Brier score against the base rate, and the fraction of the
   outcome variance explained; stored in the model file's `info` with the command.

The model only needs to be good, not right: a poor model removes less variance but cannot
bias a luck-adjusted comparison (luck.py explains why).
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from dune_env.engine import Game
from dune_env.game_log import roll_key, rolled
from dune_env.harness.play.luck import LUCK_METRICS, VALUE_FILE, ValueModel
from dune_env.harness.play.types import seat_rows
from dune_env.harness.stats.scores import is_control_win
from dune_env.match import GameSpec, final_outcome, play_seated, seat_spec

POLICY_MIX = (
    "strategist",
    "economic",
    "aggressive",
    "strategist",
    "aggressive-eps20",
    "economic-eps20",
    "random",
)
PLAYER_COUNTS = (3, 4, 5, 6)


@dataclass
class LuckValueConfig:
    """How the value model is trained."""

    games: int = 40_000
    """Games played to collect positions.  Outcomes are per game, so positions of one game
    are strongly correlated: many games with few positions each generalise far better than
    few games with many (3,000 games x 0.15 over-fitted after 2 epochs)."""
    keep: float = 0.025
    """Probability that the position after a roll is kept (all seats of it)."""
    hidden: tuple[int, ...] = (128, 64)
    """Hidden layer sizes."""
    epochs: int = 8
    """Passes over the training positions; the best held-out epoch is kept."""
    batch: int = 1024
    """Positions per gradient step."""
    learning_rate: float = 1e-3
    """Adam's step size."""
    weight_decay: float = 1e-4
    """AdamW's decoupled weight decay."""
    held_out: float = 0.15
    """Share of games whose positions are held out."""
    seed: int = 0
    """Seeds the line-ups, the games and the network."""


class _Recorder:
    """A `match.play` step that keeps the observations after some rolls."""

    def __init__(self, model: ValueModel, keep: float, rng: np.random.Generator) -> None:
        self.model, self.keep, self.rng = model, keep, rng
        self.rows: list[np.ndarray] = []

    def apply(self, game: Game, option: object) -> None:
        before = roll_key(game.state)
        game.apply(option)
        if rolled(before, game.state) and self.rng.random() < self.keep:
            self.rows.append(self.model.observations(game.state))


def collect(cfg: LuckValueConfig, model: ValueModel) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(observations, labels (win, control), game index) of the kept positions."""
    rng = np.random.default_rng(cfg.seed)
    obs, labels, games = [], [], []
    start = time.perf_counter()
    for g in range(cfg.games):
        n = int(rng.choice(PLAYER_COUNTS))
        seats = tuple(str(rng.choice(POLICY_MIX)) for _ in range(n))
        factions = tuple(int(f) for f in rng.permutation(_factions(n))[:n])
        spec = GameSpec(g, int(rng.integers(1 << 62)), n, seats, factions)
        game, policies = seat_spec(spec)
        recorder = _Recorder(model, cfg.keep, rng)
        play_seated(spec, game, policies, step=recorder.apply)
        rows = seat_rows(spec, final_outcome(game))
        y = np.array([[r.won, is_control_win(r)] for r in rows], np.float32)
        for position in recorder.rows:
            obs.append(position)
            labels.append(y)
            games.extend([g] * n)
        if (g + 1) % 5000 == 0:
            print(f"  {g + 1} games, {len(games)} rows, {time.perf_counter() - start:.0f} s")
    return np.concatenate(obs), np.concatenate(labels), np.asarray(games)


def _factions(n: int) -> list[int]:
    from dune_env.engine.constants import available_factions

    return list(available_factions(n))


def fit(cfg: LuckValueConfig, x: np.ndarray, y: np.ndarray, held: np.ndarray) -> ValueModel:
    """Train the MLP; the weights of the epoch with the best held-out log-loss."""
    import torch

    torch.manual_seed(cfg.seed)
    sizes = [x.shape[1], *cfg.hidden, len(LUCK_METRICS)]
    layers: list[Any] = []
    for i in range(len(sizes) - 1):
        layers += [torch.nn.Linear(sizes[i], sizes[i + 1]), torch.nn.ReLU()]
    net = torch.nn.Sequential(*layers[:-1])
    opt = torch.optim.AdamW(net.parameters(), lr=cfg.learning_rate, weight_decay=cfg.weight_decay)
    xt, yt = torch.from_numpy(x[~held]), torch.from_numpy(y[~held])
    xv, yv = torch.from_numpy(x[held]), torch.from_numpy(y[held])
    loss_fn = torch.nn.BCEWithLogitsLoss()
    best, best_state = float("inf"), None
    for epoch in range(cfg.epochs):
        order = torch.randperm(len(xt))
        for i in range(0, len(order), cfg.batch):
            batch = order[i : i + cfg.batch]
            opt.zero_grad()
            loss_fn(net(xt[batch]), yt[batch]).backward()
            opt.step()
        with torch.no_grad():
            val = float(loss_fn(net(xv), yv))
        print(f"  epoch {epoch + 1}: held-out log-loss {val:.4f}")
        if val < best:
            best, best_state = val, [p.detach().numpy().copy() for p in net.parameters()]
    assert best_state is not None
    pairs = [(best_state[i].T, best_state[i + 1]) for i in range(0, len(best_state), 2)]
    return ValueModel(pairs, {})


def quality(model: ValueModel, x: np.ndarray, y: np.ndarray) -> dict[str, float]:
    """Held-out log-loss, Brier score and variance explained, per metric."""
    p = np.clip(model(x), 1e-6, 1 - 1e-6)
    out: dict[str, float] = {}
    for j, name in enumerate(LUCK_METRICS):
        base = float(y[:, j].mean())
        brier = float(np.mean((p[:, j] - y[:, j]) ** 2))
        out[f"{name}_base_rate"] = base
        out[f"{name}_log_loss"] = float(
            -np.mean(y[:, j] * np.log(p[:, j]) + (1 - y[:, j]) * np.log(1 - p[:, j]))
        )
        out[f"{name}_brier"] = brier
        out[f"{name}_variance_explained"] = 1.0 - brier / max(base * (1 - base), 1e-12)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=LuckValueConfig.games)
    parser.add_argument("--keep", type=float, default=LuckValueConfig.keep)
    parser.add_argument("--epochs", type=int, default=LuckValueConfig.epochs)
    parser.add_argument("--seed", type=int, default=LuckValueConfig.seed)
    parser.add_argument("--out", default=str(VALUE_FILE))
    args = parser.parse_args(argv)
    cfg = LuckValueConfig(games=args.games, keep=args.keep, epochs=args.epochs, seed=args.seed)
    from dune_env.environment.fields import OBS_SIZE

    probe = ValueModel([(np.zeros((OBS_SIZE, 2)), np.zeros(2))], {})
    start = time.perf_counter()
    x, y, games = collect(cfg, probe)
    collected = time.perf_counter() - start
    held = (games % 100) < cfg.held_out * 100
    print(f"{len(x)} rows from {cfg.games} games in {collected:.0f} s; training")
    model = fit(cfg, x, y, held)
    given = sys.argv[1:] if argv is None else argv
    model.info = {
        "command": "python -m training.luck_value " + " ".join(given),
        "config": {k: getattr(cfg, k) for k in cfg.__dataclass_fields__},
        "rows": int(len(x)),
        "held_out_rows": int(held.sum()),
        "held_out": quality(model, x[held], y[held]),
        "seconds": time.perf_counter() - start,
    }
    model.save(args.out)
    for key, value in model.info["held_out"].items():
        print(f"  held-out {key}: {value:.4f}")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
