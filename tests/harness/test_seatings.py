"""Seating designs (`dune_env.seatings`): the balanced design (the default), every permutation,
and the line-up's rotations.

Rotations keep the line-up's cyclic order, so in `X strategist economic aggressive` X always sits
just before the strategist; a copy of the strategist in X's place then measures about -0.5
log-odds "below" it (docs/baselines.md, Seat order).  The balanced design seats every policy in
every seat and just before every other equally often (DEF-9: play passes clockwise, so the
seat before acts just before); permutations put every pair in every order, so two identical
policies differ by exactly 0."""

from __future__ import annotations

import itertools
import json
from collections import Counter
from pathlib import Path

import pytest

from dune_env.harness.benchmark import run_benchmark
from dune_env.harness.cli import main as bench_main
from dune_env.match import MAX_PERMUTATIONS, deal_seatings, lineup, schedule
from dune_env.seatings import ORDERS, imbalance, neighbour_counts

COPY = "dune_env.policies.heuristics.strategist:StrategistPolicy"  # the strategist, another name


def test_permutations_play_every_arrangement_of_a_deal_with_one_seed_and_faction_set() -> None:
    specs = schedule(["a", "b", "c", "d"], 4, 48, seed=3, duplicate=True, seatings="permutations")
    for deal in (specs[:24], specs[24:]):
        assert len({g.seed for g in deal}) == 1 and len({g.factions for g in deal}) == 1
        assert {g.seat_policies for g in deal} == set(itertools.permutations("abcd"))
    assert specs[0].seed != specs[24].seed


def test_permutations_put_every_pair_in_every_seat_order_equally() -> None:
    """Under rotations "a" always sits just before "b"; under permutations each of the two
    follows the other as often."""

    def followers(seatings: str) -> Counter[tuple[str, str]]:
        count: Counter[tuple[str, str]] = Counter()
        for seats in deal_seatings(["a", "b", "c", "d"], seatings):
            count.update((seats[i], seats[(i + 1) % 4]) for i in range(4))
        return count

    rotations, permutations = followers("rotations"), followers("permutations")
    assert rotations[("a", "b")] == 4 and rotations[("b", "a")] == 0
    assert permutations[("a", "b")] == permutations[("b", "a")] > 0
    assert len(set(permutations.values())) == 1  # every ordered pair equally often


def test_repeated_policies_give_only_distinct_arrangements() -> None:
    assert len(deal_seatings(["a", "b", "a", "b"], "permutations")) == 6
    specs = schedule(["a", "b"], 4, 12, 0, duplicate=True, seatings="permutations")
    assert len(specs) == 12 and len({g.seed for g in specs}) == 2


def test_bad_seatings_are_refused_with_what_would_be_right() -> None:
    with pytest.raises(ValueError, match="multiple of 24"):
        schedule(["a", "b", "c", "d"], 4, 40, 0, duplicate=True, seatings="permutations")
    with pytest.raises(ValueError, match="balanced, permutations, rotations"):
        schedule(["a", "b"], 4, 8, 0, duplicate=True, seatings="shuffled")
    with pytest.raises(ValueError, match=f"more than {MAX_PERMUTATIONS}"):
        schedule(list("abcdef"), 6, 720, 0, duplicate=True, seatings="permutations")


