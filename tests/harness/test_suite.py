"""The standard suite (v3): its line-ups (every policy seated where it may play, every pair of
policies at the table equally often), its standings (ranks shared where the paired interval
contains 0), the published table's generator, and where a new agent lands in it."""

from __future__ import annotations

import itertools
import json
import math
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from dune_env.harness import leaderboard, suite
from dune_env.harness.cli import main as bench_main
from dune_env.provenance import software_record


def test_suite_v3_holds_the_search_the_heuristics_and_every_shipped_learned_model() -> None:
    assert suite.SUITE_VERSION == 3
    policies = suite.suite_policies(None)
    assert policies[0] == "ppo-4p"  # the default candidate first, then the references
    learned = {"residual-4p", "residual-5p", "bc-4p", "bc-5p"}
    assert {"strategist", "mcts-strategist-16", "random"} | learned <= set(policies)
    assert suite.suite_policies(["mine"]) == ["mine", *suite.REFERENCES]
    twice = suite.suite_policies(["mine", "random"])  # a candidate that is a reference: once
    assert sorted(twice) == sorted(["mine", *suite.REFERENCES])
    short = suite.suite_policies(None, short=True)
    assert "mcts-strategist-16" not in short and set(short) == set(policies) - {
        "mcts-strategist-16"
    }


@pytest.mark.parametrize("candidates", [None, ["mine"], ["a", "b", "c"]])
@pytest.mark.parametrize("players", suite.PLAYER_COUNTS)
def test_every_policy_meets_every_other_in_balanced_line_ups(
    candidates: list[str] | None, players: int
) -> None:
    policies = suite.suite_policies(candidates)
    seated = suite.seated_at(policies, players)
    groups = suite.lineups(seated, players)
    assert all(len(group) == players for group in groups)
    # the networks trained for one player count sit at that count only; every other policy sits
    only = {"bc-4p": 4, "residual-4p": 4, "bc-5p": 5, "residual-5p": 5}
    assert set(seated) == {p for p in policies if only.get(p, players) == players}
    assert {p for group in groups for p in group} == set(seated)
    seats = Counter(p for group in groups for p in group)
    pairs = Counter(pq for group in groups for pq in itertools.combinations(sorted(group), 2))
    together = [pairs[pq] for pq in itertools.combinations(sorted(seated), 2)]
    if len(seated) > players:  # no repeats in a line-up
        assert all(len(set(group)) == players for group in groups)
        assert len(groups) == min(math.comb(len(seated), players), suite.MAX_LINEUPS)
        assert max(seats.values()) - min(seats.values()) <= 1
        assert min(together) >= 1  # every pair meets
        if len(groups) == math.comb(len(seated), players):  # all combinations: exactly even
            assert len(set(seats.values())) == 1 and len(set(together)) == 1
    else:
        assert groups == [seated + seated[: players - len(seated)]] or groups == [seated]


def test_the_default_suite_plays_every_combination() -> None:
    policies = suite.suite_policies(None)
    counts = {n: len(suite.lineups(suite.seated_at(policies, n), n)) for n in suite.PLAYER_COUNTS}
    assert counts == {3: 20, 4: 70, 5: 56, 6: 1}


def test_standings_share_a_rank_where_the_paired_interval_contains_0() -> None:
    """Ranks follow the strength; a policy whose paired difference to the one above has an
    interval containing 0 (or none) shares its rank, printed `2=`."""
    from dune_env.harness.runs.report import standings_table
    from dune_env.harness.stats.verdict import rank_label, standings

    def entry(strength: float) -> dict[str, Any]:
        return {"strength": strength, "strength_ci95": [strength - 1, strength + 1], "win_rate": 0}

    summary = {
        "policies": {"a": entry(2.0), "b": entry(1.0), "c": entry(0.9), "d": entry(0.0)},
        "strength_fit": {"reference": "d"},
        "head_to_head": [
            {"a": "a", "b": "b", "strength_diff": 1.0, "strength_diff_ci95": [0.2, 1.8]},
            {"a": "b", "b": "c", "strength_diff": 0.1, "strength_diff_ci95": [-0.3, 0.5]},
            {"a": "c", "b": "d", "strength_diff": 0.9, "strength_diff_ci95": None},
        ],
    }
    items = standings(summary)
    assert [(i["name"], i["rank"], i["tied"]) for i in items] == [
        ("a", 1, False),
        ("b", 2, False),
        ("c", 2, True),
        ("d", 2, True),  # no interval: not ordered either
    ]
    assert [rank_label(i, items) for i in items] == ["1", "2=", "2=", "2="]
    table = standings_table(summary)
    assert "| 2= | c | +0.90 | [-0.10, +1.90] | -0.10 | [-0.50, +0.30] |" in table
    assert "| 1 | a |" in table and "`=`" in table


# ---------------------------------------------------------------------------------------------
# The generator and the placement, on a tiny suite (3 players, fast heuristics, one deal)


