"""`dune-play --web` (issue 14, section 2): a whole game against the bots played through the
page in a real headless Chromium, undo from the page, and a server for 127.0.0.1 only."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from dune_env.human import PlaySession
from dune_env.human.web import PlayServer

from ..replay.helpers import browser_page, units_on_map

UNITS_JS = """() => [...document.querySelectorAll('#map .unit')].map(g => [
    Number(g.dataset.region), Number(g.dataset.faction),
    Number(g.dataset.regular), Number(g.dataset.elite)])"""


@pytest.fixture
def server() -> Iterator[PlayServer]:
    play = PlayServer(PlaySession(4, 0, ["aggressive", "economic", "ppo-4p"], seed=2), port=0)
    play.start_in_thread()
    try:
        yield play
    finally:
        play.close()


def _wait(page: object) -> None:
    page.wait_for_selector("body[data-busy='0']")  # type: ignore[attr-defined]


def test_play_a_whole_game_in_chromium(server: PlayServer, tmp_path: Path) -> None:
    assert server.url.startswith("http://127.0.0.1:")
    with browser_page() as (page, errors):
        page.goto(server.url)
        page.wait_for_selector("#status[data-your-turn='1']")
        # Undo from the page restores the position before your decision.
        before = server.session.game.snapshot()
        page.locator("#choices button").first.click()
        _wait(page)
        assert server.session.game.snapshot() != before
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
        page.click("#choices button[data-die='2']")
        page.click("#choices button[data-die='0']")
        assert "Picked so far: " in (page.text_content("#picked") or "")
        page.keyboard.press("u")  # puts die 0 back
        assert page.get_attribute("#choices button[data-die='0']", "data-picked") == "0"
        assert page.get_attribute("#choices button[data-die='2']", "data-picked") == "1"
        page.click("#choices button[data-die='4']")
        if rolled_worm:  # ROLL-3: "done" waits for the spice die
            assert not page.locator("#choices button[data-done]").is_enabled()
            assert "Shai-Hulud must be fixed" in (page.text_content("#dice") or "")
            page.click("#choices button[data-die='5']")
        history = len(state.history)
        page.click("#choices button[data-done]")
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
