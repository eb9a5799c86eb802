"""The information-set MCTS policy: legal, deterministic given its seed, blind to hidden
information, and able to find a winning move."""

from __future__ import annotations

import pytest

from dune_env.engine import (
    DecisionKind,
    Faction,
    Game,
    GameConfig,
    KanlyFace,
    Phase,
    Region,
    Scenario,
)
from dune_env.engine.decisions import BID_DONE
from dune_env.policies.base import EnginePolicy, RandomPolicy
from dune_env.policies.heuristics import AggressivePolicy, EconomicPolicy
from dune_env.policies.mcts import SEARCHED_KINDS, MCTSPolicy, dice_candidates, evaluate

from .helpers import play


@pytest.mark.parametrize("num_players", range(3, 9))
def test_only_legal_options_with_a_tiny_budget(num_players: int) -> None:
    seat = num_players // 2
    policies: list[EnginePolicy] = [
        (AggressivePolicy, EconomicPolicy, RandomPolicy)[k % 3](k) for k in range(num_players)
    ]
    policies[seat] = MCTSPolicy(seed=num_players, iterations=2)
    config = GameConfig(num_players=num_players, faction_mode="draft")
    game, _ = play(config, 40 + num_players, policies)  # play() checks every option
    assert game.terminal


def test_deterministic_given_its_seed() -> None:
    def run() -> list[int]:
        policies: list[EnginePolicy] = [AggressivePolicy(1), EconomicPolicy(2), RandomPolicy(3)]
        policies.insert(1, MCTSPolicy(seed=5, iterations=4))
        return play(GameConfig(num_players=4), 8, policies)[1]

    assert run() == run()


def test_time_budget() -> None:
    game = Game(GameConfig(num_players=4), seed=2)
    while game.pending is not None and (
        game.pending.kind != DecisionKind.FIX_DICE or len(game.pending.options) < 3
    ):
        game.apply(game.legal_options()[0])
    assert game.pending is not None
    policy = MCTSPolicy(seed=1, iterations=0, time_limit=0.02)
    assert policy.act(game, game.pending.seat) in game.pending.options
    assert policy.last_iterations >= 1


def test_bad_parameters() -> None:
    with pytest.raises(ValueError, match="iterations"):
        MCTSPolicy(iterations=0)
    with pytest.raises(ValueError, match="time_limit"):
        MCTSPolicy(time_limit=0.0)
    with pytest.raises(ValueError, match="rollout"):
        MCTSPolicy(rollout="nonsense")
    with pytest.raises(ValueError, match="prior_weight"):
        MCTSPolicy(prior_weight=0.0)
    for rounds in (-1, 1.5, True, "1"):
        with pytest.raises(ValueError, match="rollout_rounds"):
            MCTSPolicy(rollout_rounds=rounds)  # type: ignore[arg-type]


def test_dice_candidates_widen_around_the_prior() -> None:
    options = list(range(1, 128))
    assert dice_candidates(options, 0b101) == [0b101, 0b100, 0b111, 0b001] + [
        0b101 | (1 << d) for d in range(3, 7)
    ]
    assert dice_candidates([1, 3], 1) == [1, 3]  # only legal masks


def test_unsearched_decisions_follow_the_heuristic() -> None:
    game = Game(GameConfig(num_players=4), seed=3)
    heuristic = AggressivePolicy(0)
    policy = MCTSPolicy(seed=0, iterations=4)
    seen = 0
    while not game.terminal and seen < 5:
        assert game.pending is not None
        seat = game.pending.seat
        if game.pending.kind not in SEARCHED_KINDS and len(game.pending.options) > 1:
            assert policy.act(game, seat) == heuristic.act(game, seat)
            assert policy.last_iterations == 0
            seen += 1
        game.apply(heuristic.act(game, seat))
    assert seen == 5


