"""Nothing moves the pipeline (issue 37, layout jumps): a refused cell's message, Share · export, the badge's details
and the padded positions' box open over the page or beside the controls, and the workbench's cards stay where the
learner was looking, at 1280×720 and 1920×1080. Typed key by key, as a learner types."""

from __future__ import annotations

import pytest
from browser import open_page
from playwright.sync_api import Browser, Page

TOP = "() => document.querySelector('#bench').getBoundingClientRect().top"
ON_TOP = """(sel) => { const r = document.querySelector(sel).getBoundingClientRect();
  const e = document.elementFromPoint(r.left + Math.min(40, r.width / 2), r.top + r.height / 2);
  return !!e && !!e.closest(sel); }"""


def still(pg: Page, before: float, what: str) -> None:
    after = pg.evaluate(TOP)
    assert abs(after - before) <= 1, f"{what}: the pipeline moved from y={before:.0f} to y={after:.0f}"


def type_cell(pg: Page, text: str) -> None:
    """X's first cell clicked, its editor's text replaced key by key at 80 ms, then Enter."""
    pg.locator("#inputs table[data-name=x] td[data-r='0'][data-c='0']").click()
    editor = pg.locator("#inputs table.grid td input")
    editor.press("Control+a")
    editor.press_sequentially(text, delay=80)
    editor.press("Enter")


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080)], ids=["1280x720", "1920x1080"])
def test_a_message_share_and_padding_leave_the_pipeline_where_it_was(browser: Browser, app_url: str,
                                                                    size: tuple[int, int]) -> None:  # fmt: skip
    pg = open_page(browser, app_url, *size)
    try:
        pg.wait_for_timeout(500)  # (the numbers fitted to the screen)
        top = pg.evaluate(TOP)
        pg.locator("#badge summary").click()  # the preset as loaded: which printed tensors match, how closely
        pg.locator("#badge .badge-more table").wait_for()
        assert pg.evaluate(ON_TOP, "#badge .badge-more table"), "the badge's details opened under something"
        still(pg, top, "the badge's details opened")
        pg.locator("#badge summary").click()
        type_cell(pg, "abc")
        pg.locator("#message .msg-error").wait_for()
        said = pg.locator("#message").inner_text()
        assert "x row 1, column 1" in said and "'abc'" in said, said
        assert pg.evaluate(ON_TOP, "#message .msg-error"), "the message is hidden under something"
        still(pg, top, "a refused cell's message")
        type_cell(pg, "1.5")
        pg.locator("#message .msg-error").wait_for(state="detached")
        still(pg, top, "the message gone")
        pg.locator("#share").get_by_text("Share · export").click()
        pg.get_by_role("button", name="Make a link to this exact state").wait_for()
        assert pg.evaluate(ON_TOP, "#link-btn"), "Share · export opened under something"
        still(pg, top, "Share · export opened")
        pg.locator("#share").get_by_text("Share · export").click()
        pg.get_by_label("mask", exact=True).click()
        pg.locator("li[role='option'][aria-label='padding']").click()
        pg.get_by_label("padded key positions (e.g. 3 or 2, 3)", exact=True).wait_for()
        pg.wait_for_timeout(300)
        still(pg, top, "the padded positions' box shown")
    finally:
        pg.close()
