"""Fixtures the tests share: the app served once per test module, one Chromium per module, and the notebooks' text."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from browser import CHROMIUM_ARGS, chromium_path, open_page, serve
from playwright.sync_api import Browser, Page, sync_playwright
from seed_text import seeds_or_skip


@pytest.fixture
def seeds() -> Path:
    """The folder of the notebooks' text (000_*.txt … 004_*.txt), for the tests that compare the data files to it."""
    return seeds_or_skip()


@pytest.fixture(scope="session")
def shared_app() -> Iterator[str]:
    """The app, served once per test worker (each start costs 11-20 s; about 30 modules share it): a module whose
    tests leave state that would reach another module's (lesson rooms count against the 5 an address may hold open)
    asks for ``own_app`` instead."""
    with serve() as url:
        yield url


@pytest.fixture(scope="module")
def app_url(shared_app: str) -> str:
    """The app's address for this module's tests: the worker's shared server (``shared_app``)."""
    return shared_app


@pytest.fixture(scope="module")
def own_app() -> Iterator[str]:
    """The app served for this module alone: its tests open lesson rooms and leave them open, and 5 rooms open from
    one address are the most the app allows (serving/rooms.py)."""
    with serve() as url:
        yield url


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """The app with its log in a file the module reads (no traceback may reach it): (its address, the log's path).
    test_journey_truth and test_journey_refusals use it; a module with its own ``served`` keeps its own."""
    log = tmp_path_factory.mktemp("log") / "server.log"
    with serve(log_path=str(log)) as url:
        yield url, log


@pytest.fixture
def page(browser: Browser, served: tuple[str, Path]) -> Iterator[Page]:
    """A fresh page of ``served``'s app, its events counted (browser.open_page); a module with its own ``page``
    fixture keeps its own."""
    pg = open_page(browser, served[0], events=True)
    yield pg
    pg.close()


# The suite runs on two workers, a test file each at a time (pyproject.toml: -n 2 --dist loadfile, in the order
# collected). The files that take longest go first, so that neither worker is left running a long one alone at the
# end (test_readme.py alone runs the benchmarks' smoke runs: about 10 minutes; test_journey_projector.py's every
# stage of every preset at two sizes, over 6 in CI's last run).
FIRST = ("test_readme.py", "test_journey_projector.py", "test_fuzz.py", "test_classroom.py",
         "test_journey_readable.py", "test_hostile.py", "test_load.py", "test_spaces_api.py")  # fmt: skip


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    def rank(item: pytest.Item) -> int:
        name = Path(str(item.fspath)).name
        return FIRST.index(name) if name in FIRST else len(FIRST)

    items.sort(key=rank)  # (stable: every file's own tests keep their order)
