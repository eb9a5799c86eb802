"""Issue 11 §4: `env.restore(snapshot)` on a fresh wrapped environment starts the episode, as
reset() does (docs/environment.md)."""

from __future__ import annotations

from dune_env import dune_v1
from dune_env.engine import Faction, Phase, Scenario


def test_restore_without_reset_starts_the_episode() -> None:
    source = dune_v1.env(num_players=4)
    source.reset(seed=5)
    for _ in range(6):
        source.step(int(source.last()[0]["action_mask"].nonzero()[0][0]))
    snapshot = source.unwrapped.snapshot()

    env = dune_v1.env(num_players=4)
    env.restore(snapshot)  # no reset() first
    assert env.agent_selection == source.agent_selection
    observation, reward, termination, truncation, _ = env.last()
    assert not termination and not truncation
    env.step(int(observation["action_mask"].nonzero()[0][0]))
    assert env.unwrapped.game.state.decision_count > snapshot["decision_count"]


def test_docs_example_restores_a_scenario_without_reset() -> None:
    """The docs' example: env.restore(scenario.at(Phase.KANLY).snapshot())."""
    scenario = Scenario([Faction.ATREIDES, Faction.HARKONNEN, Faction.CORRINO]).units(
        Faction.ATREIDES, 6, 2
    )
    env = dune_v1.env(num_players=3)
    env.restore(scenario.at(Phase.KANLY).snapshot())
    for _agent in env.agent_iter(max_iter=10_000):
        observation, _, termination, truncation, _ = env.last()
        env.step(
            None if termination or truncation else int(observation["action_mask"].nonzero()[0][0])
        )
    assert not env.agents