@pytest.fixture
def tiny_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cheap_suite: None) -> Path:
    monkeypatch.setattr(suite, "PLAYER_COUNTS", (3,))
    folder = tmp_path / "run"
    suite.run_suite(["random"], short=True, out_dir=folder, plots=False, bootstrap=5)
    return folder


def test_the_generator_writes_the_table_with_its_command_and_versions(
    tiny_run: Path, tmp_path: Path
) -> None:
    md, data = tmp_path / "leaderboard.md", tmp_path / "data" / "leaderboard_v3.json"
    args = ["--from", str(tiny_run), "--markdown", str(md), "--json", str(data)]
    assert leaderboard.main([*args, "--note", "Played twice."]) == 0
    text = md.read_text()
    assert "- **Note**: Played twice." in text
    assert f"dune_v1 standard suite v{suite.SUITE_VERSION} (short)" in text
    assert (
        f"`dune-bench --suite standard-short --policies random --workers 1 --out {tiny_run}`"
        in (text)
    )
    software = software_record()
    # (Markdown-escaped: dune\_env renders as dune_env)
    assert f"{software['build']} build, dune\\_env {software['dune_env']}" in text
    assert "## 3 players" in text and "0 (reference)" in text
    assert re.search(r"^\| 1=? \| ", text, re.M) and "minus the row above" in text
    table = leaderboard.load_published(data.parent)
    assert table is not None and table["version"] == suite.SUITE_VERSION
    rows = table["player_counts"]["3"]["rows"]
    assert {r["policy"] for r in rows} == {"economic", "aggressive", "random"}
    assert table["software"]["build"] == software["build"]
    strengths = [r["strength"] for r in rows]
    assert strengths == sorted(strengths, reverse=True)  # strongest first


def test_the_generator_says_when_player_counts_record_different_software(
    tiny_run: Path,
) -> None:
    """A suite continued after its code changed: the page names each count's software."""
    summary = json.loads((tiny_run / "3p" / "summary.json").read_text())
    summary["meta"]["software"]["git"] = {"commit": "f" * 40, "local_changes": False}
    (tiny_run / "4p").mkdir()
    (tiny_run / "4p" / "summary.json").write_text(json.dumps(summary))
    table = leaderboard.build_table(tiny_run)
    assert sorted(table["player_counts"]) == ["3", "4"]
    note = table["software_by_player_count"]
    assert note.startswith("3p: ") and "; 4p: " in note and "git commit ffffffffffff" in note
    page = leaderboard.render_markdown(table, "the generator")
    assert f"- **Software by player count** (they differ): {leaderboard.md(note)}" in page
    (tiny_run / "4p" / "summary.json").unlink()
    assert leaderboard.build_table(tiny_run)["software_by_player_count"] is None


