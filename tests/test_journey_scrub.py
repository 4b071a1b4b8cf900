"""Scrubbing in real Chromium, driven as a learner drives it (issue 23): press on a number and drag sideways (Shift
for fine steps), Escape during a drag, Alt+arrow keys, the phone's slider sheet, the temperature box and the scaling
lab's d_k. After each, the views are compared with ``attention_core.compute`` for the value the learner last set;
during a fast drag at most one live edit is in flight and no backlog is left at release; the change flash holds still
while a drag lasts and flashes once when it ends."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
import torch
from browser import LIVE_IDLE, LOADED
from playwright.sync_api import Browser, Page

import attention_core as ac
from ui.values import DEFAULT_PRESET

TIMEOUT = 20_000
OUT = "#overview table[data-name=output]"

# counts the grid's live edits (gradio's component_server route, not the address bar's asks) as the page sends them:
# how many are in flight at once, each one's data, and when the pointer was released (page time); ``delay`` ms makes
# each a slow request
FETCH_SPY = """
window.__ap = { inflight: 0, max: 0, sent: [], up: null, delay: 0 };
document.addEventListener('pointerup', () => { window.__ap.up = performance.now(); }, true);
const fetch0 = window.fetch;
window.fetch = function (input, init) {
  const url = typeof input === 'string' ? input : (input && input.url) || '';
  if (!url.includes('component_server')) return fetch0.apply(this, arguments);
  let data = null;
  try { data = JSON.parse(init.body).data; } catch (e) { data = null; }
  // (the address bar's ask for the state's link, address.js, goes the same way once the page is still: no edit)
  if (data && data.kind === 'address') return fetch0.apply(this, arguments);
  const a = window.__ap;
  a.inflight += 1;
  a.max = Math.max(a.max, a.inflight);
  a.sent.push({ t: performance.now(), data });
  const args = arguments;
  return new Promise((ok) => setTimeout(ok, a.delay)).then(() => fetch0.apply(this, args))
    .finally(() => { a.inflight -= 1; });
};
"""

# records, frame by frame, the texts a selector paints while something is dragged, and whether any overview cell
# carried the change flash (chg) meanwhile
RECORDER = """(sel) => {
  const r = window.__rec = { texts: [], flashed: 0, on: true };
  const tick = () => {
    if (!r.on) return;
    const t = document.querySelector(sel)?.textContent ?? '';
    if (r.texts[r.texts.length - 1] !== t) r.texts.push(t);
    if (document.querySelector('#overview td.chg, #overview td.chg2')) r.flashed += 1;
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
}"""


def open_page(browser: Browser, url: str, width: int = 1280, height: int = 720, touch: bool = False) -> Page:
    ctx = browser.new_context(viewport={"width": width, "height": height}, has_touch=touch)
    pg = ctx.new_page()
    pg.set_default_timeout(TIMEOUT)
    pg.add_init_script(FETCH_SPY)
    pg.goto(url)
    pg.wait_for_selector(f"{OUT} td[data-r]")
    pg.wait_for_function(LOADED)
    return pg


@pytest.fixture
def page(browser: Browser, app_url: str) -> Iterator[Page]:
    pg = open_page(browser, app_url)
    yield pg
    pg.context.close()


def cell(table: str, r: int, c: int) -> str:
    return f"#inputs table[data-name={table}] td[data-r='{r}'][data-c='{c}']"


def text(pg: Page, sel: str) -> str:
    return pg.inner_text(sel).strip()


def centre(pg: Page, sel: str) -> tuple[float, float]:
    box = pg.locator(sel).bounding_box()
    assert box, sel
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def drag(
    pg: Page,
    sel: str,
    dx: float,
    steps: int = 20,
    pause_ms: int = 0,
    shift: bool = False,
    during: Callable[[], None] | None = None,
) -> None:
    """Press on ``sel``, move ``dx`` pixels sideways in ``steps`` moves (``during`` runs after every fifth), release."""
    x, y = centre(pg, sel)
    pg.mouse.move(x, y)
    pg.mouse.down()
    if shift:
        pg.keyboard.down("Shift")
    for i in range(1, steps + 1):
        pg.mouse.move(x + dx * i / steps, y)
        if pause_ms:
            pg.wait_for_timeout(pause_ms)
        if during and i % 5 == 0:
            during()
    if shift:
        pg.keyboard.up("Shift")
    pg.mouse.up()


def settled(pg: Page) -> None:
    """The scrub has ended and every edit on its way has been answered and drawn."""
    pg.wait_for_function("() => !document.documentElement.classList.contains('ap-scrub')")
    pg.evaluate(LIVE_IDLE)
    pg.wait_for_timeout(100)


def numbers(pg: Page, sel: str) -> list[list[float]]:
    """A number table as the page shows it (the notebook's exact text, or the overview's exact title)."""
    rows = pg.evaluate(
        """(sel) => [...document.querySelectorAll(sel + ' tr')].slice(1).map((tr) =>
            [...tr.querySelectorAll('td[data-r]')].map((td) => td.title || td.textContent))""",
        sel,
    )
    return [[float(v) for v in r] for r in rows]


def expected(edits: dict[tuple[str, int, int], float], scale: Any = None) -> dict[str, Any]:
    """``compute`` for the default preset with the given cells set (x, or W_q/W_k/W_v of its one head)."""
    sc = ac.scenario_of(DEFAULT_PRESET)
    used = ac.compute(sc)["weights_used"]
    sc["weights"] = {n: used[n] for n in ("W_q", "W_k", "W_v")} | {"W_o": None}
    sc["layout"] = used["layout"]
    for (table, r, c), v in edits.items():
        if table == "x":
            sc["x"][r][c] = v
        else:
            sc["weights"][table][0][r][c] = v
    if scale is not None:
        sc["scale"] = scale
    return ac.compute(sc)


def assert_views_match(pg: Page, result: dict[str, Any]) -> None:
    """The overview's and the notebook's numbers are ``compute``'s for the state the learner set."""
    head = result["heads"][0]
    for sel, want in (
        (OUT, head["output"]),
        ("#overview table[data-name=weights]", head["weights"]),
        ("#html-output table[data-name=output]", head["output"]),
        ("#html-weights table[data-name=weights]", head["weights"]),
        ("#html-qkv table[data-name=q]", head["q"]),
        ("#html-scores table[data-name=scores]", head["scores"]),
    ):
        torch.testing.assert_close(torch.tensor(numbers(pg, sel)), torch.tensor(want), msg=lambda m, s=sel: f"{s}: {m}")


def test_dragging_an_x_cell_moves_it_and_the_whole_pipeline_follows(page: Page) -> None:
    before = text(page, OUT)
    page.evaluate(RECORDER, OUT)
    drag(page, cell("x", 0, 0), 60, steps=30, pause_ms=40)  # 60 px: 1.16 → 1.76 (0.01 a pixel)
    assert text(page, cell("x", 0, 0)) == "1.76"
    page.evaluate("() => { window.__rec.on = false; }")
    rec = page.evaluate("() => window.__rec")
    assert len(rec["texts"]) >= 4, rec["texts"]  # the output followed the drag while it lasted, not only at release
    assert page.locator(f"{cell('x', 0, 0)} input").count() == 0  # a drag is not a click: no editor opened
    settled(page)
    assert text(page, OUT) != before
    assert_views_match(page, expected({("x", 0, 0): 1.76}))
    assert page.evaluate("() => window.__ap.max") == 1


def test_shift_drags_in_fine_steps_and_a_w_cell_drags_too(page: Page) -> None:
    drag(page, cell("x", 0, 1), 50, shift=True)  # Shift: 0.001 a pixel, 0.23 → 0.28
    assert text(page, cell("x", 0, 1)) == "0.28"
    w0 = float(text(page, cell("W_q", 0, 1)))
    drag(page, cell("W_q", 0, 1), -40)  # left: down, 0.01 a pixel
    w = text(page, cell("W_q", 0, 1))
    assert float(w) == pytest.approx(w0 - 0.4, abs=1e-9)
    settled(page)
    assert_views_match(page, expected({("x", 0, 1): 0.28, ("W_q", 0, 1): float(w)}))


def test_escape_during_a_drag_puts_the_old_value_back_everywhere(page: Page) -> None:
    before = text(page, OUT)
    x, y = centre(page, cell("x", 2, 0))
    page.mouse.move(x, y)
    page.mouse.down()
    for i in range(1, 21):
        page.mouse.move(x + 4 * i, y)
    assert text(page, cell("x", 2, 0)) == "5.21"  # 4.41 + 80 px
    page.wait_for_function("([s, b]) => document.querySelector(s).innerText !== b", arg=[OUT, before])
    page.keyboard.press("Escape")
    page.mouse.up()
    assert text(page, cell("x", 2, 0)) == "4.41"
    settled(page)
    assert page.locator(f"{cell('x', 2, 0)} input").count() == 0
    assert text(page, OUT) == before
    assert_views_match(page, expected({}))


def test_alt_arrows_step_the_focused_cell_and_plain_arrows_still_move(page: Page) -> None:
    page.locator(cell("x", 1, 0)).focus()
    for _ in range(3):
        page.keyboard.press("Alt+ArrowUp")  # a tenth of its scale: 0.57 → 0.87
    page.keyboard.press("Alt+Shift+ArrowDown")  # Shift: a hundredth, → 0.86
    assert text(page, cell("x", 1, 0)) == "0.86"
    here = "() => { const td = document.activeElement.closest('td'); return td.dataset.r + td.dataset.c; }"
    assert page.evaluate(here) == "10"  # the focus stayed on the cell
    settled(page)
    assert_views_match(page, expected({("x", 1, 0): 0.86}))
    page.keyboard.press("ArrowRight")  # the arrow keys alone still move between cells
    assert page.evaluate(here) == "11"
    assert text(page, cell("x", 1, 1)) == "1.36"


def test_a_fast_drag_keeps_one_request_in_flight_and_leaves_no_backlog(page: Page) -> None:
    page.evaluate("() => { window.__ap.delay = 80; }")  # a slow network: each edit takes 80 ms more
    drag(page, cell("x", 1, 1), 180, steps=90, pause_ms=5)  # faster than the edits: 1.36 → 3.16
    assert text(page, cell("x", 1, 1)) == "3.16"
    settled(page)
    spy = page.evaluate("() => window.__ap")
    assert spy["max"] == 1, spy["max"]  # never two live edits at once
    late = [s["data"] for s in spy["sent"] if s["t"] >= spy["up"]]
    assert len(late) <= 1, late  # at release only the value kept goes: the older ones were replaced, not queued
    last = spy["sent"][-1]["data"]
    assert last["value"] == "3.16" and not last.get("scrub"), last  # the last value sent is the last one set
    assert len(spy["sent"]) < 60, len(spy["sent"])  # ninety values, far fewer requests
    assert_views_match(page, expected({("x", 1, 1): 3.16}))


def test_the_change_flash_holds_still_during_a_drag_and_flashes_once_after(page: Page) -> None:
    page.evaluate(RECORDER, OUT)
    page.wait_for_timeout(1500)  # any flash from the page's load has faded
    x, y = centre(page, cell("x", 0, 0))
    page.mouse.move(x, y)
    page.mouse.down()
    page.evaluate("() => { window.__rec.flashed = 0; window.__rec.texts = []; }")
    for i in range(1, 121):  # 30 moves at least; more while a loaded server has answered fewer than 4 of them
        page.mouse.move(x + 2 * i, y)
        page.wait_for_timeout(40)
        if i >= 30 and len(page.evaluate("() => window.__rec.texts")) >= 4:
            break
    rec = page.evaluate("() => window.__rec")
    assert len(rec["texts"]) >= 4, rec["texts"]  # the views did repaint during the drag…
    assert rec["flashed"] == 0  # …and no cell flashed meanwhile
    page.mouse.up()
    page.wait_for_selector("#overview td.chg")  # once the drag ends, what it changed flashes once
    page.wait_for_function("() => !document.querySelector('#overview td.chg, #overview td.chg2')", timeout=5000)


def test_phone_slider_sheet(browser: Browser, app_url: str) -> None:
    pg = open_page(browser, app_url, 390, 844, touch=True)
    try:
        pg.tap(cell("x", 0, 0))
        sheet = pg.locator(".scrub-sheet")
        sheet.wait_for()
        box = sheet.bounding_box()
        assert box and box["y"] + box["height"] <= 844 and box["width"] <= 390
        assert pg.evaluate("document.documentElement.scrollWidth") <= 390
        assert "x row 1, column 1" in sheet.inner_text()
        before = text(pg, OUT)
        drag(pg, ".scrub-sheet input[type=range]", 60, steps=15, pause_ms=30)
        shown = text(pg, cell("x", 0, 0))
        assert shown != "1.16" and sheet.locator("output").inner_text() == shown
        pg.wait_for_function("([s, b]) => document.querySelector(s).innerText !== b", arg=[OUT, before])
        pg.tap(".scrub-sheet .ss-done")
        sheet.wait_for(state="detached")
        settled(pg)
        assert text(pg, cell("x", 0, 0)) == shown
        assert_views_match(pg, expected({("x", 0, 0): float(shown)}))
        pg.tap(cell("x", 0, 1))  # a second cell, then Cancel: the old value comes back
        pg.tap(".scrub-sheet button[data-step='1']")
        assert text(pg, cell("x", 0, 1)) == "0.24"
        pg.tap(".scrub-sheet button[data-do=cancel]")
        assert text(pg, cell("x", 0, 1)) == "0.23"
        settled(pg)
        assert_views_match(pg, expected({("x", 0, 0): float(shown)}))
        pg.tap(cell("x", 0, 1))  # "Type a value" opens the cell's editor, as a click does on a computer
        pg.tap(".scrub-sheet button[data-do=type]")
        pg.wait_for_selector(f"{cell('x', 0, 1)} input")
    finally:
        pg.context.close()


# what the learner sees at the middle of an element: true when it is on screen and nothing covers it
IN_SIGHT = """(s) => { const e = document.querySelector(s); const r = e.getBoundingClientRect();
  const x = r.left + r.width / 2, y = r.top + r.height / 2;
  if (x < 0 || y < 0 || x > innerWidth || y > innerHeight) return false;
  const top = document.elementFromPoint(x, y); return !!top && (e === top || e.contains(top)); }"""


def test_temperature_scrubs_and_the_views_follow(page: Page) -> None:
    box = "input[type=number][aria-label='temperature (divide by)']"
    assert not page.locator(box).is_visible()  # ÷√d_k: no temperature to set
    page.get_by_label("scale", exact=True).click()
    page.locator("li[role='option'][aria-label='temperature']").click()
    page.wait_for_function("() => document.querySelector('#html-scaled').textContent.includes('temperature')")
    page.wait_for_selector(box)  # right by the scale, in the toolbar: no drawer to open
    assert page.locator("#toolbar").locator(box).is_visible() and not page.locator("#more").locator(box).count()
    assert page.input_value(box) == "1"
    page.evaluate(RECORDER, OUT)
    # while it is dragged, the views it changes are in sight, not under a drawer
    sight: list[list[bool]] = []
    views = [OUT, "#overview table[data-name=weights]", "#overview table[data-name=scores]"]
    look = lambda: sight.append([page.evaluate(IN_SIGHT, v) for v in views])  # noqa: E731
    drag(page, box, 100, steps=25, pause_ms=60, during=look)  # 1 → 2 (0.01 a pixel)
    page.evaluate("() => { window.__rec.on = false; }")
    assert sight and all(all(s) for s in sight), sight
    assert page.input_value(box) == "2"
    texts = page.evaluate("() => window.__rec.texts")
    assert len(texts) >= 3, texts  # the views followed while the drag lasted
    settled(page)
    page.wait_for_function("() => document.querySelector('#html-scaled').textContent.includes('scores ÷ 2')")
    page.wait_for_timeout(500)
    assert_views_match(page, expected({}, scale=2.0))
    page.locator(box).click()  # a click still types
    page.keyboard.press("Control+a")
    page.keyboard.type("4")
    page.keyboard.press("Enter")  # a typed box applies on Enter (or on leaving it)
    page.wait_for_function("() => document.querySelector('#html-scaled').textContent.includes('scores ÷ 4')")


def test_scaling_lab_d_k_follows_while_dragging(page: Page) -> None:
    page.get_by_role("tab", name="Scaling lab").click()
    words = "#scaling-words p.lab-words"  # (its sentence, not gradio's status line over it)
    page.wait_for_function("(s) => (document.querySelector(s)?.textContent || '').length > 0", arg=words)
    page.evaluate(RECORDER, words)
    slider = "#lab-dk input[type=range]"
    box = page.locator(slider).bounding_box()
    assert box
    y = box["y"] + box["height"] / 2
    page.mouse.move(box["x"] + 4, y)
    page.mouse.down()
    for i in range(1, 31):
        page.mouse.move(box["x"] + 4 + (box["width"] - 8) * i / 60, y)
        page.wait_for_timeout(50)
    during = page.evaluate("() => window.__rec.texts")
    page.mouse.up()
    assert len(during) >= 3, during  # the lab followed d_k while the thumb was held, not only at release


# every text of the scaling lab's figure (tick labels, axis titles, panel titles, legend entries) as boxes, and the
# pairs of them that overlap by more than a pixel each way
LABEL_CLASH = """() => {
  const fig = document.querySelector('#scaling-fig');
  const axes = ['x', 'x2', 'x3', 'y', 'y2', 'y3'];
  const texts = [...axes.map((a) => `.${a}tick text, .g-${a}title text`), '.annotation-text', '.legendtext'].join();
  const boxes = [...fig.querySelectorAll(texts)].map((e) => [e.textContent, e.getBoundingClientRect()])
    .filter(([, r]) => r.width);
  const over = (r, q) => Math.min(r.right, q.right) - Math.max(r.left, q.left) > 1
    && Math.min(r.bottom, q.bottom) - Math.max(r.top, q.top) > 1;
  const clash = [];
  for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
    if (over(boxes[i][1], boxes[j][1])) clash.push(`${boxes[i][0]} × ${boxes[j][0]}`);
  }
  return { names: boxes.map(([t]) => t), clash, sideways: document.documentElement.scrollWidth > innerWidth };
}"""


@pytest.mark.parametrize("size", [(1280, 720), (390, 844)])
def test_the_scaling_lab_draws_no_label_over_another(browser: Browser, app_url: str, size: tuple[int, int]) -> None:
    pg = open_page(browser, app_url, *size)
    try:
        pg.get_by_role("tab", name="Scaling lab").click()
        pg.wait_for_selector("#scaling-fig .legendtext")
        pg.locator("#lab-dk input[type=number]").fill("340")  # a d_k between the ticks: its mark sits among them
        pg.locator("#lab-dk input[type=number]").press("Enter")
        pg.wait_for_function("() => document.querySelector('#scaling-fig').textContent.includes('d_k = 340')")
        if size[0] <= 760:  # a phone: the three panels stacked (static/charts.js), a frame after the figure is drawn
            pg.wait_for_function(
                "() => document.querySelector('#scaling-fig .js-plotly-plot').layout.meta?.startsWith('stacked')"
            )
        got = pg.evaluate(LABEL_CLASH)
        assert {"d_k", "key", "512", "0.8", "var(QKᵀ)", "d_k = 340"} <= set(got["names"]), got  # (all were read)
        assert got["clash"] == [] and not got["sideways"], got
    finally:
        pg.context.close()


def grid_values(pg: Page, table: str) -> list[list[float]]:
    """An input grid's numbers as the page shows them."""
    return pg.evaluate(
        """(t) => [...document.querySelectorAll(`#inputs table[data-name=${t}] tr`)].slice(1).map((tr) =>
            [...tr.querySelectorAll('td[data-r]')].map((td) => parseFloat(td.textContent)))""",
        table,
    )


def test_cross_attention_sources_and_w_o_scrub_too(page: Page) -> None:
    page.locator("#more").get_by_text("More settings").click()
    page.get_by_label("cross-attention (separate K/V source)").check()
    page.wait_for_selector(cell("x_v", 0, 0))
    page.get_by_label("output projection W_o").check()
    page.wait_for_selector(cell("W_o", 0, 0), state="attached")
    page.keyboard.press("Escape")  # the drawer closes over the grids
    page.locator("#inputs [data-card=W_o] button.expand").click()  # W_o starts as the identity: its cells
    k0, o0 = float(text(page, cell("x_k", 0, 0))), float(text(page, cell("W_o", 0, 0)))
    drag(page, cell("x_k", 0, 0), 30)
    drag(page, cell("W_o", 0, 0), -20)
    assert float(text(page, cell("x_k", 0, 0))) == pytest.approx(k0 + 0.3, abs=1e-9)
    assert float(text(page, cell("W_o", 0, 0))) == pytest.approx(o0 - 0.2, abs=1e-9)
    settled(page)
    g = {t: grid_values(page, t) for t in ("x", "x_k", "x_v", "W_q", "W_k", "W_v", "W_o")}
    weights = {n: [g[n]] for n in ("W_q", "W_k", "W_v")} | {"W_o": g["W_o"]}
    want = ac.compute({"x_q": g["x"], "x_k": g["x_k"], "x_v": g["x_v"], "weights": weights, "layout": "linear"})
    for sel, numbers_want in (
        ("#html-output table[data-name=output]", want["heads"][0]["output"]),
        ("#html-combine table[data-name=combine]", want["output"]),
        ("#overview table[data-name=weights]", want["heads"][0]["weights"]),
    ):
        torch.testing.assert_close(
            torch.tensor(numbers(page, sel)), torch.tensor(numbers_want), msg=lambda m, s=sel: f"{s}: {m}"
        )


def test_an_identity_w_o_made_something_else_is_no_longer_called_the_identity(page: Page) -> None:
    page.locator("#more").get_by_text("More settings").click()
    page.get_by_label("output projection W_o").check()
    page.wait_for_selector(cell("W_o", 0, 0), state="attached")
    page.keyboard.press("Escape")  # the drawer closes over the grids
    note = page.locator("#inputs [data-card=W_o] .card-title .ident")
    assert note.is_visible() and note.inner_text().startswith("= I (the identity")
    page.locator("#inputs [data-card=W_o] button.expand").click()
    drag(page, cell("W_o", 0, 1), 40)  # 0 → 0.4: W_o mixes the heads now
    assert float(text(page, cell("W_o", 0, 1))) == pytest.approx(0.4, abs=1e-9)
    assert not note.is_visible()
    settled(page)
    page.locator(cell("W_o", 0, 1)).click()  # typed back to 0: the identity again, and named so
    page.locator("#inputs table.grid td input").fill("0")
    page.keyboard.press("Enter")
    note.wait_for(state="visible")
    settled(page)
    page.locator(cell("W_o", 1, 0)).click()  # a typo is refused: the server keeps the identity, and so does the note
    page.locator("#inputs table.grid td input").fill("0.5x")
    page.keyboard.press("Enter")
    page.wait_for_function("() => document.querySelector('#message').textContent.includes('0.5x')")
    assert note.is_visible()
