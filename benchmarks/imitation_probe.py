"""Can a bigger net, or a factorised dice head, copy the strategist better? (issue 23, diagnostic b)

    python benchmarks/imitation_probe.py --games 300 --epochs 8 --model-seconds 420 \
        --out runs/imitation_probe.json

Seeded 4-player `dune_v1` games in which the `strategist` plays every seat are recorded: every
decision with at least two legal actions gives (observation, action mask, the strategist's action
id, decision kind); 300 games give about 96k decisions in a few seconds with the compiled build.
The games are split by game (the last `--held-out` share is held out) and three policies are
fitted by masked cross-entropy with the same optimiser (Adam, `--lr`), batch and epochs
(optionally time-boxed per model by `--model-seconds`), keeping the epoch with the lowest
held-out NLL (early stop after `--patience` epochs without improvement):

  baseline  MLP 2x256 tanh (the shipped bc-4p's policy net)
  bigger    MLP 3x512 ReLU with LayerNorm
  factored  `bigger` with a factorised FIX_DICE head: the logit of a subset of dice is the sum of
            one logit per die in it (7 per decision, from the trunk) plus the plain head's logit
            of that subset (a joint residual)

Printed: the data's size, then per model its training time, held-out NLL and greedy agreement
(overall and per decision kind, the kinds with the most held-out decisions first), and the share
of its held-out errors each kind holds.  `--out` writes the same figures as JSON.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from dune_env.engine.decision_spec import DecisionKind  # noqa: E402
from dune_env.engine.decisions import OPTION_COUNTS  # noqa: E402
from dune_env.engine.options import NUM_DICE  # noqa: E402
from dune_env.environment.action_table import ACTION_KIND, KIND_OFFSET, NUM_ACTIONS  # noqa: E402

MODELS = ("baseline", "bigger", "factored")


def collect(games: int, seed: int) -> dict[str, np.ndarray]:
    """Every decision with a choice of `games` strategist-only 4-player games: observations,
    masks, the strategist's action ids, their decision kinds, and each decision's game index."""
    from dune_env import dune_v1
    from dune_env.policies.registry import load_policy

    env = dune_v1.raw_env(num_players=4)
    policies = [load_policy("strategist", seed=seed * 100 + s) for s in range(4)]
    obs: list[np.ndarray] = []
    masks: list[np.ndarray] = []
    actions: list[int] = []
    game_of: list[int] = []
    for g in range(games):
        env.reset(seed=seed * 1_000_003 + g)
        for agent in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            # The teacher acts at every decision (it may keep state), recorded only with a choice.
            action = env.policy_action(policies[env.agent_name_mapping[agent]])
            mask = observation["action_mask"].astype(bool)
            if mask.sum() >= 2:
                obs.append(observation["observation"])
                masks.append(mask)
                actions.append(action)
                game_of.append(g)
            env.step(action)
    action_ids = np.asarray(actions, np.int64)
    return {
        "obs": np.asarray(obs, np.float32),
        "mask": np.asarray(masks, bool),
        "action": action_ids,
        "kind": ACTION_KIND[action_ids],
        "game": np.asarray(game_of, np.int64),
    }


def build_model(name: str, obs_size: int) -> Any:
    """One of MODELS, for observations of `obs_size` entries."""
    import torch
    from torch import nn

    def relu_ln(width: int, depth: int) -> nn.Sequential:
        layers: list[nn.Module] = []
        size = obs_size
        for _ in range(depth):
            layers += [nn.Linear(size, width), nn.LayerNorm(width), nn.ReLU()]
            size = width
        return nn.Sequential(*layers)

    class Policy(nn.Module):
        """A trunk, a linear head over the whole action table, and optionally the factorised
        FIX_DICE head (per-die logits summed over each subset, plus the plain head's logit)."""

        def __init__(self, trunk: nn.Module, width: int, factored: bool) -> None:
            super().__init__()
            self.trunk = trunk
            self.head = nn.Linear(width, NUM_ACTIONS)
            self.dice = nn.Linear(width, NUM_DICE) if factored else None
            start = KIND_OFFSET[DecisionKind.FIX_DICE]
            count = OPTION_COUNTS[DecisionKind.FIX_DICE]
            self.dice_block = slice(start, start + count)
            # option = the subset's bit mask of dice (engine.options.fix_dice)
            subsets = [[(option >> d) & 1 for d in range(NUM_DICE)] for option in range(count)]
            self.register_buffer("subsets", torch.tensor(subsets, dtype=torch.float32))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            h = self.trunk(x)
            logits = self.head(h)
            if self.dice is None:
                return logits
            per_die = self.dice(h) @ self.subsets.T  # (batch, 128): sum over each subset
            block = logits[:, self.dice_block] + per_die
            s = self.dice_block
            return torch.cat([logits[:, : s.start], block, logits[:, s.stop :]], dim=1)

    if name == "baseline":
        trunk = nn.Sequential(nn.Linear(obs_size, 256), nn.Tanh(), nn.Linear(256, 256), nn.Tanh())
        return Policy(trunk, 256, factored=False)
    return Policy(relu_ln(512, 3), 512, factored=name == "factored")


def masked_logits(model: Any, obs: Any, mask: Any) -> Any:
    """The model's logits with the illegal actions' set to -inf (masked softmax)."""
    return model(obs).masked_fill(~mask, float("-inf"))


def evaluate(model: Any, data: dict, batch: int) -> dict:
    """Held-out NLL and the greedy choices."""
    import torch
    import torch.nn.functional as F

    model.eval()
    nll = 0.0
    chosen = []
    with torch.no_grad():
        for start in range(0, len(data["action"]), batch):
            part = slice(start, start + batch)
            logits = masked_logits(model, data["obs"][part], data["mask"][part])
            nll += float(F.cross_entropy(logits, data["action"][part], reduction="sum"))
            chosen.append(logits.argmax(dim=1))
    model.train()
    return {"nll": nll / len(data["action"]), "chosen": torch.cat(chosen).numpy()}


def fit(name: str, train: dict, held: dict, args: argparse.Namespace) -> dict:
    import torch
    import torch.nn.functional as F

    torch.manual_seed(args.seed)
    model = build_model(name, train["obs"].shape[1])
    optimiser = torch.optim.Adam(model.parameters(), lr=args.lr)
    generator = torch.Generator().manual_seed(args.seed)
    n = len(train["action"])
    best: dict = {"nll": float("inf")}
    history = []
    start = time.perf_counter()
    for epoch in range(args.epochs):
        order = torch.randperm(n, generator=generator)
        total = 0.0
        for first in range(0, n, args.batch):
            idx = order[first : first + args.batch]
            logits = masked_logits(model, train["obs"][idx], train["mask"][idx])
            loss = F.cross_entropy(logits, train["action"][idx])
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            total += float(loss.detach()) * len(idx)
        result = evaluate(model, held, args.batch)
        history.append({"epoch": epoch + 1, "train_nll": total / n, "held_nll": result["nll"]})
        print(
            f"  {name} epoch {epoch + 1}: train NLL {total / n:.4f}, held-out NLL "
            f"{result['nll']:.4f} ({time.perf_counter() - start:.0f} s)",
            flush=True,
        )
        if result["nll"] < best["nll"]:
            best = {**result, "epoch": epoch + 1}
        elif epoch + 1 - best["epoch"] >= args.patience:
            break
        if args.model_seconds and time.perf_counter() - start > args.model_seconds:
            break  # the time box: the same for every model, so say so with the figures
    return {**best, "seconds": time.perf_counter() - start, "history": history}


def summarise(result: dict, held: dict) -> dict:
    """Agreement overall and per kind, and each kind's share of the errors."""
    right = result["chosen"] == held["action"]
    errors = max(1, int((~right).sum()))
    kinds = {}
    for kind in np.unique(held["kind"]):
        rows = held["kind"] == kind
        kinds[DecisionKind(int(kind)).name] = {
            "decisions": int(rows.sum()),
            "agreement": float(right[rows].mean()),
            "error_share": float((~right[rows]).sum() / errors),
        }
    return {
        "seconds": result["seconds"],
        "best_epoch": result["epoch"],
        "held_nll": result["nll"],
        "agreement": float(right.mean()),
        "kinds": kinds,
        "history": result["history"],
    }


def print_table(summaries: dict[str, dict], top: int) -> None:
    names = list(summaries)
    first = summaries[names[0]]["kinds"]
    kinds = sorted(first, key=lambda k: -first[k]["decisions"])[:top]
    print(f"\n{'':22}" + "".join(f"{n:>20}" for n in names))
    for label, key, fmt in (
        ("training time (s)", "seconds", "{:.0f}"),
        ("best epoch", "best_epoch", "{}"),
        ("held-out NLL", "held_nll", "{:.4f}"),
        ("agreement", "agreement", "{:.2%}"),
    ):
        print(f"{label:22}" + "".join(f"{fmt.format(summaries[n][key]):>20}" for n in names))
    print("agreement by kind (share of errors):")
    for kind in kinds:
        cells = []
        for n in names:
            k = summaries[n]["kinds"][kind]
            cells.append(f"{k['agreement']:.1%} ({k['error_share']:.1%})")
        label = f"  {kind} [{first[kind]['decisions']}]"
        print(f"{label:22}" + "".join(f"{c:>20}" for c in cells))


def tensors(data: dict[str, np.ndarray], rows: np.ndarray) -> dict:
    """The rows' observations, masks and action ids as torch tensors."""
    import torch

    return {key: torch.from_numpy(data[key][rows]) for key in ("obs", "mask", "action")}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000, help="strategist-only 4-player games")
    parser.add_argument("--held-out", type=float, default=0.1, help="share of the games held out")
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--patience", type=int, default=2)
    parser.add_argument(
        "--model-seconds", type=float, help="stop a model's training after the epoch past this"
    )
    parser.add_argument("--batch", type=int, default=1024)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--models", nargs="+", choices=MODELS, default=list(MODELS))
    parser.add_argument("--top-kinds", type=int, default=10)
    parser.add_argument("--out", type=Path, help="write the figures as JSON here")
    args = parser.parse_args(argv)

    import torch

    torch.set_num_threads(2)
    start = time.perf_counter()
    data = collect(args.games, args.seed)
    collect_seconds = time.perf_counter() - start
    held_games = max(1, round(args.games * args.held_out))
    is_held = data["game"] >= args.games - held_games
    print(
        f"{len(data['action'])} decisions with a choice from {args.games} games "
        f"({collect_seconds:.0f} s); {int(is_held.sum())} held out ({held_games} games)",
        flush=True,
    )

    train = tensors(data, ~is_held)
    held = tensors(data, is_held)
    held_np = {"action": data["action"][is_held], "kind": data["kind"][is_held]}
    del data
    summaries = {name: summarise(fit(name, train, held, args), held_np) for name in args.models}
    print_table(summaries, args.top_kinds)
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        report = {
            "settings": {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()},
            "decisions": {"train": len(train["action"]), "held_out": len(held_np["action"])},
            "collect_seconds": collect_seconds,
            "models": summaries,
        }
        args.out.write_text(json.dumps(report, indent=2) + "\n")
        print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