def test_the_generator_refuses_a_folder_that_is_not_a_finished_suite(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Bad input: one clear line, nothing written."""
    md = tmp_path / "leaderboard.md"
    assert leaderboard.main(["--from", str(tmp_path), "--markdown", str(md)]) == 2
    err = capsys.readouterr().err
    assert "suite_summary.json is missing: not a finished suite's folder" in err
    assert len(err.strip().splitlines()) == 1 and not md.exists()


@pytest.mark.usefixtures("cheap_suite")
def test_the_generator_plays_the_full_suite_first_with_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(suite, "PLAYER_COUNTS", (3,))
    monkeypatch.setattr(suite, "DEALS", dict.fromkeys(suite.DEALS, 1))
    out, md, data = tmp_path / "run", tmp_path / "l.md", tmp_path / "l.json"
    args = ["--run", "--out", str(out), "--markdown", str(md), "--json", str(data)]
    assert leaderboard.main(args) == 0
    text = md.read_text()
    assert (
        f"`dune-bench --suite standard --workers 1 --out {out}`" in text and "(short)" not in text
    )
    # a second --run into the finished folder is refused without --resume (nothing replaced)
    assert leaderboard.main(args) == 2
    assert "is not empty; add --resume" in capsys.readouterr().err


def _published(version: int = suite.SUITE_VERSION, build: str | None = None) -> dict[str, Any]:
    """A small fake published table at 3 players."""

    def row(policy: str, strength: float | None) -> dict[str, Any]:
        return {
            "policy": policy,
            "strength": strength,
            "strength_ci95": None if strength in (None, 0.0) else [strength - 0.5, strength + 0.5],
            "win_rate": 0.3,
            "win_rate_ci95": [0.2, 0.4],
            "control_win_rate": 0.1,
            "control_win_rate_ci95": [0.05, 0.15],
            "seats": 100,
        }

    rows = [row("strategist", 9.0), row("economic", 1.0), row("random", 0.0)]
    return {
        "suite": suite.SUITE_NAME,
        "version": version,
        "short": False,
        "seed": 0,
        "software": {"build": build or software_record()["build"], "dune_env": "0.1.0"},
        "player_counts": {"3": {"reference": "random", "rows": rows}},
    }


def _publish(directory: Path, table: dict[str, Any], version: int) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / f"leaderboard_v{version}.json").write_text(json.dumps(table))


CANDIDATE = ["--suite", "standard-short", "--policies", "aggressive", "--workers", "1"]


@pytest.mark.usefixtures("cheap_suite")
def test_the_suite_prints_where_the_candidate_lands_in_the_published_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(suite, "PLAYER_COUNTS", (3,))
    monkeypatch.setattr(leaderboard, "DATA_DIR", tmp_path / "data")
    _publish(tmp_path / "data", _published(), suite.SUITE_VERSION)
    assert (
        bench_main([*CANDIDATE, "--no-progress", "--no-plots", "--out", str(tmp_path / "o")]) == 0
    )
    out = capsys.readouterr().out
    placement = out[out.index("Where the candidates land") :]
    # same version, build and seed: the one note is that this run is the short suite
    notes = [line for line in placement.splitlines() if line.startswith("Note:")]
    assert "3 players:" in placement and len(notes) == 1 and "short suite" in notes[0]
    table = [line for line in placement.splitlines() if line.startswith("| ")][1:]
    names = [line.split(" | ")[1] for line in table]
    # the candidate's row among the published rows, ranked by strength (far below 9, the
    # strategist's; random's published 0 and economic's 1 decide its rank)
    assert names[0] == "strategist" and "**aggressive (this run)**" in names
    assert set(names) == {"strategist", "economic", "random", "**aggressive (this run)**"}
    rank = names.index("**aggressive (this run)**") + 1
    landing = re.search(
        r"- aggressive: [+-]\d+\.\d\d, rank (\d) of 4 at 3 players, below (\S+)", out
    )
    assert landing is not None and int(landing[1]) == rank and landing[2] == names[rank - 2]


@pytest.mark.usefixtures("cheap_suite")
def test_the_placement_notes_another_suite_version_build_and_length(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(suite, "PLAYER_COUNTS", (3,))
    monkeypatch.setattr(leaderboard, "DATA_DIR", tmp_path / "data")
    other_build = "pure" if software_record()["build"] == "compiled" else "compiled"
    _publish(tmp_path / "data", _published(version=1, build=other_build), 1)
    args = [*CANDIDATE, "--no-progress", "--no-plots", "--seed", "3", "--out", str(tmp_path / "o")]
    assert bench_main(args) == 0
    out = capsys.readouterr().out
    assert "the published table was made by suite v1, this run is v3" in out
    assert f"made on the {other_build} build, this run on the" in out
    assert "this run is the short suite" in out and "this run used seed 3" in out


@pytest.mark.usefixtures("cheap_suite")
@pytest.mark.parametrize(("key", "bad"), [("strength", "strong"), ("win_rate_ci95", [0.1])])
def test_a_malformed_published_table_is_one_line_not_a_crash(
    key: str,
    bad: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Bad input: the published file is data; a malformed one is named, the run still passes."""
    monkeypatch.setattr(suite, "PLAYER_COUNTS", (3,))
    monkeypatch.setattr(leaderboard, "DATA_DIR", tmp_path / "data")
    broken = _published()
    broken["player_counts"]["3"]["rows"][0][key] = bad
    _publish(tmp_path / "data", broken, suite.SUITE_VERSION)
    assert (
        bench_main([*CANDIDATE, "--no-progress", "--no-plots", "--out", str(tmp_path / "o")]) == 0
    )
    err = capsys.readouterr().err
    assert "the published table was not read" in err and "is not a published leaderboard" in err
    assert "Traceback" not in err


def test_the_shipped_table_is_the_current_suite_version() -> None:
    """The package data's table (docs/leaderboard.md's copy) is of this suite version."""
    table = leaderboard.load_published()
    assert table is not None and table["version"] == suite.SUITE_VERSION
    assert not table["short"] and table["seed"] == 0
    assert sorted(table["player_counts"]) == [str(n) for n in suite.PLAYER_COUNTS]


def test_a_candidate_is_not_ranked_against_its_own_published_row() -> None:
    """A published candidate (ppo-4p is in the published table) lands among the *other*
    published rows; its own published strength is named apart, not as a neighbour."""
    rows = [
        {"policy": "economic", "strength": 1.0, "mark": ""},
        {"policy": "ppo-4p", "strength": 0.41, "mark": " (published)"},
        {"policy": "ppo-4p", "strength": 0.41, "mark": " (this run)"},
        {"policy": "random", "strength": 0.0, "mark": ""},
    ]
    text = leaderboard._landing(rows[2], rows, 3)
    assert text == (
        "- ppo-4p: +0.41 (its published row: +0.41), rank 2 of 3 at 3 players, "
        "below economic (+1.00) and above random (+0.00)."
    )
