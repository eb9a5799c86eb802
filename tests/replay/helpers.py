"""Shared helpers for the replay tests: engine positions at a frame, a headless Chromium."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from dune_env.engine import Game
from dune_env.replay import ReplayRecord

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def game_at(record: ReplayRecord, frame: int) -> Game:
    """The engine's game before the record's `frame`-th chosen option."""
    game = record.start()
    for option in record.options[:frame]:
        game.apply(option)
    return game


def units_on_map(game: Game) -> list[list[int]]:
    """[region, faction, regular, elite] for every faction present in a region."""
    s = game.state
    rows = []
    for region in range(10):
        for faction in range(8):
            regular, elite = s.units[faction][region * 2], s.units[faction][region * 2 + 1]
            if regular or elite:
                rows.append([region, faction, regular, elite])
    return rows


def chromium_path() -> str:
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    pytest.skip(
        "browser tests skipped: no Chromium on this machine (install the Debian package "
        "'chromium'; `make test` does so when it runs as root with apt-get)"
    )


@contextmanager
def browser_page() -> Iterator[tuple[Any, list[str]]]:
    """A page of a fresh headless Chromium (the system one, never a downloaded browser) and the
    list its console errors and page errors are collected into."""
    executable = chromium_path()
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("browser tests skipped: the Python package 'playwright' is not installed")
    errors: list[str] = []
    with tempfile.TemporaryDirectory() as profile, sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            profile,
            executable_path=executable,
            headless=True,
            args=CHROMIUM_ARGS,
            viewport={"width": 1400, "height": 1000},
        )
        try:
            page = context.new_page()
            page.on(
                "console",
                lambda m: errors.append(m.text) if m.type in ("error", "warning") else None,
            )
            page.on("pageerror", lambda e: errors.append(str(e)))
            yield page, errors
        finally:
            context.close()
