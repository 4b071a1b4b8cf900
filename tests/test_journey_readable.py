"""Journeys in real Chromium: readable from the back of the room, nothing clipped, the explain card beside the
number (issue 22, items 3, 4 and 6, and the title on a phone).

Every test drives the page as a learner or a teacher does (clicks, keys, typing) and asserts what is on screen:
the font size of the numbers that are visible, which rectangles overlap, whether a row or column can be reached.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Iterator

import pytest
from browser import frames, loaded
from browser import open_page as shared_open_page
from playwright.sync_api import Browser, Page

import attention_core as ac
from ui.share import encode_link

TIMEOUT = 30_000
OUT = "#overview table[data-name=output]"
NUMBERS = "#overview table.nt td[data-r], #inputs table.grid td[data-r]"


def open_page(browser: Browser, url: str, width: int = 1280, height: int = 720, scale: float = 1) -> Page:
    pg = shared_open_page(browser, url, width, height, TIMEOUT, scale=scale)
    settle(pg)
    return pg


@pytest.fixture
def page(browser: Browser, app_url: str) -> Iterator[Page]:
    pg = open_page(browser, app_url)
    yield pg
    pg.close()


LAYOUT_JS = """() => { const b = document.querySelector('#bench').getBoundingClientRect();
  const td = document.querySelector('#overview td[data-r]');
  return [Math.round(b.width), Math.round(b.height), td ? getComputedStyle(td).fontSize : ''].join('|'); }"""


def settle(pg: Page) -> None:
    """Wait until the workbench's layout stops changing (fonts loaded, numbers sized): three equal readings."""
    pg.evaluate("() => document.fonts.ready.then(() => true)")
    frames(pg)  # (A+ and A- set the text size at once; fit.js sizes the numbers a frame later)
    seen: list[str] = []
    for _ in range(60):
        seen.append(pg.evaluate(LAYOUT_JS))
        if len(seen) >= 3 and seen[-1] == seen[-2] == seen[-3]:
            return
        pg.wait_for_timeout(100)


VISIBLE_SIZES_JS = """(sel) => { const w = innerWidth, h = innerHeight; const out = [];
  document.querySelectorAll(sel).forEach((td) => { const r = td.getBoundingClientRect();
    if (r.width === 0 || r.bottom <= 0 || r.top >= h || r.right <= 0 || r.left >= w) return;
    if (getComputedStyle(td).visibility !== 'visible') return;
    out.push(parseFloat(getComputedStyle(td).fontSize)); });
  return out; }"""


def visible_number_sizes(pg: Page) -> list[float]:
    """The font size (px) of every number cell on screen: the overview's tables and the editable grids."""
    return pg.evaluate(VISIBLE_SIZES_JS, NUMBERS)


OUTSIDE_JS = """(sels) => { const w = innerWidth, h = innerHeight; const bad = [];
  for (const sel of sels) document.querySelectorAll(sel).forEach((e) => { const r = e.getBoundingClientRect();
    if (r.width === 0 || r.left < 0 || r.top < 0 || r.right > w + 0.5 || r.bottom > h + 0.5)
      bad.push(sel + ' ' + [r.left, r.top, r.right, r.bottom].map(Math.round).join(',')); });
  return bad; }"""


def off_first_screen(pg: Page, preset: str) -> list[str]:
    """Cells of the inputs, Q, K, V, scores, weights, output (and heads combined) not wholly on the first screen."""
    s = ac.parse(ac.get_preset(preset).scenario)
    sels = ["#inputs .card:not(.collapsed) td[data-r]", f"{OUT} td", "#overview table[data-name=weights] td"]
    sels += [f"#overview table[data-name={n}] td" for n in ("q", "k", "v", "scores")]
    if s.heads > 1:
        sels.append("#overview table[data-name=combine] td")
    return pg.evaluate(OUTSIDE_JS, sels)


WIDTH_JS = """() => { let right = document.scrollingElement.scrollWidth;
  document.querySelectorAll('.card').forEach((c) => { const r = c.getBoundingClientRect();
    if (r.width) right = Math.max(right, Math.ceil(r.right + scrollX)); });
  return [right, innerWidth]; }"""


def page_width(pg: Page) -> tuple[int, int]:
    """How wide the page is (its scroll width, or the right edge of a card the page would clip) and the viewport."""
    return pg.evaluate(WIDTH_JS)


def rect(pg: Page, selector: str) -> dict[str, float]:
    return pg.evaluate(
        "(s) => { const r = document.querySelector(s).getBoundingClientRect();"
        " return {l: r.left, t: r.top, r: r.right, b: r.bottom}; }",
        selector,
    )


