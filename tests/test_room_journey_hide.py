"""A lesson whose questions keep their answers to themselves (issue 37, item 8, as a learner's walk found it in the
rooms): a lecturer at 1280×720 projecting, a student on a phone (390×844) and one at 1280×720, each a browser
context of its own, driven by clicks and keys typed one by one. While a question is open, what answers it is off
every page (the lecturer's too): the asked cell and its row, its explain card, its torch print, the heatmap's hover.
The answers' chart never moves the workbench; a student's own edit makes them "Trying it yourself"; the join card
says when students cannot reach its address. And the workbench's own quiz: its hidden cell carries its answer in no
tooltip, text or attribute."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from browser import press
from playwright.sync_api import Browser, Page
from test_room_journey import CELL, FOLLOWING, edit, join_by_code, page_in, shows

import attention_core as ac
from serving import rooms as rm

WEIGHTS = "#overview table[data-name=weights]"
TABS_Y = "() => document.querySelector('#tabs').getBoundingClientRect().top + scrollY"  # in the page, not the screen
# where the tabs and the input cards stand in the page (the question's form is above them; the overview's cards change
# with the question: its cell reads '?')
BENCH = """() => [document.querySelector('#tabs'), ...document.querySelectorAll('#inputs .card')].map((e) => {
  const r = e.getBoundingClientRect(); return [Math.round(r.left), Math.round(r.top + scrollY)]; })"""


def benches_stay(lesson: dict, when: str) -> None:
    """Every student's tabs and input cards stand where they stood before the first question (within 1 px)."""
    for pg, before in zip(lesson["students"], lesson["benches"], strict=True):
        after = pg.evaluate(BENCH)
        moved = [(a, b) for a, b in zip(after, before, strict=True) if abs(a[0] - b[0]) > 1 or abs(a[1] - b[1]) > 1]
        assert moved == [], f"{when}, on {pg.viewport_size}: the workbench moved (now, before): {moved}"


def weights() -> list[list[float]]:
    """The default preset's weights, by torch (the preset as loaded: StatQuest, seed 42)."""
    s = ac.parse(ac.get_preset("statquest-self").scenario)
    return ac.evaluate(s).head(0)["weights"].tolist()


def row_hidden(pg: Page, where: str, name: str, row: int) -> None:
    """Wait until every cell of ``row`` in table ``name`` under ``where`` shows no number."""
    sel = f"{where} table[data-name={name}] td[data-r='{row}']"
    try:
        pg.wait_for_function(
            "(s) => { const tds = [...document.querySelectorAll(s)];"
            " return tds.length > 0 && tds.every((td) => !/\\d/.test(td.innerText)); }", arg=sel)  # fmt: skip
    except Exception:
        got = pg.evaluate("(s) => [...document.querySelectorAll(s)].map((td) => td.innerText)", sel)
        raise AssertionError(f"{sel} on {pg.viewport_size}: {got}") from None


def leaks(pg: Page, needles: list[str]) -> list[str]:
    """Where any of ``needles`` shows on the workbench: the text on screen, or any attribute (a tooltip, an aria
    label, a data attribute) of the overview, the notebook's steps and the heatmaps."""
    return pg.evaluate(
        """(needles) => {
          const out = [];
          const text = document.querySelector('#tabs').innerText;
          for (const n of needles) if (text.includes(n)) out.push(`text: ${n}`);
          for (const el of document.querySelectorAll('#overview *, .nb-view *, #weights-fig *, #heads-fig *')) {
            for (const a of el.attributes) {
              for (const n of needles) if (a.value.includes(n)) out.push(`${el.tagName}[${a.name}=${a.value}]`);
            }
          }
          return out;
        }""",
        needles,
    )


def hover_heat(pg: Page, figure: str, row: int, col: int) -> str:
    """The hover text of a heatmap's cell (row, col), as the mouse gives it."""
    cv = pg.locator(f"{figure} canvas").first
    title = ""
    for _ in range(5):  # (until the mouse is on it: the page may still be settling after the scroll)
        cv.scroll_into_view_if_needed()
        box = cv.bounding_box()
        n_r, n_c = int(cv.get_attribute("height")), int(cv.get_attribute("width"))
        pg.mouse.move(box["x"] + (col + 0.5) * box["width"] / n_c, box["y"] + (row + 0.5) * box["height"] / n_r)
        title = cv.get_attribute("title") or ""
        if title.startswith(f"query {row + 1}:"):
            return title
        pg.wait_for_timeout(300)
    return title


