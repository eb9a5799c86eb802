"""Human play in the terminal (issue 14, section 2): a whole game driven through stdin, undo,
save and load, clear errors, and only the human seat's own secrets shown."""

from __future__ import annotations

import io
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from dune_env.engine.constants import Faction
from dune_env.engine.decisions import DecisionKind
from dune_env.environment.action_table import KIND_OFFSET
from dune_env.human import PlayError, PlaySession
from dune_env.human.terminal import fix_command, menu, run, toggle_die

ROOT = Path(__file__).resolve().parents[2]


def _dune_play(*args: str, stdin: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "dune_env.human", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
        timeout=600,
    )


def test_a_whole_game_through_stdin() -> None:
    done = _dune_play(
        "--players", "4", "--you", "1", "--opponents", "aggressive", "economic", "ppo-4p",
        "--seed", "5", stdin="h\nb\n" + "1\nd\na\n1\n" * 1000,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "seat 0: aggressive, seat 1: you, seat 2: economic, seat 3: ppo-4p" in out
    assert "u, undo" in out  # the help
    assert "Your decision (seat 1," in out and "    1. " in out
    assert "You: " in out
    assert "  | " in out  # the bots' moves narrated
    assert "\nThe game ended because " in out and "(you)" in out
    assert out.count("Game over.") == 1  # the board's line, not said twice
    assert "Region" in out and "Pending: seat 1" in out  # the board as text
    assert "How to play" in out and "docs/rules.md" in out  # the help explains the game
    assert "[x] faction die A: " in out and "  d: fix " in out  # dice one by one
    assert "(rules ROLL-2..4 in docs/rules.md)" in out  # each decision explained
    assert "Note: " in out  # what the engine did for you, and why


def _fix_dice_session() -> PlaySession:
    """Seat 0's first roll, seven dice just rolled and no Shai-Hulud among them."""
    for seed in range(100):
        session = PlaySession(4, 0, ["random"], seed=seed)
        session.play_bots()
        state = session.game.state
        if session.decision_name() == "FIX_DICE" and not any(state.dice_fixed):
            if state.dice_faces[5] != 5:
                return session
    raise AssertionError("no seed gives a plain first roll")


def test_dice_are_fixed_one_at_a_time_in_the_terminal() -> None:
    """ROLL-2: the player picks dice one by one (never a list of 127 subsets), may put the last
    one back, and "done" plays the composed subset as one FIX_DICE action."""
    session = _fix_dice_session()
    history = len(session.game.state.history)
    out, read = _script(["3", "1", "u", "5", "d", "q"])
    assert run(session, read, out) == 0  # type: ignore[arg-type]
    text = out.getvalue()
    menus = [block for block in text.split("Your decision") if "Fix dice" in block[:40]]
    assert all(block.count("\n    ") <= 8 for block in menus[:4])  # at most 7 dice + done
    assert "[x] faction die C" in text and "Put back faction die A." in text
    row = session.game.state.history[history]
    assert (row.seat, row.kind, row.option) == (0, 4, 0b10100)  # die 2 and the region die


def test_dice_numbers_stay_put_a_second_pick_puts_back_and_a_fixes_all() -> None:
    """ROLL-2: a die keeps its number while picking; choosing it again puts it back; `d` with
    nothing picked is a clear error; `a` fixes every die just rolled."""
    session = _fix_dice_session()
    picked: list[int] = []
    before = [item.label[4:] for item in menu(session, picked)]
    toggle_die(session, picked, 3)
    assert picked == [3] and [item.label[4:] for item in menu(session, picked)] == before
    assert menu(session, picked)[3].label.startswith("[x] faction die D")
    toggle_die(session, picked, 3)
    assert picked == []
    with pytest.raises(PlayError, match="pick at least one die first"):
        fix_command(session, picked, everything=False)
    offset = KIND_OFFSET[DecisionKind.FIX_DICE]
    assert fix_command(session, picked, everything=True) == offset + 0b1111111


def _script(lines: list[str]) -> tuple[io.StringIO, object]:
    queue = list(lines)
    out = io.StringIO()

    def read() -> str | None:
        return queue.pop(0) if queue else None

    return out, read


def test_undo_save_and_load(tmp_path: Path) -> None:
    session = PlaySession(3, 0, ["random"], seed=3)
    session.play_bots()
    start = session.game.snapshot()
    save = tmp_path / "game.json"
    out, read = _script(["2", "d", "u", f"s {save}", "1", "d", f"l {save}", "b", "q"])
    assert run(session, read, out) == 0  # type: ignore[arg-type]
    text = out.getvalue()
    assert "Took back your last decision." in text
    assert f"Saved to {save}." in text and f"Loaded {save}." in text
    assert session.game.snapshot() == start  # loaded the position saved after the undo
    saved = json.loads(save.read_text())
    assert saved["format"] == "dune-env-play" and saved["you"] == 0
    assert saved["seat_policies"] == [None, "random", "random"]


def test_bad_commands_are_one_line_errors(tmp_path: Path) -> None:
    session = PlaySession(3, 0, ["random"], seed=3)
    out, read = _script(["999", "u", "zap", f"l {tmp_path / 'nope.json'}", "s", "q"])
    assert run(session, read, out) == 0  # type: ignore[arg-type]
    errors = [line for line in out.getvalue().splitlines() if line.startswith("! ")]
    assert errors[0].startswith("! choose a number from 1 to ")
    assert errors[1] == "! nothing to undo: you have not decided anything yet"
    assert errors[2] == "! unknown command 'zap' (h for help)"
    assert errors[3].startswith("! cannot read ") and "No such file" in errors[3]
    assert errors[4] == "! save needs a file name: s FILE"
    with pytest.raises(PlayError, match="not one of your legal options"):
        session.choose(-5)
    bad = _dune_play("--opponents", "nosuchbot", stdin="")
    assert bad.returncode == 2 and bad.stderr.startswith("dune-play: unknown policy 'nosuchbot'")
    assert len(bad.stderr.strip().splitlines()) == 1
    seat = _dune_play("--players", "3", "--you", "5", stdin="")
    assert seat.returncode == 2 and "--you 5 is not a seat: use 0..2" in seat.stderr


def test_the_human_sees_only_their_own_secrets() -> None:
    """BATTLE-5 and BG-0: what the session shows the human beyond the public board is their own
    bid in progress and, as the Bene Gesserit, their own prediction; nothing of other seats."""
    saw_prediction = saw_bid = finished = False
    for seed in range(40):
        session = PlaySession(5, 2, ["aggressive"], seed=seed)
        chooser = random.Random(seed)
        session.play_bots()
        while not session.over:
            state = session.game.state
            known = session.your_knowledge() or {}
            bg = state.seat_faction[2] == Faction.BENE_GESSERIT
            assert ("prediction" in known) == (bg and state.bg_prediction >= 0)
            saw_prediction |= "prediction" in known
            if "bid" in known:
                side = 0 if state.active_seat == 2 else 1
                assert known["bid"] == [state.bid_units[side], state.bid_leaders[side]]
                saw_bid = True
            assert set(session.frame()["know"]) == {"2"}
            session.choose(chooser.choice(session.options())[0])
        finished = True
        if saw_prediction and saw_bid:
            break
    assert finished and saw_prediction and saw_bid
