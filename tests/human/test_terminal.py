"""Human play in the terminal (issue 14, section 2): a whole game driven through stdin, undo,
save and load, clear errors, and only the human seat's own secrets shown."""

from __future__ import annotations

import io
import json
import os
import pty
import random
import re
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from dune_env.engine import Game, Phase, Region, Scenario
from dune_env.engine.constants import Faction
from dune_env.engine.decisions import DecisionKind
from dune_env.environment.action_table import KIND_OFFSET
from dune_env.human import PlayError, PlaySession, story
from dune_env.human.terminal import board_text, fix_command, menu, run, toggle_die

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
        "--seed", "5", stdin="h\nb\n" + "1\nd\na\n1\n5\n" * 1000,
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
    assert "Region" in out and "Neighbours" in out  # the board as text
    assert "How to play" in out and "docs/rules.md" in out  # the help explains the game
    assert "[x] faction die: " in out and "  d: fix " in out  # dice one by one
    assert "(rules ROLL-2..4 in docs/rules.md)" in out  # each decision explained
    assert "Note: " in out  # what the engine did for you, and why
    assert "-- The bots have played (above). Press Enter" in out  # the pause after their turns
    # Game over: nobody is active on the last board; the victory names seats as people do.
    last_board = out[out.rindex("Dune - round ") :]
    assert "Active: nobody (game over)" in last_board
    assert "seat(s)" not in out and re.search(r"\| Victory .*: (seats? [\d, ]+|nobody)\.", out)


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
    out, read = _script(_after_pause(session, ["3", "1", "u", "5", "d", "q"]))
    assert run(session, read, out) == 0  # type: ignore[arg-type]
    text = out.getvalue()
    menus = [block for block in text.split("Your decision") if "Fix dice" in block[:40]]
    numbers = [int(n) for block in menus for n in re.findall(r"\n +(\d+)\. ", block)]
    assert numbers and max(numbers) <= 7  # a line per die, never a list of subsets
    assert "    3. [x] faction die: " in text and "Put back faction die 1." in text
    row = session.game.state.history[history]
    assert (row.seat, row.kind, row.option) == (0, 4, 0b10100)  # dice 3 and 5 (the region die)


def test_dice_are_numbered_1_to_7_in_the_menu_the_log_and_the_board() -> None:
    """ROLL-2: one numbering of the dice everywhere the player sees them: die n is line n of
    the menu (it keeps its number after the dice before it are fixed), the log's "Roll of dice
    ..." and "fixes die ..." and the board's dice line (1-4 faction dice, 5 region, 6 spice,
    7 Kanly).  They used to be 1-7 in the menu and 0-6 in the log."""
    session = _fix_dice_session()
    out, read = _script(_after_pause(session, ["1", "2", "d", "q"]))
    assert run(session, read, out) == 0  # type: ignore[arg-type]
    text = out.getvalue()
    flat = " ".join(text.split())  # (the board wraps its long lines)
    assert "Dice: 1 " in flat and " | 5 region " in flat and " | 6 spice " in flat
    assert "\n  | Roll of dice 3, 4, 5, 6, 7: " in text  # the reroll, after fixing dice 1 and 2
    second = text.split("You: fix ")[1]
    assert "    3. [ ] faction die: " in second and "    7. [ ] Kanly die: " in second
    assert "    1. [" not in second  # fixed dice leave the menu; the others keep their numbers


