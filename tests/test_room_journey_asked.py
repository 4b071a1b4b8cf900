"""A lesson whose questions say what they are about when the lecturer's screen moves on (a reviewer's walk): the
lecturer at 1280×720 and a student on a phone (390×844), each a browser context of its own, by clicks and keys
typed one by one. A number asked, then edited away before the reveal: every page says the answer is of the numbers
as asked. A "which key" question of head 2, then H (head 1 shown): head 1's row is not hidden nor outlined, and every
page says which head the question is about."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from browser import press, type_cell
from playwright.sync_api import Browser, Page
from test_room_journey import WEIGHTS, join_by_code, page_in, shows

MHA2 = "?preset=statquest-mha2&head_shown=2"  # two heads, head 2 shown (the lecturer's own link)


def teach(teacher: Page, students: list[Page]) -> None:
    """The lecturer opens a room; the students join by its code, typed key by key."""
    press(teacher, "#room .room-teach")
    card = teacher.locator(".room-card")
    card.wait_for()
    code = card.locator(".rc-code").inner_text().strip()
    for s in students:
        join_by_code(s, code, phone=True)
    shows(teacher, ".room-card .rc-count", f"{len(students)} student{'s' * (len(students) != 1)} joined")
    card.locator(".rc-hide").click()


# the element wholly inside the student's question box (room.css: it grows for what does not fit, never hides it)
IN_ITS_BOX = """(s) => { const e = document.querySelector(s), box = e.closest('.room-ask').getBoundingClientRect();
  const r = e.getBoundingClientRect(); return r.top >= box.top && r.bottom <= box.bottom; }"""


def cell(pg: Page, row: int, col: int) -> str:
    return pg.locator(f"{WEIGHTS} td[data-r='{row}'][data-c='{col}']").inner_text().strip()


def says(pg: Page, selector: str, words: str) -> str:
    """Wait until ``selector`` shows ``words`` on screen; its text."""
    try:
        pg.wait_for_function("([s, w]) => [...document.querySelectorAll(s)].some((e) => e.offsetParent !== null"
                             " && e.innerText.includes(w))", arg=[selector, words])  # fmt: skip
    except Exception:
        got = pg.evaluate("(s) => [...document.querySelectorAll(s)].map((e) => e.innerText)", selector)
        raise AssertionError(f"{selector} on {pg.viewport_size}: {got}, not {words!r}") from None
    return pg.locator(selector).first.inner_text()


@pytest.fixture
def lesson(own_app: str, browser: Browser) -> Iterator[tuple[Page, Page]]:
    teacher = page_in(browser, own_app + MHA2, 1280, 720)
    phone = page_in(browser, own_app, 390, 844, phone=True)
    yield teacher, phone
    for pg in (teacher, phone):
        pg.context.close()


def test_an_answer_revealed_after_the_numbers_changed_is_said_to_be_of_the_numbers_as_asked(lesson) -> None:
    """weights[t3, t2] of head 2 under a causal mask (0.3213) asked; x_k[t2, d1] typed to 3 (the cell now 0.5600);
    Reveal: every page said "Right answer: 0.3213" and marked 0.33 right beside a cell reading 0.5600, unexplained."""
    teacher, phone = lesson
    teacher.get_by_label("mask", exact=True).click()
    teacher.locator("li[role='option'][aria-label='causal']").click()
    teacher.wait_for_function(f"() => document.querySelector(\"{WEIGHTS} td[data-r='2'][data-c='1']\")"
                              "?.innerText.trim() === '0.3213'")  # fmt: skip
    teach(teacher, [phone])
    shows(phone, f"{WEIGHTS} td[data-r='2'][data-c='1']", "0.3213")
    teacher.locator("#room [data-ask=predict]").click()
    teacher.locator(f"{WEIGHTS} td[data-r='2'][data-c='1']").click()
    says(teacher, "#room .room-q", "Predict weights[t3, t2] (head 2)")
    box = phone.locator("#room .ra-value")
    box.tap()
    box.press_sequentially("0.33", delay=80)
    box.press("Enter")
    shows(teacher, "#room .room-answers", "1 answer")
    assert teacher.locator("#room .room-moved").count() == 0  # (nothing moved yet)
    type_cell(teacher, "x_k", 1, 0, "3", delay=80)
    moved = "The numbers have changed since you asked: the answer is of the state when asked"
    says(teacher, "#room .room-moved", moved)
    # the student, who may still answer, is told too: the numbers on their screen are no longer the ones asked about
    says(phone, "#room .ra-moved", "The numbers have changed since this was asked: it is about them as they were")
    assert phone.evaluate(IN_ITS_BOX, "#room .ra-moved"), "the note is scrolled out of the question's box"
    phone.screenshot(path="/tmp/room/asked-moved-open-phone.png")
    teacher.locator("#room .room-reveal").click()
    shows(teacher, f"{WEIGHTS} td[data-r='2'][data-c='1']", "0.5600")
    shows(phone, f"{WEIGHTS} td[data-r='2'][data-c='1']", "0.5600")  # the numbers now on screen
    for pg, where in ((phone, "#room .room-ask"), (teacher, "#room .room-q")):
        text = says(pg, where, "for the numbers as they were when the question was asked")
        assert "0.3213" in text and "changed them since" in text, text
    assert "yours is right" in phone.locator("#room .ra-right").inner_text()  # graded against the state asked
    phone.screenshot(path="/tmp/room/asked-moved-phone.png")


def test_a_question_of_head_2_hides_and_outlines_head_2_only_and_says_so_on_head_1(lesson) -> None:
    """ "Which key gets most weight for t3 in head 2", then H in present mode (head 1 shown), then Reveal: the phone
    outlined head 1's row t3 (0.0686, 0.0797, 0.8517: t3 looks biggest) beside "Right answer: t2 (2)", and head 1's
    row was hidden before the reveal too."""
    teacher, phone = lesson
    teach(teacher, [phone])
    teacher.click("#present-btn")
    for _ in range(5):  # on to the weights' stage
        teacher.locator("#present-panel .pp-next").click()
    phone.wait_for_function("() => document.body.dataset.presentStage === 'weights'")
    teacher.locator("#room [data-ask=token]").click()
    teacher.locator(f"{WEIGHTS} td[data-r='2'][data-c='0']").click()
    says(phone, "#room .ra-prompt", "for the query 't3' in head 2")
    assert "?" in cell(phone, 2, 0)  # head 2's row t3: hidden
    teacher.keyboard.press("h")  # head 1 shown
    teacher.wait_for_function("() => /^[0-9.]+$/.test(document.querySelector("
                              f"\"{WEIGHTS} td[data-r='2'][data-c='2']\")?.innerText.trim())")  # fmt: skip
    for pg in (teacher, phone):  # head 1's own row t3 shows: it is not the asked one
        shows(pg, f"{WEIGHTS} td[data-r='2'][data-c='2']", cell(teacher, 2, 2))
        says(pg, "#room .room-head", "The question is about head 2; head 1 is shown")
    for sel in ("#room .room-head", "#room .ra-opt[data-v='t3 (3)']"):  # (its note above: the buttons still seen)
        assert phone.evaluate(IN_ITS_BOX, sel), f"{sel} is out of sight in the question's box"
    phone.locator("#room .ra-opt[data-v='t3 (3)']").tap()
    phone.wait_for_selector("#room .ra-mine")
    teacher.locator("#room .room-reveal").click()
    says(phone, "#room .ra-right", "Right answer: t3 (3)")
    assert phone.evaluate(IN_ITS_BOX, "#room .ra-right"), "the reveal is out of sight in the question's box"
    phone.wait_for_timeout(800)
    for pg in (teacher, phone):
        assert pg.locator(f"{WEIGHTS} td.ap-asked").count() == 0, pg.viewport_size  # no row of head 1 outlined
        says(pg, "#room .room-head", "The question is about head 2; head 1 is shown")
    phone.screenshot(path="/tmp/room/asked-head1-phone.png")
    teacher.keyboard.press("h")  # head 2 again: its cell t3 → t3, outlined on every page
    for pg in (teacher, phone):
        pg.wait_for_selector(f"{WEIGHTS} td.ap-asked[data-r='2'][data-c='2']")
        assert pg.locator(f"{WEIGHTS} td.ap-asked").count() == 1
        assert pg.locator("#room .room-head").is_hidden()


def test_the_every_head_stage_hides_the_asked_row_of_the_questions_head(lesson) -> None:
    """A lecturer's walk: "which key" of head 2's query t2, then on to present mode's "Every head" stage (every head's
    weights side by side): its head 2 card showed row t2 (0.9541 0.0459 0.0000) on the projector and every phone
    while the question was open. The asked head's own card hides that row; head 1's card shows its own."""
    teacher, phone = lesson
    teach(teacher, [phone])
    teacher.click("#present-btn")
    for _ in range(12):  # on to the weights' stage
        if teacher.evaluate("() => document.body.dataset.presentStage") == "weights":
            break
        teacher.locator("#present-panel .pp-next").click()
    teacher.locator("#room [data-ask=token]").click()
    teacher.locator(f"{WEIGHTS} td[data-r='1'][data-c='0']").click()
    says(phone, "#room .ra-prompt", "for the query 't2' in head 2")
    for _ in range(6):  # on to "Every head"
        if teacher.evaluate("() => document.body.dataset.presentStage") == "heads":
            break
        teacher.locator("#present-panel .pp-next").click()
    for pg in (teacher, phone):
        pg.wait_for_function("() => document.body.dataset.presentStage === 'heads'")
        row = "#overview table[data-name='{}'] td[data-r='1']"
        asked = pg.locator(row.format("weights_h2"))
        assert asked.count() == 3 and all(t.strip() == "?" for t in asked.all_inner_texts()), pg.viewport_size
        other = pg.locator(row.format("weights_h1")).all_inner_texts()
        assert len(other) == 3 and all(re.fullmatch(r"[0-9.]+", t.strip()) for t in other), (pg.viewport_size, other)
    teacher.screenshot(path="/tmp/room/asked-every-head-teacher.png")
    phone.screenshot(path="/tmp/room/asked-every-head-phone.png")


def test_a_lessons_stage_of_another_preset_says_the_open_question_is_of_the_numbers_as_asked(
    lesson: tuple[Page, Page], tmp_path: Path
) -> None:
    """A lecturer's walk (a helper's): "which key for t3 in head 2" asked on two heads, then a lesson's stage of one
    head (statquest-self) opened: every page still said "the question is about head 2" with no word that the numbers
    had changed, and Reveal gave t3 beside a row reading t2 largest. The stage's page takes the room back with its
    own state, and the open question is then said to be of the numbers as asked, on every page."""
    teacher, phone = lesson
    teach(teacher, [phone])
    teacher.locator("#room [data-ask=token]").click()
    teacher.locator(f"{WEIGHTS} td[data-r='2'][data-c='0']").click()
    says(phone, "#room .ra-prompt", "for the query 't3' in head 2")
    phone.locator("#room .ra-opt").first.tap()
    shows(teacher, "#room .room-answers", "1 answer")
    assert teacher.locator("#room .room-moved").count() == 0  # (nothing moved yet)
    code = teacher.locator("#room .room-code-now").inner_text().strip()
    plan = {"title": "one head", "stages": [{"title": "self-attention", "query": {"preset": "statquest-self"}}]}
    (tmp_path / "plan.json").write_text(json.dumps(plan))
    teacher.click("#lesson-btn")
    teacher.set_input_files("#lesson-pop .lp-load input", str(tmp_path / "plan.json"))
    teacher.wait_for_function("() => document.querySelector('#lesson-pop .lp-note').innerText.includes('Loaded 1')")
    with teacher.expect_navigation():
        teacher.locator("#lesson-pop a[href*='lesson=own']").click()
    shows(teacher, "#room .room-code-now", code)  # the room taken back by the stage's page
    says(teacher, "#room .room-moved", "The numbers have changed since you asked")
    says(phone, "#room .ra-moved", "The numbers have changed since this was asked")


def test_close_answers_says_so_on_the_lecturers_line_and_a_late_answer_is_refused(lesson: tuple[Page, Page]) -> None:
    """A lecturer's walk (a helper's): after "Close answers" the lecturer's line only lost that button, and never said
    the answers were closed. It says so, Reveal stays, and the phone offers no answer any more."""
    teacher, phone = lesson
    teach(teacher, [phone])
    teacher.locator("#room [data-ask=quiz]").click()
    phone.wait_for_selector("#room .ra-opt")
    phone.locator("#room .ra-opt").first.tap()
    shows(teacher, "#room .room-answers", "1 answer")
    assert teacher.locator("#room .room-closed-q").count() == 0
    press(teacher, "#room .room-end")
    says(teacher, "#room .room-q", "answers closed")
    assert teacher.locator("#room .room-end").is_hidden() and teacher.locator("#room .room-reveal").is_visible()
    # the phone offers no answer any more (a change of mind, too late), and the count stays
    phone.wait_for_function("() => [...document.querySelectorAll('#room .ra-opt')].every((b) => b.disabled"
                            " || !b.offsetParent)")  # fmt: skip
    shows(teacher, "#room .room-answers", "1 answer")
