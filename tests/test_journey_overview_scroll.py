"""With 30 tokens the overview lies below the input grids. A learner who types into X and then wheels down to it, or who
leaves present mode and does the same, meets every card drawn and at the size the page laid it out with: nothing
blank, nothing that grows, shrinks or moves as it comes into view (issue 39: skipping the off-screen tables, 87daf61,
did all three and was reverted). At 1280×720, typed key by key, scrolled a wheel's notch at a time."""

from __future__ import annotations

import torch
from browser import open_page, type_cell
from playwright.sync_api import Browser, Page

from ui import share

# 30 tokens of 16 numbers, 2 heads of 8: the attention tables (30×30) show a window of their numbers
SCENARIO = {
    "x": (torch.randn(30, 16, generator=torch.Generator().manual_seed(0)) * 2).round(decimals=1).tolist(),
    "heads": 2, "head_mode": "concat", "d_out": 8, "weights": {"init": "linear", "seed": 1},
    "mask": {"kind": "causal", "fill": "-inf"},
}  # fmt: skip

# each overview card's box in the page's coordinates (left, top, width, height), in the page's order (null: a card
# not shown, as scaled and masked are at these settings)
CARDS = """() => Array.from(document.querySelectorAll('#overview .card'), (c) => {
  const r = c.getBoundingClientRect();
  if (!r.height) return null;
  return [Math.round(r.left), Math.round(r.top + scrollY), Math.round(r.width), Math.round(r.height)]; })"""
# the cards on screen now that are not drawn (skipped by content-visibility), by title, and whether the scrolling is
# past the overview (or at the page's end)
STEP = """() => {
  const cards = [...document.querySelectorAll('#overview .card')];
  const blank = cards.filter((c) => { const r = c.getBoundingClientRect(); return r.height > 0 && r.bottom > 0
    && r.top < innerHeight && c.querySelector('table.nt')?.checkVisibility({contentVisibilityAuto: true}) === false; });
  const past = cards.at(-1).getBoundingClientRect().bottom < 0
    || innerHeight + scrollY >= document.documentElement.scrollHeight - 2;
  return [blank.map((c) => c.querySelector('.card-title')?.textContent.trim()), past]; }"""
# from a screen and a half above the overview's first card
START = """() => scrollTo(0, Math.max(0,
  document.querySelector('#overview .card').getBoundingClientRect().top + scrollY - 1.5 * innerHeight))"""


def wheel_through_the_overview(pg: Page) -> None:
    """Down to the overview and past it, 100 px a notch every 50 ms: each card on screen is drawn, and at the end
    every card's box is the one the page had laid out before the scrolling."""
    laid = pg.evaluate(CARDS)
    pg.evaluate(START)
    pg.mouse.move(640, 400)
    for _ in range(100):
        pg.mouse.wheel(0, 100)
        pg.wait_for_timeout(50)
        blank, past = pg.evaluate(STEP)
        assert not blank, f"on screen without its numbers: {blank}"
        if past:
            break
    moved = [(i, a, b) for i, (a, b) in enumerate(zip(laid, pg.evaluate(CARDS), strict=True)) if a != b]
    assert not moved, f"cards that changed as they came into view (index, before, after): {moved}"


def test_the_overview_is_drawn_as_laid_out_when_scrolled_to(browser: Browser, app_url: str) -> None:
    pg = open_page(browser, f"{app_url}?scenario={share.encode_link(SCENARIO)}", 1280, 720)
    try:
        first = "#overview table[data-name=output] td[data-r='0'][data-c='0']"
        before = pg.locator(first).get_attribute("title")
        type_cell(pg, "x", 0, 0, "9.5")
        pg.wait_for_function(f'(b) => document.querySelector("{first}").title !== b', arg=before)
        pg.wait_for_timeout(300)
        wheel_through_the_overview(pg)
        pg.click("#present-btn")
        pg.locator("#present-panel").wait_for()
        pg.keyboard.press("ArrowRight")  # (the second stage: Q, K and V, each larger than in the overview)
        pg.wait_for_timeout(200)
        pg.keyboard.press("Escape")
        pg.locator("#present-panel").wait_for(state="hidden")
        pg.wait_for_timeout(300)
        wheel_through_the_overview(pg)
    finally:
        pg.close()