def test_the_root_statistics_of_each_searched_decision_are_kept() -> None:
    """`last_search`: the heuristic's choice among the candidates, every iteration counted in
    a candidate's visits, the option played the best of the last round's survivors; None when
    the decision was not searched."""
    game = Game(GameConfig(num_players=4), seed=5)
    heuristic = EconomicPolicy(0)
    policy = MCTSPolicy(seed=1, iterations=8, rollout="economic", rollout_rounds=1)
    searched = unsearched = 0
    while not game.terminal and searched < 6:
        assert game.pending is not None
        seat, options = game.pending.seat, game.pending.options
        if len(options) > 1:
            choice = policy.act(game, seat)
            search = policy.last_search
            if policy.last_iterations:
                assert search is not None and search.choice == choice
                assert search.kind == game.pending.kind
                assert search.preferred == heuristic.act(game, seat)
                assert search.preferred in search.candidates
                assert set(search.candidates) <= set(options)
                assert sum(search.visits) == policy.last_iterations
                # the last round's survivors have the most visits; the best of them is played
                most = max(search.visits)
                finalists = [
                    m for m, v in zip(search.means, search.visits, strict=True) if v == most
                ]
                assert search.visits[search.candidates.index(choice)] == most
                assert search.means[search.candidates.index(choice)] == max(finalists)
                assert all(0.0 <= m <= 1.0 for m in search.means)
                searched += 1
            else:
                assert search is None
                unsearched += 1
        game.apply(heuristic.act(game, seat))
    assert searched == 6 and unsearched > 0


def test_evaluate_is_a_reward_vector() -> None:
    game = Game(GameConfig(num_players=5), seed=4)
    policies = [AggressivePolicy(k) for k in range(5)]
    for _ in range(150):
        assert game.pending is not None
        game.apply(policies[game.pending.seat].act(game, game.pending.seat))
        values = evaluate(game.state)
        assert len(values) == 5
        assert all(-1.0 <= v <= 1.0 for v in values)
        assert sum(values) == pytest.approx(-5 + 2)  # winning chances sum to one
    while not game.terminal:
        assert game.pending is not None
        game.apply(policies[game.pending.seat].act(game, game.pending.seat))
    assert evaluate(game.state) == game.rewards


@pytest.mark.parametrize("rollout", ["aggressive", "strategist"])
def test_choice_does_not_depend_on_the_bg_prediction(rollout: str) -> None:
    factions = (Faction.ATREIDES, Faction.HARKONNEN, Faction.FREMEN, Faction.CORRINO, 6)
    config = GameConfig(num_players=5, faction_mode="assigned", factions=factions)
    game = Game(config, seed=6)
    chooser = RandomPolicy(1)
    while game.pending is not None and game.pending.kind != DecisionKind.BG_PREDICTION:
        game.apply(chooser.act(game, game.pending.seat))
    a, b = game.clone(), game.clone()
    a.apply(int(Faction.GUILD))
    b.apply(int(Faction.HARKONNEN))
    assert a.pending is not None
    seat = a.pending.seat
    assert seat != a.state.faction_seat[Faction.BENE_GESSERIT]
    choice_a = MCTSPolicy(seed=3, iterations=12, rollout=rollout).act(a, seat)
    assert choice_a == MCTSPolicy(seed=3, iterations=12, rollout=rollout).act(b, seat)


@pytest.mark.parametrize("rollout", ["aggressive", "strategist"])
def test_defender_choice_does_not_depend_on_the_attacker_bid(rollout: str) -> None:
    """BATTLE-5 through the search: the defender's MCTS cannot read the attacker's bid."""
    har, atr = Faction.HARKONNEN, Faction.ATREIDES
    game = (
        Scenario([har, atr, Faction.FREMEN, Faction.CORRINO])
        .units(har, Region.CARTHAG, 3)
        .leaders(har, 1)
        .units(atr, Region.CARTHAG, 3)
        .leaders(atr, 2)
        .dice(factions=[har, har, har, har], region=1, spice=1, kanly=KanlyFace.SHIELD)
        .storm(1)
        .active(har)
        .at(Phase.BATTLE_SELECT)
    )
    a, b = game.clone(), game.clone()
    a.apply(BID_DONE)
    while b.state.phase == Phase.BATTLE_BID_ATTACKER:
        b.apply(max(b.legal_options()))  # commit everything
    assert a.state.phase == b.state.phase == Phase.BATTLE_BID_DEFENDER
    seat = a.state.pending_seat
    choice_a = MCTSPolicy(seed=9, iterations=16, rollout=rollout).act(a, seat)
    assert choice_a == MCTSPolicy(seed=9, iterations=16, rollout=rollout).act(b, seat)


