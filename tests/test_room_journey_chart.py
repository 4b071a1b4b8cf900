"""The answers' chart on a 1280×720 projector (a lecturer's walk, a helper's): the lecturer asks which key gets the
most weight, two students answer (a phone and a laptop), the lecturer edits a number the answer rests on, reveals,
and presses Projector. The question's line, with its note that the numbers changed, ran 340 px down the screen and
the chart, fixed above the panel, rose over its end: no stage fitted beside them (the numbers went to 6 px, the line
was scrolled off the top), or the chart lay over W_k and W_v. Then "Close the room": the chart stayed over the
stage, its show / hide button gone, and into the next room. Each screen is read as the back row reads it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from browser import press, type_cell
from playwright.sync_api import Browser, Page
from test_room_journey import WEIGHTS, join_by_code, page_in, shows
from test_room_journey_asked import says
from test_room_journey_present import on_screen

SHOTS = Path("/tmp/room")

# the stage's numbers: the smallest font of a number cell of the cards presented now, and every such cell's centre
# found at its own place (nothing, the chart above all, over it); the chart's box, and whether it is over the line
STAGE_READ = """() => {
  const cells = [...document.querySelectorAll('#bench .card.p-now table td[data-r]')].filter((td) => td.offsetParent);
  const sizes = cells.map((td) => parseFloat(getComputedStyle(td).fontSize));
  const covered = cells.filter((td) => { const r = td.getBoundingClientRect();
    if (r.bottom < 0 || r.top > innerHeight) return false;
    const at = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    return at && !td.contains(at) && at.closest('#room-plot'); }).length;
  const c = document.getElementById('room-plot'), b = c && c.getBoundingClientRect();
  const line = document.querySelector('#room .room-q').getBoundingClientRect();
  return { stage: document.body.dataset.presentStage, cells: cells.length, px: Math.min(...sizes), covered,
    chart: b && b.width > 0 && getComputedStyle(c).display !== 'none',
    overLine: !!(b && b.width > 0 && b.top < line.bottom && b.left < line.right) };
}"""


@pytest.fixture(scope="module")
def lesson(own_app: str, browser: Browser) -> Iterator[dict[str, Page]]:
    teacher = page_in(browser, f"{own_app}?preset=statquest-mha2&head_shown=2", 1280, 720)
    phone = page_in(browser, own_app, 390, 844, phone=True)
    laptop = page_in(browser, own_app, 1280, 720)
    yield {"teacher": teacher, "phone": phone, "laptop": laptop}
    for pg in (teacher, phone, laptop):
        pg.context.close()


CHART_SHOWN = (
    "() => { const c = document.getElementById('room-plot'); return !!c && c.getBoundingClientRect().width > 0; }"
)


def chart_shown(pg: Page) -> bool:
    return pg.evaluate(CHART_SHOWN)


def test_at_1280x720_every_stage_fits_beside_the_chart_under_a_tall_question_line(lesson: dict) -> None:
    teacher, phone, laptop = lesson["teacher"], lesson["phone"], lesson["laptop"]
    SHOTS.mkdir(parents=True, exist_ok=True)
    press(teacher, "#room .room-teach")
    code = teacher.locator(".room-card .rc-code").inner_text().strip()
    join_by_code(phone, code, phone=True)
    join_by_code(laptop, code)
    shows(teacher, ".room-card .rc-count", "2 students joined")
    teacher.locator(".room-card .rc-hide").click()
    assert not chart_shown(teacher)  # no question yet: no chart
    teacher.locator("#room [data-ask=token]").click()
    teacher.locator(f"{WEIGHTS} td[data-r='2'][data-c='0']").click()
    says(phone, "#room .ra-prompt", "for the query 't3' in head 2")
    phone.locator("#room .ra-opt").first.tap()
    laptop.locator("#room .ra-opt").last.click()
    shows(teacher, "#room .room-answers", "2 answers")
    teacher.wait_for_function("() => document.querySelector('#room-plot .gtitle')?.textContent.startsWith('2 answers')")
    type_cell(teacher, "x", 2, 0, "-3")  # the numbers the answer rests on, changed
    says(teacher, "#room .room-moved", "The numbers have changed since you asked")
    teacher.locator("#room .room-reveal").click()
    says(teacher, "#room .room-moved", "changed them since")  # the long note: three lines at the Projector's size
    teacher.click("button.projector")
    teacher.wait_for_function("() => document.body.dataset.presentStage === 'inputs'")
    seen = []
    for _ in range(12):
        teacher.wait_for_timeout(500)  # (present mode fits and scrolls a frame or more after a step)
        on_screen(teacher, "#room .room-q")  # the question and its note, above the stage, nothing over them
        read = teacher.evaluate(STAGE_READ)
        seen.append(read)
        teacher.screenshot(path=str(SHOTS / f"chart-720-{read['stage']}.png"))
        assert read["chart"], f"{read['stage']}: the chart is gone while the question is open"
        assert not read["overLine"], f"{read['stage']}: the chart lies over the question's line"
        assert read["cells"] and read["covered"] == 0, f"{read['stage']}: {read['covered']} numbers under the chart"
        # (measured: the six cards of the inputs 15 px, every other stage 23-35 px; before, 6 px)
        floor = 14 if read["stage"] == "inputs" else 20
        assert read["px"] >= floor, f"{read['stage']}: the stage's numbers are {read['px']:.1f} px"
        if teacher.locator("#present-panel .pp-next").is_disabled():
            break
        teacher.keyboard.press("ArrowRight")
    assert [s["stage"] for s in seen] == [
        "inputs",
        "qkv",
        "scores",
        "scaled",
        "masked",
        "weights",
        "output",
        "heads",
        "combine",
    ]


def test_the_chart_goes_with_the_room_and_a_new_room_starts_without_it(lesson: dict) -> None:
    teacher = lesson["teacher"]
    assert chart_shown(teacher)
    teacher.keyboard.press("Escape")  # out of present mode, as the lecturer closes the lesson
    press(teacher, "#room .room-close")
    says(teacher, "#room .room-status", "is closed")
    teacher.wait_for_timeout(500)
    assert not chart_shown(teacher), "the closed room's chart is still over the page"
    teacher.screenshot(path=str(SHOTS / "chart-closed.png"))
    press(teacher, "#room .room-teach")
    teacher.locator(".room-card .rc-code").wait_for()
    teacher.locator(".room-card .rc-hide").click()
    teacher.wait_for_timeout(500)
    assert not chart_shown(teacher), "the new room shows the last room's chart"
    teacher.locator("#room [data-ask=quiz]").click()
    says(teacher, "#room .room-q", "0 answers")
    # the new question's chart shows once it is its own: never the last room's "2 answers"
    teacher.wait_for_function(CHART_SHOWN)
    assert (teacher.locator("#room-plot .gtitle").text_content() or "").startswith("0 answers")
