"""`dune-play --web` (issue 14, section 2): a whole game against the bots played through the
page in a real headless Chromium, undo from the page, and a server for 127.0.0.1 only."""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from dune_env.engine import Region, Scenario
from dune_env.engine.constants import FACTION_NAMES, Faction
from dune_env.engine.map_data import DEFAULT_MAP
from dune_env.engine.state import Phase
from dune_env.human import PlaySession, guide
from dune_env.human.web import PlayServer

from ..replay.helpers import browser_page, units_on_map

UNITS_JS = """() => [...document.querySelectorAll('#map .unit')].map(g => [
    Number(g.dataset.region), Number(g.dataset.faction),
    Number(g.dataset.regular), Number(g.dataset.elite)])"""


@contextmanager
def serving(session: PlaySession) -> Iterator[PlayServer]:
    """The session's page served on a free port for the test's duration."""
    play = PlayServer(session, port=0)
    play.start_in_thread()
    try:
        yield play
    finally:
        play.close()


@pytest.fixture
def server() -> Iterator[PlayServer]:
    with serving(PlaySession(4, 0, ["aggressive", "economic", "ppo-4p"], seed=2)) as play:
        yield play


def _wait(page: object) -> None:
    page.wait_for_selector("body[data-busy='0']")  # type: ignore[attr-defined]


def test_play_a_whole_game_in_chromium(server: PlayServer, tmp_path: Path) -> None:
    assert server.url.startswith("http://127.0.0.1:")
    with browser_page() as (page, errors):
        page.goto(server.url)
        page.wait_for_selector("#status[data-your-turn='1']")
        # Undo from the page restores the position before your decision (one after which no
        # die was rolled: undo never crosses a roll, see below).
        for _ in range(50):
            before = server.session.game.snapshot()
            decided = len(server.session.game.state.history)
            if page.locator("#choices button[data-all]").count():
                page.click("#choices button[data-all]")
            else:
                page.locator("#choices button").first.click()
            _wait(page)
            assert server.session.game.snapshot() != before
            if not any(row.chance for row in server.session.game.state.history[decided:]):
                break
        page.click("#undo")
        _wait(page)
        assert server.session.game.snapshot() == before
        moves = 0
        notices = set()
        while page.get_attribute("#status", "data-over") != "1":
            notices.update(page.locator("#notices .notice").all_text_contents())
            assert moves < 1000, "the game did not end"
            buttons = page.locator("#choices button")
            assert "docs/rules.md" in (page.text_content("#explain") or "")
            if page.locator("#choices button[data-die]").count():
                # Fixing dice: pick the first die and play "done" if that is legal, else all.
                page.locator("#choices button[data-die]").first.click()
                if moves % 2 and page.locator("#choices button[data-done]").is_enabled():
                    page.locator("#choices button[data-done]").click()
                else:
                    page.locator("#choices button[data-all]").click()
            else:
                assert buttons.count() == len(server.session.options()) > 0
                # Alternate between the first and the last option so both ends are exercised.
                (buttons.first if moves % 2 else buttons.last).click()
            _wait(page)
            moves += 1
            if moves % 25 == 0:  # the drawn board is the engine's
                assert page.evaluate(UNITS_JS) == units_on_map(server.session.game)
        assert server.session.over and moves > 10
        # What the engine did for you is said (a last die fixed for you, ROLL-2).
        assert any("The engine played for you" in line for line in notices), notices
        assert "Game over" in (page.text_content("#decision") or "")
        assert page.locator("#notices .notice").count() == 0  # notes belong to decisions
        # Nobody is active once the game is over; the victory names seats, not a Python list.
        assert page.locator("#seats tr.active-seat").count() == 0
        assert "active" not in (page.text_content("#seats") or "")
        log = page.locator("#log div").all_text_contents()
        assert not any("seat(s)" in line or "[" in line for line in log)
        assert "seat(s)" not in (page.text_content("#decision") or "")
        assert "The game ended because " in (page.text_content("#explain") or "")  # END-n
        assert page.evaluate(UNITS_JS) == units_on_map(server.session.game)
        page.screenshot(path=str(tmp_path / "play.png"), full_page=True)
        assert errors == []


