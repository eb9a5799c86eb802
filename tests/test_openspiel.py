"""The OpenSpiel game "python_dune" (dune_env.openspiel): OpenSpiel's own API checks, chance
nodes that reproduce the engine's game exactly, dune_v1's observation as the information
state, no hidden information (BATTLE-5 bids, BG-0 prediction) in another seat's view, and an
OpenSpiel algorithm running on it."""

from __future__ import annotations

import random

import numpy as np
import pytest

pyspiel = pytest.importorskip(
    "pyspiel",
    reason="OpenSpiel is not installed: pip install 'dune-env[openspiel]' to run these tests",
)

from dune_env.engine import Faction, Game, GameConfig, Phase  # noqa: E402
from dune_env.environment import KIND_OFFSET, NUM_ACTIONS, OBS_LAYOUT  # noqa: E402
from dune_env.environment.aec import raw_env  # noqa: E402
from dune_env.openspiel import DuneState, config_from_params  # noqa: E402

BG = int(Faction.BENE_GESSERIT)


def _sample_chance(state: DuneState, rng: random.Random) -> None:
    outcomes = state.chance_outcomes()
    assert abs(sum(p for _, p in outcomes) - 1.0) < 1e-9
    assert len({p for _, p in outcomes}) == 1  # every draw is a fair die / uniform shuffle
    state.apply_action(rng.choice(outcomes)[0])


def _play_until(state: DuneState, rng: random.Random, stop) -> DuneState:  # type: ignore[no-untyped-def]
    while not state.is_terminal() and not stop(state):
        if state.is_chance_node():
            _sample_chance(state, rng)
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    return state


def test_load_game_by_name() -> None:
    game = pyspiel.load_game("python_dune", {"players": 4})
    assert game.num_players() == 4
    assert game.num_distinct_actions() == NUM_ACTIONS
    assert game.get_type().utility == pyspiel.GameType.Utility.GENERAL_SUM
    state = game.new_initial_state()
    assert state.is_chance_node()  # SETUP-1: the region die is rolled first
    assert [o for o, _ in state.chance_outcomes()] == list(range(6))


def test_parameters_reach_the_engine_config() -> None:
    game = pyspiel.load_game(
        "python_dune",
        {"players": 6, "faction_mode": "draft", "strict_control": True, "win_reward": 2.0},
    )
    assert game.config == GameConfig(
        num_players=6,
        faction_mode="draft",
        strict_control=True,
        win_reward=2.0,
        record_events=False,
    )
    assert game.num_players() == 6
    assert game.max_utility() == 2.0 and game.min_utility() == -1.0


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"players": 2}, "num_players=2"),
        ({"faction_mode": "dealt"}, "faction_mode"),
        ({"region_die_west_faces": "1;x"}, "region_die_west_faces"),
    ],
)
def test_bad_parameters_name_what_is_wrong(params: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        config_from_params(params)


@pytest.mark.parametrize("players", [3, 4, 6])
def test_openspiel_random_simulation_check(players: int) -> None:
    game = pyspiel.load_game("python_dune", {"players": players})
    pyspiel.random_sim_test(game, num_sims=2, serialize=False, verbose=False)


def test_random_simulation_check_with_draft_and_variants() -> None:
    game = pyspiel.load_game(
        "python_dune",
        {"players": 5, "faction_mode": "draft", "face_dancers": "spice", "desert_landing": False},
    )
    pyspiel.random_sim_test(game, num_sims=1, serialize=False, verbose=False)


def test_random_simulation_check_with_serialization() -> None:
    game = pyspiel.load_game(
        "python_dune", {"players": 4, "region_die_west_faces": "2;3;5", "strict_control": True}
    )
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)
    state = game.new_initial_state()
    _play_until(state, random.Random(4), lambda s: s.move_number() > 60)
    text = pyspiel.serialize_game_and_state(game, state)
    game_back, state_back = pyspiel.deserialize_game_and_state(text)
    assert game_back.config.region_die_west_faces == (2, 3, 5)
    assert state_back.history() == state.history()
    assert str(state_back) == str(state)


def _chance_after_each_decision(engine_game: Game) -> tuple[list[int], list[list[int]]]:
    """The engine's set-up draws, and for each chosen (non-forced) decision the draws made
    by it and by the forced decisions applied after it."""
    history = engine_game.state.history
    setup = list(history[0].chance)
    per_choice: list[list[int]] = []
    for row in history[1:]:
        if not row.forced:
            per_choice.append([])
        per_choice[-1].extend(row.chance)
    return setup, per_choice


