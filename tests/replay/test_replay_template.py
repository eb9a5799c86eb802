"""The replay page's template is filled once, by position (issue 21, item 6): a title that
spells a placeholder stays text, and the page's data is embedded exactly once."""

from __future__ import annotations

import html
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
