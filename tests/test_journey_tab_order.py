"""Journey in real Chromium: the keyboard's Tab goes through the page in the order a person sees it (issue 37, the
learner's walk: Tab after "Projector" jumped to the room's controls at the end of the page, scrolling it to y=2025,
and only then back up to the Workbench tab)."""

from __future__ import annotations

from browser import open_page
from playwright.sync_api import Browser, Page
from playwright.sync_api import TimeoutError as PlaywrightTimeout

FOCUS_JS = """() => { const e = document.activeElement, r = e.getBoundingClientRect();
  return {text: (e.innerText || e.getAttribute('aria-label') || '').trim(), role: e.getAttribute('role') || '',
          top: r.top + scrollY, scroll: scrollY}; }"""


def test_tab_after_the_top_bar_reaches_the_workbench_tab_and_the_room_last(browser: Browser, app_url: str) -> None:
    pg = open_page(browser, app_url, 1280, 720)
    try:
        projector = pg.get_by_role("button", name="Projector")
        projector.focus()
        pg.keyboard.press("Tab")
        got = pg.evaluate(FOCUS_JS)
        assert got["role"] == "tab" and got["text"] == "Workbench", got  # the next thing seen: the tabs below
        assert got["scroll"] == 0, got  # and the page did not jump to its end
        pg.keyboard.press("Shift+Tab")
        assert pg.evaluate(FOCUS_JS)["text"] == "Projector"
        # the room's "Teach this", shown at the end of the page, is reached after the workbench's controls
        teach = pg.get_by_role("button", name="Teach this")
        teach_top = teach.evaluate("(e) => e.getBoundingClientRect().top + scrollY")
        tabs_top = pg.get_by_role("tab", name="Workbench").evaluate("(e) => e.getBoundingClientRect().top + scrollY")
        assert teach_top > tabs_top + 500, (teach_top, tabs_top)  # (it is seen at the end)
        order = pg.evaluate(
            "() => { const t = document.querySelector('#tabs [role=tab]'); const b = [...document.querySelectorAll("
            "'button')].find((x) => x.innerText.trim() === 'Teach this');"
            " return !!(t.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING); }"
        )
        assert order, "Teach this comes before the tabs in the page's order"
        # a teacher opens a room: the bar comes to the top of the page, and first in the page's order too
        teach.click()
        pg.wait_for_function(
            "() => { const b = document.getElementById('room-bar'), t = document.getElementById('tabs');"
            " return b.getBoundingClientRect().top < t.getBoundingClientRect().top; }"
        )
        projector.focus()
        pg.keyboard.press("Tab")
        got = pg.evaluate(FOCUS_JS)
        tabs_top = pg.get_by_role("tab", name="Workbench").evaluate("(e) => e.getBoundingClientRect().top + scrollY")
        assert got["role"] != "tab" and got["top"] < tabs_top, (got, tabs_top)  # the room's bar, seen between them
    finally:
        pg.close()


# ---- the toolbar's dropdowns: one open list at a time, and the focus kept after a pick ------------------------------

# the option lists shown (gradio draws a dropdown's list while it is open, and fades it out in 0.2 s)
LISTS_SHOWN = """() => [...document.querySelectorAll('[role=listbox]')].filter((u) => {
  const r = u.getBoundingClientRect();
  return r.width > 0 && r.height > 0 && getComputedStyle(u).visibility !== 'hidden'
    && getComputedStyle(u.parentElement).display !== 'none';
}).length"""
OPEN_BOXES = """() => [...document.querySelectorAll('[role=listbox]')].filter((u) => u.offsetHeight)
  .map((u) => document.querySelector(`[aria-controls="${u.id}"]`)?.getAttribute('aria-label'))"""
BOXES = ("Preset (notebook example)", "mask", "fill", "scale", "normalise", "dtype")


def lists_at_most(pg: Page, n: int, why: str) -> None:
    """Wait (as a person looks, up to 2 s: the list fades out in 0.2 s) until at most ``n`` lists are shown."""
    try:
        pg.wait_for_function(f"() => ({LISTS_SHOWN})() <= {n}", timeout=2_000)
    except PlaywrightTimeout:
        raise AssertionError(
            f"{pg.evaluate(LISTS_SHOWN)} option lists shown {why}: {pg.evaluate(OPEN_BOXES)}"
        ) from None


def focused_label(pg: Page) -> str:
    return pg.evaluate("() => document.activeElement.getAttribute('aria-label') || document.activeElement.tagName")


def test_tab_through_the_toolbar_leaves_at_most_one_option_list_open(browser: Browser, app_url: str) -> None:
    """Tab along the top bar and the toolbar, opening each dropdown's list with ArrowDown and leaving it with Tab,
    then back with Shift+Tab, then a click elsewhere: never more than one list shows (the old page kept every list
    open, six stacked over the pipeline: gradio's keydown handler opened the list again after Tab had left it)."""
    pg = open_page(browser, app_url, 1280, 720)
    try:
        pg.get_by_label("Preset (notebook example)", exact=True).focus()
        seen: list[str] = []
        for _ in range(40):
            label = focused_label(pg)
            if label in BOXES and label not in seen:
                seen.append(label)
                pg.keyboard.press("ArrowDown")
                pg.wait_for_function(f"() => ({LISTS_SHOWN})() >= 1")  # its list shows
                lists_at_most(pg, 1, f"with {label}'s open")
            if seen == list(BOXES):
                break
            pg.keyboard.press("Tab")
            lists_at_most(pg, 1, f"after Tab from {label}")
        assert seen == list(BOXES), seen
        pg.keyboard.press("Shift+Tab")  # (dtype's list open: back to normalise, whose list opens as it is reached)
        lists_at_most(pg, 1, "after Shift+Tab from dtype")
        assert focused_label(pg) == "normalise"
        pg.wait_for_function(f"() => JSON.stringify(({OPEN_BOXES})()) === '[\"normalise\"]'")
        pg.mouse.click(640, 700)  # a click elsewhere on the page
        lists_at_most(pg, 0, "after a click elsewhere")
    finally:
        pg.close()


def test_a_mouse_pick_keeps_the_focus_on_its_box_and_tab_goes_on_from_there(browser: Browser, app_url: str) -> None:
    """The scale box clicked, 'off' clicked in its list: the box keeps the focus, showing the choice with
    its list closed, and Tab reaches the next control (the old page dropped the focus to <body>, so Tab started
    again from the top of the page)."""
    pg = open_page(browser, app_url, 1280, 720)
    try:
        box = pg.get_by_label("scale", exact=True)
        box.click()
        option = pg.get_by_role("option", name="off", exact=True)
        option.click()
        pg.wait_for_function("(b) => b.value === 'off'", arg=box.element_handle())
        pg.wait_for_timeout(300)  # (as a person sees where the focus is)
        assert focused_label(pg) == "scale"
        lists_at_most(pg, 0, "after the pick")
        pg.keyboard.press("Tab")
        assert focused_label(pg) == "normalise"
    finally:
        pg.close()
