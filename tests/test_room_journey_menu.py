"""A class from the Lesson menu, the one a lecturer opens first: "Teach this" and "Join a class" wait at the page's
end (3,000–5,000 px down) until a room is open, so a lecturer looking for a way to teach a class did not find them.
The menu's "With a class" part opens a room (its card, code and QR on screen) or brings the code box into view,
focused, for a student who types the code key by key."""

from __future__ import annotations

from playwright.sync_api import Browser
from test_room_journey import FOLLOWING, page_in, shows
from test_room_journey_inview import in_view, tap

# an element's box and the viewport's width: [left, right, top, bottom, innerWidth]
WHOLE = """(s) => { const r = document.querySelector(s).getBoundingClientRect();
  return [r.left, r.right, r.top, r.bottom, innerWidth]; }"""


def test_a_lecturer_opens_a_room_and_a_student_joins_from_the_lesson_menu(own_app: str, browser: Browser) -> None:
    """The lecturer (1280×720) clicks Lesson, then "Teach this: open a room": the room's card is on screen with its
    code and QR, the menu closed. A student on a 390×844 phone taps Lesson (the menu whole on screen: its left edge
    was 20 px off it), then "Join a class by its code": the code box is on screen and focused, so the code typed key
    by key goes into it; Enter joins, the student follows, and the lecturer's card counts one student. In the room,
    the lecturer's menu offers the join card again (the same code) and the student's menu no room of their own."""
    teacher = page_in(browser, own_app, 1280, 720)
    student = page_in(browser, own_app, 390, 844, phone=True)
    try:
        teacher.click("#lesson-btn")
        teacher.get_by_role("button", name="Teach this: open a room").click()
        card = teacher.locator(".room-card")
        card.wait_for()
        assert teacher.locator("#lesson-pop").is_hidden()
        in_view(teacher, ".room-card .rc-code", ".room-card .rc-qr")
        code = card.locator(".rc-code").inner_text().strip()
        assert len(code) == 6, code
        tap(student, "#lesson-btn", phone=True)
        student.locator("#lesson-pop").wait_for()
        box = student.evaluate(WHOLE, "#lesson-pop")  # (fixed: no offsetParent, so not in_view's test)
        assert box[0] >= 0 and box[1] <= 390 and box[3] <= 844, f"the menu is cut off on the phone: {box}"
        student.get_by_role("button", name="Join a class by its code").tap()
        in_view(student, "#room .room-code")
        focused = student.evaluate("() => document.activeElement?.matches('#room .room-code')")
        assert focused, "the code box has no focus"
        student.keyboard.type(code.lower(), delay=80)  # (where the focus is: the box)
        student.keyboard.press("Enter")
        student.wait_for_selector(FOLLOWING)
        assert f"room {code}" in student.locator("#room .room-status").inner_text()
        shows(teacher, ".room-card .rc-count", "1 student joined")
        # in the room, the menu offers what the room's line does: the lecturer the join card again, the student no
        # room of their own (the menu's Teach opened one over the followed room: a review found it)
        teacher.locator(".room-card .rc-hide").click()
        teacher.click("#lesson-btn")
        assert teacher.locator("#lesson-pop .lp-do button").all_inner_texts()[-1] == "Show the join card"
        assert teacher.locator("#lesson-pop .lp-join").count() == 0
        teacher.locator("#lesson-pop .lp-teach").click()
        card.wait_for()
        assert card.locator(".rc-code").inner_text().strip() == code  # the same room, not a new one
        tap(student, "#lesson-btn", phone=True)
        assert student.locator("#lesson-pop .lp-teach, #lesson-pop .lp-join").count() == 0
        assert "You are in a class" in student.inner_text("#lesson-pop .lp-class")
    finally:
        teacher.context.close()
        student.context.close()
