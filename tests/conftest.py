"""Fixtures the browser tests share: the app served once per test module, and one Chromium per module."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from browser import CHROMIUM_ARGS, chromium_path, serve
from playwright.sync_api import Browser, sync_playwright


@pytest.fixture(scope="module")
def app_url() -> Iterator[str]:
    with serve() as url:
        yield url


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        yield b
        b.close()
