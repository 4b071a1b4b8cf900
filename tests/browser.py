"""The shared helpers (harness.py) as the tests use them: a harness failure is a test failure, never a skip."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the repository: playground, ui, serving

import harness
from harness import CHROMIUM_ARGS, ROOT, free_port

__all__ = ["CHROMIUM_ARGS", "ROOT", "chromium_path", "free_port", "open_page", "serve"]


def chromium_path() -> str:
    try:
        return harness.chromium_path()
    except harness.HarnessError as e:
        pytest.fail(str(e))


@contextmanager
def serve(script: str = "playground.py", env: dict[str, str] | None = None) -> Iterator[str]:
    try:
        with harness.serve(script, env) as url:
            yield url
    except harness.HarnessError as e:
        pytest.fail(str(e))


def open_page(browser: Browser, url: str, width: int = 1280, height: int = 720, timeout: int = 30_000) -> Page:
    """A new page on ``url`` once the workbench has filled: the overview's output numbers and the badge."""
    pg = browser.new_page(viewport={"width": width, "height": height})
    pg.set_default_timeout(timeout)
    pg.goto(url)
    pg.wait_for_selector("#overview table[data-name=output] td[data-r]", state="attached")
    pg.wait_for_function("() => document.querySelector('#badge').innerText.length > 0")
    return pg
