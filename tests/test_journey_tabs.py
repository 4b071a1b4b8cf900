"""The tab row, clicked through as a learner does at a laptop's, a desktop's and a phone's size: every tab is shown
once (in the row, or in gradio's "More tabs" menu when the row is too narrow) and the chosen one is in the row, on
screen and on top. (A fresh learner's walk, issue 37: clicking "Real model" read "… Sentence mode · Real model ·
Real model" and Train was gone; Train gave "Train · Train".)"""

from __future__ import annotations

import gradio as gr
import pytest
from browser import open_page
from playwright.sync_api import Browser, Page

import playground

TABS = ["Workbench", "Mask lab", "Scaling lab", "Sentence mode", "Real model", "Train"]

# what the tab row shows: the row's buttons (label, selected, on screen and topmost at its centre) and the labels
# in the "More tabs" menu (its buttons are there, hidden, until the menu opens)
ROW = """() => {
  const w = document.querySelector('#tabs > .tab-wrapper');
  const row = [...w.querySelectorAll('[role=tablist] button[role=tab]')].map((b) => {
    const r = b.getBoundingClientRect(), x = r.left + r.width / 2, y = r.top + r.height / 2;
    const top = document.elementFromPoint(x, y);
    return {label: b.textContent.trim(), selected: b.getAttribute('aria-selected') === 'true',
            seen: r.width > 0 && r.left >= 0 && r.right <= innerWidth && !!top && b.contains(top)};
  });
  const menu = [...w.querySelectorAll('.overflow-dropdown button')].map((b) => b.textContent.trim());
  const more = w.querySelector('.overflow-menu:not(.hide) > button');
  let moreSeen = null;
  if (more) {
    const r = more.getBoundingClientRect(), top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    moreSeen = !!top && more.contains(top);
  }
  return {row, menu, moreSeen};
}"""


def choose(pg: Page, name: str) -> None:
    """Click the tab ``name`` in the row, or open "More tabs" and click it there; wait until it is the chosen one."""
    in_row = pg.locator("#tabs [role=tablist] button[role=tab]").filter(has_text=name)
    if in_row.count():
        in_row.first.click()
    else:
        pg.locator("#tabs .overflow-menu > button").click()
        pg.locator("#tabs .overflow-dropdown button").filter(has_text=name).first.click()
    pg.wait_for_function(
        "(name) => [...document.querySelectorAll('#tabs [role=tablist] button[aria-selected=true]')]"
        ".some((b) => b.textContent.trim() === name)",
        arg=name,
    )
    pg.wait_for_timeout(400)  # (the tab's content is mounted on its first choice, and registers itself then)


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080), (390, 844)], ids=["1280x720", "1920x1080", "390x844"])
def test_every_tab_shows_once_and_the_chosen_one_is_in_the_row(browser: Browser, app_url: str,
                                                                size: tuple[int, int]) -> None:  # fmt: skip
    """Each tab chosen in turn (Real model and Train first, as the walk did, then the rest and back): the row's and
    the menu's labels are the six tabs, each once; the chosen one is the row's one selected tab, whole on screen
    and on top; the "More tabs" button, when there, is on top too. Seen failing before the fix (a gr.State of
    Sentence mode stood beside the tabs, so the later tabs registered one place too far): at 1280x720 the row read
    [..., 'Real model', 'Real model'] after choosing Real model."""
    pg = open_page(browser, app_url, *size)
    try:
        for name in ["Real model", "Train", "Sentence mode", "Mask lab", "Scaling lab", "Workbench", "Real model"]:
            choose(pg, name)
            got = pg.evaluate(ROW)
            labels = [t["label"] for t in got["row"]] + got["menu"]
            assert sorted(labels) == sorted(TABS), (name, size, labels)
            chosen = [t for t in got["row"] if t["selected"]]
            assert [t["label"] for t in chosen] == [name], (name, size, got["row"])
            assert chosen[0]["seen"], (f"{name} is chosen but not whole on screen and on top", size, got["row"])
            assert got["moreSeen"] in (None, True), (f"the More tabs button is covered after choosing {name}", size)
            if size[0] >= 1280:  # (a laptop's row holds all six, so nothing goes into the menu)
                assert got["menu"] == [] and all(t["seen"] for t in got["row"]), (name, size, got)
    finally:
        pg.close()


def test_the_tabs_hold_only_tabs() -> None:
    """Each child of the page's gr.Tabs is a gr.Tab, in the row's order: gradio numbers a tab by its place among the
    Tabs' children, so a component built beside the tabs (Sentence mode's d_out State was) puts every later tab one
    place too far, over its neighbour. Seen failing before the fix: a State among the children."""
    tabs = next(b for b in playground.demo.blocks.values() if isinstance(b, gr.Tabs) and b.elem_id == "tabs")
    kinds = [type(c).__name__ for c in tabs.children]
    assert kinds == ["Tab"] * len(TABS), kinds
    assert [c.label for c in tabs.children] == TABS
