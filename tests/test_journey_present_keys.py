"""Present mode as a demanding lecturer walks it (issue 41's walk): the Projector button pressed on the page, the
stages stepped with the keys, and what the back row then reads: the Q, K, V stage's numbers as large as the room
allows on the first visit, and an identity W still saying it is the identity."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from browser import open_page
from playwright.sync_api import Browser, Page
from test_journey_projector import ON_SCREEN, SMALLEST_TEXT


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


IDENT = """() => {
  const e = document.querySelector('#bench .card[data-card=W_q] .card-title .sub.ident');
  if (!e || !e.getClientRects().length) return null;
  const r = e.getBoundingClientRect(), at = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  return { text: e.textContent, px: parseFloat(getComputedStyle(e).fontSize), top: e === at || e.contains(at) };
}"""


@pytest.mark.parametrize("lecture", [("numpy-scaled", 1280, 720), ("llm-simplified", 1920, 1080)], indirect=True,
                         ids=["numpy-720p", "llm-1080p"])  # fmt: skip
def test_an_identity_w_says_so_at_the_qkv_stage(lecture: Page) -> None:
    """numpy-scaled's and llm-simplified's W_q is the identity, shown folded as "= I (the identity: q = x)". At the
    Q, K, V stage that line was hidden with the W's other notes, so the card read "W_q [edit cells]" beside Q = X·W_q,
    and "edit cells" was the stage's smallest text (29 px, under the 32 px every text has with the Projector)."""
    step_to(lecture, "qkv")
    ident = lecture.evaluate(IDENT)
    assert ident and ident["text"].startswith("= I") and ident["top"] and ident["px"] >= 32, ident
    smallest = lecture.evaluate(SMALLEST_TEXT)
    assert smallest["least"] >= 32, smallest


LIVE = """() => {
  const p = document.querySelector('#present-panel .pp-live'), nav = document.querySelector('#present-panel .pp-nav');
  const r = p.getBoundingClientRect(), px = parseFloat(getComputedStyle(p).fontSize);
  return { text: p.textContent, lines: Math.round(r.height / (1.25 * px)),
    clear: r.right <= nav.getBoundingClientRect().left };
}"""


@pytest.mark.parametrize("lecture", [("llama-style", 1280, 720), ("llama-style", 1920, 1080)], indirect=True,
                         ids=["720p", "1080p"])  # fmt: skip
def test_the_panel_says_h_steps_the_head_at_the_qkv_stage(lecture: Page) -> None:
    """H (the next head shown) works at the Q, K, V stage, but the panel said only "keys Q K V" (720p, one projection
    at a time) or nothing (1080p): a lecturer reads which keys work from the panel, not from a button's title. The
    live line names H, stays one line clear of the buttons, and H then shows head 2."""
    step_to(lecture, "qkv")
    got = lecture.evaluate(LIVE)
    assert "head 1 of 2" in got["text"] and got["text"].endswith("H"), got
    assert got["lines"] == 1 and got["clear"], got
    lecture.keyboard.press("h")
    lecture.wait_for_function("() => /head 2 of 2/.test(document.querySelector('#present-panel .pp-live').textContent)")
    assert lecture.evaluate(LIVE)["text"].endswith("H")


@pytest.mark.parametrize("lecture", [("statquest-self", 1280, 720)], indirect=True, ids=["720p"])
def test_one_head_names_no_h(lecture: Page) -> None:
    """With one head, H does nothing, and the panel does not name it."""
    step_to(lecture, "qkv")
    assert "H" not in lecture.evaluate(LIVE)["text"]
