"""The leaderboard generator and the placement read strangers' files as data (issue 31, item 4):
bounded, checked reads, one-line errors, nothing written unless the whole table was built, no
write over the package's data unless asked, Markdown and HTML escaped, control characters kept
off the terminal."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from dune_env.harness import leaderboard, suite
from dune_env.harness.cli import main as bench_main


@pytest.fixture
def tiny_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cheap_suite: None) -> Path:
    monkeypatch.setattr(suite, "PLAYER_COUNTS", (3,))
    monkeypatch.setattr(leaderboard, "PLAYER_COUNTS", (3,))
    folder = tmp_path / "run"
    suite.run_suite(["random"], short=True, out_dir=folder, plots=False, bootstrap=5)
    return folder


def _edit(path: Path, change: Any) -> None:
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


def _one_line_refusal(args: list[str], capsys: pytest.CaptureFixture[str], *written: Path) -> str:
    assert leaderboard.main(args) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("leaderboard: ") and len(err.splitlines()) == 1, err
    assert "Traceback" not in err
    assert not any(p.exists() for p in written), [p for p in written if p.exists()]
    return err


def test_the_generator_writes_into_the_suite_folder_unless_told_to_publish(
    tiny_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without --publish nothing lands on docs/ or on the package's data."""
    package = tmp_path / "package"
    monkeypatch.setattr(leaderboard, "DATA_DIR", package)
    monkeypatch.chdir(tmp_path)  # docs/leaderboard.md would land here
    assert leaderboard.main(["--from", str(tiny_run)]) == 0
    assert (tiny_run / "leaderboard.md").exists()
    assert (tiny_run / f"leaderboard_v{suite.SUITE_VERSION}.json").exists()
    assert not package.exists() and not (tmp_path / "docs").exists()
    assert leaderboard.main(["--from", str(tiny_run), "--publish"]) == 0
    assert (package / f"leaderboard_v{suite.SUITE_VERSION}.json").exists()
    assert (tmp_path / "docs" / "leaderboard.md").exists()


@pytest.mark.parametrize(
    "change",
    [
        lambda s: s["policies"]["economic"].__setitem__("win_rate", "high"),
        lambda s: s["policies"]["economic"].__setitem__("strength", float("nan")),
        lambda s: s["policies"]["economic"].__setitem__("win_rate_ci95", [0.1]),
        lambda s: s["policies"]["economic"].pop("seats_played"),
        lambda s: s.__setitem__("policies", ["economic"]),
        lambda s: s.__setitem__("head_to_head", [{"a": 1}]),
        lambda s: s.pop("games"),
    ],
    ids=["string-rate", "nan", "short-interval", "missing-key", "list", "bad-pair", "no-games"],
)
def test_a_malformed_summary_is_one_line_and_writes_nothing(
    change: Any, tiny_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _edit(tiny_run / "3p" / "summary.json", change)
    md, data = tmp_path / "l.md", tmp_path / "l.json"
    err = _one_line_refusal(
        ["--from", str(tiny_run), "--markdown", str(md), "--json", str(data)], capsys, md, data
    )
    assert "summary" in err


@pytest.mark.parametrize("version", [10**300, -1, 0, "3", 99])
def test_a_suite_version_this_package_does_not_know_is_refused(
    version: Any, tiny_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _edit(tiny_run / "suite_summary.json", lambda s: s.__setitem__("version", version))
    md = tmp_path / "l.md"
    err = _one_line_refusal(["--from", str(tiny_run), "--markdown", str(md)], capsys, md)
    assert "version 1 to" in err


@pytest.mark.parametrize(
    "content, says",
    [
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
        ("[1, 2]", "does not describe"),
        ("{", "cannot be read as JSON"),
        ('"\udcff"', "cannot be read"),
    ],
)
def test_unreadable_suite_files_are_one_line(
    content: str, says: str, tiny_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tiny_run / "suite_summary.json").write_text(content, errors="surrogatepass")
    md = tmp_path / "l.md"
    assert says in _one_line_refusal(["--from", str(tiny_run), "--markdown", str(md)], capsys, md)


def test_a_huge_file_is_refused_before_it_is_read(
    tiny_run: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr(leaderboard, "MAX_JSON_BYTES", 100)
    md = tmp_path / "l.md"
    err = _one_line_refusal(["--from", str(tiny_run), "--markdown", str(md)], capsys, md)
    assert "more than 100" in err


HOSTILE = [
    "<script>alert(1)</script>",
    '<img src=x onerror="alert(1)">',
    "[click](javascript:alert(1))",
    "# heading",
    "a | b",
    "`code`",
]


@pytest.mark.parametrize("name", HOSTILE)
def test_policy_names_and_software_reach_the_page_escaped(
    name: str, tiny_run: Path, tmp_path: Path
) -> None:
    def rename(s: dict[str, Any]) -> None:
        s["policies"][name] = s["policies"].pop("economic")
        s["meta"]["software"]["build"] = name

    _edit(tiny_run / "3p" / "summary.json", rename)
    md = tmp_path / "l.md"
    args = ["--from", str(tiny_run), "--markdown", str(md), "--json", str(tmp_path / "l.json")]
    assert leaderboard.main([*args, "--note", name]) == 0
    page = md.read_text()
    assert name not in page.replace(leaderboard.md(name), "")  # only ever escaped
    for raw in ("<script", "<img", "](javascript", "\n# heading", "`code`"):
        assert raw not in page
    assert leaderboard.md(name) in page
    table = [line for line in page.splitlines() if leaderboard.md(name) in line and "|" in line]
    assert table and all(line.count(" | ") == 5 for line in table if line.startswith("| "))


def test_control_characters_never_reach_the_terminal(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    cheap_suite: None,
) -> None:
    """A published table whose names and build carry ANSI escapes prints them harmlessly."""
    monkeypatch.setattr(suite, "PLAYER_COUNTS", (3,))
    monkeypatch.setattr(leaderboard, "DATA_DIR", tmp_path / "data")
    evil = "\x1b[2J\x1b[31mstrategist\x07"
    row = {
        "policy": evil,
        "strength": 1.0,
        "strength_ci95": [0.5, 1.5],
        "win_rate": 0.3,
        "win_rate_ci95": [0.2, 0.4],
        "control_win_rate": 0.1,
        "control_win_rate_ci95": [0.05, 0.15],
        "seats": 10,
    }
    table = {
        "suite": suite.SUITE_NAME,
        "version": suite.SUITE_VERSION,
        "short": False,
        "seed": 0,
        "software": {"build": "\x1b]0;title\x07compiled"},
        "player_counts": {"3": {"reference": "random", "rows": [row]}},
    }
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / f"leaderboard_v{suite.SUITE_VERSION}.json").write_text(json.dumps(table))
    args = ["--suite", "standard-short", "--policies", "aggressive", "--workers", "1"]
    assert bench_main([*args, "--no-progress", "--no-plots", "--out", str(tmp_path / "o")]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out
    assert "?[2J?[31mstrategist?" in out