@pytest.mark.parametrize("n", sorted(ORDERS))
def test_the_balanced_orders_seat_everyone_everywhere_and_before_everyone_equally(n: int) -> None:
    """DEF-9: the seat before acts just before.  n different policies: every policy in every
    seat equally often and just before every other policy equally often; at 3 to 7 players
    also at every longer distance.  n - 1 cyclic orders (2(n - 1) at 4, where n - 1 cannot
    cover every ordered pair once: Tillson; 4(n - 1) at 6, the fewest that also balance
    distance 2), each in its n rotations."""
    base = [f"p{i}" for i in range(n)]
    arranged = deal_seatings(base)
    assert len(ORDERS[n]) == {4: 2, 6: 4}.get(n, 1) * (n - 1)
    assert len(arranged) == n * len(ORDERS[n]) and arranged[0] == tuple(base)
    assert imbalance(arranged, 1) == 0.0
    follows = neighbour_counts(arranged, 1)
    assert set(follows.values()) == {len(arranged) // (n - 1)}
    for d in range(2, n // 2 + 1):
        if n < 8:
            assert imbalance(arranged, d) == 0.0, d
        else:  # 8 players: only the nearest neighbours are balanced exactly
            assert imbalance(arranged, d) <= 3.0


@pytest.mark.parametrize("n", sorted(ORDERS))
@pytest.mark.parametrize("k", [2, 3])
def test_line_ups_that_repeat_a_policy_stay_balanced(n: int, k: int) -> None:
    """Fewer policies than seats (the list repeated): each policy in each seat and next to each
    other as often as seating at random would give, with no arrangement played twice unless
    that keeps the balance."""
    base = lineup([f"p{i}" for i in range(k)], n)
    arranged = deal_seatings(base)
    assert imbalance(arranged, 1) == 0.0
    if len(set(arranged)) < len(arranged):  # repeats kept: then every arrangement is kept
        assert len(arranged) == n * len(ORDERS[n])


def test_the_default_design_is_balanced_also_without_duplicate() -> None:
    """Without --duplicate every game has its own seed, seated in the same design."""
    specs = schedule(["a", "b", "c", "d", "e"], 5, 40, seed=1)
    assert len({g.seed for g in specs}) == 40
    assert [g.seat_policies for g in specs[:20]] == deal_seatings(list("abcde"))
    assert imbalance([g.seat_policies for g in specs[:20]], 1) == 0.0
    old = schedule(["a", "b", "c"], 3, 9, seed=1, seatings="rotations")
    assert [g.seat_policies for g in old[:3]] == deal_seatings(list("abc"), "rotations")


def test_a_copy_of_the_strategist_is_level_with_it_under_permutations(tmp_path: Path) -> None:
    """The paired difference between two identical policies is exactly 0: every game with the
    copy in one seat and the strategist in another is matched by the game with the two swapped."""
    result = run_benchmark(
        [COPY, "strategist", "economic", "aggressive"],
        num_players=4,
        games=24,
        seed=1,
        workers=1,
        out_dir=tmp_path,
        plots=False,
        duplicate=True,
        seatings="permutations",
        bootstrap=20,
    )
    (pair,) = [
        h for h in result.summary["head_to_head"] if {h["a"], h["b"]} == {COPY, "strategist"}
    ]
    assert pair["strength_diff"] == pytest.approx(0.0, abs=1e-9)
    assert pair["control_win_rate_diff"] == 0.0
    assert json.loads((tmp_path / "run.json").read_text())["seatings"] == "permutations"
    assert result.summary["meta"]["seatings"] == "permutations"
    assert "every permutation of the line-up" in (tmp_path / "report.md").read_text()


def test_a_copy_of_the_strategist_is_level_with_it_by_default_but_not_under_rotations(
    tmp_path: Path,
) -> None:
    """With no --seatings flag (the balanced design; at 4 different policies it is every
    permutation) a copy of the strategist reads exactly 0 against it; under the rotations it
    sits just before the strategist in every game and the pair differs."""
    args = ["--policies", COPY, "strategist", "economic", "aggressive", "--duplicate"]
    args += ["--games", "48", "--workers", "1", "--no-progress", "--no-plots", "--seed", "4"]
    assert bench_main([*args, "--out", str(tmp_path / "default")]) == 0
    summary = json.loads((tmp_path / "default" / "summary.json").read_text())
    assert summary["meta"]["seatings"] == "balanced"
    (pair,) = [h for h in summary["head_to_head"] if {h["a"], h["b"]} == {COPY, "strategist"}]
    assert pair["strength_diff"] == pytest.approx(0.0, abs=1e-6)  # (the fit's tolerance)
    assert pair["control_win_rate_diff"] == 0.0
    report = (tmp_path / "default" / "report.md").read_text()
    assert "balanced seatings" in report and "**Seat order**" not in report
    rotated = [*args, "--seatings", "rotations", "--out", str(tmp_path / "rotations")]
    assert bench_main(rotated) == 0
    summary = json.loads((tmp_path / "rotations" / "summary.json").read_text())
    (pair,) = [h for h in summary["head_to_head"] if {h["a"], h["b"]} == {COPY, "strategist"}]
    assert pair["control_win_rate_diff"] != 0.0 or pair["strength_diff"] != pytest.approx(0.0)
    assert "**Seat order**" in (tmp_path / "rotations" / "report.md").read_text()


def test_an_old_rotations_run_resumes_only_with_its_design(tmp_path: Path) -> None:
    """A run.json without "seatings" (before the designs) was played in rotations: resuming it
    under the default names the difference in one line."""
    run = ["--policies", "random", "aggressive", "economic", "--games", "8", "--duplicate"]
    run += ["--no-progress", "--no-plots", "--workers", "1", "--out", str(tmp_path)]
    assert bench_main([*run, "--seatings", "rotations"]) == 0
    assert "seatings" not in json.loads((tmp_path / "run.json").read_text())
    assert bench_main([*run, "--resume"]) == 2
    assert bench_main([*run, "--seatings", "rotations", "--resume"]) == 0


def test_the_order_of_a_deals_games_does_not_depend_on_the_policies_names() -> None:
    """Game k of a deal seats the same line-up positions whatever the policies are called, so
    two runs that differ only in a name play the same games in the same order."""
    renamed = dict(zip("abcd", ["zeta", "alpha", "mu", "beta"], strict=True))
    plain = deal_seatings(list("abcd"), "permutations")
    named = deal_seatings([renamed[c] for c in "abcd"], "permutations")
    assert named == [tuple(renamed[c] for c in seats) for seats in plain]
    assert plain[0] == tuple("abcd")  # the line-up itself first
