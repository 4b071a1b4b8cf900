"""Journeys in real Chromium: where the explain card opens, and what it leaves behind (issue 37, item 10: "the card
covers its neighbours").

A learner clicks a number, reads its card, closes it with Escape or its ✕. What is on screen is asserted with
getBoundingClientRect and elementFromPoint: the clicked number, its row and column, and the cards the explanation
refers to stay in sight; the card is whole on the screen, its last line (the result) included; and opening or
closing a card moves no card of the pipeline.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from browser import frames
from browser import open_page as shared_open_page
from playwright.sync_api import Browser, Page

TIMEOUT = 30_000

RECT_JS = """(s) => { const r = document.querySelector(s).getBoundingClientRect();
  return {l: r.left, t: r.top, r: r.right, b: r.bottom}; }"""

# the cells of the clicked number's row and column (the number included) that are covered by something else: what
# the browser would hit at each one's centre is not the cell (or inside it)
COVERED_JS = """([table, r, c]) => { const bad = [];
  document.querySelectorAll(`#overview table[data-name=${table}] td[data-r]`).forEach((td) => {
    if (td.dataset.r !== String(r) && td.dataset.c !== String(c)) return;
    const b = td.getBoundingClientRect(), x = (b.left + b.right) / 2, y = (b.top + b.bottom) / 2;
    const at = `${td.dataset.r},${td.dataset.c}`;
    if (x < 0 || y < 0 || x > innerWidth || y > innerHeight) { bad.push(`${at} off screen`); return; }
    const hit = document.elementFromPoint(x, y);
    if (!td.contains(hit)) bad.push(`${at} under ${hit?.id || hit?.className}`);
  });
  return bad; }"""

# the card's last line (its result, "= 3.4989"): its rectangle, and whether it is the topmost thing at its centre
LAST_LINE_JS = """() => { const lines = document.querySelectorAll('#explain .ex-line');
  const ln = lines[lines.length - 1], b = ln.getBoundingClientRect();
  const hit = document.elementFromPoint((b.left + b.right) / 2, (b.top + b.bottom) / 2);
  return {text: ln.innerText, l: b.left, t: b.top, r: b.right, b: b.bottom, seen: ln.contains(hit)}; }"""

# where the card is, and how far the page is scrolled (both settle once the card is placed)
PLACE_JS = (
    "() => { const r = document.querySelector('#explain').getBoundingClientRect(); return [r.left, r.top, scrollY]; }"
)

# every card of the pipeline, where it is
CARDS_JS = """() => [...document.querySelectorAll('#bench .card')].map((c) => {
  const r = c.getBoundingClientRect();
  return [c.dataset.card || c.querySelector('table')?.dataset.name || '', r.left, r.top, r.width, r.height]
    .map((v) => typeof v === 'number' ? Math.round(v * 2) / 2 : v); })"""


def open_page(browser: Browser, url: str, width: int, height: int) -> Page:
    return shared_open_page(browser, url, width, height, TIMEOUT)


@pytest.fixture
def page(browser: Browser, app_url: str) -> Iterator[Page]:
    pg = open_page(browser, app_url, 1280, 720)
    yield pg
    pg.close()


def rect(pg: Page, selector: str) -> dict[str, float]:
    return pg.evaluate(RECT_JS, selector)


def overlap(a: dict[str, float], b: dict[str, float]) -> float:
    return max(0.0, min(a["r"], b["r"]) - max(a["l"], b["l"])) * max(0.0, min(a["b"], b["b"]) - max(a["t"], b["t"]))


def cell(table: str, r: int, c: int) -> str:
    return f"#overview table[data-name={table}] td[data-r='{r}'][data-c='{c}']"


def click_number(pg: Page, table: str, r: int, c: int) -> None:
    """Scroll to a number as a learner does, click it, and wait until its card is drawn and placed."""
    pg.locator(cell(table, r, c)).scroll_into_view_if_needed()
    pg.locator(cell(table, r, c)).click()
    title = f"{table}[{r + 1}, {c + 1}]"
    pg.wait_for_function("(t) => document.querySelector('#explain .ex-title')?.innerText === t", arg=title)
    frames(pg)  # (explain.js places the card a frame after it is drawn)
    stable(pg, PLACE_JS)


def stable(pg: Page, js: str) -> None:
    """Wait until ``js`` reads the same three times running (the card placed, the page scrolled)."""
    seen: list[object] = []
    for _ in range(40):
        seen.append(pg.evaluate(js))
        if len(seen) >= 3 and seen[-1] == seen[-2] == seen[-3]:
            return
        pg.wait_for_timeout(100)
    raise AssertionError(f"still moving after 4 s: {seen[-3:]}")


def card_of(pg: Page, table: str) -> dict[str, float]:
    return pg.evaluate(
        "(t) => { const r = document.querySelector(`#overview table[data-name=${t}]`).closest('.card')"
        ".getBoundingClientRect(); return {l: r.left, t: r.top, r: r.right, b: r.bottom}; }",
        table,
    )


def assert_card_leaves_in_sight(pg: Page, table: str, r: int, c: int, inputs: tuple[str, ...], size: tuple[int, int]):
    width, height = size
    card = rect(pg, "#explain")
    assert card["l"] >= 0 and card["t"] >= 0 and card["r"] <= width and card["b"] <= height, (card, size)
    assert pg.evaluate(COVERED_JS, [table, r, c]) == []  # the number, its row and its column: all in sight
    for name in inputs:  # the cards the explanation takes its numbers from
        assert overlap(card, card_of(pg, name)) == 0, (name, card, card_of(pg, name))
    last = pg.evaluate(LAST_LINE_JS)
    assert last["seen"] and last["t"] >= card["t"] and last["b"] <= card["b"] and last["b"] <= height, last


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080), (390, 844)])
def test_the_card_leaves_the_number_its_row_column_and_inputs_in_sight_and_shows_its_result(
    browser: Browser, app_url: str, size: tuple[int, int]
) -> None:
    """StatQuest's output[3, 1] (bottom right of the pipeline at 1280×720) and scores[2, 2]: each card is whole on
    the screen with its result line, and covers neither its number's row and column nor the cards it reads."""
    pg = open_page(browser, app_url, *size)
    try:
        click_number(pg, "output", 2, 0)
        assert pg.evaluate(LAST_LINE_JS)["text"] == "= 3.4989"
        assert_card_leaves_in_sight(pg, "output", 2, 0, ("weights", "v"), size)
        click_number(pg, "scores", 1, 1)
        assert_card_leaves_in_sight(pg, "scores", 1, 1, ("q", "k"), size)
        pg.keyboard.press("Escape")
        pg.wait_for_selector("#explain", state="hidden")
    finally:
        pg.close()


