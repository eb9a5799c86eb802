"""Duplicate deals under every permutation of the line-up (`--seatings permutations`).

Rotations keep the line-up's cyclic order, so in `X strategist economic aggressive` X always sits
just before the strategist; a copy of the strategist in X's place then measures about -0.4
log-odds "below" it (docs/baselines.md, Seat order).  Permutations put every pair in every
order, so two identical policies differ by exactly 0."""

from __future__ import annotations

import itertools
import json
from collections import Counter
from pathlib import Path

import pytest

from dune_env.harness.benchmark import run_benchmark
from dune_env.harness.cli import main as bench_main
from dune_env.match import MAX_PERMUTATIONS, deal_seatings, schedule

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
    with pytest.raises(ValueError, match="needs --duplicate"):
        schedule(["a", "b"], 4, 8, 0, seatings="permutations")
    with pytest.raises(ValueError, match="rotations, permutations"):
        schedule(["a", "b"], 4, 8, 0, duplicate=True, seatings="shuffled")
    with pytest.raises(ValueError, match=f"more than {MAX_PERMUTATIONS}"):
        schedule(list("abcdef"), 6, 720, 0, duplicate=True, seatings="permutations")


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


def test_command_refuses_seatings_without_duplicate_in_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    args = ["--policies", "random", "aggressive", "--seatings", "permutations", "--games", "8"]
    assert bench_main([*args, "--no-progress", "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("dune-bench:") and "needs --duplicate" in err
    assert len(err.splitlines()) == 1


def test_the_order_of_a_deals_games_does_not_depend_on_the_policies_names() -> None:
    """Game k of a deal seats the same line-up positions whatever the policies are called, so
    two runs that differ only in a name play the same games in the same order."""
    renamed = dict(zip("abcd", ["zeta", "alpha", "mu", "beta"], strict=True))
    plain = deal_seatings(list("abcd"), "permutations")
    named = deal_seatings([renamed[c] for c in "abcd"], "permutations")
    assert named == [tuple(renamed[c] for c in seats) for seats in plain]
    assert plain[0] == tuple("abcd")  # the line-up itself first
