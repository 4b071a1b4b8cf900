"""The live workbench in real Chromium: everything on one screen, keyboard editing, paste, change highlight, phone."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
import torch
from browser import LOADED, open_page
from harness import complete_answer
from playwright.sync_api import Browser, Page, Request

import attention_core as ac
from ui import share

TIMEOUT = 20_000
OUT = "#overview table[data-name=output]"
X = "#inputs table[data-name=x]"


@pytest.fixture
def page(browser: Browser, app_url: str) -> Iterator[Page]:
    pg = open_page(browser, app_url)
    yield pg
    pg.close()


def boxes_outside(pg: Page, selector: str) -> list[str]:
    """Cells matched by ``selector`` whose box is not wholly inside the viewport (empty = all visible)."""
    return pg.evaluate(
        """(sel) => { const w = innerWidth, h = innerHeight; const bad = [];
        const all = document.querySelectorAll(sel);
        if (!all.length) return ['nothing matches ' + sel];
        all.forEach((e) => { const r = e.getBoundingClientRect();
          if (r.width === 0 || r.left < 0 || r.top < 0 || r.right > w + 0.5 || r.bottom > h + 0.5)
            bad.push(sel + ' ' + Math.round(r.left) + ',' + Math.round(r.top) + ' ' + Math.round(r.right) + ','
                     + Math.round(r.bottom)); });
        return bad; }""",
        selector,
    )


def cell_texts(pg: Page, root: str) -> dict[str, str]:
    """Every number cell under ``root``, keyed table|row|col, with its exact value (title) or its text."""
    return pg.evaluate(
        """(root) => { const out = {};
        document.querySelectorAll(root + ' table.nt td[data-r]').forEach((td) => {
          out[td.closest('table').dataset.name + '|' + td.dataset.r + '|' + td.dataset.c] = td.title || td.innerText;
        }); return out; }""",
        root,
    )


def grid_cell(table: str, r: int, c: int) -> str:
    return f"#inputs table[data-name={table}] td[data-r='{r}'][data-c='{c}']"


def grid_value(pg: Page, table: str, r: int, c: int) -> str:
    return pg.locator(grid_cell(table, r, c)).inner_text().strip()


def type_into(pg: Page, table: str, r: int, c: int, value: str) -> None:
    pg.locator(grid_cell(table, r, c)).click()  # a click opens the cell's editor
    pg.locator("#inputs table.grid td input").fill(value)
    pg.keyboard.press("Enter")


@pytest.mark.parametrize("preset", ac.preset_ids())
def test_every_preset_shows_inputs_and_outputs_on_the_first_screen(browser: Browser, app_url: str, preset: str) -> None:
    pg = open_page(browser, f"{app_url}?preset={preset}")
    try:
        s = ac.parse(ac.get_preset(preset).scenario)
        sels = [
            "#inputs .card:not(.collapsed) td input",
            "#inputs .card.collapsed",
            OUT + " td",
            *(f"#overview table[data-name={n}] td" for n in "qkv"),
        ]
        sels += ["#overview table[data-name=scores] td", "#overview table[data-name=weights] td"]
        if s.heads > 1:
            sels.append("#overview table[data-name=combine] td")
        outside = [b for sel in sels for b in boxes_outside(pg, sel) if not b.startswith("nothing matches #inputs")]
        assert outside == [], outside[:5]
        n_inputs = pg.locator("#inputs table.grid td[tabindex]").count()  # collapsed identity grids included
        d = s.x_q.shape[-1]
        n_w = sum(getattr(s.weights, n)[0].numel() for n in ("W_q", "W_k", "W_v"))  # kv heads: a smaller W_k, W_v
        x_cells = s.x_q.numel() + (0 if s.self_attention else s.x_k.numel() + s.x_v.numel())
        assert n_inputs == x_cells + n_w, (n_inputs, x_cells, n_w, d)  # X (or x_q, x_k, x_v) and one head's W
    finally:
        pg.close()


def active_cell(pg: Page) -> list[str]:
    return pg.evaluate(
        "(() => { const td = document.activeElement.closest('td'); return [td.dataset.r, td.dataset.c]; })()"
    )


def test_keyboard_editing_moves_between_cells_and_commits(page: Page) -> None:
    out = page.inner_text(OUT)
    page.locator(grid_cell("x", 0, 0)).focus()
    page.keyboard.type("2.5")  # typing opens the editor with what was typed
    page.keyboard.press("Enter")  # commits and moves down
    assert active_cell(page) == ["1", "0"]
    page.wait_for_function("([s, b]) => document.querySelector(s).innerText !== b", arg=[OUT, out])
    assert grid_value(page, "x", 0, 0) == "2.5"
    page.keyboard.press("ArrowRight")  # the arrows move (Tab, when not editing, leaves the grid)
    assert active_cell(page) == ["1", "1"]
    page.keyboard.press("F2")  # editing, Tab commits and moves along the row, then on to the next row
    page.keyboard.press("Tab")
    assert active_cell(page) == ["2", "0"]
    page.keyboard.press("ArrowUp")
    page.keyboard.press("ArrowUp")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowLeft")
    assert active_cell(page) == ["0", "0"]
    out2 = page.inner_text(OUT)
    page.keyboard.press("Enter")  # Enter edits the cell's text
    page.keyboard.type("9")
    page.keyboard.press("Escape")  # Escape puts the committed value back
    assert grid_value(page, "x", 0, 0) == "2.5"
    page.keyboard.type("1.16")  # back to 000's value: the badge says it matches again
    page.keyboard.press("Tab")  # Tab commits too
    assert active_cell(page) == ["0", "1"]
    page.wait_for_function("([s, b]) => document.querySelector(s).innerText !== b", arg=[OUT, out2])
    page.wait_for_function("() => document.querySelector('#badge').innerText.includes('✓ matches')")


def paste(pg: Page, table: str, r: int, c: int, text: str) -> None:
    pg.evaluate(
        """([sel, text]) => { const inp = document.querySelector(sel); inp.focus();
        const dt = new DataTransfer(); dt.setData('text/plain', text);
        inp.dispatchEvent(new ClipboardEvent('paste', {clipboardData: dt, bubbles: true, cancelable: true})); }""",
        [grid_cell(table, r, c), text],
    )


@pytest.mark.parametrize(
    "text",
    [
        "1.5\t-2\n0.25\t3\n4\t5e-1",  # spreadsheet cells
        "[[1.5, -2.0], [0.25, 3.0], [4.0, 0.5]]",  # a Python / NumPy nested list
        "tensor([[ 1.5000, -2.0000],\n        [ 0.2500,  3.0000],\n        [ 4.0000,  0.5000]])",  # torch's print
    ],
)
def test_pasting_a_whole_matrix_in_each_format(page: Page, text: str) -> None:
    out = page.inner_text(OUT)
    paste(page, "x", 0, 0, text)
    page.wait_for_function("([s, b]) => document.querySelector(s).innerText !== b", arg=[OUT, out])
    page.wait_for_function("(s) => document.querySelector(s).innerText.trim() === '0.5'", arg=grid_cell("x", 2, 1))
    got = [[grid_value(page, "x", r, c) for c in range(2)] for r in range(3)]
    assert got == [["1.5", "-2.0"], ["0.25", "3.0"], ["4.0", "0.5"]]
    q = page.locator("#overview table[data-name=q] td[data-r='2'][data-c='0']").get_attribute("title")
    assert q is not None  # the q cell carries its exact value; q = x @ W_q.T with 000's seeded W_q
    wq = ac.parse(ac.get_preset("statquest-self").scenario).weights.W_q[0]
    assert float(q) == pytest.approx(4.0 * float(wq[0, 0]) + 0.5 * float(wq[0, 1]), abs=1e-6)


def test_a_bad_paste_names_the_cell_and_changes_nothing(page: Page) -> None:
    before = [[grid_value(page, "x", r, c) for c in range(2)] for r in range(3)]
    out = page.inner_text(OUT)
    paste(page, "x", 0, 0, "1\t2\n3\tabc\n5\t6")
    page.wait_for_function("() => document.querySelector('#message').innerText.includes('abc')")
    assert "x row 2, column 2" in page.inner_text("#message")
    paste(page, "x", 1, 1, "[[1, 2], [3, 4]]")  # a 2×2 block at row 2, column 2 of a 3×2 table
    page.wait_for_function("() => document.querySelector('#message').innerText.includes('does not fit')")
    assert [[grid_value(page, "x", r, c) for c in range(2)] for r in range(3)] == before
    assert page.inner_text(OUT) == out


def test_a_typo_stays_as_typed_is_named_and_the_views_stay(page: Page) -> None:
    out = page.inner_text(OUT)
    type_into(page, "x", 1, 0, "1,5x")
    page.wait_for_function("() => document.querySelector('#message').innerText.includes('x row 2, column 1')")
    cell = page.locator(grid_cell("x", 1, 0))
    assert cell.inner_text().strip() == "1,5x" and "bad" in (cell.get_attribute("class") or "")
    assert page.inner_text(OUT) == out
    type_into(page, "x", 1, 0, "0.9")
    page.wait_for_function("([s, b]) => document.querySelector(s).innerText !== b", arg=[OUT, out])


def test_the_cells_that_changed_flash_and_only_those(page: Page) -> None:
    choose_mask_causal(page)
    before = cell_texts(page, "#overview")
    # the last token: under a causal mask only its own q, k, v rows, its score row and column 3 change
    type_into(page, "x", 2, 1, "1.0")
    page.wait_for_function("() => document.querySelectorAll('#overview td.chg').length > 0")
    after = cell_texts(page, "#overview")
    flashed = set(
        page.evaluate(
            """() => Array.from(document.querySelectorAll('#overview td.chg')).map((td) =>
            td.closest('table').dataset.name + '|' + td.dataset.r + '|' + td.dataset.c)"""
        )
    )
    changed = {k for k, v in after.items() if before.get(k) != v}
    assert flashed == changed
    assert "q|2|0" in changed and "q|0|0" not in changed and "weights|0|0" not in changed  # causal: row 1 unmoved
    page.wait_for_function("() => document.querySelectorAll('#overview td.chg').length === 0", timeout=5000)


def test_the_notebook_below_updates_with_each_edit_and_is_laid_out_when_scrolled_to(page: Page) -> None:
    """The notebook's cells skip layout while far below the screen (content-visibility: auto), so a large edit
    lays out the overview only; their DOM still follows every edit, and scrolling to them shows the new numbers."""
    visible = "(s) => document.querySelector(s).checkVisibility({contentVisibilityAuto: true})"
    printed = "#html-output pre.tensor"
    assert not page.evaluate(visible, printed)  # far below the first screen: not laid out
    before = page.text_content(printed)
    type_into(page, "x", 0, 0, "3.0")
    page.wait_for_function("([s, b]) => document.querySelector(s).textContent !== b", arg=[printed, before])
    now = page.text_content(printed) or ""
    assert now.startswith("tensor([[") and now != before
    page.locator("#html-output").scroll_into_view_if_needed()
    page.wait_for_function(visible, arg=printed)
    assert page.inner_text(printed) == now  # laid out on arrival, with the numbers of the last edit


def test_a_large_overview_keeps_the_keyboard_focus_when_it_re_renders(browser: Browser, app_url: str) -> None:
    """At T=16 the overview's tables are swapped whole on each update (cheaper than gradio's node-by-node
    morph); the number that had the keyboard focus still has it afterwards, so Enter-to-explain keeps its place."""
    g = torch.Generator().manual_seed(3)
    link = share.encode_link({"x": torch.randn(16, 8, generator=g).round(decimals=2).tolist(), "heads": 1})
    pg = open_page(browser, f"{app_url}?scenario={link}")
    try:
        assert pg.locator("#overview td[data-r]").count() > 300  # big enough to be swapped whole
        cell = "#overview table[data-name=scores] td[data-r='2'][data-c='1']"
        pg.locator("#overview table[data-name=scores] td[tabindex='0']").focus()  # the table's one Tab stop
        for key in ("ArrowDown", "ArrowDown", "ArrowRight"):
            pg.keyboard.press(key)
        pg.keyboard.press("Enter")  # explain this number: the views re-render with it picked
        pg.wait_for_function("() => document.querySelector('#explain').innerText.includes('q_3 · k_2')")
        pg.wait_for_function("(s) => document.querySelector(s).classList.contains('pick')", arg=cell)
        focus = (
            "() => { const td = document.activeElement.closest('td');"
            " return td && [td.closest('table').dataset.name, td.dataset.r, td.dataset.c]; }"
        )
        assert pg.evaluate(focus) == ["scores", "2", "1"]
        pg.keyboard.press("ArrowRight")  # the arrow keys go on from there
        assert pg.evaluate(focus) == ["scores", "2", "2"]
    finally:
        pg.close()


def test_a_control_changed_right_after_an_edit_applies_after_it(browser: Browser, app_url: str) -> None:
    """The edit's direct call is held up in the page for a second; the dtype changed meanwhile is a queued event,
    which leaves the page only after the edit's call (page.js's liveIdle), so the server applies them in the
    order they were made."""
    pg = browser.new_page(viewport={"width": 1280, "height": 720})
    pg.add_init_script(
        """const f = window.fetch; window.fetch = async (...a) => {
             if (String(a[0]).includes('component_server')) await new Promise((ok) => setTimeout(ok, 1000));
             return f(...a); };"""
    )
    pg.set_default_timeout(TIMEOUT)
    pg.goto(app_url)
    pg.wait_for_selector(f"{OUT} td[data-r]")
    pg.wait_for_function(LOADED)
    posts: list[str] = []
    pg.on(
        "request",
        lambda r: posts.append(r.url.rstrip("/").split("?")[0].rsplit("/", 1)[-1]) if r.method == "POST" else None,
    )
    try:
        out = pg.inner_text(OUT)
        posts.clear()
        type_into(pg, "x", 0, 0, "2.5")
        pg.get_by_label("dtype", exact=True).click()
        pg.locator("li[role='option'][aria-label='float64']").click()
        pg.wait_for_function("([s, b]) => document.querySelector(s).innerText !== b", arg=[OUT, out])
        pg.wait_for_timeout(2500)  # both answers are in
        assert posts[0] == "component_server" and "join" in posts[1:], posts  # the edit first, then the dtype
        assert grid_value(pg, "x", 0, 0) == "2.5"  # redrawn by the dtype change, from values that hold the edit
        assert "changed: x" in pg.inner_text("#badge")
    finally:
        pg.close()


def choose_mask_causal(pg: Page) -> None:
    out = pg.inner_text(OUT)
    pg.get_by_label("mask", exact=True).click()
    pg.locator("li[role='option'][aria-label='causal']").click()
    pg.wait_for_function("([s, b]) => document.querySelector(s).innerText !== b", arg=[OUT, out])
    pg.wait_for_timeout(1800)  # let the mask's own highlight finish


def test_explain_opens_beside_the_numbers_and_closes(page: Page) -> None:
    assert page.locator("#explain").is_hidden()  # no width until a number is picked
    page.locator("#overview table[data-name=scores] td[data-r='0'][data-c='0']").click()
    page.wait_for_function("() => document.querySelector('#explain').innerText.includes('q_1 · k_1')")
    assert page.locator("#explain").is_visible()
    page.locator("#explain .ex-close").click()
    assert page.locator("#explain").is_hidden()
    page.locator("#overview table[data-name=weights] td[data-r='1'][data-c='0']").click()
    page.wait_for_function("() => document.querySelector('#explain').innerText.includes('◀ this cell')")
    assert page.locator("#explain").is_visible()


def test_phone_stacks_without_sideways_scroll_and_an_edit_works(browser: Browser, app_url: str) -> None:
    pg = open_page(browser, app_url, 390, 844)
    try:
        assert pg.evaluate("document.documentElement.scrollWidth") <= 390
        out = pg.inner_text(OUT)
        type_into(pg, "x", 0, 1, "2.5")
        pg.wait_for_function("([s, b]) => document.querySelector(s).innerText !== b", arg=[OUT, out])
        assert pg.evaluate("document.documentElement.scrollWidth") <= 390
        inputs, output = (pg.locator(s).first.bounding_box() for s in ("#inputs table.grid", OUT))
        assert inputs and output and output["y"] > inputs["y"]  # stacked, in pipeline order
    finally:
        pg.close()


def test_a_page_survives_400_anonymous_calls_and_its_next_edit_updates_the_views(page: Page, app_url: str) -> None:
    """Anonymous /compute calls are new gradio sessions; they must not push a learner's state out (issue #12)."""

    def anonymous(i: int) -> int:
        with httpx.Client(base_url=app_url, timeout=60) as client:
            body = {"data": [{"x": [[float(i % 7), 1.0], [0.5, 2.0]], "heads": 1}]}
            r = client.post("api/gradio_api/call/compute", json=body)
            event = r.json()["event_id"]
            text = client.get(f"api/gradio_api/call/compute/{event}").text
            return int("event: complete" in text and complete_answer(text)["heads"] != [])

    out = page.inner_text(OUT)
    with ThreadPoolExecutor(8) as pool:
        done = sum(pool.map(anonymous, range(400)))
    assert done == 400
    type_into(page, "x", 1, 0, "0.9")
    page.wait_for_function("([s, b]) => document.querySelector(s).innerText !== b", arg=[OUT, out])
    assert "holds no state" not in page.inner_text("#message")
    assert grid_value(page, "x", 1, 0) == "0.9"