@pytest.mark.parametrize(("players", "seed"), [(3, 11), (4, 5), (6, 2), (8, 9)])
def test_replaying_an_engine_game_gives_the_same_game_and_rewards(players: int, seed: int) -> None:
    """END-7: the engine's own seeded game, replayed through OpenSpiel's chance nodes with the
    engine's draws, reaches the same positions and the same rewards."""
    rng = random.Random(seed)
    config = GameConfig(num_players=players, record_events=False)
    engine_game = Game(config, seed)
    choices: list[tuple[int, int]] = []
    while not engine_game.terminal:
        pending = engine_game.pending
        assert pending is not None
        option = rng.choice(pending.options)
        choices.append((KIND_OFFSET[pending.kind] + option, pending.seat))
        engine_game.apply(option)
    setup, draws = _chance_after_each_decision(engine_game)

    state = pyspiel.load_game("python_dune", {"players": players}).new_initial_state()
    for outcome in setup:
        assert state.is_chance_node()
        state.apply_action(outcome)
    for (action, seat), outcomes in zip(choices, draws, strict=True):
        assert state.current_player() == seat
        state.apply_action(action)
        for outcome in outcomes:
            assert state.is_chance_node()
            state.apply_action(outcome)
    assert state.is_terminal()
    assert state.returns() == engine_game.rewards
    mine = state.engine.to_dict()
    theirs = engine_game.state.to_dict()
    mine.pop("rng"), theirs.pop("rng")
    assert mine == theirs


@pytest.mark.parametrize("players", [3, 5])
def test_openspiel_trajectory_replays_in_the_engine(players: int) -> None:
    """The other way round: a trajectory sampled in OpenSpiel, replayed in the engine with its
    chance outcomes forced, gives the same rewards (END-7)."""
    rng = random.Random(players)
    state = pyspiel.load_game("python_dune", {"players": players}).new_initial_state()
    _play_until(state, rng, lambda s: False)
    history = state.history()
    # Walk the trajectory again to tell chance outcomes from player actions, and take the
    # engine state once the set-up draws are made.
    replay = pyspiel.load_game("python_dune", {"players": players}).new_initial_state()
    is_chance = []
    engine: Game | None = None
    for action in history:
        if engine is None and not replay.is_chance_node():
            engine = Game.from_state(replay.engine.clone())
        is_chance.append(replay.is_chance_node())
        replay.apply_action(action)
    assert engine is not None
    i = is_chance.index(False)
    while i < len(history):
        action = history[i]
        i += 1
        while i < len(history) and is_chance[i]:
            engine.state.rng.forced.append(history[i])
            i += 1
        kind = engine.state.pending_kind
        engine.apply(action - KIND_OFFSET[kind])
        assert not engine.state.rng.forced  # exactly the draws OpenSpiel exposed
    assert engine.terminal
    assert engine.rewards == state.returns()
    assert sorted(set(engine.rewards)) in ([-1.0, 1.0], [1.0], [-1.0])


def test_information_state_tensor_is_the_dune_v1_observation() -> None:
    rng = random.Random(3)
    game = pyspiel.load_game("python_dune", {"players": 5})
    state = game.new_initial_state()
    env = raw_env(num_players=5)
    checked = 0
    while not state.is_terminal() and checked < 40:
        if state.is_chance_node():
            _sample_chance(state, rng)
            continue
        env.restore(state.engine.to_dict())
        for seat in range(5):
            expected = env.observe(f"player_{seat}")["observation"]
            assert np.array_equal(np.asarray(state.information_state_tensor(seat)), expected)
            assert np.array_equal(np.asarray(state.observation_tensor(seat)), expected)
        checked += 1
        state.apply_action(rng.choice(state.legal_actions()))
    assert checked == 40
    assert game.information_state_tensor_shape() == [OBS_LAYOUT.size]


def _at_bid_with_prediction(seed: int) -> DuneState:
    """A 6-player game with the Bene Gesserit, stopped during a battle bid with units
    committed."""
    factions = "0;1;2;4;5;6"  # Bene Gesserit at seat 5
    game = pyspiel.load_game(
        "python_dune", {"players": 6, "faction_mode": "assigned", "factions": factions}
    )
    rng = random.Random(seed)
    state = _play_until(
        game.new_initial_state(),
        rng,
        lambda s: (
            s.engine is not None
            and not s.is_chance_node()
            and s.engine.phase == Phase.BATTLE_BID_DEFENDER
            and any(s.engine.bid_units[0])
        ),
    )
    return state


