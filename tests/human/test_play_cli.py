"""`dune-play` has the option its own messages name (issue 21, item 6): a pickle-based model
opponent is refused with a pointer to --trust-checkpoints, which dune-play accepts."""

from __future__ import annotations

from pathlib import Path

import pytest

from dune_env.human.cli import main


def test_the_trust_option_named_by_the_refusal_exists(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    model = tmp_path / "model.zip"
    model.write_bytes(b"not really a zip")
    monkeypatch.setattr("builtins.input", lambda prompt="": "q")
    assert main(["--opponents", str(model), "--seed", "1"]) == 2
    refusal = capsys.readouterr().err
    assert "pass --trust-checkpoints" in refusal
    assert main(["--opponents", str(model), "--seed", "1", "--trust-checkpoints"]) == 2
    err = capsys.readouterr().err
    assert "unrecognized arguments" not in err and "pickle-based format" not in err
    assert err.startswith("dune-play: ") and len(err.strip().splitlines()) == 1, err


def test_help_shows_no_empty_defaults(capsys: pytest.CaptureFixture[str]) -> None:
    """An option without a default says what happens instead, not "(default: None)"."""
    from dune_env.replay.cli import main as replay_main

    for entry in (main, replay_main):
        with pytest.raises(SystemExit):
            entry(["--help"])
        out = capsys.readouterr().out
        assert "--seed" in out and "(default: None)" not in out
