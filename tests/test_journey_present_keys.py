"""Present mode as a demanding lecturer walks it (issue 41's walk): the Projector button pressed on the page, the
stages stepped with the keys, and what the back row then reads: the Q, K, V stage's numbers as large as the room
allows on the first visit, and an identity W still saying it is the identity."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from browser import open_page
from playwright.sync_api import Browser, Page
from test_journey_projector import ON_SCREEN


@pytest.fixture
def lecture(browser: Browser, app_url: str, request: pytest.FixtureRequest) -> Iterator[Page]:
    """``request.param``: (preset, width, height); the page at the first stage after a press of Projector (text size
    150% and present mode), as a lecturer starts."""
    preset, w, h = request.param
    pg = open_page(browser, f"{app_url}?preset={preset}", w, h)
    try:
        pg.click("button.projector")
        pg.wait_for_function("() => document.body.dataset.presentStage === 'inputs'")
        pg.wait_for_timeout(300)
        yield pg
    finally:
        pg.close()


def step_to(pg: Page, key: str) -> dict:
    """→ pressed (small pauses, as a person presses it) until the stage is ``key``; then what ON_SCREEN reads."""
    for _ in range(12):
        if pg.evaluate("() => document.body.dataset.presentStage") == key:
            break
        pg.keyboard.press("ArrowRight")
        pg.wait_for_timeout(150)
    pg.wait_for_timeout(400)  # (the fit, a frame later)
    got = pg.evaluate(ON_SCREEN)
    assert got["stage"] == key, got
    return got


@pytest.mark.parametrize("lecture", [("llama-style", 1920, 1080)], indirect=True, ids=["1080p"])
def test_the_qkv_stages_first_visit_is_fitted_with_its_own_layout(lecture: Page) -> None:
    """At 1920×1080 llama-style's whole Q, K, V stage fits at about 60 px (docs/projector.md). The first → into it
    fitted the cards while the W's notes ("d_model×d_model, split into 2 heads…", hidden at this stage by present.css
    keyed on the stage's name) were still there, two rows of W's, and kept that fit: 34.5 px, the room under Q, K, V
    empty; leaving the stage and coming back gave 58.7 px."""
    got = step_to(lecture, "qkv")
    assert got["bad"] == [] and got["now"] >= 55, got
    assert not lecture.evaluate("() => document.body.classList.contains('pp-part')")  # (the whole stage: Q, K and V)
    lecture.keyboard.press("ArrowLeft")
    lecture.wait_for_timeout(300)
    again = step_to(lecture, "qkv")
    assert abs(again["now"] - got["now"]) < 0.5, (got, again)  # the same fit on every visit
