"""A lesson room's followers follow present mode's choices inside a stage (issue 41): a lecturer projecting at
1280×720 with the Projector's text size and two students at 1280×720, each a browser context of its own. At
llama-style's Q, K, V stage (one projection at a time at this size) the lecturer presses K, then H: the students'
panels and cards show K, of head 2. At a lesson's Mask lab stage the lecturer presses N: the students show the same
fill convention (-1e9) and no other. A student who tries it keeps their own keys."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from browser import press
from playwright.sync_api import Browser, Page
from test_room_journey import FOLLOWING, join_by_code, page_in, shows

import attention_core as ac

LIVE = "#present-panel .pp-live"
# the cards present mode shows now (p-now), as the screen has them
SHOWN = """() => Array.from(document.querySelectorAll('#bench .card.p-now')).filter((c) => c.getClientRects().length)
  .map((c) => c.dataset.card)"""
PRESET = "document.querySelector('#preset input')?.value"  # the preset the picker shows
# the mask lab's fill conventions on screen: their masked scores' table names
FILLS = """() => Array.from(document.querySelectorAll('#mask-lab-out .lab-col')).filter((c) => c.getClientRects()
  .length).map((c) => c.querySelector('table').dataset.name)"""


def projected(browser: Browser, url: str) -> Page:
    pg = page_in(browser, url)
    pg.evaluate("() => localStorage.setItem('pg-text-size', '1.5')")  # the Projector's text size, as pressed
    pg.reload()
    pg.wait_for_selector("#overview table[data-name=output] td[data-r]", state="attached")
    return pg


@pytest.fixture(scope="module")
def room(own_app: str, browser: Browser) -> Iterator[dict[str, object]]:
    teacher = projected(browser, f"{own_app}?preset=llama-style")
    students = [projected(browser, own_app), projected(browser, own_app)]
    press(teacher, "#room .room-teach")
    teacher.locator(".room-card").wait_for()
    code = teacher.locator(".room-card .rc-code").inner_text().strip()
    for s in students:
        join_by_code(s, code)
    shows(teacher, ".room-card .rc-count", "2 students joined")
    teacher.locator(".room-card .rc-hide").click()
    yield {"teacher": teacher, "students": students, "code": code}
    for pg in (teacher, *students):
        pg.context.close()


def shows_part(pg: Page, text: str, card: str) -> None:
    """The panel's live line reads ``text`` and the one card shown at the stage is ``card``."""
    shows(pg, LIVE, text)
    pg.wait_for_function(f"(c) => JSON.stringify(({SHOWN})()) === JSON.stringify([c])", arg=card)


def test_followers_show_the_projection_and_the_head_the_lecturer_shows(room: dict) -> None:
    teacher, students = room["teacher"], room["students"]
    teacher.click("#present-btn")
    teacher.wait_for_function("() => document.body.dataset.presentStage === 'inputs'")
    teacher.keyboard.press("ArrowRight")
    teacher.wait_for_function("() => document.body.dataset.presentStage === 'qkv'")
    shows_part(teacher, "Q (head 1 of 2) · keys Q K V H", "q")  # (split at this size: one projection at a time)
    for s in students:
        shows_part(s, "Q (head 1 of 2) · keys Q K V H", "q")
    teacher.keyboard.press("k")
    shows_part(teacher, "K (head 1 of 2) · keys Q K V H", "k")
    for s in students:
        shows_part(s, "K (head 1 of 2) · keys Q K V H", "k")
    teacher.keyboard.press("h")
    shows_part(teacher, "K (head 2 of 2) · keys Q K V H", "k")
    for s in students:
        shows_part(s, "K (head 2 of 2) · keys Q K V H", "k")
        assert s.locator("#bench .card.p-in table[data-name=W_k]").is_visible()  # X·W_k = K: its W beside it
        assert s.locator("#bench .card.p-in table[data-name=W_q]").is_hidden()
    teacher.keyboard.press("v")
    for s in students:
        shows_part(s, "V (head 2 of 2) · keys Q K V H", "v")


def test_a_student_who_tries_it_keeps_their_own_keys(room: dict) -> None:
    teacher, (a, b) = room["teacher"], room["students"]
    a.locator("#room .room-try").click()
    a.wait_for_selector("#room .room-status[data-kind=trying]")
    a.click("#present-btn")  # the student presents for themselves, at the teacher's stage (resumed)
    a.wait_for_function("() => document.body.dataset.presentStage === 'qkv'")
    a.locator("#present-panel .pp-next").focus()
    a.keyboard.press("q")
    shows_part(a, "Q (head 2 of 2) · keys Q K V H", "q")
    teacher.keyboard.press("k")
    shows_part(b, "K (head 2 of 2) · keys Q K V H", "k")  # the other student follows on
    a.wait_for_timeout(800)
    shows_part(a, "Q (head 2 of 2) · keys Q K V H", "q")  # the student's own choice stays theirs
    a.locator("#room .room-try").click()
    a.wait_for_selector(FOLLOWING)
    shows_part(a, "K (head 2 of 2) · keys Q K V H", "k")


def test_followers_show_the_fill_convention_of_the_lecturers_mask_stage(room: dict, tmp_path: Path) -> None:
    """The lecturer opens a lesson's mask lab stage (its own preset, not the room's): the lecturer's page, its room
    taken back after the lesson's page loaded, keeps the stage's preset and the class follows it there."""
    teacher, students = room["teacher"], room["students"]
    plan = {"title": "masks", "stages": [{"title": "the mask lab", "query": {"preset": "statquest-masked",
                                                                             "tab": "mask"}}]}  # fmt: skip
    (tmp_path / "plan.json").write_text(json.dumps(plan))
    teacher.keyboard.press("l")  # the Lesson menu (its button steps aside with the title bar in present mode)
    teacher.set_input_files("#lesson-pop .lp-load input", str(tmp_path / "plan.json"))
    teacher.wait_for_function("() => document.querySelector('#lesson-pop .lp-note').innerText.includes('Loaded 1')")
    with teacher.expect_navigation():
        teacher.locator("#lesson-pop a[href*='lesson=own']").click()
    shows(teacher, "#room .room-code-now", room["code"])  # the room taken back after the lesson's page loaded
    title = ac.get_preset("statquest-masked").title
    for pg in (teacher, *students):
        pg.wait_for_function(f"(t) => ({PRESET}) === t", arg=title)
    teacher.wait_for_function(f"() => ({FILLS})().join() === 'lab-masked-inf'")
    for s in students:
        s.wait_for_function("() => !document.body.dataset.presentStage")  # present mode left with the teacher
        s.wait_for_function(f"() => ({FILLS})().join() === 'lab-masked-inf'")
    teacher.keyboard.press("n")
    teacher.wait_for_function(f"() => ({FILLS})().join() === 'lab-masked-1e9'")
    assert teacher.locator("#lesson-bar .lb-fill").inner_text() == "fill: -1e9"
    for s in students:
        s.wait_for_function(f"() => ({FILLS})().join() === 'lab-masked-1e9'")
        assert s.locator("#mask-lab-out h4:visible").all_inner_texts() == ["-1e9 (002: masked_fill(block, -1e9))"]
    teacher.keyboard.press("n")
    for s in students:
        s.wait_for_function(f"() => ({FILLS})().join() === 'lab-maskedadditive'")
    assert teacher.evaluate(PRESET) == title and "preset=statquest-masked" in teacher.url  # (kept, not the room's)