def overlap(a: dict[str, float], b: dict[str, float]) -> float:
    """The area two rectangles share (0 when they do not meet)."""
    return max(0.0, min(a["r"], b["r"]) - max(a["l"], b["l"])) * max(0.0, min(a["b"], b["b"]) - max(a["t"], b["t"]))


# ---- item 3: numbers readable from the back of the room, on every preset's first screen ----------------------


def test_every_preset_shows_large_numbers_and_keeps_the_one_screen_promise(browser: Browser, app_url: str) -> None:
    sizes: dict[str, tuple[float, float]] = {}
    problems: list[str] = []
    for preset in ac.preset_ids():
        pg = open_page(browser, f"{app_url}?preset={preset}")
        try:
            got = visible_number_sizes(pg)
            assert got, f"{preset}: no number on screen"
            sizes[preset] = (statistics.median(got), min(got))
            if min(got) < 12:
                problems.append(f"{preset}: a number at {min(got)} px")
            outside = off_first_screen(pg, preset)
            if outside:
                problems.append(f"{preset}: off the first screen {outside[:3]}")
            wide, inner = page_width(pg)
            if wide > inner:
                problems.append(f"{preset}: the page scrolls sideways ({wide} > {inner})")
        finally:
            pg.close()
    assert sizes["statquest-self"][0] >= 16, sizes  # the default preset: a median of at least 16 px
    assert problems == [], (problems, sizes)


OUTPUT_BOTTOM = f"() => document.querySelector('{OUT}').getBoundingClientRect().bottom"
BENCH_TOP = "() => document.querySelector('#bench').getBoundingClientRect().top"


@pytest.mark.parametrize("size", [(1920, 1080), (1280, 720)], ids=["1920x1080", "1280x720"])
def test_a_teacher_makes_the_numbers_larger_as_far_as_the_screen_allows_and_the_page_remembers(
    browser: Browser, app_url: str, size: tuple[int, int]
) -> None:
    """A+ twice (130%): the numbers grow while the output stays on the first screen; where the screen has room
    (1920×1080) they grow by at least 1.2×, where the default preset already fills it (1280×720) they keep their
    size, never smaller; the controls keep theirs, so the bench does not move (issue 37: one press of A+ pushed the
    output to y = 974 at 1280×720). A reload keeps the size; A− makes the numbers smaller."""
    page = open_page(browser, app_url, *size)
    try:
        before = statistics.median(visible_number_sizes(page))
        top = page.evaluate(BENCH_TOP)
        page.get_by_role("button", name="larger text").click()
        page.get_by_role("button", name="larger text").click()
        settle(page)
        bigger = statistics.median(visible_number_sizes(page))
        assert bigger >= (1.2 if size[0] == 1920 else 1.0) * before, (before, bigger)
        assert page.evaluate(OUTPUT_BOTTOM) <= size[1], "A+ pushed the output off the first screen"
        assert page.evaluate(BENCH_TOP) == pytest.approx(top, abs=1)  # the controls kept their size
        page.reload()
        loaded(page)
        settle(page)
        assert statistics.median(visible_number_sizes(page)) == pytest.approx(bigger, abs=0.6)  # remembered
        wide, inner = page_width(page)
        assert wide <= inner
        for _ in range(3):
            page.get_by_role("button", name="smaller text").click()
        settle(page)
        assert statistics.median(visible_number_sizes(page)) < before
    finally:
        page.close()


def test_a_plus_at_its_limit_says_so_and_still_grows_the_explanations(browser: Browser, app_url: str) -> None:
    """At 1280×720 the default preset's numbers already fill the first screen: A+ pressed until they stop growing
    keeps the output on the first screen, and the press that could not grow them shows a note naming what still
    grows (the old page changed nothing visible and said nothing); the A+ button's title says it too. The explain
    card's text did grow."""
    page = open_page(browser, app_url, 1280, 720)
    try:
        explain_cell(page, "output", 0, 0, "output[1, 1]")
        card = "() => parseFloat(getComputedStyle(document.querySelector('#explain .ex-title')).fontSize)"
        card_before = page.evaluate(card)
        plus = page.get_by_role("button", name="larger text")
        note = page.locator("#text-size .ts-note")
        size = statistics.median(visible_number_sizes(page))
        for _ in range(6):
            plus.click()
            settle(page)
            grown = statistics.median(visible_number_sizes(page))
            assert page.evaluate(OUTPUT_BOTTOM) <= 720, "A+ pushed the output off the first screen"
            if grown <= size + 0.1:
                break
            size = grown
        else:
            raise AssertionError(f"the numbers grew at every press, to {size} px")
        note.wait_for(state="visible", timeout=2_000)
        words = note.inner_text()
        assert "largest" in words and all(w in words for w in ("tour", "explain", "still grow")), words
        assert "largest for this screen" in (plus.get_attribute("title") or "")
        assert page.evaluate(card) > card_before * 1.1, (card_before, page.evaluate(card))
    finally:
        page.close()


