"""Soak test: many seeded random games on both builds, checked after every decision and
compared game by game.

    python benchmarks/soak.py --games 200 --players 3 4 5 6 7 8      # both builds
    python benchmarks/soak.py --games 200 --build current            # the running build only

Game g at player count n plays a rule variant (cycled from the fuzz tests' list) with seed
`--seed + g`, options drawn by a generator seeded from the game.  After every decision: pieces
and tokens are conserved (COMP-2, COMP-3; tests/invariants.py), the pending decision has a legal
option, and every 50 decisions and at the end the snapshot restores with full validation into
the same state; a game must end by round 6 (END-5).  Each game's fingerprint (SHA-256 of its
chosen options, final snapshot and rewards) is compared between the compiled and the pure
build.  Prints games, decisions, invariant violations and build mismatches; exits 1 if there
is any.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # tests/invariants.py: the invariants the fuzz tests check

from benchmarks.builds import BUILDS, describe, run_build  # noqa: E402

VARIANTS: list[dict[str, Any]] = [
    {},
    {"strict_control": True},
    {"desert_landing": False},
    {"guild_income_per_lander": True, "strict_alliance_victory": True},
    {"smugglers_land_anywhere": True},
    {"battle_survives_fortress": True},
    {"face_dancers": "spice"},
    {"region_die_west_faces": [2, 3, 5]},
    {"skip_forced_decisions": False},
    {"faction_mode": "draft"},
]
RESTORE_EVERY = 50  # decisions between full snapshot round trips
MAX_DECISIONS = 20_000


def play(num_players: int, seed: int, variant: dict[str, Any]) -> tuple[str, int, str]:
    """(fingerprint, decisions, violation or "") of one checked game."""
    from dune_env.engine import Game, GameConfig, Phase
    from tests.invariants import check_invariants

    chooser = random.Random(seed * 7919 + num_players)
    decisions = 0
    try:
        game = Game(GameConfig(num_players=num_players, **variant), seed=seed)
        check_invariants(game.state)
        while not game.terminal:
            options = game.legal_options()
            assert options, f"decision {game.pending} has no legal option"
            game.apply(chooser.choice(options))
            decisions += 1
            check_invariants(game.state)
            if decisions % RESTORE_EVERY == 0:
                assert Game.from_json(game.to_json()).snapshot() == game.snapshot(), "restore"
            assert decisions < MAX_DECISIONS, "the game does not end"
        assert game.state.phase == Phase.GAME_OVER and game.state.round <= 6, "END-5"
        assert Game.restore(game.snapshot()).snapshot() == game.snapshot(), "final restore"
    except Exception as exc:  # AssertionError from a check, or an engine error: a finding
        return "", decisions, f"{type(exc).__name__}: {exc}"[:300]
    digest = hashlib.sha256()
    digest.update(json.dumps(game.chosen_options()).encode())
    digest.update(game.to_json().encode())
    digest.update(json.dumps(game.rewards).encode())
    return digest.hexdigest(), decisions, ""


def run_current(games: int, players: list[int], seed: int) -> dict[str, Any]:
    results = []
    for n in players:
        for g in range(games):
            variant = VARIANTS[g % len(VARIANTS)]
            fingerprint, decisions, violation = play(n, seed + g, variant)
            results.append([n, seed + g, fingerprint, decisions, violation])
    return {"build": describe(), "games": results}


def summarise(label: str, result: dict[str, Any]) -> tuple[int, int, list[list[Any]]]:
    rows = result["games"]
    violations = [r for r in rows if r[4]]
    decisions = sum(r[3] for r in rows)
    print(
        f"{label}: {len(rows)} games, {decisions} decisions checked, "
        f"{len(violations)} invariant violation(s)"
    )
    for n, game_seed, _, at, what in violations[:5]:
        print(f"  {n} players, seed {game_seed}, after decision {at}: {what}")
    return len(rows), decisions, violations


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=100, help="games per player count")
    parser.add_argument("--players", type=int, nargs="+", default=[3, 4, 5, 6, 7, 8])
    parser.add_argument("--seed", type=int, default=0, help="seed of the first game")
    parser.add_argument("--build", choices=("both", "current"), default="both")
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    script_args = ["--games", str(args.games), "--seed", str(args.seed), "--players"]
    script_args += [str(n) for n in args.players]
    if args.build == "current":
        result = run_current(args.games, args.players, args.seed)
        if args.json:
            print(json.dumps(result))
            return 0
        _, _, violations = summarise("this build", result)
        return 1 if violations else 0
    results = {build: run_build(Path(__file__), script_args, build) for build in BUILDS}
    if not results["compiled"]["build"]["compiled"]:
        print("note: no compiled build here; both runs are the pure sources")
    failed = False
    for build in BUILDS:
        failed |= bool(summarise(build, results[build])[2])
    pairs = zip(results["compiled"]["games"], results["pure"]["games"], strict=True)
    mismatches = [(c, p) for c, p in pairs if c[2] != p[2] or c[4] != p[4]]
    print(f"build mismatches: {len(mismatches)} of {len(results['pure']['games'])} games")
    for compiled, pure in mismatches[:5]:
        print(
            f"  {compiled[0]} players, seed {compiled[1]}: compiled {compiled[2][:12] or '-'} "
            f"({compiled[3]} decisions) vs pure {pure[2][:12] or '-'} ({pure[3]} decisions)"
        )
    return 1 if failed or mismatches else 0


if __name__ == "__main__":
    raise SystemExit(main())
