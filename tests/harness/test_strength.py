"""The benchmark's statistics: the batch strength fit, duplicate deals, control wins, bad input."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from dune_env.harness import run_benchmark, schedule
from dune_env.harness.cli import main as bench_main
from dune_env.harness.play.types import SeatResult
from dune_env.harness.stats.strength import GameOutcome, fit_strength
from dune_env.harness.stats.summary import summarise
from dune_env.match import lineup
from dune_env.seatings import deal_seatings

TRUE_POLICY = {"random": 0.0, "strong": 1.0, "weak": -0.5}
TRUE_FACTION = {"F0": 0.5, "F1": -0.5, "F2": 0.0, "F3": 1.0, "F4": -1.0}


def synthetic(games: int, seed: int, alliance_every: int = 0) -> list[GameOutcome]:
    """Games drawn from the model itself: seat i wins with probability softmax(u)_i, u_i =
    policy + faction; an alliance is the top two of a Plackett-Luce draw."""
    rng = np.random.default_rng(seed)
    names, factions = sorted(TRUE_POLICY), sorted(TRUE_FACTION)
    out = []
    for g in range(games):
        pols = tuple(str(x) for x in rng.choice(names, 4))
        facs = tuple(str(x) for x in rng.permutation(factions)[:4])
        u = np.array([TRUE_POLICY[p] + TRUE_FACTION[f] for p, f in zip(pols, facs, strict=True)])
        p = np.exp(u) / np.exp(u).sum()
        first = int(rng.choice(4, p=p))
        winners: tuple[int, ...] = (first,)
        if alliance_every and g % alliance_every == 0:
            rest = p.copy()
            rest[first] = 0.0
            winners = tuple(sorted((first, int(rng.choice(4, p=rest / rest.sum())))))
        out.append(GameOutcome(pols, facs, winners, g))
    return out


def test_fit_recovers_known_parameters() -> None:
    """Synthetic results from known strengths and faction effects: the estimates are close
    and the 95% intervals hold the truth."""
    fit = fit_strength(synthetic(6000, 0), bootstrap=60)
    assert fit.reference == "random" and fit.converged
    for name, true in TRUE_POLICY.items():
        assert fit.strength[name] == pytest.approx(true, abs=0.15)
        low, high = fit.strength_ci95[name]
        assert low - 0.05 <= true <= high + 0.05
    for faction, true in TRUE_FACTION.items():
        assert fit.faction_effect[faction] == pytest.approx(true, abs=0.15)


def test_fit_recovers_parameters_from_alliance_games() -> None:
    """Alliances (END-2: two winners) are the top-two set of a Plackett-Luce ranking."""
    fit = fit_strength(synthetic(5000, 1, alliance_every=1), bootstrap=0)
    assert fit.strength["strong"] == pytest.approx(1.0, abs=0.12)
    assert fit.strength["weak"] == pytest.approx(-0.5, abs=0.12)


def test_games_without_winner_are_left_out_and_counted() -> None:
    games = synthetic(400, 2)
    empty = [GameOutcome(g.policies, g.factions, (), 10_000 + i) for i, g in enumerate(games[:50])]
    with_empty = fit_strength(games + empty, bootstrap=0)
    alone = fit_strength(games, bootstrap=0)
    assert with_empty.games_without_winner == 50 and with_empty.games_fitted == 400
    assert with_empty.strength == pytest.approx(alone.strength)


def test_fit_does_not_depend_on_the_order_of_the_games() -> None:
    games = synthetic(600, 3, alliance_every=7)
    shuffled = list(games)
    random.Random(5).shuffle(shuffled)
    a = fit_strength(games, bootstrap=30, seed=4)
    b = fit_strength(shuffled, bootstrap=30, seed=4)
    assert json.dumps(a.to_dict(), sort_keys=True) == json.dumps(b.to_dict(), sort_keys=True)
    assert a.pair_ci95 == b.pair_ci95


def test_a_policy_that_never_wins_is_marked_and_finite() -> None:
    games = [g for g in synthetic(800, 4) if all(g.policies[w] != "weak" for w in g.winners)]
    fit = fit_strength(games, bootstrap=30)
    assert np.isfinite(fit.strength["weak"]) and fit.strength["weak"] < -2
    assert "never won" in fit.notes["weak"]
    low, high = fit.strength_ci95["weak"]
    assert np.isfinite(low) and np.isfinite(high)


def test_reference_without_random_is_the_first_policy_and_must_have_played() -> None:
    games = [GameOutcome(("b", "a", "b"), ("X", "Y", "Z"), (i % 3,), i) for i in range(12)]
    assert fit_strength(games, bootstrap=0).reference == "a"
    with pytest.raises(ValueError, match="did not play"):
        fit_strength(games, reference="zz", bootstrap=0)


def test_no_winner_at_all_is_reported_not_fitted() -> None:
    games = [GameOutcome(("a", "b", "c"), ("X", "Y", "Z"), (), i) for i in range(5)]
    fit = fit_strength(games, bootstrap=10)
    assert not fit.converged and fit.games_fitted == 0
    assert all(v == 0.0 for v in fit.strength.values())


@pytest.mark.parametrize("num_players", [3, 4, 6])
def test_duplicate_schedule_plays_every_seating_of_each_deal(num_players: int) -> None:
    base = lineup(["a", "b", "c"], num_players)
    per_deal = len(deal_seatings(base))
    specs = schedule(["a", "b", "c"], num_players, per_deal * 6, seed=2, duplicate=True)
    for deal in range(6):
        games = specs[deal * per_deal : (deal + 1) * per_deal]
        assert len({g.seed for g in games}) == 1 and len({g.factions for g in games}) == 1
        assert [g.seat_policies for g in games] == deal_seatings(base)
        # every seat holds every policy as often as the line-up holds it
        for seat in range(num_players):
            column = Counter(g.seat_policies[seat] for g in games)
            assert {p: c * num_players for p, c in column.items()} == {
                p: c * per_deal for p, c in Counter(base).items()
            }
    assert len({g.seed for g in specs}) == 6


def test_duplicate_rejects_a_line_up_that_cannot_rotate_and_bad_counts() -> None:
    with pytest.raises(ValueError, match="at least two different policies"):
        schedule(["random"], 4, 8, 0, duplicate=True)
    with pytest.raises(ValueError, match="multiple of 6"):  # A B A B: 6 distinct seatings
        schedule(["a", "b"], 4, 10, 0, duplicate=True)


def test_command_refuses_duplicate_of_one_policy_in_one_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = ["--policies", "random", "--duplicate", "--games", "8", "--no-progress"]
    assert bench_main(args) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("dune-bench:") and "two different policies" in err
    assert len(err.splitlines()) == 1


def test_duplicate_games_of_a_deal_share_chance_outcomes() -> None:
    """The seatings of one deal roll the same opening dice in round 1 (same seed, same
    factions per seat: the first player's first roll cannot depend on who sits where)."""
    from dune_env.engine import Game, GameConfig
    from dune_env.engine.events import EventKind
    from dune_env.harness.play.runner import _policy

    specs = schedule(["aggressive", "economic", "random"], 4, 24, seed=5, duplicate=True)
    for deal in (specs[:12], specs[12:]):  # A E R A: 12 distinct seatings a deal
        first_rolls = set()
        for spec in deal:
            config = GameConfig(num_players=4, faction_mode="assigned", factions=spec.factions)
            game = Game(config, seed=spec.seed)
            policies = [_policy(p, s) for s, p in enumerate(spec.seat_policies)]
            rolls = []
            while not game.terminal and len(rolls) < 1:
                rolls = [e for e in game.state.events if e[0] == EventKind.ROLL]
                if rolls:
                    break
                d = game.pending
                assert d is not None
                game.apply(policies[d.seat].act(game, d.seat))
            first_rolls.add(rolls[0])
        assert len(first_rolls) == 1


def _row(game: int, seat: int, policy: str, won: int, kind: str, bg: int = 0) -> SeatResult:
    return SeatResult(game, game, 3, seat, ["A", "B", "C"][seat], policy, won, 0.0, kind, bg, 6, 9)


def test_control_wins_and_timeout_causes_are_counted() -> None:
    rows = [
        *(_row(0, s, p, int(s == 0), "solo") for s, p in enumerate("xyz")),
        *(_row(1, s, p, int(s in (0, 1)), "alliance") for s, p in enumerate("xyz")),
        *(_row(2, s, p, int(s == 1), "timeout") for s, p in enumerate("xyz")),
        *(_row(3, s, p, int(s == 2), "timeout", bg=1) for s, p in enumerate("xyz")),
        *(_row(4, s, p, int(s == 2), "solo", bg=1) for s, p in enumerate("xyz")),
        *(_row(5, s, p, 0, "none") for s, p in enumerate("xyz")),
    ]
    summary = summarise(rows, bootstrap=0)
    x, y, z = (summary["policies"][p] for p in "xyz")
    assert (x["control_wins"], y["control_wins"], z["control_wins"]) == (2, 1, 0)
    assert y["timeout_wins_by_cause"] == {"guild": 1, "bg_prediction": 0}
    assert z["timeout_wins_by_cause"] == {"guild": 0, "bg_prediction": 1}
    assert z["bg_prediction_wins_on_control"] == 1
    assert summary["strength_fit"]["games_without_winner"] == 1


def test_duplicate_benchmark_reports_strength_and_head_to_head(tmp_path: Path) -> None:
    result = run_benchmark(
        ["aggressive", "random"],
        4,
        games=60,  # 10 deals of 6 seatings: the fewest deals that give intervals
        seed=1,
        duplicate=True,
        bootstrap=20,
        out_dir=tmp_path,
    )
    summary = json.loads((tmp_path / "summary.json").read_text())
    for name in ("aggressive", "random"):
        p = summary["policies"][name]
        assert p["strength"] is not None and len(p["strength_ci95"]) == 2
    assert summary["policies"]["random"]["strength"] == 0.0
    (pair,) = summary["head_to_head"]
    assert pair["deals"] == 10 and len(pair["control_win_rate_diff_ci95"]) == 2
    report = (tmp_path / "report.md").read_text()
    assert "Head to head" in report and "strength (vs random)" in result.leaderboard
    assert (tmp_path / "strength.png").stat().st_size > 1000


@pytest.mark.usefixtures("cheap_suite")
def test_suite_reports_strength_per_player_count(tmp_path: Path) -> None:
    """The standard suite's protocol on a tiny budget (one deal per player count)."""
    from dune_env.harness import suite

    result = suite.run_suite(["random"], short=True, out_dir=tmp_path, plots=False, bootstrap=5)
    assert sorted(result.summaries) == [3, 4, 5, 6]
    # 3 policies fit every table: one line-up per player count, each deal in all its seatings
    assert result.games == sum(
        len(deal_seatings(lineup(["random", "economic", "aggressive"], n))) for n in (3, 4, 5, 6)
    )
    data = json.loads((tmp_path / "suite_summary.json").read_text())
    assert data["version"] == suite.SUITE_VERSION
    assert set(data["strength"]) == {"random", "aggressive", "economic"}
    assert set(data["strength"]["aggressive"]) == {"3", "4", "5", "6"}
    assert (tmp_path / "4p" / "report.md").exists()
    assert "4 players" in result.text


def test_suite_refuses_flags_it_fixes(capsys: pytest.CaptureFixture[str]) -> None:
    assert bench_main(["--suite", "standard", "--players", "4", "--no-progress"]) == 2
    assert "drop --players" in capsys.readouterr().err


def test_leaderboard_marks_a_policy_that_never_wins() -> None:
    """Bad input: a policy that never wins gets a finite, marked strength, not a crash."""
    from dune_env.harness.runs.report import leaderboard

    rows = [
        _row(g, s, p, int(p == ("x" if g % 3 else "y")), "solo")
        for g in range(12)
        for s, p in enumerate("xyz")
    ]
    summary = summarise(rows, bootstrap=20)
    z = summary["policies"]["z"]
    assert z["strength"] is not None and np.isfinite(z["strength"])
    assert "never won" in z["strength_note"]
    text = leaderboard(summary)
    assert "| z | 12 |" in text and "† z: never won" in text


def test_a_users_policy_is_not_the_zero_of_the_scale_next_to_a_built_in_one() -> None:
    """Without random the reference is the first fixed baseline that plays (aggressive, then
    economic, strategist...), not whichever name sorts first."""
    from dune_env.harness.stats.strength import choose_reference

    assert choose_reference(["aaa_my_agent", "strategist", "economic"]) == "economic"
    assert choose_reference(["aaa_my_agent", "strategist", "random"]) == "random"
    assert choose_reference(["mcts-strategist-16", "strategist"]) == "strategist"
    declining = ["/runs/agent.safetensors", "strategist-declines", "economic-declines"]
    assert choose_reference(declining) == "economic-declines"  # a fixed baseline, not the path
    assert choose_reference(["zed", "alpha"]) == "alpha"  # no baseline plays: by name
