"""Random-play fuzz: complete games at every player count, faction sets and variants.

After every decision: pieces and tokens are conserved (COMP-2, COMP-3), the pending decision
has at least one legal option, and every game ends by the end of round 6 (DEF-3, END-5).
"""

from __future__ import annotations

import random

import pytest

from dune_env.engine import Game, GameConfig, Phase
from dune_env.engine.constants import available_factions

from .invariants import check_invariants

VARIANTS = [
    {},
    {"strict_control": True},
    {"desert_landing": False},
    {"guild_income_per_lander": True, "strict_alliance_victory": True},
    {"smugglers_land_anywhere": True},
    {"battle_survives_fortress": True},
    {"face_dancers": "spice"},
    {"region_die_west_faces": (2, 3, 5)},
    {"skip_forced_decisions": False},
    {"faction_mode": "draft"},
]


def play_checked(config: GameConfig, seed: int) -> Game:
    chooser = random.Random(seed * 7919 + config.num_players)
    game = Game(config, seed=seed)
    check_invariants(game.state)
    steps = 0
    while not game.terminal:
        options = game.legal_options()
        assert options, f"decision {game.pending} has no legal option"
        assert game.state.pending_seat >= 0
        game.apply(chooser.choice(options))
        check_invariants(game.state)
        steps += 1
        assert steps < 20_000, "game does not end"
    assert game.state.phase == Phase.GAME_OVER
    assert game.state.round <= 6
    assert len(game.rewards) == config.num_players
    return game


@pytest.mark.parametrize("num_players", [3, 4, 5, 6, 7, 8])
def test_random_games_conserve_pieces_and_end_by_round_6(num_players: int) -> None:
    """COMP-2, COMP-3, DEF-3, END-5: many random games per player count, variants included."""
    games = 0
    for seed in range(70):
        variant = VARIANTS[seed % len(VARIANTS)]
        play_checked(GameConfig(num_players=num_players, **variant), seed)
        games += 1
    assert games == 70


@pytest.mark.parametrize("num_players", [3, 5, 6, 8])
def test_every_available_faction_set_plays(num_players: int) -> None:
    """SETUP-5: assigned faction sets rotating through all available factions."""
    factions = available_factions(num_players)
    rng = random.Random(num_players)
    for seed in range(10):
        chosen = rng.sample(list(factions), num_players)
        config = GameConfig(
            num_players=num_players, faction_mode="assigned", factions=tuple(chosen)
        )
        game = play_checked(config, seed)
        assert sorted(game.state.seat_faction) == sorted(chosen)