def test_dice_screen_says_which_way_the_region_die_sends_the_storm() -> None:
    """STORM-1, MAP-3, CL-1: the region die's face (public) shows which way the storm moves if
    the spice die ends on a storm face; the dice screen says so, from where to where."""
    session = _fix_dice_session()
    state = session.game.state
    west = state.dice_faces[4] + 1 in session.game.config.region_die_west_faces
    way = "west (W)" if west else "east (E)"
    new = state.storm_sector % 6 + 1 if west else (state.storm_sector - 2) % 6 + 1
    out, read = _script(_after_pause(session, ["q"]))
    assert run(session, read, out) == 0  # type: ignore[arg-type]
    screen = " ".join(out.getvalue()[out.getvalue().index("Your decision (seat 0") :].split())
    assert (
        f"Storm: the region die (as it shows now) points {way}: if the spice die ends on 3, 4 or "
        f"5, the storm moves {way} at the end of the turn, from sector {state.storm_sector} to "
        f"sector {new} (STORM-1, MAP-3)."
    ) in screen


def test_dice_numbers_stay_put_a_second_pick_puts_back_and_a_fixes_all() -> None:
    """ROLL-2: a die keeps its number while picking; choosing it again puts it back; `d` with
    nothing picked is a clear error; `a` fixes every die just rolled."""
    session = _fix_dice_session()
    picked: list[int] = []
    before = [item.label[4:] for item in menu(session, picked)]
    toggle_die(session, picked, 3)
    assert picked == [3] and [item.label[4:] for item in menu(session, picked)] == before
    assert menu(session, picked)[3].number == 4
    assert menu(session, picked)[3].label.startswith("[x] faction die: ")
    toggle_die(session, picked, 3)
    assert picked == []
    with pytest.raises(PlayError, match="pick at least one die first"):
        fix_command(session, picked, everything=False)
    offset = KIND_OFFSET[DecisionKind.FIX_DICE]
    assert fix_command(session, picked, everything=True) == offset + 0b1111111


def test_several_dice_picked_in_one_line_and_several_options_refused() -> None:
    """ROLL-2: "1 6" while fixing dice picks both dice (it used to pick die 1 alone, without a
    word); a line naming a die that is not there picks none of them; outside the dice, a line
    of several numbers is refused in one line, never read as its first number."""
    session = _fix_dice_session()
    history = len(session.game.state.history)
    out, read = _script(_after_pause(session, ["1 9", "1 6", "3,4", "4", "d", "q"]))
    assert run(session, read, out) == 0  # type: ignore[arg-type]
    text = out.getvalue()
    assert "! choose one of the numbers 1 to 7" in text  # "1 9": die 9 is not there
    assert "several at once: 1 6" in text  # the prompt says how
    row = session.game.state.history[history]
    assert (row.seat, row.kind, row.option) == (0, 4, 0b100101)  # dice 1, 3 and 6 (4 put back)
    for seed in range(20):
        other = PlaySession(4, 0, ["random"], seed=seed)
        other.play_bots()
        if other.decision_name() != "FIX_DICE" and len(other.options()) > 1:
            break
    decided = len(other.game.state.history)
    out, read = _script(_after_pause(other, ["1 2", "q"]))
    assert run(other, read, out) == 0  # type: ignore[arg-type]
    errors = [line for line in out.getvalue().splitlines() if line.startswith("! ")]
    assert errors == [
        f"! one option at a time: choose one of the numbers 1 to {len(other.options())}"
    ]
    assert len(other.game.state.history) == decided  # nothing played


def _after_pause(session: PlaySession, lines: list[str]) -> list[str]:
    """`lines` after an Enter for the pause, if the bots played before your first decision."""
    return ([""] if story.other_turns(session.story(), session.you) else []) + lines


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
    script = ["a", "u", f"s {save}", "1", "d", f"l {save}", "b", "q"]
    out, read = _script(_after_pause(session, script))
    assert run(session, read, out) == 0  # type: ignore[arg-type]
    text = out.getvalue()
    assert "Took back your last decision." in text
    assert f"Saved to {save}." in text and f"Loaded {save}." in text
    assert session.game.snapshot() == start  # loaded the position saved after the undo
    saved = json.loads(save.read_text())
    assert saved["format"] == "dune-env-play" and saved["you"] == 0
    assert saved["seat_policies"] == [None, "random", "random"]


