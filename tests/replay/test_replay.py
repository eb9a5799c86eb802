"""Replays (issue 14, section 1): records, frames, visibility, files, the command line."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from dune_env.engine import Game, GameConfig
from dune_env.engine.decisions import DecisionKind
from dune_env.engine.state import Phase
from dune_env.harness import run_benchmark
from dune_env.replay import (
    ReplayError,
    ReplayRecord,
    benchmark_record,
    build_frames,
    play_policies,
    replay_html,
    write_replay_html,
)

from .helpers import game_at

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def record() -> ReplayRecord:
    return play_policies(["aggressive", "economic", "random", "random", "aggressive"], seed=4)


@pytest.fixture(scope="module")
def data(record: ReplayRecord) -> dict:
    return build_frames(record)


def test_frames_follow_the_engine(record: ReplayRecord, data: dict) -> None:
    frames = data["frames"]
    assert len(frames) == len(record.options) + 1
    assert frames[-1]["over"] == 1 and "decision" not in frames[-1]
    for k in (0, 1, len(frames) // 3, len(frames) // 2, len(frames) - 1):
        game = game_at(record, k)
        frame = frames[k]
        assert frame["units"] == game.state.units
        assert frame["tokens"] == game.state.region_token
        assert frame["storm"] == game.state.storm_sector and frame["round"] == game.state.round
        assert frame["dice"] == game.state.dice_faces
        if k < len(record.options):
            decision = frame["decision"]
            assert decision["seat"] == game.state.pending_seat
            assert (
                decision["chosen"] - decision["legal"][0] + game.legal_options()[0]
                == record.options[k]
            )
    final = game_at(record, len(record.options))
    assert final.terminal and frames[-1]["winners"] == final.winners
    assert len(data["events"]) == frames[-1]["ev"] > 0


def test_seat_views_hide_bids_and_the_prediction(record: ReplayRecord, data: dict) -> None:
    """BATTLE-5: a side's bid in progress is known to its decider only; BG-0: the prediction to
    the Bene Gesserit only.  The viewer's per-seat knowledge is read from the observer."""
    frames = data["frames"]
    bid_frames = 0
    for k, frame in enumerate(frames):
        game = game_at(record, k) if frame.get("decision", {}).get("kind") == "BID" else None
        if game is None:
            continue
        s = game.state
        attacker = s.active_seat
        defender = s.faction_seat[s.battle_defender]
        side = 0 if s.phase == Phase.BATTLE_BID_ATTACKER else 1
        decider = attacker if side == 0 else defender
        assert frame["decision"]["hidden"] == 1 and frame["decision"]["seat"] == decider
        if any(s.bid_units[side]) or any(s.bid_leaders[side]):
            assert frame["know"][str(decider)]["bid"] == [s.bid_units[side], s.bid_leaders[side]]
            bid_frames += 1
        for seat in range(s.num_players):
            if seat not in (attacker, decider):
                assert "bid" not in (frame["know"][str(seat)] or {})
        assert frame["know"]["all"]["bids"][side] == [s.bid_units[side], s.bid_leaders[side]]
    assert bid_frames > 0
    bg = [seat for seat, f in enumerate(frames[-1]["factions"]) if f == 6]
    assert bg, "a 5-player game has the Bene Gesserit"
    later = frames[len(frames) // 2]
    assert later["know"][str(bg[0])]["prediction"] == later["know"]["all"]["prediction"] >= 0
    for seat in range(5):
        if seat != bg[0]:
            assert "prediction" not in (later["know"][str(seat)] or {})
    prediction = [f for f in frames if f.get("decision", {}).get("kind") == "BG_PREDICTION"]
    assert prediction and all(f["decision"]["hidden"] for f in prediction)


def test_snapshot_replays_without_the_seed(record: ReplayRecord) -> None:
    game = game_at(record, len(record.options) // 2)
    from_snapshot = ReplayRecord.from_snapshot(game.snapshot())
    assert from_snapshot.seed is None
    frames = build_frames(from_snapshot)["frames"]
    assert len(frames) == len(record.options) // 2 + 1
    assert frames[-1]["units"] == game.state.units
    assert frames[-1]["decision"]["chosen"] is None  # a game in progress: the last decision is open
    assert from_snapshot.start().state.history[0] == record.start().state.history[0]


def test_record_files_round_trip(tmp_path: Path, record: ReplayRecord) -> None:
    path = tmp_path / "game.json"
    path.write_text(record.to_json())
    assert ReplayRecord.load(path) == record
    snapshot = tmp_path / "snap.json"
    snapshot.write_text(game_at(record, 30).to_json())
    assert len(ReplayRecord.load(snapshot).options) == 30
    bad = tmp_path / "bad.json"
    bad.write_text('{"hello": 1}')
    with pytest.raises(ReplayError, match="not a replay"):
        ReplayRecord.load(bad)
    bad.write_text(json.dumps({**record.to_dict(), "options": [999, 999]}))
    with pytest.raises(ReplayError, match="option 0 of the replay is not legal"):
        build_frames(ReplayRecord.load(bad))


def test_html_is_self_contained(tmp_path: Path, record: ReplayRecord) -> None:
    page = replay_html(record)
    assert page.count("<script") == 3 and "src=" not in page and "<link" not in page
    assert "http://" not in page.replace('xmlns="http://www.w3.org/2000/svg"', "").replace(
        'const SVGNS = "http://www.w3.org/2000/svg"', ""
    )
    assert "https://" not in page
    assert "default-src 'none'" in page  # the browser refuses any network load
    # The harness hook: a record's dict, or a Game with its seed.
    out = write_replay_html(record.to_dict(), tmp_path / "a" / "game.html")
    assert out.read_text() == page
    game = Game(GameConfig(num_players=3), seed=9)
    while not game.terminal:
        game.apply(game.legal_options()[-1])
    assert write_replay_html(game, tmp_path / "b.html", seed=9).stat().st_size > 10_000


def test_benchmark_game_by_index(tmp_path: Path) -> None:
    run_benchmark(
        ["aggressive", "random"],
        num_players=3,
        games=4,
        seed=2,
        workers=1,
        out_dir=tmp_path,
        progress=False,
        plots=False,
    )
    record = benchmark_record(tmp_path, 3)
    rows = [
        r for r in (tmp_path / "results.csv").read_text().splitlines()[1:] if r.startswith("3,")
    ]
    assert record.seed == int(rows[0].split(",")[1])
    frames = build_frames(record)["frames"]
    assert frames[-1]["over"] == 1
    with pytest.raises(ReplayError, match="out of range: that run has games 0..3"):
        benchmark_record(tmp_path, 4)
    with pytest.raises(ReplayError, match="not a dune-bench --out folder"):
        benchmark_record(tmp_path / "nothing", 0)


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "dune_env.replay", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
        timeout=300,
    )


def test_command_line(tmp_path: Path) -> None:
    out = tmp_path / "game.html"
    done = _cli("--policies", "aggressive", "random", "random", "--seed", "3", "--out", str(out),
                "--save-record", str(tmp_path / "game.json"))  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert out.exists() and "wrote" in done.stdout
    again = _cli(str(tmp_path / "game.json"), "--out", str(tmp_path / "again.html"))
    assert again.returncode == 0, again.stderr
    assert (tmp_path / "again.html").read_text() == out.read_text()
    bad = _cli("--policies", "nosuchbot", "random", "random", "--out", str(tmp_path / "x.html"))
    assert bad.returncode == 2
    assert bad.stderr.startswith("dune-replay: unknown policy 'nosuchbot'")
    assert "Traceback" not in bad.stderr and len(bad.stderr.strip().splitlines()) == 1
    missing = _cli(str(tmp_path / "missing.json"))
    assert missing.returncode == 2 and "cannot read" in missing.stderr
    both = _cli(str(tmp_path / "game.json"), "--policies", "random")
    assert both.returncode == 2 and "exactly one of" in both.stderr


def test_decision_kinds_of_the_record_are_real(data: dict) -> None:
    kinds = {f["decision"]["kind"] for f in data["frames"] if "decision" in f}
    assert kinds <= {k.name for k in DecisionKind}
    assert "FIX_DICE" in kinds


def test_a_suite_folder_names_one_of_its_runs(tmp_path: Path) -> None:
    """`make run` writes a suite (one run per player count and line-up): pointing dune-replay at
    the suite folder says which folder to give instead."""
    from dune_env.replay.record import benchmark_record

    (tmp_path / "suite_summary.json").write_text("{}")
    (tmp_path / "4p" / "lineup0").mkdir(parents=True)
    (tmp_path / "4p" / "lineup0" / "summary.json").write_text("{}")
    with pytest.raises(ReplayError, match=r"holds a benchmark suite: .*4p/lineup0"):
        benchmark_record(tmp_path, 0)


def test_a_suite_or_player_count_folder_with_players_and_lineup(tmp_path: Path) -> None:
    """`dune-replay --benchmark SUITE --players N --lineup J` finds the run {N}p/lineup{J}; the
    player-count folder takes --lineup; where a choice is missing, the one-line error lists
    the choices."""
    from dune_env.replay.record import benchmark_run_dir

    run = tmp_path / "run"
    run_benchmark(["aggressive", "random"], num_players=3, games=3, seed=2, workers=1,
                  out_dir=run, progress=False, plots=False)  # fmt: skip
    suite = tmp_path / "suite"
    for players, lineup in ((3, 0), (3, 1), (4, 0)):
        shutil.copytree(run, suite / f"{players}p" / f"lineup{lineup}")
    (suite / "suite_summary.json").write_text("{}")
    assert benchmark_run_dir(run) == run
    assert benchmark_run_dir(suite, 3, 1) == suite / "3p" / "lineup1"
    assert benchmark_run_dir(suite / "4p") == suite / "4p" / "lineup0"  # the only line-up
    assert benchmark_run_dir(suite / "3p", lineup=0) == suite / "3p" / "lineup0"
    with pytest.raises(ReplayError, match=r"holds a benchmark suite: add --players N \(N: 3, 4\)"):
        benchmark_run_dir(suite)
    with pytest.raises(ReplayError, match=r"holds 2 line-ups: add --lineup J \(J: 0 \(aggressive"):
        benchmark_run_dir(suite, 3)
    with pytest.raises(ReplayError, match="no line-up 7: use --lineup J"):
        benchmark_run_dir(suite / "3p", lineup=7)
    with pytest.raises(ReplayError, match="is a single run: drop --players/--lineup"):
        benchmark_run_dir(run, lineup=0)
    out = tmp_path / "g.html"
    done = _cli("--benchmark", str(suite), "--players", "3", "--lineup", "1", "--game", "2",
                "--out", str(out))  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert out.exists()
    done = _cli("--benchmark", str(suite / "3p"), "--game", "2", "--out", str(out))
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1
    assert "--lineup J" in done.stderr and "Traceback" not in done.stderr


def test_a_run_folder_with_imported_policies_needs_trust(tmp_path: Path) -> None:
    """A run folder is data: replaying it must not import the code its summary.json names
    (SECURITY.md) unless the user says they trust it."""
    from dune_env.replay.record import benchmark_record

    marker = tmp_path / "ran"
    (tmp_path / "evil_policy.py").write_text(
        f"import pathlib\npathlib.Path({str(marker)!r}).write_text('x')\n"
        "from dune_env.policies.base import RandomPolicy as Policy\n"
    )
    run = tmp_path / "run"
    run.mkdir()
    meta = {"policies": ["evil_policy:Policy", "random"], "num_players": 3, "games_requested": 3}
    (run / "summary.json").write_text(json.dumps({"meta": {**meta, "seed": 0, "config": {}}}))
    with pytest.raises(ReplayError, match=r"'evil_policy:Policy' is imported code"):
        benchmark_record(run, 0)
    assert not marker.exists()