def card_shown(pg: Page) -> bool:
    return pg.evaluate("() => { const c = document.querySelector('#explain');"
                       " return !!c && c.getBoundingClientRect().height > 0; }")  # fmt: skip


@pytest.fixture(scope="module")
def lesson(own_app: str, browser: Browser) -> Iterator[dict[str, object]]:
    teacher = page_in(browser, own_app, 1280, 720)
    students = [page_in(browser, own_app, 390, 844, phone=True), page_in(browser, own_app, 1280, 720)]
    yield {"url": own_app, "browser": browser, "teacher": teacher, "students": students}
    for pg in (teacher, *students):
        pg.context.close()


def quiz_on_a_weight(pg: Page) -> tuple[int, int]:
    """The workbench's quiz, asked for a question on an attention weight: the asked weight's (row, col), 0-based."""
    pg.locator("#quiz-box").get_by_text("Quiz me").click()
    pg.locator("#quiz-kind input").click()
    pg.locator("li[role='option'][aria-label='an attention weight']").click()
    pg.locator("#quiz-new").click()
    pg.wait_for_function("() => /weights\\[\\d, \\d\\]/.test(document.querySelector('#quiz-q .quiz-q')?.innerText)")
    i, j = (int(n) - 1 for n in re.search(r"weights\[(\d), (\d)\]", pg.inner_text("#quiz-q .quiz-q")).groups())
    return i, j


def test_the_workbench_quiz_hides_its_answer_from_tooltips_text_prints_and_hover(lesson: dict) -> None:
    """Item 3: the greyed cell of "weights[3, 2]" had title="0.03195135" and the text "0.0320" (a tooltip and a screen
    reader read them); the torch print and the output row derived from it showed it too."""
    pg = page_in(lesson["browser"], lesson["url"])
    i, j = quiz_on_a_weight(pg)
    w = weights()[i][j]
    for where in ("#overview", "#html-weights"):
        row_hidden(pg, where, "weights", i)
    row_hidden(pg, "#overview", "output", i)  # (output = weights · V: its row gives the weights back)
    assert leaks(pg, [f"{w:.4f}", f"{w:.6f}"[:7]]) == []
    assert f"{w:.4f}" not in pg.inner_text("#html-weights pre.tensor")
    assert "hidden" in hover_heat(pg, "#weights-fig figure[data-name=hm-weights]", i, j)
    pg.locator(f"{WEIGHTS} td[data-r='{i}'][data-c='{j}']").click()  # its explanation would give it away
    pg.wait_for_timeout(1500)
    assert not card_shown(pg)
    row = (i + 1) % 3  # the other rows stay, and still explain
    assert pg.locator(f"{WEIGHTS} td[data-r='{row}'][data-c='0']").inner_text() == f"{weights()[row][0]:.4f}"
    pg.context.close()


def test_the_quizs_answer_is_hidden_in_the_mask_lab_too(lesson: dict) -> None:
    """A learner's walk (a helper's): a quiz question on a weight, then the Mask lab with "causal mask" unticked (the
    workbench's own mask, none): the lab's "weights shown" printed the asked weight to 9 digits (0.401141100) while
    the overview showed '?'. The asked row is hidden in each of the lab's softmax and weights tables, every fill."""
    pg = page_in(lesson["browser"], lesson["url"])
    i, j = quiz_on_a_weight(pg)
    w = weights()[i][j]
    row_hidden(pg, "#overview", "weights", i)
    pg.get_by_role("tab", name="Mask lab").click()
    pg.get_by_label("causal mask", exact=True).click()  # unticked: the lab's weights are the workbench's
    pg.wait_for_function("() => !document.querySelector('#mask-causal input').checked")
    pg.wait_for_selector("#mask-lab-out table[data-name^=lab-weights] td[data-r]")
    pg.wait_for_timeout(1000)  # (the lab's tables redrawn for the mask unticked)
    names = pg.evaluate("() => [...document.querySelectorAll('#mask-lab-out table[data-name]')].map((t) =>"
                        " t.dataset.name).filter((n) => /^lab-(raw|weights)/.test(n))")  # fmt: skip
    assert len(names) >= 2, names
    for name in names:
        row_hidden(pg, "#mask-lab-out", name, i)
    other = (i + 1) % 3  # the rows not asked still show their numbers
    shown = pg.inner_text(f"#mask-lab-out table[data-name={names[-1]}] td[data-r='{other}'][data-c='0']")
    assert re.search(r"\d", shown), shown
    assert leaks(pg, [f"{w:.4f}", f"{w:.6f}"[:7]]) == []
    pg.context.close()


