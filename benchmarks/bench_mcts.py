"""MCTS search speed: iterations/s and ms per searched decision at a fixed budget, on a fixed
set of seeded positions, with the option each search chose.

    python benchmarks/bench_mcts.py [--positions 24] [--iterations 24] [--players 4]
    python benchmarks/bench_mcts.py --compare-ref 37f149c   # old mcts.py on today's engine
    git worktree add /tmp/base 37f149c
    python benchmarks/bench_mcts.py --compare-tree /tmp/base --rounds 3   # whole old package
    python benchmarks/bench_mcts.py --policy mcts-strategist-16 \
        --play strategist economic strategist aggressive --compare-tree /tmp/base

Positions: 4-player games (seeds 0, 1, ...) played by `--play` (default `aggressive` in every
seat; the list is repeated over the seats); every `--stride`-th decision that MCTS would
search (a searched kind with more than one candidate) is kept until `--positions` are
collected.  Each position is searched once by a fresh `MCTSPolicy(seed=position index,
iterations=N, **options)` for the seat to move, or with `--policy NAME` by the registered
MCTS policy NAME (e.g. `mcts-strategist-16`, its own budget and options) seeded with the
position index.  `--ref-option` gives the options of the reference (`--compare-ref`,
`--compare-tree`) when they differ from the current ones.  Printed: iterations/s,
ms per searched decision, and the chosen options (with a digest), so two implementations can be
checked for the same decisions.  Times are the searching process's CPU time (the machine is
shared; wall time would count the other processes).  `--compare-ref REF` also loads
`dune_env/policies/mcts.py` as it was at git revision REF and runs it on the same positions
(alternating, so both see the same machine load), then prints the speed ratio and how many
decisions agree.  `--compare-tree PATH` measures a whole other checkout instead (its engine,
heuristics and MCTS, as built there): this script runs in alternating subprocess rounds, once
with the current package and once with PATH's on `PYTHONPATH`, and prints both rates, their
ratio over all rounds, and whether both chose the same options.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from statistics import median
from types import ModuleType
from typing import Any

from builds import run_in_tree

from dune_env.engine import Game, GameConfig
from dune_env.policies import mcts
from dune_env.policies.registry import BUILTIN_POLICIES, load_policy

ROOT = Path(__file__).resolve().parent.parent


def positions(
    count: int, players: int, stride: int, play: tuple[str, ...] = ("aggressive",)
) -> list[Game]:
    probe = mcts.MCTSPolicy(seed=0, iterations=1)
    out: list[Game] = []
    seed = 0
    seen = 0
    while len(out) < count:
        game = Game(GameConfig(num_players=players), seed=seed)
        policies = [load_policy(play[k % len(play)], seed * 16 + k) for k in range(players)]
        while not game.terminal and len(out) < count:
            state = game.state
            seat = state.pending_seat
            options = game.legal_options()
            if state.pending_kind in probe.searched_kinds and len(options) > 1:
                preferred = probe.default.act(game, seat)
                if len(probe._candidates(state.pending_kind, options, preferred)) > 1:
                    if seen % stride == 0:
                        out.append(game.clone())
                    seen += 1
            game.apply(policies[seat].act(game, seat))
        seed += 1
    return out


def load_ref(ref: str) -> ModuleType:
    """`dune_env/policies/mcts.py` as of git revision `ref`, as a sibling module."""
    source = subprocess.run(
        ["git", "show", f"{ref}:dune_env/policies/mcts.py"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    path = Path(tempfile.mkdtemp()) / "mcts_ref.py"
    path.write_text(source)
    name = "dune_env.policies._mcts_ref"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def registered_class(module: Any, name: str) -> Any:
    """The class of the registered MCTS policy `name` (e.g. `mcts-strategist-16`) in `module`
    (today's mcts or an older one)."""
    target = BUILTIN_POLICIES.get(name, "")
    path, _, attr = target.partition(":")
    if path != mcts.__name__:
        known = sorted(k for k, v in BUILTIN_POLICIES.items() if v.startswith(mcts.__name__))
        raise SystemExit(f"--policy {name!r}: not a registered MCTS policy; one of {known}")
    return getattr(module, attr)


def search(
    module: Any, game: Game, index: int, iterations: int, policy_name: str | None, **options: Any
) -> tuple[int, int, float]:
    if policy_name is None:
        policy = module.MCTSPolicy(seed=index, iterations=iterations, **options)
    else:
        policy = registered_class(module, policy_name)(index)
    seat = game.state.pending_seat
    start = time.process_time()
    option = policy.act(game, seat)
    return option, policy.last_iterations, time.process_time() - start


def parse_option(text: str) -> tuple[str, Any]:
    key, sep, value = text.partition("=")
    if not sep:
        raise SystemExit(f"--option {text!r}: use KEY=VALUE, e.g. max_rollout_decisions=60")
    for kind in (int, float):
        try:
            return key, kind(value)
        except ValueError:
            pass
    return key, value


def digest(options: list[int]) -> str:
    return hashlib.sha256(repr(options).encode()).hexdigest()[:12]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--positions", type=int, default=24)
    parser.add_argument("--iterations", type=int, default=24)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--stride", type=int, default=7)
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="MCTSPolicy option for the current implementation (int, float or text)",
    )
    parser.add_argument(
        "--ref-option",
        action="append",
        default=None,
        metavar="KEY=VALUE",
        help="MCTSPolicy option of the reference (default: the --option list)",
    )
    parser.add_argument(
        "--policy", default=None, help="a registered MCTS policy instead of MCTSPolicy(...)"
    )
    parser.add_argument(
        "--play", nargs="+", default=["aggressive"], help="policies of the position games"
    )
    parser.add_argument("--compare-ref", default=None, help="git revision of the old mcts.py")
    parser.add_argument(
        "--compare-tree",
        default=None,
        metavar="PATH",
        help="another checkout (git worktree add PATH REV), measured whole in subprocess rounds",
    )
    parser.add_argument("--rounds", type=int, default=3, help="rounds of --compare-tree")
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.compare_tree:
        compare_trees(args)
        return
    options = dict(parse_option(text) for text in args.option)
    ref_options = options
    if args.ref_option is not None:
        ref_options = dict(parse_option(text) for text in args.ref_option)
    games = positions(args.positions, args.players, args.stride, tuple(args.play))
    modules: dict[str, Any] = {"current": mcts}
    if args.compare_ref:
        modules[f"ref {args.compare_ref}"] = load_ref(args.compare_ref)
    chosen: dict[str, list[int]] = {k: [] for k in modules}
    iters = dict.fromkeys(modules, 0)
    spent = dict.fromkeys(modules, 0.0)
    for i, game in enumerate(games):
        for label, module in modules.items():
            used = options if module is mcts else ref_options
            option, n, seconds = search(module, game, i, args.iterations, args.policy, **used)
            chosen[label].append(option)
            iters[label] += n
            spent[label] += seconds
    if args.json:
        print(
            json.dumps(
                {
                    "iterations": iters["current"],
                    "cpu": spent["current"],
                    "chosen": chosen["current"],
                }
            )
        )
        return
    searched = (
        f"policy {args.policy}"
        if args.policy
        else f"budget {args.iterations} iterations per searched decision; MCTSPolicy options: "
        f"current {options or 'default'}, reference {ref_options or 'default'}"
    )
    print(f"{len(games)} positions ({args.players} players, played by {args.play}), {searched}")
    for label in modules:
        print(
            f"{label:>16}: {iters[label] / spent[label]:8.1f} iterations/s, "
            f"{1000 * spent[label] / len(games):7.1f} ms per searched decision (CPU time), "
            f"decisions {digest(chosen[label])} {chosen[label]}"
        )
    if args.compare_ref:
        ref = f"ref {args.compare_ref}"
        same = sum(a == b for a, b in zip(chosen["current"], chosen[ref], strict=True))
        ratio = (iters["current"] / spent["current"]) / (iters[ref] / spent[ref])
        print(
            f"speed-up current/ref: {ratio:.2f}x iterations/s; "
            f"same decision in {same}/{len(games)} positions"
        )


