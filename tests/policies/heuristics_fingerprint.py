"""A compact fingerprint of the heuristic policies' decisions, to prove a refactor of
`dune_env.policies.heuristics` (or of the MCTS rollouts on them) changes no decision.

Each style plays `GAMES` seeded games (3 to 8 players, over the configuration variants) with
every seat played by that style; `mixed` plays the same games with the three styles seated
around the table in turn; `mcts` plays `MCTS_GAMES` games per rollout heuristic with one seat
searched by MCTS on it (`MCTS_ITERATIONS` iterations, rollouts scored one round on; and the
registered `mcts-strategist-4`), the other seats played by the heuristic.  A game's fingerprint
is a short hash of every option chosen, in order.  The fixture
`fixtures/heuristics_fingerprint.json` holds the hashes: aggressive and economic recorded before
the heuristics were split into a package, strategist, mixed and mcts before the strategist
became a style with hooks (issue 32; the compiled and the pure build recorded the same).

The games also depend on the dice, so a change of the engine's chance model changes every
hash without any policy change.  Regenerate the fixture then, from a tree whose heuristics are
known to be unchanged:

    PYTHONPATH=$PWD python -m tests.policies.heuristics_fingerprint --write
"""

from __future__ import annotations

import argparse
import hashlib
import json
from collections.abc import Callable
from pathlib import Path

from dune_env.engine import Game, GameConfig
from dune_env.policies.base import EnginePolicy
from dune_env.policies.heuristics import AggressivePolicy, EconomicPolicy, HeuristicPolicy
from dune_env.policies.heuristics.strategist import StrategistPolicy
from dune_env.policies.mcts import MCTSPolicy, StrategistMCTS4

GAMES = 200
MCTS_GAMES = 3
MCTS_ITERATIONS = 16
MCTS_ROLLOUT_ROUNDS = 1
FIXTURE = Path(__file__).parent / "fixtures" / "heuristics_fingerprint.json"
STYLES: dict[str, type[HeuristicPolicy]] = {
    "aggressive": AggressivePolicy,
    "economic": EconomicPolicy,
    "strategist": StrategistPolicy,
}
TABLES = (*STYLES, "mixed")
"""The fingerprinted tables: each style alone, and the three styles mixed."""
SEARCHES = (*STYLES, "mcts-strategist-4")
"""The fingerprinted searches: MCTS on each style, and the registered `mcts-strategist-4`."""

Seats = Callable[[int, int], list[EnginePolicy]]
"""(game index, number of players) -> the policy of every seat."""


def game_config(index: int) -> GameConfig:
    """Game `index`'s configuration: every player count, both faction modes and the variants."""
    return GameConfig(
        num_players=3 + index % 6,
        faction_mode=("random", "draft")[index % 2],
        skip_forced_decisions=index % 3 != 0,
        strict_control=index % 5 == 0,
        desert_landing=index % 7 == 0,
        face_dancers=("dice", "spice")[index % 4 == 0],
        strict_alliance_victory=index % 11 == 0,
        record_events=False,
    )


def table_seats(table: str) -> Seats:
    """A style at every seat, or (`mixed`) the styles in turn, shifted by the game index."""
    if table == "mixed":
        kinds = list(STYLES.values())
        return lambda index, n: [
            kinds[(seat + index) % len(kinds)](index * 10 + seat) for seat in range(n)
        ]
    policy = STYLES[table]
    return lambda index, n: [policy(index * 10 + seat) for seat in range(n)]


def search_seats(search: str) -> Seats:
    """One seat (moving with the game index) searched by MCTS, the others its heuristic."""
    heuristic = STYLES["strategist" if search == "mcts-strategist-4" else search]

    def seats(index: int, n: int) -> list[EnginePolicy]:
        policies: list[EnginePolicy] = [heuristic(index * 10 + seat) for seat in range(n)]
        if search == "mcts-strategist-4":
            policies[index % n] = StrategistMCTS4(seed=index)
        else:
            policies[index % n] = MCTSPolicy(
                seed=index,
                iterations=MCTS_ITERATIONS,
                rollout=search,
                rollout_rounds=MCTS_ROLLOUT_ROUNDS,
            )
        return policies

    return seats


def game_fingerprint(policy: type[HeuristicPolicy] | Seats, index: int) -> str:
    """The hash of game `index` played by `policy` at every seat (a heuristic class), or by
    the seats `policy(index, num_players)` returns."""
    config = game_config(index)
    if isinstance(policy, type):
        seats: list[EnginePolicy] = [policy(index * 10 + s) for s in range(config.num_players)]
    else:
        seats = policy(index, config.num_players)
    game = Game(config, seed=7919 * index + 1)
    chosen = []
    while not game.terminal:
        decision = game.pending
        assert decision is not None
        option = seats[decision.seat].act(game, decision.seat)
        chosen.append(option)
        game.apply(option)
    digest = hashlib.sha256(json.dumps(chosen).encode()).hexdigest()
    return f"{len(chosen)}:{digest[:16]}"


def table_fingerprints(table: str, games: int = GAMES) -> list[str]:
    return [game_fingerprint(table_seats(table), i) for i in range(games)]


def search_fingerprints(search: str, games: int = MCTS_GAMES) -> list[str]:
    # Games 1.. (4 players and up, first with a searched seat at 1): small enough to search.
    return [game_fingerprint(search_seats(search), i) for i in range(1, 1 + games)]


def engine_fingerprint() -> str:
    """A hash of games whose every decision takes the first legal option: it changes with the
    engine's dice (the chance model), never with the heuristics."""
    chosen = []
    for index in range(6):
        game = Game(game_config(index), seed=index)
        while not game.terminal:
            game.apply(game.legal_options()[0])
        chosen.append(game.chosen_options())
    return hashlib.sha256(json.dumps(chosen).encode()).hexdigest()[:16]


def fingerprints(games: int = GAMES) -> dict[str, object]:
    result: dict[str, object] = {"engine": engine_fingerprint()}
    for table in TABLES:
        result[table] = table_fingerprints(table, games)
    result["mcts"] = {search: search_fingerprints(search) for search in SEARCHES}
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--write", action="store_true", help=f"write {FIXTURE}")
    args = parser.parse_args()
    result = fingerprints()
    if args.write:
        FIXTURE.write_text(json.dumps(result, indent=0) + "\n")
        print(f"wrote {FIXTURE}")
    else:
        expected = json.loads(FIXTURE.read_text())
        print("match" if expected == result else "MISMATCH")


if __name__ == "__main__":
    main()