def test_hidden_information_stays_out_of_other_seats_views() -> None:
    """BATTLE-5 (bids in progress are secret) and BG-0 (the prediction is secret): changing
    them changes no other seat's information-state string or tensor."""
    for seed in range(40):
        state = _at_bid_with_prediction(seed)
        if not state.is_terminal():
            break
    else:  # pragma: no cover - the seeds above reach a bid
        pytest.fail("no game reached a defender's bid")
    engine = state.engine
    assert engine.bg_prediction >= 0
    attacker = engine.active_seat
    bg_seat = engine.faction_seat[BG]
    other = state.clone()
    other_engine = other.engine
    other_engine.bg_prediction = next(
        f for f in range(8) if f != engine.bg_prediction and engine.faction_seat[f] >= 0
    )
    other_engine.bid_units[0] = [0] * len(engine.bid_units[0])
    for seat in range(6):
        same = state.information_state_string(seat) == other.information_state_string(seat)
        same_tensor = state.information_state_tensor(seat) == other.information_state_tensor(seat)
        hidden_from_seat = seat not in (attacker, bg_seat)
        assert same == hidden_from_seat, seat
        assert same_tensor == hidden_from_seat, seat
    bg_text = state.information_state_string(bg_seat)
    assert "Your prediction" in bg_text
    for seat in range(6):
        if seat != bg_seat:
            assert "prediction" not in state.information_state_string(seat)


def test_mcts_bot_plays_on_it() -> None:
    from open_spiel.python.algorithms import mcts

    game = pyspiel.load_game("python_dune", {"players": 3})
    rng = np.random.RandomState(0)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
    bot = mcts.MCTSBot(game, uct_c=2.0, max_simulations=8, evaluator=evaluator, random_state=rng)
    state = game.new_initial_state()
    moves = 0
    while not state.is_terminal() and moves < 3:
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(outcomes, p=probs)))
            continue
        action = bot.step(state)
        assert action in state.legal_actions()
        state.apply_action(action)
        moves += 1
    assert moves == 3


def test_illegal_action_is_refused_and_changes_nothing() -> None:
    game = pyspiel.load_game("python_dune", {"players": 4})
    state = _play_until(
        game.new_initial_state(), random.Random(0), lambda s: not s.is_chance_node()
    )
    before = str(state)
    legal = set(state.legal_actions())
    illegal = next(a for a in range(game.num_distinct_actions()) if a not in legal)
    with pytest.raises(Exception, match="not legal"):
        state.apply_action(illegal)
    assert str(state) == before


def test_resampled_worlds_look_the_same_to_the_player() -> None:
    """IS-MCTS determinization: resampling what the defender cannot see (the attacker's bid,
    BATTLE-5; the prediction, BG-0) keeps the defender's information state and legal actions,
    and does change the hidden part."""
    for seed in range(40):
        state = _at_bid_with_prediction(seed)
        if not state.is_terminal():
            break
    defender = state.current_player()
    assert defender != state.engine.active_seat
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    hidden_seen = set()
    for _ in range(30):
        world = state.resample_from_infostate(defender, sampler)
        assert world.current_player() == defender
        assert world.information_state_string(defender) == state.information_state_string(defender)
        assert world.information_state_tensor(defender) == state.information_state_tensor(defender)
        assert world.legal_actions() == state.legal_actions()
        engine = world.engine
        hidden_seen.add((engine.bg_prediction, tuple(engine.bid_units[0])))
        # the resampled world plays on to the end
    assert len(hidden_seen) > 1
    _play_until(world, random.Random(1), lambda s: False)
    assert world.is_terminal()
    # the original is untouched by resampling
    assert state.engine.phase == Phase.BATTLE_BID_DEFENDER


def test_ismcts_bot_plays_on_it() -> None:
    from open_spiel.python.algorithms import ismcts, mcts

    game = pyspiel.load_game("python_dune", {"players": 3})
    rng = np.random.RandomState(1)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
    bot = ismcts.ISMCTSBot(game, evaluator, uct_c=2.0, max_simulations=8, random_state=rng)
    state = game.new_initial_state()
    moves = 0
    while not state.is_terminal() and moves < 3:
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(outcomes, p=probs)))
            continue
        action = bot.step(state)
        assert action in state.legal_actions()
        state.apply_action(action)
        moves += 1
    assert moves == 3