def test_the_join_card_says_a_local_address_is_this_computers_only(lesson: dict) -> None:
    """Item 6: "Join at http://127.0.0.1:7931/" on a plain run, which no student's device can reach."""
    teacher, students = lesson["teacher"], lesson["students"]
    press(teacher, "#room .room-teach")
    card = teacher.locator(".room-card")
    card.wait_for()
    code = card.locator(".rc-code").inner_text().strip()
    lesson["code"] = code
    for i, s in enumerate(students):  # (they join on this machine, which reaches it)
        join_by_code(s, code, phone=i == 0)
    shows(teacher, ".room-card .rc-count", "2 students joined")
    teacher.screenshot(path="/tmp/room/hide-join-card.png")
    assert card.locator(".rc-url").inner_text().startswith("http://127.0.0.1:")
    note = card.locator(".rc-local")
    try:
        assert note.is_visible()
        text = note.inner_text()
        assert "only" in text and "this computer" in text and "python3 playground.py --classroom" in text, text
        lan = rm.lan_address()
        if lan != "127.0.0.1":  # the address the classroom command serves at, on this machine's network
            port = lesson["url"].rstrip("/").rsplit(":", 1)[1]
            assert f"http://{lan}:{port}/" in text, text
    finally:
        card.locator(".rc-hide").click()


def test_predict_this_number_hides_the_cell_its_row_and_its_card_on_every_page(lesson: dict) -> None:
    """Item 1: the lecturer's click opened the explain card on every page ("1.6403 / 2.9745 = 0.5515"), and the asked
    cell stayed on screen, enlarged, while the header said "right answer hidden until Reveal"."""
    teacher, students = lesson["teacher"], lesson["students"]
    lesson["tabs_y"] = teacher.evaluate(TABS_Y)
    lesson["benches"] = [pg.evaluate(BENCH) for pg in students]
    teacher.locator("#room [data-ask=predict]").click()
    teacher.locator(f"{WEIGHTS} td[data-r='1'][data-c='0']").click()
    teacher.wait_for_selector("#room .room-q b")
    assert "right answer hidden until Reveal" in teacher.inner_text("#room .room-q")
    w = weights()[1][0]
    for pg in (teacher, *students):
        row_hidden(pg, "#overview", "weights", 1)
        row_hidden(pg, "#html-weights", "weights", 1)
        row_hidden(pg, "#overview", "output", 1)
        pg.wait_for_timeout(600)  # (a card followed from the lecturer's click would be open by now)
        assert not card_shown(pg), pg.viewport_size
        assert leaks(pg, [f"{w:.4f}", f"{w:.6f}"[:7]]) == [], pg.viewport_size
        pg.screenshot(path=f"/tmp/room/hide-ask-{pg.viewport_size['width']}-{id(pg) % 1000}.png")
    for pg in students:
        pg.wait_for_selector("#room .ra-value")
    benches_stay(lesson, "the question arrived")  # (seen failing: it pushed a student's workbench down)
    assert "hidden" in hover_heat(teacher, "#weights-fig figure[data-name=hm-weights]", 1, 0)
    phone = students[0]
    phone.locator(f"{WEIGHTS} td[data-r='1'][data-c='1']").tap()  # the row's other cells would give it away (1 − sum)
    phone.wait_for_timeout(1200)
    assert not card_shown(phone)


