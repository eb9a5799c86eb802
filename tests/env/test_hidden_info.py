"""No leak: what a seat may not see never changes its observation (BATTLE-5, BG-0)."""

from __future__ import annotations

import random

import numpy as np

from dune_env.engine import DecisionKind, Faction, Game, Phase
from dune_env.engine.decisions import bid_leader_option, unit_option
from dune_env.environment import KIND_OFFSET, OBS_LAYOUT, STATE_LAYOUT
from dune_env.environment.aec import raw_env

from .scenarios import bid_battle

BID = KIND_OFFSET[DecisionKind.BID]
HAR, ATR = Faction.HARKONNEN, Faction.ATREIDES
# Attacker bids to compare: (unit commitments, leader commitments)
ATTACKER_BIDS = [
    [],
    [unit_option(HAR, 0)],
    [unit_option(HAR, 0)] * 3,
    [bid_leader_option(HAR)],
    [unit_option(HAR, 0), unit_option(HAR, 0), bid_leader_option(HAR)],
]


def _env_at_attacker_bid() -> raw_env:
    game = bid_battle()
    env = raw_env(**game.config.to_dict())
    env.restore(game.snapshot())
    assert game.pending is not None and game.pending.kind == DecisionKind.BID
    assert env.agent_selection == "player_1"  # Harkonnen attacks
    return env


def _observations(env: raw_env) -> dict[str, dict[str, np.ndarray]]:
    return {agent: env.observe(agent) for agent in env.possible_agents}


def test_defender_observation_does_not_depend_on_the_attacker_bid() -> None:
    at_defender: list[dict[str, dict[str, np.ndarray]]] = []
    during_attacker_bid: list[dict[str, dict[str, np.ndarray]]] = []
    for bid in ATTACKER_BIDS:
        env = _env_at_attacker_bid()
        for option in bid:
            env.step(BID + option)
            during_attacker_bid.append(_observations(env))
        env.step(BID + 0)  # bid done
        game = env.game
        assert game is not None and game.state.phase == Phase.BATTLE_BID_DEFENDER
        assert env.agent_selection == "player_0"  # Atreides defends
        at_defender.append(_observations(env))
        # the attacker does see its own bid in progress
        own = OBS_LAYOUT.raw(env.observe("player_1")["observation"], "own_bid_units")
        assert own[0, 0] == bid.count(unit_option(HAR, 0))  # relative seat 0 = itself
        leaders = OBS_LAYOUT.raw(env.observe("player_1")["observation"], "own_bid_leaders")
        assert leaders[0] == bid.count(bid_leader_option(HAR))
        state = env.state()
        assert STATE_LAYOUT.raw(state, "bid_units")[0, 1, 0] == bid.count(unit_option(HAR, 0))
    for agent in ("player_0", "player_2", "player_3", "player_4"):
        for obs in at_defender[1:]:
            np.testing.assert_array_equal(
                obs[agent]["observation"], at_defender[0][agent]["observation"]
            )
            np.testing.assert_array_equal(
                obs[agent]["action_mask"], at_defender[0][agent]["action_mask"]
            )
    # Nobody but the attacker can tell the attacker's bid while it is being made.
    first = during_attacker_bid[0]
    for obs in during_attacker_bid[1:]:
        for agent in ("player_0", "player_2", "player_3", "player_4"):
            np.testing.assert_array_equal(obs[agent]["observation"], first[agent]["observation"])