def test_browser_zoom_150_percent_keeps_the_page_usable(browser: Browser, app_url: str) -> None:
    """Ctrl+ to 150% on a 1280×720 screen: the page is laid out at 853×480 CSS px, drawn 1.5× larger."""
    pg = open_page(browser, f"{app_url}?preset=llm-linear", 853, 480, scale=1.5)
    try:
        wide, inner = page_width(pg)
        assert wide <= inner, (wide, inner)
        pg.locator("#inputs table[data-name=x]").scroll_into_view_if_needed()
        assert min(visible_number_sizes(pg)) >= 12
        last = f"{OUT} td[data-r='10'][data-c='1']"  # the last output number can be reached by scrolling down
        pg.locator(last).scroll_into_view_if_needed()
        r = rect(pg, last)
        assert 0 <= r["l"] and r["r"] <= 853 and 0 <= r["t"] and r["b"] <= 480, r
        assert page_width(pg)[0] <= 853
    finally:
        pg.close()


def test_the_title_is_readable_on_a_phone(browser: Browser, app_url: str) -> None:
    pg = open_page(browser, app_url, 390, 844)
    try:
        h1 = "#title h1"
        size = float(pg.evaluate(f"() => parseFloat(getComputedStyle(document.querySelector('{h1}')).fontSize)"))
        assert size >= 20, size
        r = rect(pg, h1)
        full = pg.evaluate(f"() => document.querySelector('{h1}').scrollWidth")
        assert r["l"] >= 0 and r["r"] <= 390 and r["t"] >= 0 and r["b"] <= 200, r  # at the top, on screen
        assert r["r"] - r["l"] >= full - 1, (r, full)  # the whole title, not clipped
        assert page_width(pg)[0] <= 390
    finally:
        pg.close()


# ---- item 4: the explain card opens beside the number, with every term -----------------------------------------


def explain_cell(pg: Page, table: str, r: int, c: int, title: str) -> dict[str, float]:
    """Click a number of an overview table and wait for its explanation; the clicked cell's rectangle."""
    cell = f"#overview table[data-name={table}] td[data-r='{r}'][data-c='{c}']"
    pg.locator(cell).click()
    pg.wait_for_function("(t) => document.querySelector('#explain .ex-title')?.innerText === t", arg=title)
    settle(pg)
    return rect(pg, cell)


def products(pg: Page) -> int:
    """How many products ``a×b`` of two numbers the explanation writes out."""
    return len(re.findall(r"[0-9)]×[(0-9]", pg.inner_text("#explain")))


def card_is_beside(pg: Page, cell: dict[str, float], width: int, height: int) -> None:
    card = rect(pg, "#explain")
    assert overlap(card, cell) == 0, (card, cell)  # the clicked number stays in sight
    assert card["l"] >= 0 and card["t"] >= 0 and card["r"] <= width and card["b"] <= height, card  # on screen
    text = pg.inner_text("#explain")
    assert "more terms" not in text and "more keys" not in text and "…" not in text, text


def test_the_explain_card_opens_beside_the_clicked_number_with_every_term(page: Page) -> None:
    page.goto(page.url.split("?")[0] + "?preset=llm-linear")
    page.wait_for_selector(f"{OUT} td[data-r]")
    settle(page)
    cell = explain_cell(page, "output", 10, 1, "output[11, 2]")
    card_is_beside(page, cell, 1280, 720)
    assert products(page) == 11, page.inner_text("#explain")  # Σ over all 11 keys, each weight × v written out
    cell = explain_cell(page, "weights", 10, 10, "weights[11, 11]")
    card_is_beside(page, cell, 1280, 720)
    keys = [ln for ln in page.inner_text("#explain").split("\n") if ln.startswith("key ")]
    assert len(keys) == 11, keys  # every key's exp, not the first eight
    cell = explain_cell(page, "weights", 0, 0, "weights[1, 1]")  # a number at the other end of the table
    card_is_beside(page, cell, 1280, 720)


