"""The lecturer's own controls as a reviewer's walk found them (a lecturer at 1280×720 and a student on a phone, each a
browser context of its own): "Ask: predict this number" waits for a number to be clicked, and stayed armed after
another Ask was pressed, so a later click on a number to explain it asked a question over the one open; the join card
drawn after the lecturer's reload said "0 students joined" beside the bar's count."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from browser import press
from playwright.sync_api import Browser, Page
from test_room_journey import a_class, shows

PICKING = "#room .room-status[data-kind=pick]"
PROMPT = "() => document.querySelector('#room .room-q b')?.innerText || ''"


@pytest.fixture(scope="module")
def lesson(own_app: str, browser: Browser) -> Iterator[dict[str, Page]]:
    with a_class(browser, own_app) as pages:
        yield pages


def test_a_number_asked_for_is_given_up_by_escape_or_another_ask(lesson: dict) -> None:
    teacher = lesson["teacher"]
    teacher.locator("#room [data-ask=predict]").click()
    teacher.wait_for_selector(PICKING)
    assert "Esc" in teacher.inner_text("#room .room-status")  # (the way out, said)
    teacher.keyboard.press("Escape")
    teacher.wait_for_selector(PICKING, state="detached")
    assert "Teaching room" in teacher.inner_text("#room .room-status")
    teacher.locator("#room [data-ask=predict]").click()
    teacher.wait_for_selector(PICKING)
    teacher.locator("#room [data-ask=quiz]").click()  # (another question instead)
    teacher.wait_for_function(f"() => ({PROMPT})().includes('query t')")
    asked = teacher.evaluate(PROMPT)
    assert teacher.locator(PICKING).count() == 0
    lesson["student"].wait_for_function("(p) => document.querySelector('#room .ra-prompt')?.innerText === p", arg=asked)
    teacher.locator("#overview table[data-name=scores] td[data-r='0'][data-c='0']").click()  # to explain it
    teacher.wait_for_function("() => document.querySelector('#explain .ex-title')?.innerText.length > 0")
    teacher.wait_for_timeout(1000)  # (a question asked by the click would be on the room's line by now)
    assert teacher.evaluate(PROMPT) == asked
    assert lesson["student"].inner_text("#room .ra-prompt") == asked


def test_the_join_card_counts_the_class_after_the_lecturers_reload(lesson: dict) -> None:
    teacher = lesson["teacher"]
    teacher.reload()
    teacher.wait_for_function("() => /Teaching room/.test(document.querySelector('#room .room-status')?.innerText)")
    shows(teacher, "#room .room-count", "1 student joined")
    press(teacher, "#room .room-teach")  # "Show the join card"
    teacher.locator(".room-card").wait_for()
    assert teacher.inner_text(".room-card .rc-count") == "1 student joined"


def test_a_prediction_with_a_decimal_comma_says_how_to_write_it_once(lesson: dict) -> None:
    """The phone types 0,32 (a decimal comma) and Sends, twice: one message, saying to write 0.32 (they piled up, one
    per Send, and said only "is not a number"); then 0.32 is taken and the message goes."""
    teacher, student = lesson["teacher"], lesson["student"]
    teacher.locator("#room [data-ask=predict]").click()
    teacher.locator("#overview table[data-name=weights] td[data-r='0'][data-c='0']").click()
    student.wait_for_selector("#room .ra-value")
    box = student.locator("#room .ra-value")
    for _ in range(2):
        box.tap()
        box.press("Control+a")
        box.press_sequentially("0,32", delay=80)
        student.locator("#room .ra-form button").tap()
        student.wait_for_selector("#room .ra-error")
        student.wait_for_timeout(300)
    errors = student.locator("#room .ra-error").all_inner_texts()
    assert errors == ["answer: '0,32' is not a number; write 0.32, with a point"], errors
    box.tap()
    box.press("Control+a")
    box.press_sequentially("0.32", delay=80)
    student.locator("#room .ra-form button").tap()
    student.wait_for_function("() => /0\\.32/.test(document.querySelector('#room .ra-mine')?.innerText || '')")
    assert student.locator("#room .ra-error").count() == 0
