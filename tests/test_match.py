"""`dune_env.match`: one loop and one seeding rule for every place that plays games."""

from __future__ import annotations

import numpy as np
from gymnasium.utils import seeding

from dune_env.engine import Game
from dune_env.environment.action_table import KIND_OFFSET
from dune_env.harness.play.runner import play_game
from dune_env.match import (
    GameSpec,
    final_outcome,
    reseed_seats,
    schedule,
    seat_policy,
    seat_seed,
)
from dune_env.replay import play_policies
from dune_env.single_agent.seating import draw_game_seed
from dune_env.vector import BatchedGames

LINEUP = ("aggressive-eps20", "random", "economic", "aggressive")


def _vector_game(reset_seed: int, factions: tuple[int, ...]) -> Game:
    """The vector env's game with seat 0 played by LINEUP[0], seeded as match seeds it."""
    games = BatchedGames(
        1,
        learner=0,
        opponents=[None, *LINEUP[1:]],
        num_players=4,
        faction_mode="assigned",
        factions=factions,
    )
    games.reset(seeds=[reset_seed])
    sub = games.subenvs[0]
    assert sub.game is not None
    learner = seat_policy(LINEUP[0], 0)
    reseed_seats([learner], _seed_of(reset_seed))
    while not games.terminated[0]:
        game = sub.game
        option = learner.act(game, 0)
        games.step(np.array([KIND_OFFSET[game.state.pending_kind] + option]), autoreset=False)
    return sub.game


def _seed_of(reset_seed: int) -> int:
    """The game seed the vector env draws after reset(seeds=[reset_seed])."""
    return draw_game_seed(seeding.np_random(reset_seed)[0])


def test_harness_replay_recorder_and_vector_env_play_the_same_game() -> None:
    """The same seeded line-up played by the benchmark harness, the replay recorder and the
    vector env (seat 0 as its learner) is the same game: same options, same outcome."""
    factions = schedule(list(LINEUP), 4, 1, seed=0)[0].factions
    game_seed = _seed_of(11)
    spec = GameSpec(0, game_seed, 4, LINEUP, factions)

    rows = play_game(spec)
    record = play_policies(
        list(LINEUP),
        seed=game_seed,
        config={"faction_mode": "assigned", "factions": list(factions)},
    )
    replayed = record.start()
    for option in record.options[len(replayed.chosen_options()) :]:
        replayed.apply(option)
    vector = _vector_game(11, factions)

    assert vector.chosen_options() == list(record.options)
    outcome = final_outcome(vector)
    assert final_outcome(replayed).winners == outcome.winners
    assert sorted(r.seat for r in rows if r.won) == list(outcome.winners)
    assert [r.reward for r in rows] == list(outcome.rewards)
    assert {r.decisions for r in rows} == {outcome.decisions}


def test_seat_seeds_follow_the_documented_rule() -> None:
    """Seat s of the game seeded g is seeded g * 16 + s (as 64-bit seeds)."""
    assert seat_seed(5, 3) == 83
    assert seat_seed(2**63, 1) == (2**67 + 1) % 2**64
    seen: list[int] = []

    class Recorder:
        def reseed(self, seed: int) -> None:
            seen.append(seed)

    shared = Recorder()
    reseed_seats([Recorder(), None, shared, shared], 7)
    assert seen == [112, 114]  # a policy seated twice is seeded once, from its first seat