def test_on_a_phone_the_explain_card_does_not_cover_the_number(browser: Browser, app_url: str) -> None:
    pg = open_page(browser, f"{app_url}?preset=llm-linear", 390, 844)
    try:
        out = f"{OUT} td[data-r='5'][data-c='0']"
        pg.locator(out).scroll_into_view_if_needed()
        cell = explain_cell(pg, "output", 5, 0, "output[6, 1]")
        card_is_beside(pg, cell, 390, 844)
        assert page_width(pg)[0] <= 390
    finally:
        pg.close()


def large_link(t: int, d: int, heads: int = 1) -> str:
    x = [[round(((i * 7 + j * 3) % 11 - 5) / 4, 2) for j in range(d)] for i in range(t)]
    return encode_link({"x": x, "heads": heads, "d_out": d, "weights": {"init": "linear", "seed": 1}})


def test_a_long_sum_is_written_in_full_and_scrolls_inside_the_card(browser: Browser, app_url: str) -> None:
    pg = open_page(browser, f"{app_url}?scenario={large_link(40, 4)}")
    try:
        cell = explain_cell(pg, "output", 0, 0, "output[1, 1]")
        card_is_beside(pg, cell, 1280, 720)
        assert products(pg) == 40  # every one of the 40 keys
        cell = explain_cell(pg, "weights", 0, 1, "weights[1, 2]")
        keys = [ln for ln in pg.inner_text("#explain").split("\n") if ln.startswith("key ")]
        assert len(keys) == 40, len(keys)
        box = pg.evaluate(
            "() => { const e = document.querySelector('#explain'); return [e.scrollHeight, e.clientHeight]; }"
        )
        assert box[0] > box[1]  # longer than the card: it scrolls inside, the page does not grow
        pg.locator("#explain").hover()
        pg.mouse.wheel(0, 4000)
        pg.wait_for_function("() => document.querySelector('#explain').scrollTop > 0")
        assert pg.locator("#explain").get_by_text("key 40: exp").is_visible()
    finally:
        pg.close()


# ---- item 6: nothing clipped with no way to reach it --------------------------------------------------------------


def reach(pg: Page, selector: str, width: int, height: int) -> None:
    """Scroll ``selector`` into view as a learner would (its card, then the page) and check it is really seen:
    inside the viewport and inside every scrolling box around it, the page not scrolled sideways."""
    pg.locator(selector).scroll_into_view_if_needed()
    seen = pg.evaluate(
        """(s) => { const td = document.querySelector(s); const r = td.getBoundingClientRect();
        for (let p = td.parentElement; p && p !== document.body; p = p.parentElement) {
          const st = getComputedStyle(p);
          if (!/(auto|scroll|hidden)/.test(st.overflowX + st.overflowY)) continue;
          const b = p.getBoundingClientRect();
          if (r.left < b.left - 1 || r.right > b.right + 1 || r.top < b.top - 1 || r.bottom > b.bottom + 1)
            return 'clipped by ' + p.tagName + '.' + p.className;
        }
        return [r.left, r.top, r.right, r.bottom, scrollX + document.body.scrollLeft
                + document.documentElement.scrollLeft]; }""",
        selector,
    )
    assert isinstance(seen, list), seen
    left, top, right, bottom, scroll_x = seen
    assert left >= 0 and right <= width + 0.5 and top >= 0 and bottom <= height + 0.5, seen
    assert scroll_x == 0, seen  # reached inside its card, not by scrolling the page sideways


def set_d_model(pg: Page, value: str) -> None:
    drawer = pg.locator("#more").get_by_text("More settings")
    drawer.click()
    box = pg.get_by_label("d_model", exact=True)
    box.fill(value)  # one input event with the whole number
    box.press("Enter")
    pg.wait_for_selector(f"#inputs table[data-name=W_k] td[data-c='{int(value) - 1}']", state="attached")
    drawer.click()  # closed again
    settle(pg)


@pytest.mark.parametrize(("width", "height"), [(1280, 720), (390, 844)])
def test_at_d_model_16_the_last_w_k_column_can_be_reached(
    browser: Browser, app_url: str, width: int, height: int
) -> None:
    pg = open_page(browser, app_url, width, height)
    try:
        set_d_model(pg, "16")
        wide, inner = page_width(pg)
        assert wide <= inner, (wide, inner)
        for r in (0, 1):
            reach(pg, f"#inputs table[data-name=W_k] td[data-r='{r}'][data-c='15']", width, height)
        reach(pg, "#inputs table[data-name=x] td[data-r='2'][data-c='15']", width, height)
        assert page_width(pg)[0] <= inner
    finally:
        pg.close()