def compare_trees(args: argparse.Namespace) -> None:
    """This script on the current package and on `args.compare_tree`'s, alternating rounds."""
    tree = Path(args.compare_tree).resolve()
    if not (tree / "dune_env" / "__init__.py").is_file():
        raise SystemExit(f"--compare-tree {tree}: no dune_env package there (a checkout's root?)")
    command = [sys.executable, str(Path(__file__).resolve()), "--json", "--play", *args.play]
    for name in ("positions", "iterations", "players", "stride"):
        command += [f"--{name}", str(getattr(args, name))]
    if args.policy:
        command += ["--policy", args.policy]
    commands = {}
    for side, texts in (("current", args.option), ("tree", args.ref_option)):
        commands[side] = list(command)
        for text in args.option if texts is None else texts:
            commands[side] += ["--option", text]
    labels = {"current": ROOT, f"tree {tree}": tree}
    totals = {label: [0, 0.0] for label in labels}
    per_round: dict[str, list[float]] = {label: [] for label in labels}
    chosen: dict[str, list[int]] = {}
    for round_ in range(args.rounds):
        for label, path in labels.items():
            side = "current" if path == ROOT else "tree"
            result = run_in_tree(commands[side], path, label)
            totals[label][0] += result["iterations"]
            totals[label][1] += result["cpu"]
            per_round[label].append(result["iterations"] / result["cpu"])
            chosen[label] = result["chosen"]
            print(
                f"round {round_} {label:>16}: {per_round[label][-1]:8.1f} "
                f"iterations/s, decisions {digest(result['chosen'])}",
                flush=True,
            )
    rates = {label: its / cpu for label, (its, cpu) in totals.items()}
    current, other = list(labels)
    searched = f"policy {args.policy}" if args.policy else f"budget {args.iterations}"
    print(
        f"{args.positions} positions ({args.players} players), {searched}, "
        f"{args.rounds} rounds; iterations per CPU-second over all rounds: "
        + ", ".join(f"{label} {rate:.1f}" for label, rate in rates.items())
    )
    ratios = [a / b for a, b in zip(per_round[current], per_round[other], strict=True)]
    same = chosen[current] == chosen[other]
    print(
        f"speed-up current/tree: {rates[current] / rates[other]:.2f}x over all rounds; per "
        f"round {' '.join(f'{r:.2f}' for r in ratios)}, median {median(ratios):.2f}; "
        f"same decisions: {'yes' if same else 'NO'}"
    )


if __name__ == "__main__":
    main()
