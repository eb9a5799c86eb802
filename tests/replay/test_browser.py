"""The replay viewer in a real headless Chromium (issue 14, section 1): open a generated file,
step through it with the buttons, the keyboard and the slider, check the board against the
engine at several decisions, switch the seat view, take a screenshot, see no console errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from dune_env.engine.state import Phase
from dune_env.replay import ReplayRecord, build_frames, play_policies, write_replay_html
from dune_env.replay.frames import PHASE_NAMES

from .helpers import browser_page, game_at, units_on_map

UNITS_JS = """() => [...document.querySelectorAll('#map .unit')].map(g => [
    Number(g.dataset.region), Number(g.dataset.faction),
    Number(g.dataset.regular), Number(g.dataset.elite)])"""
SEATS_JS = """() => [...document.querySelectorAll('#seats tr[data-card]')].map(tr => [
    Number(tr.dataset.seat), Number(tr.dataset.card), Number(tr.dataset.reserve)])"""


@pytest.fixture(scope="module")
def replay(tmp_path_factory: pytest.TempPathFactory) -> tuple[ReplayRecord, dict, Path]:
    record = play_policies(["aggressive", "economic", "random", "random", "aggressive"], seed=4)
    path = write_replay_html(record, tmp_path_factory.mktemp("replay") / "game.html")
    return record, build_frames(record), path


def _check_board(page: object, record: ReplayRecord, frame: int) -> None:
    game = game_at(record, frame)
    s = game.state
    assert page.evaluate(UNITS_JS) == units_on_map(game)  # type: ignore[attr-defined]
    seats = page.evaluate(SEATS_JS)  # type: ignore[attr-defined]
    expected = []
    for seat, f in enumerate(s.seat_faction):
        u = s.units[f]
        expected.append([seat, u[20] + u[21], u[22] + u[23]])
    assert seats == expected
    storm = page.get_attribute("#map .storm", "data-sector")  # type: ignore[attr-defined]
    assert storm == str(s.storm_sector)
    tokens = page.evaluate(  # type: ignore[attr-defined]
        "() => [...document.querySelectorAll('#map .token')].map(g => "
        "[Number(g.dataset.region), Number(g.dataset.token)])"
    )
    assert tokens == [[r, t] for r, t in enumerate(s.region_token) if t >= 0]
    round_line = page.text_content("#round-line")  # type: ignore[attr-defined]
    assert round_line is not None and round_line.startswith(f"Round {s.round}/6")
    assert round_line.endswith(PHASE_NAMES[Phase(s.phase).name])  # "step 3, recruiting"


def test_viewer_steps_through_a_game_in_chromium(
    replay: tuple[ReplayRecord, dict, Path], tmp_path: Path
) -> None:
    record, data, path = replay
    frames = data["frames"]
    with browser_page() as (page, errors):
        page.goto(path.as_uri())
        assert page.get_attribute("#status", "data-frame") == "0"
        _check_board(page, record, 0)
        page.click("#next")
        page.click("#next")
        assert page.get_attribute("#status", "data-frame") == "2"
        _check_board(page, record, 2)
        page.keyboard.press("ArrowRight")
        assert page.get_attribute("#status", "data-frame") == "3"
        page.keyboard.press("ArrowLeft")
        page.keyboard.press("ArrowLeft")
        assert page.get_attribute("#status", "data-frame") == "1"
        _check_board(page, record, 1)
        middle = len(frames) // 2
        page.eval_on_selector(
            "#slider", f"(s) => {{ s.value = '{middle}'; s.dispatchEvent(new Event('input')); }}"
        )
        assert page.get_attribute("#status", "data-frame") == str(middle)
        _check_board(page, record, middle)
        # The chosen option is marked among the legal ones, by its action-table id.
        decision = frames[middle]["decision"]
        chosen = page.get_attribute("#options li.chosen", "data-action")
        assert chosen == str(decision["chosen"])
        assert page.locator("#options li").count() == len(decision["legal"])
        page.keyboard.press("End")
        last = len(frames) - 1
        assert page.get_attribute("#status", "data-frame") == str(last)
        _check_board(page, record, last)
        assert "Game over" in (page.text_content("#decision") or "")
        # The event log shows every event up to the frame.
        assert page.locator("#log div").count() == frames[last]["ev"]
        page.keyboard.press("Home")
        assert page.get_attribute("#status", "data-frame") == "0"
        assert errors == []


def test_seat_view_hides_other_seats_bids_in_chromium(
    replay: tuple[ReplayRecord, dict, Path], tmp_path: Path
) -> None:
    """BATTLE-5: seen from a seat that is not bidding, the bid decision's options and choice
    are hidden, and the bid in progress is not shown; the omniscient view and the bidder's
    view show them."""
    record, data, path = replay
    frames = data["frames"]
    k = next(
        i
        for i, f in enumerate(frames)
        if f.get("decision", {}).get("kind") == "BID"
        and f["know"]["all"]["bids"][0][0].count(0) < 16
    )
    bidder = frames[k]["decision"]["seat"]
    other = next(seat for seat in range(5) if seat != bidder and seat != frames[k]["active"])
    with browser_page() as (page, errors):
        page.goto(path.as_uri())
        page.evaluate(f"window.duneReplay.show({k})")
        assert page.locator("#options li[data-action]").count() == len(
            frames[k]["decision"]["legal"]
        )
        assert "bid in progress" in (page.text_content("#secrets") or "")
        page.select_option("#view", str(other))
        assert page.locator("#options li[data-action]").count() == 0
        assert f"hidden from seat {other}" in (page.text_content("#options") or "")
        assert "Your side's bid" not in (page.text_content("#secrets") or "")
        # The bidder's run of hidden decisions is one frame for the others: its length would
        # tell how many pieces were committed.  Frame k (a later piece of the bid) is skipped.
        assert k not in page.evaluate("window.duneReplay.visible()")
        assert page.evaluate("window.duneReplay.index()") < k
        page.select_option("#view", str(bidder))
        assert k in page.evaluate("window.duneReplay.visible()")
        page.evaluate(f"window.duneReplay.show({k})")
        assert page.locator("#options li[data-action]").count() == len(
            frames[k]["decision"]["legal"]
        )
        shot = tmp_path / "replay.png"
        page.screenshot(path=str(shot), full_page=True)
        assert shot.stat().st_size > 20_000
        assert errors == []


def test_viewer_numbers_dice_1_to_7_and_marks_storm_and_desert(
    replay: tuple[ReplayRecord, dict, Path],
) -> None:
    """ROLL-2 (issue 33): the viewer numbers the dice 1-7 as the event log does - on the dice
    and in the names of FIX_DICE options (the action table's names keep the engine's 0-6);
    the storm's sector is striped and labelled, the desert regions carry a red X."""
    record, data, path = replay
    frames = data["frames"]
    k = next(
        i
        for i, f in enumerate(frames)
        if f.get("decision", {}).get("kind") == "FIX_DICE" and not any(f["fixed"])
    )
    with browser_page() as (page, errors):
        page.goto(path.as_uri())
        page.evaluate(f"window.duneReplay.show({k})")
        dice = page.locator("#status-dice .die").all_text_contents()
        assert [d.split(":")[0] for d in dice] == [str(n) for n in range(1, 8)]
        names = page.locator("#options li").all_text_contents()
        assert names and all("{" not in n for n in names)
        assert any(n.endswith("fix die 1") for n in names)
        assert any("fix dice 1, 2, 3, 4, 5, 6, 7" in n for n in names)
        storm = frames[k]["storm"]
        assert page.text_content("#map .sector-label.in-storm") == f"{storm} STORM"
        assert page.locator("#map .desert-mark").count() == 5
        assert errors == []


def test_no_table_overflows_its_column_at_1200_pixels(tmp_path: Path) -> None:
    """The seat table (long policy names, tokens) stays inside its column on a 1,200-pixel
    window at every step (it ran 9 px past it before its cells could wrap)."""
    long_name = "dune_env.policies.heuristics.strategist:StrategistPolicy"
    record = play_policies([long_name, "economic", "random", "aggressive"], seed=3)
    path = write_replay_html(record, tmp_path / "game.html")
    with browser_page() as (page, errors):
        page.set_viewport_size({"width": 1200, "height": 900})
        page.goto(path.as_uri())
        frames = int(page.get_attribute("#slider", "max") or "0")
        overflow = []
        for frame in range(0, frames + 1, max(1, frames // 20)):
            page.evaluate(
                "f => { const r = document.querySelector('#slider'); r.value = f; "
                "r.dispatchEvent(new Event('input')); }",
                frame,
            )
            overflow += page.evaluate(
                "() => [...document.querySelectorAll('table')].map(t => "
                "t.getBoundingClientRect().right - t.parentElement.getBoundingClientRect().right)"
            )
        assert max(overflow) <= 0.5, max(overflow)
        assert page.evaluate("document.documentElement.scrollWidth") <= 1200
        assert errors == []
