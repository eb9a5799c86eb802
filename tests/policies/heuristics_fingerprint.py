"""A compact fingerprint of the heuristic policies' decisions, to prove a refactor of
`dune_env.policies.heuristics` changes no decision.

Each style plays `GAMES` seeded games (3 to 8 players, over the configuration variants) with
every seat played by that style; a game's fingerprint is a short hash of every option chosen,
in order.  The fixture `fixtures/heuristics_fingerprint.json` holds the hashes recorded before
the heuristics were split into a package.

The games also depend on the dice, so a change of the engine's chance model changes every
hash without any policy change.  Regenerate the fixture then, from a tree whose heuristics are
known to be unchanged:

    PYTHONPATH=$PWD python -m tests.policies.heuristics_fingerprint --write
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path

from dune_env.engine import Game, GameConfig
from dune_env.policies.heuristics import AggressivePolicy, EconomicPolicy, HeuristicPolicy

GAMES = 200
FIXTURE = Path(__file__).parent / "fixtures" / "heuristics_fingerprint.json"
STYLES: dict[str, type[HeuristicPolicy]] = {
    "aggressive": AggressivePolicy,
    "economic": EconomicPolicy,
}


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


def game_fingerprint(policy: type[HeuristicPolicy], index: int) -> str:
    config = game_config(index)
    seats = [policy(index * 10 + seat) for seat in range(config.num_players)]
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
    for name, policy in STYLES.items():
        result[name] = [game_fingerprint(policy, i) for i in range(games)]
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