def test_undo_never_takes_back_a_roll() -> None:
    """ROLL-2: chance is counter-based (seed and position), so undoing a roll and rolling
    again would bring the same dice: a peek at the future.  Undo refuses to cross a roll, in
    one line, and the game stays as it was."""
    session = _fix_dice_session()
    out, read = _script(_after_pause(session, ["1", "d"]))
    assert run(session, read, out) == 1  # type: ignore[arg-type]  # (the input ended)
    rolled = session.game.snapshot()
    out, read = _script(["u", "q"])
    assert run(session, read, out) == 0  # type: ignore[arg-type]
    errors = [line for line in out.getvalue().splitlines() if line.startswith("! ")]
    assert errors == [
        "! cannot undo past a roll: the dice are known (taking it back would show you the "
        "dice to come)"
    ]
    assert session.game.snapshot() == rolled


def test_bad_commands_are_one_line_errors(tmp_path: Path) -> None:
    session = PlaySession(3, 0, ["random"], seed=3)
    session.play_bots()
    script = ["999", "u", "zap", f"l {tmp_path / 'nope.json'}", "s", "q"]
    out, read = _script(_after_pause(session, script))
    assert run(session, read, out) == 0  # type: ignore[arg-type]
    errors = [line for line in out.getvalue().splitlines() if line.startswith("! ")]
    assert errors[0].startswith("! choose one of the numbers ")
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


# --- issue 33: no traps between the bots' turns and your decisions -----------------------------


