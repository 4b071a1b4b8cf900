"""What the room shows is on screen (a lecturer at 1280×720, a student on a 390×844 phone): "Join a class" and "Teach
this" wait at the page's end, and a wrong code's page came back scrolled to where the box had been, its message far
above out of sight; "Start the lesson" left the lecturer at the page's end, the room's line 2,000 px above."""

from __future__ import annotations

import pytest
from browser import loaded, press
from playwright.sync_api import Browser, Page
from test_room_journey import FOLLOWING, page_in

SIZES = [(1280, 720, False), (390, 844, True)]
# the element's box inside the viewport (whole: top to bottom, left to right)
IN_VIEW = """(s) => { const e = document.querySelector(s); if (!e || !e.offsetParent) return false;
  const r = e.getBoundingClientRect();
  return r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth; }"""
WHERE = """(s) => { const r = document.querySelector(s)?.getBoundingClientRect();
  return r && { top: Math.round(r.top), bottom: Math.round(r.bottom), scrollY: Math.round(scrollY), innerHeight }; }"""


def in_view(pg: Page, *selectors: str) -> None:
    """Wait (5 s at most) until each of ``selectors`` is wholly on screen; else say where each is."""
    try:
        for s in selectors:
            pg.wait_for_function(IN_VIEW, arg=s, timeout=5_000)
    except Exception:
        where = {s: pg.evaluate(WHERE, s) for s in selectors}
        raise AssertionError(f"not on screen at {pg.viewport_size}: {where}") from None


def tap(pg: Page, selector: str, phone: bool) -> None:
    press(pg, selector, tap=phone)


@pytest.mark.parametrize(("width", "height", "phone"), SIZES)
def test_a_wrong_code_comes_back_with_its_message_on_screen(own_app: str, browser: Browser, width: int,
                                                            height: int, phone: bool) -> None:  # fmt: skip
    pg = page_in(browser, own_app, width, height, phone=phone)
    loaded(pg)
    try:
        tap(pg, "#room .room-code", phone)  # (at the page's end: scrolled to, as a person scrolls)
        pg.locator("#room .room-code").press_sequentially("ybgpeo", delay=80)  # an O where the screen had no O
        tap(pg, "#room .room-join button", phone)
        pg.wait_for_selector("#room .room-status[data-kind=error]")
        assert "never use the letter O" in pg.inner_text("#room .room-status")
        in_view(pg, "#room .room-status", "#room .room-code")
        assert pg.evaluate("() => document.activeElement?.classList.contains('room-code')")  # (typed again at once)
    finally:
        pg.context.close()


@pytest.mark.parametrize(("width", "height"), [(w, h) for w, h, _ in SIZES])
def test_start_the_lesson_shows_the_rooms_line_and_the_lesson(own_app: str, browser: Browser, width: int,
                                                               height: int) -> None:  # fmt: skip
    """A lecturer's window at either size, with a mouse (a touch tap on "Teach this" at the phone's page end was
    missed now and then, the status left empty: a lecturer teaches from a laptop)."""
    pg = page_in(browser, own_app, width, height)
    loaded(pg)  # (fonts and fits done: nothing moves under the clicks)
    try:
        press(pg, "#room .room-teach")  # "Teach this", at the page's end
        try:
            pg.locator(".room-card .rc-hide").wait_for()
        except Exception:
            pg.screenshot(path="/tmp/room/fail-inview.png")
            raise AssertionError(f"no join card: {pg.inner_text('#room .room-status')!r}") from None
        pg.locator(".room-card .rc-hide").click()  # "Start the lesson"
        pg.locator(".room-card").wait_for(state="hidden")
        in_view(pg, "#room .room-status", "#room .room-teacher [data-ask=quiz]")
        assert "Teaching room" in pg.inner_text("#room .room-status")
        assert pg.evaluate("() => document.getElementById('tabs').getBoundingClientRect().top < innerHeight")
        pg.locator("#room .room-close").click()  # (its seat among the address's 5 open rooms given back)
        pg.wait_for_selector("#room .room-status[data-kind=closed]")
    finally:
        pg.context.close()


def test_a_code_typed_with_a_space_between_its_characters_joins(own_app: str, browser: Browser) -> None:
    """A student types the code as the join card spaces it out, a space after each character (a helper's walk): the
    box kept 8 characters, "G K E R ", and the page said "'GKER' is not a room code … this is 4"."""
    teacher = page_in(browser, own_app, 1280, 720)
    phone = page_in(browser, own_app, 390, 844, phone=True)
    try:
        loaded(teacher)
        press(teacher, "#room .room-teach")
        code = teacher.locator(".room-card .rc-code").inner_text().strip()
        loaded(phone)
        press(phone, "#room .room-code", tap=True)
        phone.locator("#room .room-code").press_sequentially(" ".join(code.lower()), delay=80)
        press(phone, "#room .room-join button", tap=True)
        phone.wait_for_selector(FOLLOWING)
        assert code in phone.inner_text("#room .room-status")
        press(teacher, ".room-card .rc-hide")
        press(teacher, "#room .room-close")  # (its seat among the address's 5 open rooms given back)
        teacher.wait_for_selector("#room .room-status[data-kind=closed]")
    finally:
        for pg in (teacher, phone):
            pg.context.close()