@pytest.mark.parametrize("rollout", ["aggressive", "economic", "strategist"])
def test_finds_the_winning_target(rollout: str) -> None:
    """END-1: holding two strategic regions, moving into empty Carthag wins at once."""
    atr = Faction.ATREIDES
    game = (
        Scenario([atr, Faction.HARKONNEN, Faction.FREMEN, Faction.CORRINO])
        .units(atr, Region.ARRAKEEN, 2)
        .units(atr, Region.TUEKS_SIETCH, 2)
        .units(atr, Region.POLAR_CAP, 2)
        .units(Faction.HARKONNEN, Region.BROKEN_LAND, 1)
        .dice(factions=[atr, atr, atr, atr], region=4, spice=1, kanly=KanlyFace.SHIELD)
        .storm(1)
        .active(atr)
        .at(Phase.MOVE_TARGET)
    )
    policy = MCTSPolicy(seed=1, iterations=16, rollout=rollout)
    assert policy.act(game, game.state.pending_seat) == Region.CARTHAG


def _searched_game(policy: MCTSPolicy, seed: int) -> list[tuple[bool, int]]:
    """Play a 4-player game with `policy` in seat 1 (heuristics elsewhere); for each of its
    searches: (whether the game went on from its previous search by exactly the option played,
    with no chance outcome nor other decision since; the visits it reused)."""
    game = Game(GameConfig(num_players=4), seed=seed)
    others = [AggressivePolicy(0), None, EconomicPolicy(2), AggressivePolicy(3)]
    previous: tuple[int, int] | None = None  # (history length at the search, option played)
    out = []
    while not game.terminal:
        seat = game.state.pending_seat
        if seat != 1:
            player = others[seat]
            assert player is not None
            game.apply(player.act(game, seat))
            continue
        rows = game.state.history
        option = policy.act(game, seat)
        if policy.last_iterations:
            follows = (
                previous is not None
                and len(rows) == previous[0] + 1
                and rows[-1].seat == seat
                and rows[-1].option == previous[1]
                and not rows[-1].forced
                and not rows[-1].chance
            )
            out.append((follows, policy.last_reused_visits))
            previous = (len(rows), option)
        game.apply(option)
    return out


def test_tree_reused_only_when_nothing_happened_since() -> None:
    """The subtree below the option played is reused exactly when the next search of the seat
    comes right after it: no chance outcome (dice, ROLL-1) and no other decision between, so the
    information set is the one its determinisations were drawn for."""
    searches = _searched_game(MCTSPolicy(seed=4, iterations=6, reuse_tree=True), seed=11)
    assert any(follows for follows, _ in searches)
    assert any(not follows for follows, _ in searches)
    for follows, reused in searches:
        assert (reused > 0) == follows


def test_tree_reuse_is_deterministic_and_off_by_default() -> None:
    first = _searched_game(MCTSPolicy(seed=4, iterations=6, reuse_tree=True), seed=12)
    assert first == _searched_game(MCTSPolicy(seed=4, iterations=6, reuse_tree=True), seed=12)
    plain = _searched_game(MCTSPolicy(seed=4, iterations=6), seed=12)
    assert all(reused == 0 for _, reused in plain)


@pytest.mark.parametrize("rollout", ["aggressive", "economic", "strategist"])
def test_simulations_decide_as_the_heuristic(rollout: str) -> None:
    """The bare-state decisions of the simulations (`heuristics.playout.Playout`, the die
    tables kept over each turn's dice decisions) are the heuristic's own through `Game`."""
    policy = MCTSPolicy(seed=0, iterations=1, rollout=rollout)
    game = Game(GameConfig(num_players=5), seed=21)
    while not game.terminal:
        seat = game.state.pending_seat
        option = policy.default.act(game, seat)
        assert policy._playout.decide(game.state) == option
        game.apply(option)


def test_simulations_ask_a_heuristic_with_its_own_act_through_game() -> None:
    """A heuristic subclass that decides in its own `act` (not by the handler table) is asked
    as it is, through a `Game` around the simulated state."""

    class LastOption(AggressivePolicy):
        def act(self, game: Game, seat: int) -> int:
            return game.legal_options()[-1]

    policy = MCTSPolicy(seed=0, iterations=1)
    playout = policy._simulation(LastOption())
    game = Game(GameConfig(num_players=4), seed=3)
    decided = 0
    while not game.terminal:
        options = game.legal_options()
        assert playout.decide(game.state) == options[-1]
        game.apply(options[-1])
        decided += 1
    assert decided > 50


def test_search_leaves_the_game_and_its_event_log_alone() -> None:
    """Simulations switch the event log off in their own clone only."""
    game = Game(GameConfig(num_players=4), seed=5)
    policy = MCTSPolicy(seed=2, iterations=4)
    searched = 0
    while not game.terminal and searched < 3:
        seat = game.state.pending_seat
        before = game.to_json()
        config = game.state.config
        option = policy.act(game, seat)
        searched += policy.last_iterations > 0
        assert game.to_json() == before
        assert game.state.config is config and config.record_events
        game.apply(option)
    assert searched == 3 and game.state.events


