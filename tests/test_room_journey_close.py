"""A lesson's answers as a reviewer's walk found them (a lecturer at 1280×720, a student at 1280×720 and one on a
phone, 390×844, each a browser context of its own, driven by clicks, taps and keys typed one by one): a predicted
number the CSV counts right is right on the student's screen too; a student's own answer comes back after a reload;
an answer after the room closed is refused, and the answer buttons go; the lecturer keeps the closed room's results
and opens a new room without a reload."""

from __future__ import annotations

import math
from collections.abc import Iterator

import pandas as pd
import pytest
from browser import LOADED
from browser import press as press_still
from playwright.sync_api import Browser, Page, Route
from playwright.sync_api import Error as PlaywrightError
from test_room_journey import FOLLOWING, join_by_code, page_in, shows

SCORES = "#overview table[data-name=scores]"
WEIGHTS = "#overview table[data-name=weights]"
# every number of the lecturer's overview weights on screen (none a hidden question's '?')
ALL_SHOWN = f"() => [...document.querySelectorAll('{WEIGHTS} td[data-r]')].every((td) => /\\d/.test(td.innerText))"


@pytest.fixture(scope="module")
def lesson(own_app: str, browser: Browser) -> Iterator[dict[str, object]]:
    teacher = page_in(browser, own_app, 1280, 720)
    students = [page_in(browser, own_app), page_in(browser, own_app, 390, 844, phone=True)]
    press(teacher, "#room .room-teach")
    code = teacher.locator(".room-card .rc-code").inner_text().strip()
    for i, s in enumerate(students):
        join_by_code(s, code, phone=i == 1)
    shows(teacher, ".room-card .rc-count", "2 students joined")
    teacher.locator(".room-card .rc-hide").click()
    yield {"teacher": teacher, "students": students, "code": code}
    for pg in (teacher, *students):
        pg.context.close()


def press(pg: Page, selector: str) -> None:
    """A click, or a tap on the phone, once the element stays where it is (browser.press)."""
    press_still(pg, selector, tap=(pg.viewport_size or {}).get("width", 1280) < 500)


def download(teacher: Page) -> pd.DataFrame:
    with teacher.expect_download() as got:
        teacher.locator("#room .room-csv").click()
    return pd.read_csv(got.value.path())


def test_a_prediction_the_csv_counts_right_is_right_on_the_students_screen(lesson: dict) -> None:
    """The walk's case: within 1% of the student's own answer, not of the right one (math.isclose's rule): the
    page said "yours is wrong ✗" while the CSV said correct=True."""
    teacher, (a, phone) = lesson["teacher"], lesson["students"]
    cell = teacher.locator(f"{SCORES} td[data-r='2'][data-c='2']")
    right = float(cell.get_attribute("title") or "nan")  # exact, as the server words it (ui/room.py)
    answer = f"{right * 1.01005:.5f}"
    x = float(answer)
    assert math.isclose(x, right, rel_tol=0.01, abs_tol=0.01), (x, right)  # right by the server's rule
    assert abs(x - right) > max(0.01, 0.01 * abs(right)), (x, right)  # and past the page's old rule
    teacher.locator("#room [data-ask=predict]").click()
    cell.click()
    teacher.wait_for_selector("#room .room-q b")
    for s, value in ((a, answer), (phone, f"{right * 2:.3f}")):
        s.wait_for_selector("#room .ra-value")
        press(s, "#room .ra-value")
        s.locator("#room .ra-value").press_sequentially(value, delay=80)
        press(s, "#room .ra-form button")
        s.wait_for_selector("#room .ra-mine")
    shows(teacher, "#room .room-answers", "2 answers")
    teacher.locator("#room .room-reveal").click()
    marks = []
    for s in (a, phone):
        s.wait_for_selector("#room .ra-right")
        marks.append(s.locator("#room .ra-right").inner_text())
    frame = download(teacher)
    by_answer = dict(zip(frame["answer"].astype(float), frame["correct"], strict=True))
    assert by_answer[x] == True  # noqa: E712 (the CSV: a numpy bool)
    assert "yours is right ✓" in marks[0], marks[0]  # the same on the student's screen
    assert "yours is wrong ✗" in marks[1], marks[1]