def test_the_answers_chart_leaves_the_workbench_where_it_was(lesson: dict) -> None:
    """Item 5: the chart was put above the workbench and pushed it down about 270 px."""
    teacher, students = lesson["teacher"], lesson["students"]
    box = students[0].locator("#room .ra-value")
    box.tap()
    box.press_sequentially("0.5", delay=80)
    box.press("Enter")
    shows(teacher, "#room .room-answers", "1 answer")
    teacher.wait_for_function("() => document.querySelector('#room-plot .gtitle')?.textContent.startsWith('1 answer')")
    plot = teacher.locator("#room-plot")
    assert plot.is_visible()
    y = teacher.evaluate(TABS_Y)
    assert abs(y - lesson["tabs_y"]) <= 2, (lesson["tabs_y"], y)
    size = teacher.evaluate("() => parseFloat(getComputedStyle(document.querySelector('#room-plot .xtick text'))"
                            ".fontSize)")  # fmt: skip
    assert size >= 16, size  # read from the back row
    teacher.screenshot(path="/tmp/room/hide-teacher-chart.png")
    students[0].wait_for_selector("#room .ra-mine")
    benches_stay(lesson, "the student answered")


def test_reveal_shows_the_numbers_again(lesson: dict) -> None:
    teacher, students = lesson["teacher"], lesson["students"]
    teacher.locator("#room .room-reveal").click()
    w = f"{weights()[1][0]:.4f}"
    for pg in (teacher, *students):
        shows(pg, f"{WEIGHTS} td[data-r='1'][data-c='0']", w)
    for pg in students:
        pg.wait_for_selector("#room .ra-right")
    benches_stay(lesson, "the answer revealed")


def test_a_quiz_question_hides_the_row_that_answers_it_on_every_page(lesson: dict) -> None:
    """Item 2: "Which key gets the most weight from query t3?" was asked with row t3 of the weights on every page."""
    teacher, students = lesson["teacher"], lesson["students"]
    teacher.locator("#room [data-ask=quiz]").click()
    students[0].wait_for_function("() => /query t\\d/.test(document.querySelector('#room .ra-prompt')?.innerText)")
    prompt = students[0].inner_text("#room .ra-prompt")
    row = int(re.search(r"query t(\d)", prompt).group(1)) - 1
    for pg in (teacher, *students):
        for name in ("scores", "weights", "output"):  # (output = weights · V: its row points at the largest weight)
            row_hidden(pg, "#overview", name, row)
    assert teacher.locator(f"{WEIGHTS} td[data-r='{(row + 1) % 3}'][data-c='0']").inner_text().strip()[0].isdigit()
    teacher.locator("#room .room-reveal").click()
    for pg in (teacher, *students):
        shows(pg, f"{WEIGHTS} td[data-r='{row}'][data-c='0']", f"{weights()[row][0]:.4f}")


def test_a_students_own_edit_makes_them_try_it_and_is_never_overwritten(lesson: dict) -> None:
    """Item 4: a following student's edit (x[t3, d1] = 9) left "Following the teacher" on screen, and the lecturer's
    next edit overwrote it without a word."""
    teacher, (phone, desk) = lesson["teacher"], lesson["students"]
    if card_shown(desk):  # (an explanation followed from the lecturer's page: closed, as a person would)
        desk.keyboard.press("Escape")
    edit(desk, 2, 0, "9")
    desk.wait_for_selector("#room .room-status[data-kind=trying]")
    assert "Trying it yourself" in desk.inner_text("#room .room-status")
    assert desk.locator("#room .room-try").inner_text() == "Back to the teacher"
    edit(teacher, 0, 0, "2.5")
    shows(phone, CELL.format(r=0, c=0), "2.5")  # the phone follows on
    desk.wait_for_timeout(1000)
    assert desk.locator(CELL.format(r=2, c=0)).inner_text().strip() == "9.0"  # the student's own edit stays
    assert desk.locator(CELL.format(r=0, c=0)).inner_text().strip() != "2.5"
    desk.locator("#room .room-try").click()
    desk.wait_for_selector(FOLLOWING)
    shows(desk, CELL.format(r=0, c=0), "2.5")
    shows(desk, CELL.format(r=2, c=0), teacher.locator(CELL.format(r=2, c=0)).inner_text().strip())
