"""The shipped networks' decisions on fixed seeded positions, to prove that a new inference path
(numpy instead of torch, issue 34) chooses exactly what the recorded one did.

For every shipped model (`registry.SHIPPED_MODELS`), two sets of decisions, each as action ids:

- `positions`: the model's choice in every `STRIDE`-th position with more than one legal
  action of seeded 4- and 5-player games played by uniform random moves (the positions do not
  depend on the model, so one different choice shows as one mismatch);
- `games`: every choice with more than one legal action the model made playing one seat of
  seeded games against the strategist, economic and aggressive heuristics (its own
  distribution of positions; a different choice changes the rest of the game).

The fixture `fixtures/network_decisions.json` was recorded with the torch inference of
`WeightsPolicy` (before issue 34).  The games also depend on the engine's dice and on the
heuristics, so a change to either changes the positions without any network change; the
fixture holds the heuristics-independent `engine` fingerprint of `heuristics_fingerprint` to
say so.  Regenerate it only from a tree whose network inference is known to be unchanged:

    PYTHONPATH=$PWD python -m tests.policies.network_decisions --write
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from dune_env.engine import Game, GameConfig
from dune_env.environment.action_table import action_mask, action_of
from dune_env.policies.registry import SHIPPED_MODELS, load_policy

from .heuristics_fingerprint import engine_fingerprint

FIXTURE = Path(__file__).parent / "fixtures" / "network_decisions.json"
POSITION_PLAYERS = (4, 5)
POSITION_GAMES = 3  # per player count
STRIDE = 3
GAMES = 2
OPPONENTS = ("strategist", "economic", "aggressive")


def model_players(name: str) -> int:
    """The player count a shipped model was trained for (its name ends in -4p or -5p)."""
    return int(name.rsplit("-", 1)[1].removesuffix("p"))


def positions() -> list[Game]:
    """Copies of the `STRIDE`-th positions with a choice of seeded uniform-random games."""
    found: list[Game] = []
    seen = 0
    for n in POSITION_PLAYERS:
        for seed in range(POSITION_GAMES):
            rng = np.random.default_rng(1000 * n + seed)
            game = Game(GameConfig(num_players=n), seed=seed)
            while not game.terminal:
                legal = game.legal_options()
                if len(legal) > 1:
                    if seen % STRIDE == 0:
                        found.append(game.clone())
                    seen += 1
                game.apply(legal[int(rng.integers(len(legal)))])
    return found


def decide(policy: object, game: Game) -> tuple[int, int]:
    """(the action id `policy` chooses for the pending decision, the option)."""
    seat = game.state.pending_seat
    option = policy.act(game, seat)  # type: ignore[attr-defined]
    return action_of(game.state.pending_kind, option), option


def position_decisions(name: str, games: list[Game]) -> list[int]:
    policy = load_policy(name)
    return [decide(policy, game)[0] for game in games]


def game_decisions(name: str, index: int) -> list[int]:
    """The model's action ids (decisions with a choice) in game `index`: it plays seat
    index mod n, the heuristics the other seats in turn."""
    n = model_players(name)
    mine = index % n
    policies = [
        load_policy(OPPONENTS[(seat - mine - 1) % n % len(OPPONENTS)], seed=10 * index + seat)
        for seat in range(n)
    ]
    policies[mine] = load_policy(name)
    game = Game(GameConfig(num_players=n), seed=500 + index)
    chosen: list[int] = []
    while not game.terminal:
        seat = game.state.pending_seat
        if seat == mine:
            action, option = decide(policies[seat], game)
            if len(game.legal_options()) > 1:
                chosen.append(action)
        else:
            option = policies[seat].act(game, seat)
        game.apply(option)
    return chosen


def record() -> dict[str, object]:
    games = positions()
    result: dict[str, object] = {"engine": engine_fingerprint()}
    for name in sorted(SHIPPED_MODELS):
        result[name] = {
            "positions": position_decisions(name, games),
            "games": [game_decisions(name, i) for i in range(GAMES)],
        }
    return result


def smallest_margins(games: list[Game]) -> dict[str, float]:
    """Per model: the smallest gap between the best and the second-best legal logit over the
    positions (how far a numerically different forward pass must move to flip a choice)."""
    from dune_env.environment.observer import Observer
    from dune_env.policies.residual import ResidualWeightsPolicy

    out = {}
    for name in sorted(SHIPPED_MODELS):
        policy = load_policy(name)
        gaps = []
        for game in games:
            state = game.state
            seat = state.pending_seat
            if isinstance(policy, ResidualWeightsPolicy):
                logits = policy.logits(game, seat)[0]
            else:
                obs = Observer(state.num_players).observe(state, object(), seat)
                raw = np.asarray(policy.fn.logits(obs), dtype=np.float64)[0]  # type: ignore[attr-defined]
                logits = np.where(action_mask(state, seat) > 0, raw, -np.inf)
            top = np.sort(logits[np.isfinite(logits)])[-2:]
            gaps.append(float(top[1] - top[0]))
        out[name] = min(gaps)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--write", action="store_true", help=f"write {FIXTURE}")
    args = parser.parse_args()
    result = record()
    print("smallest logit margins:", smallest_margins(positions()))
    if args.write:
        FIXTURE.write_text(json.dumps(result, separators=(",", ":")) + "\n")
        print(f"wrote {FIXTURE}")
    else:
        expected = json.loads(FIXTURE.read_text())
        print("match" if expected == result else "MISMATCH")


if __name__ == "__main__":
    main()
