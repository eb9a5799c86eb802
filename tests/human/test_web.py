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
        while page.get_attribute("#status", "data-over") != "1":
            assert moves < 1000, "the game did not end"
            buttons = page.locator("#choices button")
            assert buttons.count() == len(server.session.options()) > 0
            # Alternate between the first and the last option so both ends are exercised.
            (buttons.first if moves % 2 else buttons.last).click()
            _wait(page)
            moves += 1
            if moves % 25 == 0:  # the drawn board is the engine's
                assert page.evaluate(UNITS_JS) == units_on_map(server.session.game)
        assert server.session.over and moves > 10
        assert "Game over" in (page.text_content("#decision") or "")
        assert page.evaluate(UNITS_JS) == units_on_map(server.session.game)
        page.screenshot(path=str(tmp_path / "play.png"), full_page=True)
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
