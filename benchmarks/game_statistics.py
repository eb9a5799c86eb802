"""How games end with the baseline heuristics, by number of players.

    python benchmarks/game_statistics.py --games 800 --players 3 4 5 6 --workers 2
    python benchmarks/game_statistics.py --games 800 --set guild_income_per_lander=true

Plays seat- and faction-balanced games (the `dune-bench` schedule, so the same seed gives the
same games) between the `--policies` (default: aggressive and economic) and prints, for every
player count, the share of games that ended:

- solo: END-1 victory kept by its winner;
- solo->BG: END-1 victory taken by the correctly predicting Bene Gesserit (END-6);
- alliance: END-2 victory;
- timeout Guild: END-5, the Guild wins after the last round;
- timeout BG: END-5 victory taken by the Bene Gesserit (END-6);
- no winner: the last round ended without a winner in the game (no Guild, no BG prediction).

Also prints the mean number of rounds.  The figures depend only on the arguments.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from dune_env.harness import GameFailure, run_games, schedule  # noqa: E402
from dune_env.harness.cli import parse_game_options  # noqa: E402

COLUMNS = ("solo", "solo->BG", "alliance", "timeout Guild", "timeout BG", "no winner")


def ending(kind: str, bg_took: int) -> str:
    """The table column of one finished game."""
    if kind == "solo":
        return "solo->BG" if bg_took else "solo"
    if kind == "timeout":
        return "timeout BG" if bg_took else "timeout Guild"
    if kind == "alliance":
        return "alliance"
    return "no winner"


def measure(
    policies: list[str],
    players: int,
    games: int,
    seed: int,
    workers: int,
    config: dict[str, object],
) -> tuple[Counter[str], float, int]:
    """Counts of each ending, mean rounds and the number of failed games."""
    counts: Counter[str] = Counter()
    rounds = 0
    failures = 0
    specs = schedule(policies, players, games, seed, config)
    for _spec, result in run_games(specs, workers=workers):
        if isinstance(result, GameFailure):
            failures += 1
            continue
        first = result[0]
        counts[ending(first.win_kind, first.bg_took)] += 1
        rounds += first.rounds
    finished = max(1, sum(counts.values()))
    return counts, rounds / finished, failures


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--policies", nargs="+", default=["aggressive", "economic"])
    parser.add_argument("--players", nargs="+", type=int, default=[3, 4, 5, 6])
    parser.add_argument("--games", type=int, default=800)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument(
        "--set", action="append", default=[], metavar="KEY=VALUE", help="game option (repeatable)"
    )
    args = parser.parse_args()
    config = parse_game_options(args.set, "game_statistics")
    setting = " ".join(f"--set {k}={v}" for k, v in config.items()) or "default rules"
    print(
        f"{args.games} games per row, policies {' '.join(args.policies)}, seed {args.seed}, "
        f"{setting}"
    )
    header = "| players | " + " | ".join(COLUMNS) + " | mean rounds |"
    print(header)
    print("|" + "---|" * (len(COLUMNS) + 2))
    for players in args.players:
        counts, mean_rounds, failures = measure(
            args.policies, players, args.games, args.seed, args.workers, config
        )
        total = max(1, sum(counts.values()))
        cells = " | ".join(f"{100 * counts[c] / total:.1f}%" for c in COLUMNS)
        print(f"| {players} | {cells} | {mean_rounds:.1f} |")
        if failures:
            print(f"  ({failures} game(s) failed and are not counted)")


if __name__ == "__main__":
    main()