def test_dice_fixed_one_at_a_time_in_chromium(server: PlayServer) -> None:
    """ROLL-2/3: the page lists the rolled dice as buttons (never 127 subsets); picks compose
    the subset, u puts the last one back, and "done" plays it as one FIX_DICE action."""
    with browser_page() as (page, errors):
        page.goto(server.url)
        page.wait_for_selector("#status[data-your-turn='1']")
        assert "How to play" in (page.text_content("#howto") or "")
        while server.session.decision_name() != "FIX_DICE" or any(
            server.session.game.state.dice_fixed
        ):
            page.locator("#choices button").first.click()
            _wait(page)
        state = server.session.game.state
        rolled_worm = state.dice_faces[5] == 5
        assert page.locator("#choices button[data-die]").count() == 7  # one per die
        assert not page.locator("#choices button[data-done]").is_enabled()  # nothing picked
        assert "(rules ROLL-2..4 in docs/rules.md)" in (page.text_content("#explain") or "")
        # STORM-1, MAP-3: which way the region die's face sends the storm.
        assert "Storm: the region die (as it shows now) points " in (
            page.text_content("#context") or ""
        )
        # Each die is shown under its own number 1-7, as the board and the log number it.
        labels = page.locator("#choices button[data-die]").all_text_contents()
        assert [label.split(".")[0] for label in labels] == [str(n) for n in range(1, 8)]
        page.click("#choices button[data-die='2']")
        page.click("#choices button[data-die='0']")
        assert "Picked so far: " in (page.text_content("#picked") or "")
        page.keyboard.press("u")  # puts die 1 (index 0) back
        assert page.get_attribute("#choices button[data-die='0']", "data-picked") == "0"
        assert page.get_attribute("#choices button[data-die='2']", "data-picked") == "1"
        page.keyboard.press("5")  # the region die, by its number
        assert page.get_attribute("#choices button[data-die='4']", "data-picked") == "1"
        if rolled_worm:  # ROLL-3: "done" waits for the spice die
            assert not page.locator("#choices button[data-done]").is_enabled()
            assert "Shai-Hulud must be fixed" in (page.text_content("#dice") or "")
            page.click("#choices button[data-die='5']")
        history = len(state.history)
        page.keyboard.press("d")  # done
        _wait(page)
        row = server.session.game.state.history[history]
        assert (row.seat, row.kind) == (0, 4)
        assert row.option == 0b10100 | (0b100000 if rolled_worm else 0)
        assert errors == []