def test_bots_turns_wait_for_enter_and_a_line_typed_ahead_is_not_played() -> None:
    """After the bots' turns the game waits for Enter: a line typed for the last screen is
    dropped with a word, never played as the next decision; a Kanly kill of your unit before
    your first turn (KANLY-1) is marked in the story just above the pause, and repeated just
    above your first decision."""
    done = _dune_play(
        "--players", "4", "--you", "3", "--opponents", "aggressive", "economic", "strategist",
        "--seed", "0", stdin="2\nq\n",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    out = done.stdout
    pause = out.index("-- The bots have played (above). Press Enter")
    before = out[:pause].splitlines()
    kills = [i for i, line in enumerate(before) if line.startswith("  ! Kanly (")]
    assert kills and len(before) - kills[-1] < 38  # on a 40-line screen at the pause
    assert "(Not played: '2' - the game was waiting for Enter after the bots' turns" in out[pause:]
    assert "You: " not in out  # "2" chose nothing
    first = out.index("Your decision (seat 3,")
    hit = out.index("What concerns you since your last decision:")
    assert pause < hit < first
    # Repeated away from its place, the line says whose turn it was, and so who killed it.
    turns = [line for line in before[: kills[-1]] if line.startswith("  | --- Round ")]
    round_, faction = re.match(r"  \| --- Round (\d), seat \d \((.+)\)", turns[-1]).groups()
    kill = before[kills[-1]].strip()[2:]
    assert f"  ! Round {round_}, {faction}'s turn: {kill}" in out[hit:first]


def test_keys_typed_on_a_terminal_while_the_bots_play_are_dropped() -> None:
    """On a real terminal (a pty) what is typed while the bots think is flushed before the
    game reads again, and the player is told; it is never taken as an answer."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: dune-play on the pty
        os.chdir(ROOT)
        os.environ["PYTHONPATH"] = str(ROOT)
        os.execv(
            sys.executable,
            [sys.executable, "-m", "dune_env.human", "--players", "3", "--you", "2",
             "--opponents", "tests.human.slow_bot:SlowFirstBot", "--seed", "4"],
        )  # fmt: skip
    output = b""

    def read_until(marker: bytes, timeout: float = 120) -> None:
        nonlocal output
        end = time.monotonic() + timeout
        while marker not in output:
            assert time.monotonic() < end, output.decode(errors="replace")[-2000:]
            ready, _, _ = select.select([fd], [], [], 1)
            if ready:
                try:
                    output += os.read(fd, 65536)
                except OSError:
                    break

    try:
        read_until(b"Type h for help")
        os.write(fd, b"1\n")  # typed while the first bot thinks (3 s)
        read_until(b"Press Enter")
        assert b"What you typed while the bots played was dropped" in output
        os.write(fd, b"\n")
        read_until(b"Your decision (seat 2,")
        read_until(b"> ")
        os.write(fd, b"q\n")
        read_until(b"Bye.")
    finally:
        os.kill(pid, signal.SIGTERM) if _alive(pid) else None
        os.waitpid(pid, 0)
        os.close(fd)
    assert b"You: " not in output and b"Not played" not in output


def _alive(pid: int) -> bool:
    finished, _ = os.waitpid(pid, os.WNOHANG)
    return finished == 0


def _scenario_session(game: Game, you: int) -> PlaySession:
    session = PlaySession(game.config.num_players, you, ["random"], seed=1)
    session.load_data(game.snapshot())
    return session


def test_storm_warning_on_the_move_target_screen() -> None:
    """STORM-1/2: the movement target screen says where the storm moves at the end of the turn,
    which way, and where it kills; the targets in its path and who can reach each are named."""
    game = (
        Scenario([Faction.ATREIDES, Faction.HARKONNEN, Faction.FREMEN])
        .units(Faction.ATREIDES, Region.CIELAGO_PLAIN, 2)
        .storm(3)
        .dice(region=2, spice=4)
        .active(Faction.ATREIDES)
        .at(Phase.MOVE_TARGET)
    )
    out, read = _script(["q"])
    assert run(_scenario_session(game, 0), read, out) == 0  # type: ignore[arg-type]
    text = out.getvalue()
    screen = text[text.index("Your decision (seat 0, Atreides): Movement target") :]
    flat = " ".join(screen.split())
    assert "Storm warning: at the end of this turn the storm moves east, from sector 3 to " \
        "sector 2 (STORM-1): in Great Flat, Habbanya Sietch every faction but the Fremen " \
        "loses one unit" in flat  # fmt: skip
    assert "1. Great Flat - your units that can move in: 2 from Cielago Plain; the storm " \
        "kills a unit there at the end of this turn" in flat  # fmt: skip


def test_board_shows_neighbours_desert_the_storm_and_explains_the_tokens() -> None:
    """MAP-1/2, STORM-2, PROP-3..5, COR-2: every region with its neighbours and marks (*
    strategic, x desert, ~ storm), the tokens explained under the map, the storage's cap."""
    session = PlaySession(4, 0, ["random"], seed=2)
    session.play_bots()
    text = board_text(session)
    carthag = next(line for line in text.splitlines() if line.startswith("Carthag"))
    assert carthag.endswith("Sietch Tabr, Broken Land, Arrakeen, Polar Cap")
    tabr = next(line for line in text.splitlines() if line.startswith("Sietch Tabr"))
    assert " *x" in tabr
    assert "x desert: the storm kills there" in text
    assert "Fortress: removes 1 attacking unit before a battle there" in " ".join(text.split())
    assert "storage holds at most 5 spice" in " ".join(text.split())
    assert "you are seat 0 (" in text


def test_dice_before_the_first_roll_are_not_shown_as_if_rolled() -> None:
    """SETUP-5, ROLL-1: while factions are chosen nobody has rolled; the board says so instead
    of showing the dice's blank faces as a roll."""
    session = PlaySession(4, 0, ["random"], seed=3, config={"faction_mode": "draft"})
    session.play_bots()
    assert session.decision_name() == "CHOOSE_FACTION"
    assert "Dice: not rolled yet" in board_text(session)
    session.choose(session.options()[0][0])
    while session.game.state.phase <= Phase.SETUP_PLACE and session.your_turn:
        session.choose(session.options()[0][0])
    assert "Dice: 1 " in board_text(session)
