"""The lecturer reloads mid-lesson (a lecturer at 1280×720 and a student on a phone, each a browser context of its
own): the page kept its own count of quiz questions, so after a reload "Ask: a quiz question" drew the room's first
question again, though the room held two. Now the room's count draws, and the lecturer's line numbers each question
as the room does ("Question 3:")."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page
from test_room_journey import a_class, shows
from test_room_journey_teacher import PROMPT

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import attention_core as ac
from ui.values import DEFAULT_PRESET

NUMBER = "#room .room-q .room-qn"


@pytest.fixture(scope="module")
def lesson(own_app: str, browser: Browser) -> Iterator[dict[str, Page]]:
    with a_class(browser, own_app) as pages:
        yield pages


def quiz(teacher: Page, student: Page, number: int) -> str:
    """Press "Ask: a quiz question"; once the lecturer's line numbers it ``number`` and the phone shows its prompt,
    the prompt."""
    teacher.locator("#room [data-ask=quiz]").click()
    shows(teacher, NUMBER, f"Question {number}:")
    prompt = teacher.evaluate(PROMPT)
    student.wait_for_function("(p) => document.querySelector('#room .ra-prompt')?.innerText === p", arg=prompt)
    return prompt


def test_the_quiz_goes_on_counting_after_the_lecturers_reload(lesson: dict) -> None:
    teacher, student = lesson["teacher"], lesson["student"]
    s = ac.parse(ac.scenario_of(DEFAULT_PRESET))
    draws = [ac.quiz.ask(s, ac.evaluate(s), 4242, i, "argmax").prompt for i in range(3)]
    assert len(set(draws)) == 3, draws  # (each draw reads apart: a repeat would show)
    assert [quiz(teacher, student, 1), quiz(teacher, student, 2)] == draws[:2]
    teacher.reload()
    teacher.wait_for_function("() => /Teaching room/.test(document.querySelector('#room .room-status')?.innerText)")
    shows(teacher, NUMBER, "Question 2:")  # the room's open question, numbered by the room
    assert teacher.evaluate(PROMPT) == draws[1]
    third = quiz(teacher, student, 3)
    assert third == draws[2], f"after the reload the room asked {third!r} (the first was {draws[0]!r})"
    assert student.inner_text("#room .ra-prompt") == draws[2]