def _request(url: str, data: bytes | None = None, headers: dict[str, str] | None = None) -> int:
    request = urllib.request.Request(url, data=data, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return int(response.status)
    except urllib.error.HTTPError as exc:
        return exc.code


def test_server_refuses_foreign_hosts_and_non_json(server: PlayServer) -> None:
    assert _request(server.url + "api/state") == 200
    assert _request(server.url + "api/state", headers={"Host": "evil.example"}) == 403
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    assert _request(server.url + "api/undo", b"a=1", form) == 415
    body = json.dumps({"action": "x"}).encode()
    assert _request(server.url + "api/act", body, {"Content-Type": "application/json"}) == 400
    saved = urllib.request.urlopen(server.url + "api/save", timeout=30).read()
    assert json.loads(saved)["format"] == "dune-env-play"


def test_new_game_and_load_through_the_api(server: PlayServer) -> None:
    saved = json.loads(urllib.request.urlopen(server.url + "api/save", timeout=30).read())
    headers = {"Content-Type": "application/json"}
    first = server.session
    assert _request(server.url + "api/new", b"{}", headers) == 200
    assert server.session is not first and server.session.you == first.you
    assert server.session.seat_policies == first.seat_policies
    assert _request(server.url + "api/load", json.dumps(saved).encode(), headers) == 200
    assert server.session.game.snapshot() == saved["snapshot"]
    wrong_seat = {**saved, "you": 2}
    assert _request(server.url + "api/load", json.dumps(wrong_seat).encode(), headers) == 400
    assert _request(server.url + "api/load", b'{"format": "nonsense"}', headers) == 400


# --- issue 33: what a newcomer met on the page -------------------------------------------------


def test_new_game_asks_before_dropping_a_game_in_progress(server: PlayServer) -> None:
    """ "New game" used to start a new game at once, the one in progress lost; once you have
    decided anything it asks first, in the page, and "Keep playing" keeps the game."""
    with browser_page() as (page, errors):
        page.goto(server.url)
        page.wait_for_selector("#status[data-your-turn='1']")
        first = server.session
        page.click("#new")  # nothing decided yet: nothing to lose
        _wait(page)
        assert server.session is not first
        page.wait_for_selector("#status[data-your-turn='1']")
        if page.locator("#choices button[data-all]").count():
            page.click("#choices button[data-all]")
        else:
            page.locator("#choices button").first.click()
        _wait(page)
        playing = server.session
        page.click("#new")
        assert page.get_attribute("#confirm-new", "data-open") == "1"
        assert "will be lost" in (page.text_content("#confirm-new") or "")
        assert server.session is playing
        page.click("#confirm-new-no")
        assert page.get_attribute("#confirm-new", "data-open") == "0"
        assert server.session is playing
        page.click("#new")
        page.click("#confirm-new-yes")
        _wait(page)
        assert server.session is not playing
        assert errors == []


def test_page_names_your_faction_numbers_the_dice_and_marks_storm_and_desert(
    server: PlayServer,
) -> None:
    """The header names your faction; the dice read 1-7 (as in the log); the storm's sector
    is striped and labelled, where it goes next outlined, the desert regions marked with a
    red X as on the original board (MAP-1, STORM-1, STORM-2); "How to play" is a list that
    wraps to the panel, with every token and term explained as the page draws it (stripes,
    the red X, 1+1 for a Sardaukar), and the seats table's columns are explained."""
    with browser_page() as (page, errors):
        page.goto(server.url)
        page.wait_for_selector("#status[data-your-turn='1']")
        while server.session.game.state.phase <= Phase.SETUP_PLACE:  # a start in the set-up
            page.locator("#choices button").first.click()
            _wait(page)
        state = server.session.game.state
        faction = FACTION_NAMES[state.seat_faction[0]]
        assert page.text_content("#title") == f"Dune, the Dice Game: you are seat 0, {faction}"
        dice = page.locator("#status-dice .die").all_text_contents()
        assert [d.split(":")[0] for d in dice] == [str(n) for n in range(1, 8)]
        storm = state.storm_sector
        assert page.get_attribute("#map .storm", "fill") == "url(#storm-stripes)"
        assert page.text_content("#map .sector-label.in-storm") == f"{storm} STORM"
        deserts = [r for r in range(10) if DEFAULT_MAP.desert[r]]
        marks = page.locator("#map .desert-mark")
        regions = marks.evaluate_all("ms => ms.map(m => Number(m.dataset.region))")
        assert sorted(regions) == deserts
        assert "desert: the storm kills units here" in (page.text_content("#legend") or "")
        assert page.locator("#howto pre").count() == 0
        items = page.locator("#howto li").all_text_contents()
        assert items == list(guide.HOW_TO_PLAY_ITEMS)
        terms = page.locator("#howto dt").all_text_contents()
        assert terms == [term for term, _ in guide.glossary("web")] and "CHOAM" in terms
        # The help describes this page, not the terminal's text board (MAP-1, COR-1).
        help_text = page.text_content("#howto") or ""
        assert "Desert (\u2716)" in terms and "Desert (x)" not in terms
        assert "dark stripes on the map" in help_text and "~ on the board" not in help_text
        assert "Shown as 1+1 on the map" in help_text and "+nS" not in help_text
        note = page.text_content("#seats-note") or ""
        assert "leaders: on the card / in the reserve" in note  # what "1/0" means
        assert errors == []


def test_dice_before_the_first_roll_read_not_rolled() -> None:
    """SETUP-5: while factions are drafted nobody has rolled: the page says so instead of
    showing blank dice as a roll."""
    session = PlaySession(4, 0, ["random"], seed=3, config={"faction_mode": "draft"})
    with serving(session) as play:
        with browser_page() as (page, errors):
            page.goto(play.url)
            page.wait_for_selector("#status[data-your-turn='1']")
            assert session.decision_name() == "CHOOSE_FACTION"
            assert "not rolled yet" in (page.text_content("#status-dice") or "")
            assert page.locator("#status-dice .die").count() == 0
            assert "not chosen yet" in (page.text_content("#title") or "")
            assert errors == []


def test_since_your_last_decision_tells_the_bots_turns_condensed(server: PlayServer) -> None:
    """After your turn the bots play theirs at once; the page tells what they did since your
    last decision, their dice rolling condensed to a line each, above the full log."""
    with browser_page() as (page, errors):
        page.goto(server.url)
        page.wait_for_selector("#status[data-your-turn='1']")
        start = server.session.game.state.round
        while server.session.game.state.round == start and not server.session.over:
            if page.locator("#choices button[data-all]").count():
                page.click("#choices button[data-all]")
            else:
                page.locator("#choices button").first.click()
            _wait(page)
        since = page.locator("#since div").all_text_contents()
        assert any(" rolls " in line and " and keeps: factions " in line for line in since)
        assert not any(line.startswith("Roll of dice") for line in since[:3])
        log = page.locator("#log div").all_text_contents()
        assert len(log) == len(server.session.story()) > len(since)
        mine = [row["hit"] for row in server.state()["since"] if row["mine"]]
        concerns = page.locator("#concerns div").all_text_contents()
        assert concerns == (["What concerns you:"] + [f"! {t}" for t in mine] if mine else [])
        # Each says whose turn it happened in: who killed your unit, who attacked you.
        assert all(re.match(r"! Round \d, .+ turn: ", line) for line in concerns[1:])
        assert "step " in (page.text_content("#round-line") or "")  # not an engine phase name
        assert errors == []


def test_what_concerns_you_says_whose_turn_it_was() -> None:
    """KANLY-1: a Kanly kill of your unit before your first turn is marked in the story since
    your last decision, and repeated under "What concerns you" with whose turn it was (who
    killed it)."""
    session = PlaySession(4, 3, ["aggressive", "economic", "strategist"], seed=0)
    with serving(session) as play:
        with browser_page() as (page, errors):
            page.goto(play.url)
            page.wait_for_selector("#status[data-your-turn='1']")
            since = page.locator("#since div.mine").all_text_contents()
            kills = [line for line in since if line.startswith("! Kanly (")]
            assert kills, since
            concerns = page.locator("#concerns div").all_text_contents()
            assert concerns[0] == "What concerns you:"
            said = [re.fullmatch(r"! Round 1, (\w+)'s turn: (Kanly .*)", c) for c in concerns[1:]]
            assert all(said) and [f"! {m.group(2)}" for m in said if m] == kills
            assert errors == []


def test_undo_on_the_page_never_takes_back_a_roll(server: PlayServer) -> None:
    """ROLL-2: chance is counter-based, so undoing a roll would show the dice to come; the
    page's Undo refuses to cross a roll, says why, and the game stays as it was."""
    with browser_page() as (page, errors):
        page.goto(server.url)
        page.wait_for_selector("#status[data-your-turn='1']")
        while server.session.decision_name() != "FIX_DICE" or any(
            server.session.game.state.dice_fixed
        ):
            page.locator("#choices button").first.click()
            _wait(page)
        faces = list(server.session.game.state.dice_faces)
        if faces[5] == 5:  # ROLL-3: a Shai-Hulud must be fixed
            page.click("#choices button[data-die='5']")
        else:
            page.click("#choices button[data-die='0']")
        page.click("#choices button[data-done]")
        _wait(page)
        rolled = server.session.game.snapshot()
        page.click("#undo")
        _wait(page)
        assert "cannot undo past a roll: the dice are known" in (
            page.text_content("#message") or ""
        )
        assert server.session.game.snapshot() == rolled
        # The one refused request (400) is the browser's only complaint.
        assert [e for e in errors if "status of 400" not in e] == [] and len(errors) == 1


def test_a_note_stays_with_the_decision_it_was_made_at() -> None:
    """MOVE-2: the note that no unit of yours could move into the target is shown where it was
    made, in the story since your last decision; once the bots have played, it is not shown
    again as a note of your next decision (it used to stay highlighted there, and on the
    game-over panel)."""
    game = (
        Scenario([Faction.ATREIDES, Faction.HARKONNEN, Faction.FREMEN])
        .units(Faction.ATREIDES, Region.TUEKS_SIETCH, 1)
        .dice(region=4)
        .active(Faction.ATREIDES)
        .at(Phase.MOVE_TARGET)
    )
    session = PlaySession(3, 0, ["random"], seed=1)
    session.load_data(game.snapshot())
    with serving(session) as play:
        with browser_page() as (page, errors):
            page.goto(play.url)
            page.wait_for_selector("#status[data-your-turn='1']")
            page.locator("#choices button", has_text="Carthag").click()
            _wait(page)
            since = page.locator("#since div").all_text_contents()
            note = next(i for i, t in enumerate(since) if "No unit of yours could move" in t)
            assert since[note].startswith("Note: No unit of yours could move into Carthag")
            assert any(t.startswith("--- Round") for t in since[note:])  # the bots played
            assert page.locator("#notices .notice").count() == 0
            assert errors == []
