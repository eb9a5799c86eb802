"""The replay page's template is filled once, by position (issue 21, item 6): a title that
spells a placeholder stays text, and the page's data is embedded exactly once."""

from __future__ import annotations

import html
import re
from pathlib import Path

from dune_env.engine import Game, GameConfig
from dune_env.replay import write_replay_html


def test_a_title_spelling_placeholders_stays_text(tmp_path: Path) -> None:
    title = "Mine %%DATA%% %%CSS%% %%TITLE%% %%BOARD_JS%% </title><script>x</script>"
    game = Game(GameConfig(num_players=3), seed=5)
    page = write_replay_html(game, tmp_path / "g.html", seed=5, title=title).read_text()
    assert f"<title>{html.escape(title)}</title>" in page
    assert page.count('<script id="replay-data" type="application/json">') == 1
    assert page.count("%%DATA%%") == 2  # the title and the embedded JSON: text, not replaced
    assert "<script>x</script>" not in page


def test_the_web_game_and_the_viewer_share_one_page_skeleton() -> None:
    """Both pages are page.html around the map, each with its own controls, panels, data and
    Content-Security-Policy: only the served web game may talk to its server."""
    from dune_env.human import PlaySession
    from dune_env.human.web import page_html
    from dune_env.replay import play_policies, replay_html

    viewer = replay_html(play_policies(["aggressive", "economic", "random"], seed=3))
    game = page_html(PlaySession(3, 0, ["random"], seed=1))
    for page, data_id, own_control in ((viewer, "replay-data", "slider"), (game, "meta", "undo")):
        assert page.startswith("<!DOCTYPE html>") and page.count('<svg id="map"') == 1
        assert page.count(f'<script id="{data_id}" type="application/json">') == 1
        assert f'id="{own_control}"' in page and "<!--" not in page.split("<body>")[0]
        assert re.search(r"%%[A-Z_]+%%", page.replace("%%DATA%%", "")) is None
    assert "connect-src 'self'" in game and "connect-src" not in viewer
    assert "#choices button" in game and "#choices button" not in viewer  # play.css