# the page's controls (the top bar's, the toolbar's, the tabs) whose centre the browser would hit inside the card
UNDER_CARD_JS = """() => [...document.querySelectorAll(`#topbar button, #topbar input, #toolbar input, #toolbar button,
    #tabs [role=tab]`)].filter((e) => { const b = e.getBoundingClientRect();
    if (!b.width || b.bottom < 0 || b.top > innerHeight) return false;
    const hit = document.elementFromPoint((b.left + b.right) / 2, (b.top + b.bottom) / 2);
    return hit && hit.closest('#explain'); }).map((e) => e.getAttribute('aria-label') || e.innerText.trim() || e.id)"""


@pytest.mark.parametrize(("name", "r", "c"), [("q", 0, 0), ("k", 1, 1), ("weights", 0, 2)])
def test_the_card_leaves_the_page_controls_free_where_the_screen_has_room(
    page: Page, name: str, r: int, c: int
) -> None:
    """A learner's walk (a helper's): q[1, 1] at 1280×720 opened its card over the preset picker, the tabs and the
    toolbar's mask, heads and scale (a click on heads: '#explain intercepts pointer events'), with the right half of
    the screen free. Each card leaves every control of the top bar, the toolbar and the tabs where a click reaches it,
    and its number's row and column in sight."""
    click_number(page, name, r, c)
    assert page.evaluate(UNDER_CARD_JS) == []
    assert page.evaluate(COVERED_JS, [name, r, c]) == []
    page.get_by_label("heads", exact=True).click(timeout=5_000)  # (a control is reached with the card open)


def test_opening_and_closing_an_explanation_moves_no_card_and_leaves_no_mark(page: Page) -> None:
    """Click a number, Escape; click another, ✕: every card of the pipeline stays where it was, at its width, and
    once the card is closed the clicked number looks like its neighbours again."""
    before = page.evaluate(CARDS_JS)
    plain = page.evaluate("(s) => getComputedStyle(document.querySelector(s)).fontWeight", cell("scores", 0, 0))
    for table, r, c, close in (("scores", 1, 1, "Escape"), ("output", 2, 0, "✕"), ("weights", 0, 2, "Escape")):
        click_number(page, table, r, c)
        assert page.evaluate(CARDS_JS) == before, f"opening {table}[{r + 1}, {c + 1}] moved a card"
        if close == "Escape":
            page.keyboard.press("Escape")
        else:
            page.locator("#explain .ex-close").click()
        page.wait_for_selector("#explain", state="hidden")
        page.mouse.move(640, 20)  # (away from the number: no hover outline)
        assert page.evaluate(CARDS_JS) == before, f"closing {table}[{r + 1}, {c + 1}] moved a card"
        look = page.evaluate(
            "(s) => { const st = getComputedStyle(document.querySelector(s));"
            " return [st.fontWeight, st.outlineStyle, st.textShadow]; }",
            cell(table, r, c),
        )
        assert look == [plain, "none", "none"], (table, look)


def tour_step(pg: Page, i: int) -> None:
    pg.wait_for_function("(i) => document.querySelector('#tour-pop').dataset.step === String(i)", arg=i)


def test_in_the_tour_the_card_covers_neither_the_bubble_nor_the_numbers_it_explains(page: Page) -> None:
    """The tour's third step asks for a click on a score; at its fourth ("the explanation writes q_i · k_j out term
    by term") the card is read beside the tour's bubble: it covers neither it, nor QKᵀ's row and column, nor Q and
    K (the walk found it over the weights and QKᵀ's row)."""
    page.evaluate("() => localStorage.clear()")
    page.click("#tour-btn")
    tour_step(page, 0)
    page.locator("#inputs table[data-name=x] td[data-r='1'][data-c='0']").click()
    editor = page.locator("#inputs table.grid td input")
    editor.press("Control+a")
    editor.press_sequentially("3", delay=80)
    editor.press("Enter")
    tour_step(page, 1)
    page.click("#tour-pop .tp-next")
    tour_step(page, 2)
    click_number(page, "scores", 1, 1)
    tour_step(page, 3)
    stable(page, PLACE_JS)
    assert_card_leaves_in_sight(page, "scores", 1, 1, ("q", "k"), (1280, 720))
    card, bubble = rect(page, "#explain"), rect(page, "#tour-pop")
    assert overlap(card, bubble) == 0, (card, bubble)
    page.click("#tour-pop .tp-leave")