def test_a_students_own_answer_comes_back_after_a_reload(lesson: dict) -> None:
    teacher, phone = lesson["teacher"], lesson["students"][1]
    teacher.locator("#room [data-ask=quiz]").click()
    phone.wait_for_selector("#room .ra-opt")
    picked = phone.locator("#room .ra-opt").first.inner_text().strip()
    phone.locator("#room .ra-opt").first.tap()
    phone.wait_for_selector("#room .ra-opt.chosen")
    shows(teacher, "#room .room-answers", "1 answer")
    phone.reload()
    phone.wait_for_function(LOADED)
    phone.wait_for_selector(FOLLOWING)
    phone.wait_for_selector("#room .ra-opt")
    try:  # mid-question: the option they chose is marked, and their answer said
        phone.wait_for_selector("#room .ra-opt.chosen", timeout=5_000)
    except Exception:
        raise AssertionError(f"after the reload: {phone.locator('#room .room-ask').inner_text()!r}") from None
    assert phone.locator("#room .ra-opt.chosen").inner_text().strip() == picked
    assert picked in phone.locator("#room .ra-mine").inner_text()
    phone.reload()
    phone.wait_for_function(LOADED)
    phone.wait_for_selector(FOLLOWING)
    teacher.locator("#room .room-reveal").click()
    phone.wait_for_selector("#room .ra-right")
    text = phone.locator("#room .ra-right").inner_text()
    assert "yours is right" in text or "yours is wrong" in text, text  # their answer marked after the reveal


def test_an_answer_after_the_room_closed_is_refused_and_its_buttons_go(lesson: dict) -> None:
    """The walk: after "Close the room" a student still had the question's buttons, and a click was accepted. A
    student whose stream is between two connections (a phone's network drops) taps after the close: the server
    refuses it, naming the room, and the page says so and drops the buttons; the other student's page drops them as
    soon as it hears of the close."""
    teacher, (a, phone) = lesson["teacher"], lesson["students"]
    teacher.locator("#room [data-ask=quiz]").click()
    for s in (a, phone):
        s.wait_for_selector("#room .ra-opt")
    assert teacher.evaluate(f"() => !({ALL_SHOWN})()")  # the open question's row is hidden on the lecturer's page
    held: list[Route] = []

    def hold(route: Route) -> None:  # (a stream held on the network: the student hears nothing of the close)
        held.append(route)

    a.route("**/room/*/events*", hold)
    a.evaluate("() => document.dispatchEvent(new Event('visibilitychange'))")  # (its stream drops, and waits)
    for _ in range(200):
        if held:
            break
        a.wait_for_timeout(50)
    assert held, "the student's stream never came back to the network"
    teacher.locator("#room .room-close").click()
    teacher.wait_for_selector("#room .room-status[data-kind=closed]")
    a.locator("#room .ra-opt").last.click()  # the stale page's button, clicked after the close
    try:
        a.wait_for_function("() => /closed this room/.test(document.querySelector('#room').innerText)", timeout=5_000)
    except Exception:
        raise AssertionError(f"after the close: {a.locator('#room').inner_text()!r}") from None
    assert a.locator("#room .ra-opt").count() == 0
    assert "Your answer" not in a.locator("#room .room-ask").inner_text()
    a.unroute("**/room/*/events*")
    for route in held:  # (a page that knows the room closed has let its stream go: nothing to send on)
        try:
            route.continue_()
        except PlaywrightError:
            pass
    a.wait_for_selector("#room .room-status[data-kind=closed]")
    phone.wait_for_selector("#room .room-status[data-kind=closed]")
    phone.wait_for_timeout(300)
    assert phone.locator("#room .ra-opt").count() == 0, phone.locator("#room .room-ask").inner_text()


def test_the_lecturer_keeps_the_closed_rooms_results_and_opens_a_new_room(lesson: dict) -> None:
    teacher, code = lesson["teacher"], lesson["code"]
    assert "closed" in teacher.locator("#room .room-status").inner_text()
    teacher.wait_for_function(ALL_SHOWN)  # the closed question's hidden row is back
    frame = download(teacher)  # the closed room's results, still
    assert len(frame) == 2 * frame["question"].max() and frame["question"].max() >= 1  # a row per student and question
    teach = teacher.locator("#room .room-teach")
    assert teach.inner_text().strip() == "Teach this"
    press(teacher, "#room .room-teach")
    card = teacher.locator(".room-card")
    card.wait_for()
    new = card.locator(".rc-code").inner_text().strip()
    assert len(new) == 6 and new != code
    card.locator(".rc-hide").click()
    shows(teacher, "#room .room-code-now", new)
    shows(teacher, "#room .room-count", "0 students joined")
    assert teacher.locator("#room .room-teach").inner_text().strip() == "Show the join card"