def test_an_edit_is_one_direct_request_and_no_queued_event(page: Page) -> None:
    """A cell edit is one POST to the server's live_edit (gradio's component_server route), whose answer goes
    straight to the views; no queued event (its loading-status bookkeeping copied every output several times),
    and the compare view asks for nothing while nothing is pinned."""
    posts: list[str] = []

    def post(r: Request) -> None:  # (a look ahead, grid.js, is named as such: the value while it is typed)
        body = (r.post_data or "").replace(" ", "")
        if r.method == "POST" and '"kind":"address"' not in body:  # (the page's address ask, once still: no edit)
            looks = '"look":true' in body
            posts.append(r.url.rstrip("/").rsplit("/", 1)[-1] + (" look" if looks else ""))

    page.on("request", post)
    out = page.inner_text(OUT)
    type_into(page, "x", 0, 0, "0.8")
    page.wait_for_function("([s, b]) => document.querySelector(s).innerText !== b", arg=[OUT, out])
    page.wait_for_timeout(800)  # a follow-up request would have been sent by now
    assert [p for p in posts if not p.endswith(" look")] == ["component_server"], posts
    assert set(posts) <= {"component_server", "component_server look"}, posts
    assert page.evaluate("() => document.querySelector('#badge').textContent").strip()  # the badge was redrawn too
    # redrawn in place, every number table still has its one Tab stop (a11y.js's roving tabindex)
    stops = (
        "() => [...document.querySelectorAll('#overview table.nt')]"
        ".map((t) => t.querySelectorAll('td[tabindex=\"0\"]').length)"
    )
    assert set(page.evaluate(stops)) == {1}
