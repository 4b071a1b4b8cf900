"""Journey in real Chromium: the keyboard's Tab goes through the page in the order a person sees it (issue 37, the
learner's walk: Tab after "Projector" jumped to the room's controls at the end of the page, scrolling it to y=2025,
and only then back up to the Workbench tab)."""

from __future__ import annotations

from browser import open_page
from playwright.sync_api import Browser

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
