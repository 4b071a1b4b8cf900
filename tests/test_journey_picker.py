"""The preset picker's chevron never covers the preset's name (issue 37: "seed 4⌄2"): at 1280×720 and 390×844,
every preset is chosen from the picker's list as a learner chooses it, and the name's text, as the input lays it out
(its content box, where the text is drawn and clipped), ends before the chevron's box begins; a name longer than the
box ends in an ellipsis (text-overflow), never under the chevron."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from browser import open_page, settled
from playwright.sync_api import Browser, Page

SIZES = [(1280, 720), (390, 844)]

# the input's text: where it starts and where the content box clips it (its padding in), the chevron's box, and the
# text's own width in the input's font (the text runs on to there, drawn only inside the content box)
MEASURE = """() => {
  const inp = document.querySelector('#preset input'), chevron = document.querySelector('#preset .icon-wrap');
  const s = getComputedStyle(inp), box = inp.getBoundingClientRect(), c = chevron.getBoundingClientRect();
  const pen = document.createElement('canvas').getContext('2d');
  pen.font = s.font;
  const left = box.left + parseFloat(s.borderLeftWidth) + parseFloat(s.paddingLeft);
  const clip = box.right - parseFloat(s.borderRightWidth) - parseFloat(s.paddingRight);
  return { value: inp.value, left, clip, textRight: left + pen.measureText(inp.value).width, chevronLeft: c.left,
           chevronWidth: c.width, overflow: s.textOverflow };
}"""


@pytest.fixture(params=SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def page(request: pytest.FixtureRequest, browser: Browser, app_url: str) -> Iterator[Page]:
    pg = open_page(browser, app_url, width=request.param[0], height=request.param[1], events=True)
    yield pg
    pg.close()


def test_every_preset_name_ends_before_the_chevron(page: Page) -> None:
    page.locator("#preset input").click()
    names = [o.get_attribute("aria-label") for o in page.locator("li[role='option']").all()]
    page.locator("#title").click()  # (the list closes)
    assert len(names) >= 18, names
    cut = []
    for name in names:
        if page.locator("#preset input").input_value() != name:  # (the first is the one loaded)
            page.locator("#preset input").click()
            page.locator(f"li[role='option'][aria-label=\"{name}\"]").click()
            page.locator("#title").click()  # on, as a learner moves on
            settled(page)
        m = page.evaluate(MEASURE)
        assert m["value"] == name and m["chevronWidth"] > 0, m
        drawn_to = min(m["textRight"], m["clip"])  # the text is drawn up to its end or the content box's edge
        assert drawn_to <= m["chevronLeft"], f"{name!r} runs under the chevron: text to {drawn_to}, chevron at {m}"
        if m["textRight"] > m["clip"]:  # longer than the box: cut with an ellipsis, not bare
            assert m["overflow"] == "ellipsis", m
            cut.append(name)
    assert len(cut) < len(names)  # (the short names are whole)