def test_a_13_token_sentence_shows_its_13th_token_on_every_table(page: Page) -> None:
    page.get_by_role("tab", name="Sentence mode").click()
    field = page.locator("#sentence-text textarea")
    field.fill("the cat sat on the red ma")
    field.press_sequentially("t")
    field.press("Enter")  # the sentence applies on Enter (or on leaving the box)
    page.wait_for_function("() => document.querySelector('#sentence-tokens').innerText.includes('13 tokens')")
    page.locator("#sent-go").click()
    page.wait_for_selector("#overview table[data-name=weights][data-shape='13x13']")
    settle(page)
    for name, col in (("q", 1), ("k", 1), ("v", 1), ("scores", 12), ("weights", 12), ("output", 1)):
        reach(page, f"#overview table[data-name={name}] td[data-r='12'][data-c='{col}']", 1280, 720)
    text = page.inner_text("#overview")
    assert "showing rows" not in text  # nothing windowed at 13 tokens
    assert page_width(page)[0] <= 1280


def test_a_windowed_table_says_what_is_hidden_and_reaches_it(browser: Browser, app_url: str) -> None:
    """Past 24 tokens the overview's cards page by 12 (an edit stays fast at T=64): each says what it shows, and
    its buttons bring in the rest, page by page, down to the last row and across to the last column."""
    pg = open_page(browser, f"{app_url}?scenario={large_link(40, 2)}")
    try:
        card = pg.locator("#overview [data-card=weights]")
        note = card.locator(".win-note")
        assert "showing rows 1–12 of 40, columns 1–12 of 40" in note.inner_text()
        assert pg.locator("#overview table[data-name=weights] td[data-r='39']").count() == 0
        card.get_by_role("button", name="show rows 13–24").click()  # reaching them explains the first one
        pg.wait_for_selector("#overview table[data-name=weights] td[data-r='23'][data-c='0']", state="attached")
        assert pg.inner_text("#explain .ex-title").startswith("weights[13, ")
        reach(pg, "#overview table[data-name=weights] td[data-r='23'][data-c='0']", 1280, 720)
        note_js = "(t) => document.querySelector('#overview [data-card=weights] .win-note').innerText.includes(t)"
        for button, then in (("show rows 25–36", "rows 25–36 of 40"), ("show rows 37–40", "rows 29–40 of 40")):
            card.get_by_role("button", name=button).click()  # the last page ends at the last row
            pg.wait_for_function(note_js, arg=then)
        assert "showing rows 29–40 of 40" in card.locator(".win-note").inner_text()
        reach(pg, "#overview table[data-name=weights] td[data-r='39'][data-c='0']", 1280, 720)
        card.get_by_role("button", name="show columns 13–24").click()
        pg.wait_for_selector("#overview table[data-name=weights] td[data-r='39'][data-c='23']", state="attached")
        assert "showing rows 29–40 of 40, columns 13–24 of 40" in card.locator(".win-note").inner_text()
        reach(pg, "#overview table[data-name=weights] td[data-r='39'][data-c='23']", 1280, 720)
        assert page_width(pg)[0] <= 1280
    finally:
        pg.close()


LINES_JS = """(sel) => [...document.querySelectorAll(sel)].map((t) => {
  const rows = [...t.rows], box = t.getBoundingClientRect();
  const spanned = rows[rows.length - 1].getBoundingClientRect().bottom - rows[0].getBoundingClientRect().top;
  const edge = (td, side) => getComputedStyle(td)[`border${side}Width`] === '1px';
  const lined = [...t.querySelectorAll('td[data-r]')].every((td) => edge(td, 'Right') && edge(td, 'Bottom')
    && (td.previousElementSibling?.tagName !== 'TH' || edge(td, 'Left'))
    && (td.parentElement !== rows[1] || edge(td, 'Top')));
  return [t.dataset.name, Math.abs(box.height - spanned) < 0.5, lined]; })"""


def test_every_number_sits_in_a_lined_box_and_no_room_is_lost_around_the_tables(page: Page) -> None:
    """Each number of the workbench's tables and grids has a light line on every side (the first column's left and
    the first row's top too), and a table takes no more room than its rows: room lost around the tables leaves
    less for the numbers, which the page then draws smaller to keep the first screen."""
    got = page.evaluate(LINES_JS, "#overview table.nt, #inputs table.grid")
    assert len(got) >= 10
    assert [g for g in got if g[1:] != [True, True]] == []