def test_budget_variants_are_registered() -> None:
    from dune_env.policies.registry import load_policy

    for budget in (4, 16, 64):
        policy = load_policy(f"mcts-strategist-{budget}", seed=3)
        assert isinstance(policy, MCTSPolicy)
        assert policy.iterations == budget
        assert policy.name == f"mcts-strategist-{budget}"
        assert type(policy.default).__name__ == "StrategistPolicy"
        assert policy.rollout_rounds == 2  # scored two rounds on (issue 34)


def _searched_position(seed: int, round_: int) -> Game:
    """A position of a seeded 4-player game in round `round_` where MCTS searches."""
    game = Game(GameConfig(num_players=4), seed=seed)
    probe = MCTSPolicy(seed=0, iterations=1, rollout="strategist")
    while game.state.round < round_ or game.state.pending_kind not in SEARCHED_KINDS:
        game.apply(probe.default.act(game, game.state.pending_seat))
    assert len(game.legal_options()) > 1
    return game


@pytest.mark.parametrize("rounds", [0, 1, 2])
def test_rollouts_are_scored_past_the_horizon(rounds: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """With `rollout_rounds=k`, a rollout stops at the first decision after round root + k
    ends and is scored by `evaluate`; a game over first is scored by its rewards."""
    import dune_env.policies.mcts as mcts

    scored: list[int] = []
    real = mcts.evaluate

    def recording(state: object) -> list[float]:
        scored.append(state.round)  # type: ignore[attr-defined]
        return real(state)  # type: ignore[arg-type]

    monkeypatch.setattr(mcts, "evaluate", recording)
    game = _searched_position(seed=4, round_=2)
    policy = MCTSPolicy(seed=1, iterations=12, rollout="strategist", rollout_rounds=rounds)
    policy.act(game, game.state.pending_seat)
    assert scored and set(scored) == {game.state.round + rounds + 1}


def test_a_horizon_past_the_last_round_is_the_full_rollout(monkeypatch: pytest.MonkeyPatch) -> None:
    """Rollouts to the end of the game (the default) never call `evaluate`, and a horizon
    beyond round 6 chooses exactly as they do."""
    import dune_env.policies.mcts as mcts

    def fail(state: object) -> list[float]:
        raise AssertionError("a full rollout was cut")

    monkeypatch.setattr(mcts, "evaluate", fail)
    for seed in range(3):
        game = _searched_position(seed=seed, round_=1)
        seat = game.state.pending_seat
        full = MCTSPolicy(seed=seed, iterations=8, rollout="strategist")
        beyond = MCTSPolicy(seed=seed, iterations=8, rollout="strategist", rollout_rounds=6)
        assert full.act(game, seat) == beyond.act(game, seat)


@pytest.mark.parametrize("rollout", ["strategist", "economic", "aggressive"])
def test_rollouts_play_the_heuristics_games(rollout: str) -> None:
    """A rollout (the heuristic's handlers on the bare state, with the die tables kept over
    each turn's dice decisions) plays exactly the game the heuristic plays through `Game`: the
    same history to the end."""
    for seed in range(3):
        game = Game(GameConfig(num_players=4, record_events=False), seed=seed)
        policy = MCTSPolicy(seed=0, iterations=1, rollout=rollout)
        simulated = game.clone()
        policy._rollout(simulated.state, 0)
        while not game.terminal:
            game.apply(policy.default.act(game, game.state.pending_seat))
        assert simulated.state.history == game.state.history
        assert simulated.state.rewards == game.state.rewards


def test_registered_search_is_deterministic_given_its_seed() -> None:
    """`mcts-strategist-4` (rollouts scored two rounds on, the strategist's die tables kept
    over a turn) chooses the same options given the same seed, and each is legal."""
    from dune_env.policies.registry import load_policy

    def run() -> list[int]:
        game = Game(GameConfig(num_players=4), seed=9)
        policy = load_policy("mcts-strategist-4", seed=2)
        chosen = []
        while not game.terminal and len(chosen) < 40:
            seat = game.state.pending_seat
            option = policy.act(game, seat)
            assert option in game.legal_options()
            chosen.append(option)
            game.apply(option)
        return chosen

    assert run() == run()
