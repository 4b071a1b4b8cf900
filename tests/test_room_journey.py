"""A lesson in Chromium: a teacher and three students (one a phone with touch) in a room, each a browser context of
its own. They join by the code typed key by key, follow an edit, a mask change and a present-mode stage; one tries
it and comes back; a predict-this-number question is answered, charted and revealed; a late joiner arrives; a
student reloads; the teacher closes the room. Each screen is read as a person would read it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pandas as pd
import pytest
from browser import LOADED, press
from playwright.sync_api import Browser, BrowserContext, Page

FOLLOWING = "#room .room-status[data-kind=following]"
CELL = "#inputs table[data-name=x] td[data-r='{r}'][data-c='{c}']"
WEIGHTS = "#overview table[data-name=weights]"


def page_in(browser: Browser, url: str, width: int = 1280, height: int = 720, phone: bool = False) -> Page:
    ctx: BrowserContext = browser.new_context(viewport={"width": width, "height": height}, has_touch=phone,
                                              is_mobile=phone)  # fmt: skip
    pg = ctx.new_page()
    pg.set_default_timeout(20_000)
    pg.goto(url)
    pg.wait_for_function(LOADED)
    pg.wait_for_selector("#overview table[data-name=output] td[data-r]", state="attached")
    return pg


def join_by_code(pg: Page, code: str, phone: bool = False) -> None:
    box = pg.locator("#room .room-code")
    press(pg, "#room .room-code", tap=phone)
    box.press_sequentially(code.lower(), delay=80)  # typed as a student would, lower case too
    press(pg, "#room .room-join button", tap=phone)
    pg.wait_for_selector(FOLLOWING)
    pg.wait_for_function(LOADED)


@contextmanager
def a_class(browser: Browser, url: str) -> Iterator[dict[str, Page]]:
    """A lecturer at 1280×720 who opened a room, and a student on a 390×844 phone who joined it by its code typed key
    by key; the join card hidden again. Each a browser context of its own, closed after."""
    teacher = page_in(browser, url, 1280, 720)
    student = page_in(browser, url, 390, 844, phone=True)
    try:
        press(teacher, "#room .room-teach")
        code = teacher.locator(".room-card .rc-code").inner_text().strip()
        join_by_code(student, code, phone=True)
        shows(teacher, ".room-card .rc-count", "1 student joined")
        teacher.locator(".room-card .rc-hide").click()
        yield {"teacher": teacher, "student": student}
    finally:
        for pg in (teacher, student):
            pg.context.close()


def edit(pg: Page, r: int, c: int, value: str) -> None:
    """Type ``value`` into X[r, c] as a person does. A presenting page shows X only at the stages it is computed
    into, so the teacher steps back with ← until X is on screen, edits, and steps forward again with →."""
    cell, back = pg.locator(CELL.format(r=r, c=c)), 0
    while not cell.is_visible() and pg.evaluate("() => document.body.dataset.presentStage") and back < 8:
        pg.keyboard.press("ArrowLeft")
        back += 1
        pg.wait_for_timeout(200)
    cell.click()
    editor = pg.locator("#inputs table.grid td input")
    try:
        editor.wait_for()
    except Exception:
        pg.screenshot(path="/tmp/room/fail-edit.png")
        raise
    editor.press("Control+a")
    editor.press_sequentially(value, delay=60)
    editor.press("Enter")
    if back:
        pg.wait_for_function("() => !document.querySelector('#inputs table.grid td input')")  # the editor closed
        pg.wait_for_timeout(100)
        for _ in range(back):
            pg.keyboard.press("ArrowRight")


def shows(pg: Page, selector: str, text: str) -> None:
    """Wait until ``selector``'s text is ``text`` (a follower's page catching up)."""
    try:
        pg.wait_for_function("([s, t]) => document.querySelector(s)?.innerText.trim() === t", arg=[selector, text])
    except Exception:
        got = pg.evaluate("(s) => document.querySelector(s)?.innerText.trim()", selector)
        pg.screenshot(path="/tmp/room/fail.png")
        raise AssertionError(f"{selector}: {got!r}, not {text!r} ({pg.url})") from None


def same_as(teacher: Page, students: list[Page], selector: str) -> str:
    text = teacher.locator(selector).inner_text().strip()
    for s in students:
        shows(s, selector, text)
    return text


@pytest.fixture(scope="module")
def lesson(own_app: str, browser: Browser) -> Iterator[dict[str, object]]:
    teacher = page_in(browser, own_app, 1920, 1080)
    secrets: set[str] = set()
    teacher.on("request", lambda r: secrets.add(r.headers["x-room-secret"]) if "x-room-secret" in r.headers else None)
    students = [page_in(browser, own_app), page_in(browser, own_app, 390, 844, phone=True), page_in(browser, own_app)]
    yield {"url": own_app, "browser": browser, "teacher": teacher, "students": students, "secrets": secrets}
    for pg in (teacher, *students):
        pg.context.close()


def test_students_join_by_code_and_the_join_card_counts_them(lesson: dict) -> None:
    teacher, students = lesson["teacher"], lesson["students"]
    press(teacher, "#room .room-teach")
    card = teacher.locator(".room-card")
    card.wait_for()
    code = card.locator(".rc-code").inner_text().strip()
    assert len(code) == 6 and not set(code) & set("0O1IL"), code
    assert card.locator(".rc-qr svg path").count() >= 1  # the QR code, drawn
    assert card.locator(".rc-url").inner_text().startswith("http://127.0.0.1:")
    assert card.locator(".rc-count").inner_text() == "0 students joined"
    lesson["code"] = code
    for i, s in enumerate(students):
        join_by_code(s, code, phone=i == 1)
        assert f"room {code}" in s.locator("#room .room-status").inner_text()
        assert s.locator("#room .room-me b").inner_text().strip()  # a generated name
    shows(teacher, ".room-card .rc-count", "3 students joined")
    secret = next(iter(lesson["secrets"]))  # as the teacher's page sends it, in a header
    assert len(secret) >= 24
    for s in students:
        assert secret not in s.content() and secret not in s.url
    teacher.locator(".room-card .rc-hide").click()
    assert teacher.locator(".room-card").is_hidden()


def test_students_follow_an_edit_a_mask_change_and_a_present_stage(lesson: dict) -> None:
    teacher, students = lesson["teacher"], lesson["students"]
    edit(teacher, 1, 0, "2.5")
    shows(teacher, CELL.format(r=1, c=0), "2.5")
    for s in students:
        shows(s, CELL.format(r=1, c=0), "2.5")
    same_as(teacher, students, WEIGHTS)
    teacher.get_by_label("mask", exact=True).click()
    teacher.locator("li[role='option'][aria-label='causal']").click()
    teacher.wait_for_function("() => document.querySelector('#overview table[data-name=weights]').innerText"
                              ".includes('0.0000')")  # fmt: skip
    weights = same_as(teacher, students, WEIGHTS)
    assert "0.0000" in weights
    for s in students:
        s.wait_for_function("() => document.querySelector('#tb-mask input')?.value === 'causal'")
    teacher.click("#present-btn")
    teacher.locator("#present-panel .pp-next").click()
    teacher.locator("#present-panel .pp-next").click()
    assert teacher.evaluate("() => document.body.dataset.presentStage") == "scores"
    for s in students:
        s.wait_for_function("() => document.body.dataset.presentStage === 'scores'")
        assert s.locator("#present-panel .pp-title").inner_text() == "QKᵀ (raw scores)"


def test_a_student_tries_it_and_comes_back(lesson: dict) -> None:
    teacher, students = lesson["teacher"], lesson["students"]
    a, b = students[0], students[1]
    a.locator("#room .room-try").click()
    a.wait_for_selector("#room .room-status[data-kind=trying]")
    assert "Trying it yourself" in a.locator("#room .room-status").inner_text()
    assert a.locator("#room .room-try").inner_text() == "Back to the teacher"
    edit(a, 0, 1, "7")
    shows(a, CELL.format(r=0, c=1), "7.0")
    edit(teacher, 2, 1, "-1.5")
    shows(b, CELL.format(r=2, c=1), "-1.5")  # the others follow on
    a.wait_for_timeout(800)
    assert a.locator(CELL.format(r=0, c=1)).inner_text().strip() == "7.0"  # the student's own edit stays theirs
    assert a.locator(CELL.format(r=2, c=1)).inner_text().strip() != "-1.5"
    assert teacher.locator(CELL.format(r=0, c=1)).inner_text().strip() != "7.0"  # nobody else sees it
    a.locator("#room .room-try").click()
    a.wait_for_selector(FOLLOWING)
    shows(a, CELL.format(r=2, c=1), "-1.5")
    shows(a, CELL.format(r=0, c=1), teacher.locator(CELL.format(r=0, c=1)).inner_text().strip())
    same_as(teacher, [a], WEIGHTS)


def test_predict_this_number_is_answered_charted_and_revealed(lesson: dict) -> None:
    teacher, students = lesson["teacher"], lesson["students"]
    for _ in range(3):  # on to the weights' stage, which the class follows
        teacher.locator("#present-panel .pp-next").click()
    for s in students:
        s.wait_for_function("() => document.body.dataset.presentStage === 'weights'")
    teacher.locator("#room [data-ask=predict]").click()
    assert "Click the number" in teacher.locator("#room .room-status").inner_text()
    cell = teacher.locator(f"{WEIGHTS} td[data-r='2'][data-c='1']")
    right = float(cell.get_attribute("title") or "nan")
    cell.click()
    teacher.wait_for_selector("#room .room-q b")
    assert "weights[" in teacher.locator("#room .room-q").inner_text()
    assert "hidden until Reveal" in teacher.locator("#room .room-q").inner_text()
    answers = [f"{right:.4f}", "0.9", "0.05"]
    for i, (s, value) in enumerate(zip(students, answers, strict=True)):
        s.wait_for_selector("#room .ra-prompt")
        assert "Predict weights[" in s.locator("#room .ra-prompt").inner_text()
        box = s.locator("#room .ra-value")
        box.tap() if i == 1 else box.click()
        box.press_sequentially(value, delay=60)
        box.press("Enter")
        s.wait_for_selector("#room .ra-mine")
        assert value in s.locator("#room .ra-mine").inner_text()
        assert "Right answer" not in s.locator("#room .room-ask").inner_text()  # hidden until the reveal
    shows(teacher, "#room .room-answers", "3 answers")
    teacher.wait_for_selector("#room-plot .js-plotly-plot")
    teacher.wait_for_function("() => document.querySelector('#room-plot .gtitle')?.textContent.startsWith('3 answers')")
    teacher.locator("#room .room-reveal").click()
    for s, ok in zip(students, (True, False, False), strict=True):
        s.wait_for_selector("#room .ra-right")
        text = s.locator("#room .ra-right").inner_text()
        assert f"{right:.4g}"[:4] in text, text
        assert ("yours is right" in text) is ok and ("yours is wrong" in text) is (not ok), text


def test_a_quiz_question_is_answered_by_tapping_a_choice_and_the_results_download(lesson: dict) -> None:
    teacher, students = lesson["teacher"], lesson["students"]
    teacher.locator("#room [data-ask=quiz]").click()
    phone = students[1]
    phone.wait_for_selector("#room .ra-opt")
    assert "Which key" in phone.locator("#room .ra-prompt").inner_text() or "weight" in phone.locator(
        "#room .ra-prompt").inner_text()  # fmt: skip
    choice = phone.locator("#room .ra-opt").first
    picked = choice.inner_text().strip()
    choice.tap()
    phone.wait_for_selector("#room .ra-opt.chosen")
    assert picked in phone.locator("#room .ra-mine").inner_text()
    shows(teacher, "#room .room-answers", "1 answer")
    with teacher.expect_download() as got:
        teacher.locator("#room .room-csv").click()
    frame = pd.read_csv(got.value.path())
    assert len(frame) == 2 * len(students)  # one row per student and question
    names = {s.locator("#room .room-me b").inner_text().strip() for s in students}
    assert set(frame["student"]) == names
    assert frame[frame["question"] == 2]["answer"].dropna().tolist() == [picked]


def test_students_follow_the_teachers_explain_card_open_and_closed(lesson: dict) -> None:
    teacher, students = lesson["teacher"], lesson["students"]
    if teacher.locator("#explain:not(.closed) .ex-close").is_visible():  # the predict question's pick, explained
        teacher.locator("#explain .ex-close").click()
    teacher.locator(f"{WEIGHTS} td[data-r='1'][data-c='0']").click()  # the teacher explains a weight
    title = "weights[2, 1]"  # (1-based: the query row 2, the key 1; an earlier question's pick may still be open)
    teacher.wait_for_selector("#explain:not(.closed)")
    shows(teacher, "#explain .ex-title", title)
    for s in students:  # each student's own card, on the same number
        s.wait_for_selector("#explain:not(.closed) .ex-title")
        shows(s, "#explain .ex-title", title)
    teacher.locator("#explain .ex-close").click()
    for s in students:
        s.wait_for_selector("#explain.closed", state="attached")


def test_a_late_joiner_and_a_reload_catch_up_and_the_teacher_closes_the_room(lesson: dict) -> None:
    teacher, students, code = lesson["teacher"], lesson["students"], lesson["code"]
    late = page_in(lesson["browser"], f"{lesson['url']}?room={code}", 390, 844, phone=True)
    late.wait_for_selector(FOLLOWING)
    same_as(teacher, [late], WEIGHTS)
    late.wait_for_function("() => document.body.dataset.presentStage === 'weights'")
    shows(teacher, "#room .room-count", "4 students joined")
    b = students[1]
    name = b.locator("#room .room-me b").inner_text()
    edit(teacher, 0, 0, "3.25")
    shows(teacher, CELL.format(r=0, c=0), "3.25")
    b.reload()
    b.wait_for_function(LOADED)
    b.wait_for_selector(FOLLOWING)
    assert b.locator("#room .room-me b").inner_text() == name  # the same student again
    shows(b, CELL.format(r=0, c=0), "3.25")
    same_as(teacher, [b], WEIGHTS)
    shows(teacher, "#room .room-count", "4 students joined")
    teacher.reload()  # the teacher's page reloads too: it takes the room back, at the room's state
    teacher.wait_for_function(LOADED)
    # "Teaching room CODE" only once the resume has answered with the room's state (till then "Taking room … back");
    # the histogram's redraws no longer hold the grids pending, so the editor opens at the first click
    shows(teacher, "#room .room-code-now", code)
    shows(teacher, CELL.format(r=0, c=0), "3.25")
    edit(teacher, 1, 1, "0.75")
    for s in (b, late):
        shows(s, CELL.format(r=1, c=1), "0.75")
    teacher.locator("#room .room-close").click()
    teacher.wait_for_selector("#room .room-status[data-kind=closed]")
    for s in (*students, late):
        s.wait_for_selector("#room .room-status[data-kind=closed]")
        assert "closed" in s.locator("#room .room-status").inner_text()
    late.context.close()


def test_a_wrong_code_gets_a_clear_message(lesson: dict) -> None:
    pg = page_in(lesson["browser"], lesson["url"], 390, 844, phone=True)
    box = pg.locator("#room .room-code")
    press(pg, "#room .room-code", tap=True)
    box.press_sequentially("ZZZZZZ", delay=80)
    press(pg, "#room .room-join button", tap=True)
    pg.wait_for_selector("#room .room-status[data-kind=error]")
    assert "no room 'ZZZZZZ' is open" in pg.locator("#room .room-status").inner_text()
    assert pg.locator("#room .room-code").is_visible()  # to type it again
    pg.context.close()