def test_defender_bid_is_hidden_from_the_attacker_and_both_are_revealed_after() -> None:
    results = []
    for defender_bid in ([], [unit_option(ATR, 0)], [bid_leader_option(ATR)] * 2):
        env = _env_at_attacker_bid()
        env.step(BID + unit_option(HAR, 0))
        env.step(BID + 0)
        views = []
        for option in defender_bid:
            env.step(BID + option)
            views.append(env.observe("player_1")["observation"])
        own = OBS_LAYOUT.raw(env.observe("player_0")["observation"], "own_bid_units")
        assert own[0, 0] == defender_bid.count(unit_option(ATR, 0))
        results.append((views, env))
        env.step(BID + 0)  # the battle is resolved: both bids are public
        obs = env.observe("player_3")["observation"]
        revealed = OBS_LAYOUT.raw(obs, "last_battle_units")
        # player_3 sees seat 1 (Harkonnen) at relative seat 3, seat 0 (Atreides) at 2
        assert revealed[0, 3, 0] == 1  # attacker side: one Harkonnen unit
        assert revealed[1, 2, 0] == defender_bid.count(unit_option(ATR, 0))
        assert OBS_LAYOUT.raw(obs, "last_battle_leaders")[1, 2] == defender_bid.count(
            bid_leader_option(ATR)
        )
        assert OBS_LAYOUT.view(obs, "last_battle_valid")[0] == 1
    attacker_views = [v for views, _ in results for v in views]
    for view in attacker_views[1:]:
        np.testing.assert_array_equal(view, attacker_views[0])


def _after_prediction(num_players: int, seed: int) -> tuple[raw_env, int]:
    factions = {5: (0, 1, 2, 4, 6), 7: (0, 1, 2, 3, 4, 5, 6)}[num_players]
    env = raw_env(num_players=num_players, faction_mode="assigned", factions=factions)
    env.reset(seed=seed)
    game = env.game
    assert game is not None
    rng = random.Random(seed)
    while game.state.bg_prediction < 0 or game.state.phase == Phase.SETUP_PLACE:
        agent = env.agent_selection
        mask = env.observe(agent)["action_mask"]
        legal = np.flatnonzero(mask)
        env.step(int(legal[rng.randrange(legal.size)]))
    for _ in range(rng.randrange(40)):  # somewhere into the game
        agent = env.agent_selection
        legal = np.flatnonzero(env.observe(agent)["action_mask"])
        env.step(int(legal[rng.randrange(legal.size)]))
    return env, game.state.faction_seat[Faction.BENE_GESSERIT]


def test_only_the_bene_gesserit_can_tell_its_prediction() -> None:
    for num_players, seed in ((5, 1), (5, 2), (7, 3)):
        env, bg_seat = _after_prediction(num_players, seed)
        snapshot = env.snapshot()
        game = Game.restore(snapshot)
        choices = [f for f in game.state.seat_faction if f != Faction.BENE_GESSERIT]
        views = {}
        for prediction in choices + [int(Faction.GUILD)]:
            alt = dict(snapshot, bg_prediction=prediction)
            env.restore(alt)
            views[prediction] = {a: env.observe(a) for a in env.possible_agents}
            bg_obs = views[prediction][f"player_{bg_seat}"]["observation"]
            assert OBS_LAYOUT.view(bg_obs, "bg_prediction").argmax() == prediction
            assert STATE_LAYOUT.view(env.state(), "bg_prediction").argmax() == prediction
        base = views[choices[0]]
        for prediction, obs in views.items():
            for agent in env.possible_agents:
                same = np.array_equal(obs[agent]["observation"], base[agent]["observation"])
                if agent == f"player_{bg_seat}":
                    assert same == (prediction == choices[0])
                else:
                    assert same, (prediction, agent)
                    assert not OBS_LAYOUT.view(obs[agent]["observation"], "bg_prediction").any()
                np.testing.assert_array_equal(obs[agent]["action_mask"], base[agent]["action_mask"])


def test_text_render_shows_neither_prediction_nor_bids() -> None:
    env = _env_at_attacker_bid()
    env.render_mode = "ansi"
    before = env.render()
    env.step(BID + unit_option(HAR, 0))
    assert env.render() == before
    assert "Fremen" in before  # the predicted faction is in the game, but not as a prediction
    assert "predict" not in before.lower()
