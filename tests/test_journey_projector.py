"""The projector, in Chromium as a lecturer uses it: present mode keeps what it shows on screen (every number cell of
the current stage's cards and of the cards they are computed from is itself what lies at its centre, not the panel,
not another card), for every preset and stage at 1280×720 and for one preset of each kind at 1920×1080 (every preset
there is the long form: pyproject.toml's marker ``long``), and after a control changes; the keys; the Projector
setting's sizes."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from typing import Any

import pytest
import torch
from browser import LOADED, ROOT, frames, loaded, open_page
from playwright.sync_api import Browser, Page
from playwright.sync_api import Error as PlaywrightError

import attention_core as ac
from ui import present, share

# every number cell of the cards present mode shows (p-now: the stage's; p-in: its inputs), each looked up at its
# centre with elementFromPoint: a cell under the panel, cut by the window or scrolled inside its card is not there
ON_SCREEN = """() => {
  const bad = [], now = [], other = [];
  const cells = document.querySelectorAll('#bench .card.p-now td[data-r], #bench .card.p-in td[data-r]');
  for (const td of cells) {
    if (td.closest('.card.collapsed')) continue;  // an identity W shown as one line ("= I"), its cells folded
    if (!td.getClientRects().length) continue;  // another head's rows of a split W, at the Q, K, V stage
    const r = td.getBoundingClientRect();
    const x = r.left + r.width / 2, y = r.top + r.height / 2;
    const at = document.elementFromPoint(x, y);
    const name = td.closest('table').dataset.name;
    if (!at || !(td === at || td.contains(at))) {
      bad.push(`${name}[${td.dataset.r},${td.dataset.c}] at (${x | 0}, ${y | 0}) is under ${at ? at.tagName + '#'
        + at.id + '.' + at.className : 'nothing'}`);
    }
    // (a W's number rounded for the stage is its ::after's text: present.js oneHead)
    const px = parseFloat(getComputedStyle(td, td.dataset.shown ? '::after' : null).fontSize);
    (td.closest('.p-now') ? now : other).push(px);
  }
  return { bad, n: cells.length, now: Math.min(...now), other: Math.min(...other, Infinity),
    panel: document.getElementById('present-panel').getBoundingClientRect().height / innerHeight,
    stage: document.body.dataset.presentStage, scrollY };
}"""

# every text that shows in present mode (the page's visible text nodes), with its font size: the smallest of them
SMALLEST_TEXT = """() => {
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  let least = Infinity, what = '';
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    if (!n.textContent.trim()) continue;
    const e = n.parentElement, range = document.createRange();
    range.selectNodeContents(n);
    const r = range.getBoundingClientRect();
    if (!r.width || !r.height || r.bottom < 0 || r.top > innerHeight || r.right < 0 || r.left > innerWidth) continue;
    const st = getComputedStyle(e);
    if (st.visibility !== 'visible' || e.closest('[aria-hidden=true]')) continue;
    const at = document.elementFromPoint(Math.min(innerWidth - 1, Math.max(0, r.left + r.width / 2)),
      Math.min(innerHeight - 1, Math.max(0, r.top + r.height / 2)));
    if (!at || !(e.contains(at) || at.contains(e))) continue;  // covered: not visible
    const px = parseFloat(st.fontSize);
    if (px < least) { least = px; what = n.textContent.trim().slice(0, 40); }
  }
  return { least, what };
}"""


def walk(pg: Page) -> list[dict[str, Any]]:
    """Every stage from the first, stepped with → as a lecturer does: what ON_SCREEN reads at each."""
    seen = []
    for _ in range(len(json.loads(present.stages_json()))):  # (today's stages too, where they apply)
        seen.append(pg.evaluate(ON_SCREEN))
        if pg.locator("#present-panel .pp-next").is_disabled():
            break
        pg.keyboard.press("ArrowRight")
    return seen


# At 1920×1080 CI walks one preset of each kind (masked, two heads, cross-attention with 002's block mask, a
# view/transpose split, 003's trainable weights, numpy's float64, and today's two); the long form (pyproject.toml's
# marker ``long``) walks all 20, as 1280×720, the tighter screen, does in CI.
SOME = ("statquest-masked", "statquest-mha2", "encdec-masked", "qkv-split", "llm-linear", "numpy-masked",
        "llama-style", "mistral-style")  # fmt: skip


@pytest.mark.parametrize(
    ("size", "presets"),
    [
        pytest.param((1280, 720), None, id="720p"),
        pytest.param((1920, 1080), SOME, id="1080p"),
        pytest.param((1920, 1080), None, id="1080p-every", marks=pytest.mark.long),
    ],
)
def test_every_stage_of_every_preset_shows_its_cards_and_their_inputs_whole(
    browser: Browser, app_url: str, size: tuple[int, int], presets: tuple[str, ...] | None
) -> None:
    assert presets is None or set(presets) <= set(ac.preset_ids())
    pg = open_page(browser, f"{app_url}?preset=statquest-self&present=inputs", *size)
    failures = []
    try:
        for preset in presets or ac.preset_ids():
            pg.goto(f"{app_url}?preset={preset}&present=inputs")
            pg.wait_for_function("() => document.body.dataset.presentStage === 'inputs'")
            loaded(pg)
            assert pg.locator("#topbar").is_hidden() and pg.locator("#toolbar").is_hidden()
            for got in walk(pg):
                assert got["n"] > 0, (preset, got)
                failures += [f"{preset} {size} {got['stage']}: {b}" for b in got["bad"][:3]]
                assert got["now"] >= 14, (preset, got)  # readable, even where a stage has many cards
                if size[1] == 720:
                    assert got["panel"] < 0.29, (preset, got)
    finally:
        pg.close()
    assert failures == [], "\n".join(failures)


@pytest.fixture
def page(browser: Browser, app_url: str) -> Iterator[Page]:
    pg = open_page(browser, f"{app_url}?preset=llama-style", 1280, 720)
    yield pg
    pg.close()


def choose(pg: Page, label: str, option: str) -> None:
    pg.get_by_label(label, exact=True).click()
    pg.locator(f"li[role='option'][aria-label='{option}']").click()


def test_a_control_changed_while_presenting_keeps_the_stage_on_screen(page: Page) -> None:
    page.click("#present-btn")
    for _ in range(8):  # inputs, qkv, RoPE, kv heads, scores, scaled, masked, weights, output
        page.keyboard.press("ArrowRight")
    assert page.evaluate(ON_SCREEN)["stage"] == "output"
    page.keyboard.press("c")  # the toolbar, over the stage's room
    assert page.locator("#tb-scale").is_visible()
    frames(page)  # (the stage refits in the next frame)
    got = page.evaluate(ON_SCREEN)
    assert got["bad"] == [] and page.locator("#tb-scale").is_visible(), got
    out = page.inner_text("#overview table[data-name=output]")
    choose(page, "scale", "off")
    page.wait_for_function("(b) => document.querySelector('#overview [data-name=output]').innerText !== b", arg=out)
    page.wait_for_timeout(300)
    frames(page)
    got = page.evaluate(ON_SCREEN)
    assert got["stage"] == "output" and got["bad"] == [], got
    head = page.get_by_label("head shown", exact=True)
    head.click()
    head.press("Control+a")
    head.press_sequentially("2", delay=80)
    head.press("Enter")  # a typed box applies on Enter (issue 37), as a person would press it
    page.wait_for_function("() => /head 2/.test(document.querySelector('#overview [data-card=q]').innerText)")
    page.wait_for_timeout(300)
    frames(page)
    got = page.evaluate(ON_SCREEN)
    assert got["stage"] == "output" and got["bad"] == [], got
    page.locator("#present-panel .pp-tools").click()  # the toolbar away again
    assert page.locator("#toolbar").is_hidden()
    frames(page)
    got = page.evaluate(ON_SCREEN)
    assert got["bad"] == [] and got["now"] >= 30, got


def test_a_number_clicked_while_presenting_is_explained_on_screen(page: Page) -> None:
    """The lecturer clicks a weight at the weights' stage: its explanation shows over the stage, whole, and Escape
    closes it without leaving present mode (the card was hidden with everything after the bench)."""
    page.click("#present-btn")
    while page.evaluate("() => document.body.dataset.presentStage") != "weights":
        page.keyboard.press("ArrowRight")
    page.locator("#overview table[data-name=weights] td[data-r='1'][data-c='0']").click()
    page.wait_for_selector("#explain:not(.closed) .ex-title", state="visible")
    assert page.locator("#explain .ex-title").inner_text().strip() == "weights[2, 1] (head 1)"  # llama-style: 2 heads
    box = page.locator("#explain").bounding_box()
    assert box and box["y"] >= 0 and box["x"] >= 0 and box["x"] + box["width"] <= 1280, box
    page.keyboard.press("Escape")
    page.wait_for_selector("#explain.closed", state="attached")
    assert page.evaluate("() => document.body.dataset.presentStage") == "weights"


def test_the_keys_escape_in_an_editor_enter_then_the_stage_keys_and_present_resumes(page: Page) -> None:
    page.click("#present-btn")
    page.keyboard.press("ArrowRight")  # qkv: X is on screen beside Q, K, V
    cell = page.locator("#inputs table[data-name=x] td[data-r='1'][data-c='0']")
    cell.click()
    editor = page.locator("#inputs table.grid td input")
    editor.press_sequentially("9", delay=80)
    page.keyboard.press("Escape")  # puts the value back, and nothing else
    assert page.locator("#present-panel").is_visible()
    assert page.evaluate("() => document.body.dataset.presentStage") == "qkv"
    assert cell.inner_text().strip() == "0.47"
    cell.click()
    page.keyboard.press("Control+a")
    page.locator("#inputs table.grid td input").press_sequentially("2", delay=80)
    page.keyboard.press("Enter")
    page.wait_for_function("() => !document.querySelector('#inputs table.grid td input')")
    # (present.js gives the panel the focus back a frame after the Enter: the stage keys go to it)
    page.wait_for_function("() => document.activeElement === document.getElementById('present-panel')")
    # (llama-style: RoPE and its grouped heads have stages of their own)
    for key, want in (("ArrowRight", "rope"), ("PageDown", "kv_heads"), (" ", "scores"), ("ArrowLeft", "kv_heads"),
                      ("PageUp", "rope")):  # fmt: skip
        page.keyboard.press(key)
        assert page.evaluate("() => document.body.dataset.presentStage") == want, key
    page.keyboard.press("Escape")
    assert page.locator("#present-panel").is_hidden() and page.locator("#topbar").is_visible()
    page.click("#present-btn")
    assert page.evaluate("() => document.body.dataset.presentStage") == "rope"  # resumed
    assert page.inner_text("#present-panel .pp-count") == "3 / 11"


FIG = "document.querySelector('#scaling-fig .js-plotly-plot')"

# the scaling lab's three plot areas (each subplot's axes' offset and length, in page coordinates) and whether the
# page or the figure scrolls sideways
PANELS = """() => {
  const gd = document.querySelector('#scaling-fig .js-plotly-plot'), L = gd._fullLayout;
  const at = gd.querySelector('.main-svg').getBoundingClientRect();
  const boxes = ['', '2', '3'].map((n) => {
    const x = L['xaxis' + n], y = L['yaxis' + n];
    return { left: at.left + x._offset, right: at.left + x._offset + x._length, width: x._length,
      top: at.top + scrollY + y._offset, bottom: at.top + scrollY + y._offset + y._length };
  });
  return { boxes, width: innerWidth, sideways: document.documentElement.scrollWidth > innerWidth
    || document.getElementById('scaling-fig').scrollWidth > document.getElementById('scaling-fig').clientWidth + 1 };
}"""


def test_the_scaling_labs_charts_stack_on_a_phone(browser: Browser, app_url: str) -> None:
    pg = open_page(browser, app_url, 390, 844)
    try:
        pg.get_by_role("tab", name="Scaling lab").click()
        pg.wait_for_selector("#scaling-fig .legendtext")
        box = pg.locator("#lab-dk input[type=number]")
        box.click()
        box.press("Control+a")
        box.press_sequentially("512", delay=80)
        box.press("Enter")
        pg.wait_for_function("() => document.querySelector('#scaling-fig').textContent.includes('d_k = 512')")
        pg.wait_for_function(f"() => {FIG}.layout.meta?.startsWith('stacked')")
        got = pg.evaluate(PANELS)
        boxes = sorted(got["boxes"], key=lambda b: b["top"])
        assert len(boxes) == 3 and not got["sideways"], got
        for b in boxes:  # each whole on the phone's width, and wide
            assert b["left"] >= 0 and b["right"] <= got["width"] and b["width"] >= 0.7 * got["width"], got
        assert all(boxes[i]["bottom"] <= boxes[i + 1]["top"] for i in range(2)), got  # one under another
    finally:
        pg.close()


FONT = "(s) => { const e = document.querySelector(s); return e ? parseFloat(getComputedStyle(e).fontSize) : 0; }"


def texts_sizes(pg: Page) -> dict[str, float]:
    """The font size of the tour's words, explain's lines, the present panel's words, the mask lab's numbers and the
    scaling lab's tick labels and legend, each opened as a learner opens it."""
    got = {}
    pg.click("#tour-btn")
    pg.wait_for_selector("#tour-pop:not([hidden])")
    got["tour"] = pg.evaluate(FONT, "#tour-pop p")
    pg.click("#tour-pop .tp-leave")
    pg.locator("#overview table[data-name=weights] td[data-r='1'][data-c='0']").click()
    pg.wait_for_selector("#explain .ex-line")
    got["explain"] = pg.evaluate(FONT, "#explain .ex-line")
    pg.click("#present-btn")
    got["panel"] = pg.evaluate(FONT, "#present-panel .pp-words")
    pg.keyboard.press("Escape")  # the explanation still open closes first
    pg.keyboard.press("Escape")  # then present mode leaves
    pg.wait_for_function("() => !document.body.dataset.presentStage")
    pg.get_by_role("tab", name="Mask lab").click()
    pg.wait_for_selector("#mask-lab-out table[data-name=mask-causal] td")
    got["mask lab"] = pg.evaluate(FONT, "#mask-lab-out table[data-name=mask-causal] td")
    pg.get_by_role("tab", name="Scaling lab").click()
    pg.wait_for_selector("#scaling-fig .legendtext")
    pg.wait_for_function(f"() => {FIG}.layout.meta?.startsWith('wide')")
    got["chart ticks"] = pg.evaluate(FONT, "#scaling-fig .xtick text")
    got["chart legend"] = pg.evaluate(FONT, "#scaling-fig .legendtext")
    pg.get_by_role("tab", name="Workbench").click()
    return got


def test_one_size_control_reaches_every_text(browser: Browser, app_url: str) -> None:
    pg = open_page(browser, app_url, 1920, 1080)
    try:
        before = texts_sizes(pg)
        for _ in range(3):  # 100% → 115% → 130% → 150%
            pg.get_by_role("button", name="larger text").click()
        after = texts_sizes(pg)
        grown = {k: round(after[k] / before[k], 2) for k in before}
        assert all(g >= 1.45 for g in grown.values()), (before, after, grown)
    finally:
        pg.close()


def test_the_address_carries_the_tab_the_labs_d_k_and_the_present_stage(browser: Browser, app_url: str) -> None:
    pg = open_page(browser, f"{app_url}?tab=scaling&d_k=512", 1280, 720)
    try:
        pg.wait_for_function("() => document.querySelector('#scaling-words')?.innerText.includes('At d_k = 512')")
        assert pg.get_by_role("tab", name="Scaling lab").get_attribute("aria-selected") == "true"
        pg.get_by_role("tab", name="Mask lab").click()
        assert "tab=mask" in pg.url
        pg.reload()
        pg.wait_for_function("() => document.querySelector('#mask-lab-out table')")
        assert pg.get_by_role("tab", name="Mask lab").get_attribute("aria-selected") == "true"
        pg.get_by_role("tab", name="Workbench").click()
        pg.click("#present-btn")  # a lecture, stepped to the scores, then the page reloaded mid-lesson
        pg.keyboard.press("ArrowRight")
        pg.keyboard.press("PageDown")
        assert "present=scores" in pg.url and "tab=" not in pg.url
        pg.reload()
        pg.wait_for_function("() => document.body.dataset.presentStage === 'scores'")
        assert pg.locator("#present-panel .pp-title").inner_text() == "QKᵀ (raw scores)"
        assert pg.evaluate(ON_SCREEN)["bad"] == []
        pg.keyboard.press("Escape")
        assert "present=" not in pg.url
    finally:
        pg.close()


# ---- the shipped lesson plan, stepped as a lecturer does, with the Projector's text size ---------------------------

# the screenshots, for the eye (not asserted): docs/teaching/ holds a set taken with PROJECTOR_SHOTS=docs/teaching
SHOTS = ROOT / os.environ.get("PROJECTOR_SHOTS", "/tmp/shots/projector")
PLAN = present.lesson_plans()["five-stage-lecture"]
# each stage's smallest visible text with the Projector's text size, at least (px): issue 41 asks 32 px for every text
# in present mode, at both sizes; the panel keeps under 29% of a 720 px screen (docs/projector.md)
SMALLEST = {(1920, 1080): 32, (1280, 720): 32}
# the current numbers, at least (px): about 60 at 1080p (the issue), and well over 32 at 720p
NUMBERS = {(1920, 1080): 55, (1280, 720): 40}
# the panel's words run past its room and scroll inside it
PANEL_SCROLLS = "() => {const p = document.getElementById('present-panel'); return p.scrollHeight - p.clientHeight > 1}"
# every card of the stage and every card it is computed from, whole on screen: under the stage's words (when shown,
# W) and above the panel; a lab stage's figure whole above the lesson's bar (and under the lab's words' top)
WHOLE = """() => {
  const out = [], panel = document.getElementById('present-panel');
  const say = document.body.classList.contains('pp-say') && !panel.hidden;
  const top = say ? panel.querySelector('.pp-words').getBoundingClientRect().bottom : 0;
  const bottom = panel.hidden ? document.getElementById('lesson-bar').getBoundingClientRect().top
    : panel.getBoundingClientRect().top;
  const cards = Array.from(document.querySelectorAll('#bench .card.p-now, #bench .card.p-in'));
  const parts = panel.hidden ? [document.getElementById('scaling-fig')]
    : cards.filter((c) => c.getClientRects().length);
  for (const c of parts) {
    const r = c.getBoundingClientRect();
    if (r.top < top - 1 || r.bottom > bottom + 1 || r.left < -1 || r.right > innerWidth + 1) {
      out.push(`${c.dataset.card || c.id} (${r.left | 0}, ${r.top | 0})-(${r.right | 0}, ${r.bottom | 0}) in `
        + `${top | 0}-${bottom | 0}`);
    }
  }
  return out;
}"""

# the titles' sizes: the current cards' smallest and their inputs' largest (a dimmed input's title never outgrows the
# current card's, as a learner's walk found it: "masked" at 36 px beside the current "weights" at 32)
TITLES = """() => {
  const size = (sel) => Array.from(document.querySelectorAll(sel)).filter((e) => e.getClientRects().length)
    .map((e) => parseFloat(getComputedStyle(e).fontSize));
  return {now: Math.min(...size('#bench .card.p-now .card-title')),
    inputs: Math.max(0, ...size('#bench .card.p-in .card-title'))};
}"""


def lesson_stage(pg: Page, n: int) -> dict[str, Any]:
    """What stage ``n`` of the lecture shows (wait until it is there): the numbers' sizes and the cells not on screen
    (present stages), the lab's own check (lab stages), and the smallest visible text."""
    pg.wait_for_function("(n) => document.querySelector('#lesson-bar .lb-count')?.textContent === `Lesson ${n} / 5`",
                         arg=n)  # fmt: skip
    query = PLAN["stages"][n - 1]["query"]
    if "present" in query:
        pg.wait_for_function("(s) => document.body.dataset.presentStage === s", arg=query["present"])
        loaded(pg)  # (a stage is a page load: its load event answered, its fonts in, the refits after them)
        pg.wait_for_timeout(300)  # (a font's late arrival refits)
        got = pg.evaluate(ON_SCREEN)
        got["scrolls"] = pg.evaluate(PANEL_SCROLLS)
        got["titles"] = pg.evaluate(TITLES)
    elif query.get("tab") == "scaling":
        pg.wait_for_function("() => document.querySelector('#scaling-words')?.innerText.includes('At d_k = 512')")
        laid = "stacked" if pg.viewport_size["width"] <= 760 else "stage"  # (charts.js: a lesson's lab stage)
        pg.wait_for_function(f"(w) => {FIG}?.layout.meta?.includes(w)", arg=laid)
        pg.wait_for_timeout(300)  # (plotly draws the relayout's text)
        got = {"bad": [], "now": pg.evaluate(FONT, "#scaling-fig .xtick text"), "stage": "scaling lab"}
    else:
        pg.wait_for_selector("#mask-lab-out table[data-name=mask-causal] td")
        got = {"bad": [], "now": pg.evaluate(FONT, "#mask-lab-out td"), "stage": "mask lab"}
    got["smallest"] = pg.evaluate(SMALLEST_TEXT)
    return got


# the Projector's text size and the words hidden, at the first load only (W's choice is kept from page to page)
FIRST_LOAD = (
    "if (!sessionStorage.getItem('seen')) { sessionStorage.setItem('seen', '1'); "
    "localStorage.setItem('pg-text-size', '1.5'); localStorage.removeItem('pg-present-words'); }"
)


def check_stage(pg: Page, n: int, size: tuple[int, int], got: dict[str, Any]) -> None:
    """Stage ``n``'s cards (or lab figure) whole on screen, its numbers' and every visible text's sizes, the panel's
    room (present stages, wide screens)."""
    assert got["bad"] == [], (n, got["bad"][:3])
    if size[0] <= 760:
        return
    assert pg.evaluate(WHOLE) == [], n
    if "present" in PLAN["stages"][n - 1]["query"]:
        assert got["now"] >= NUMBERS[size] and not got["scrolls"], (n, got)  # (the panel's words fit, unscrolled)
        assert got["panel"] < 0.29 if size[1] == 720 else got["panel"] < 0.2, (n, got["panel"])
        assert got["titles"]["inputs"] <= got["titles"]["now"] + 0.5, (n, got["titles"])
    assert got["smallest"]["least"] >= SMALLEST[size], (n, got["smallest"])


def words_on_demand(pg: Page, size: tuple[int, int]) -> None:
    """At stage 1, W shows the stage's words over the top of the cards' room: the cards move under them, still whole,
    the words as large as the rest; the choice is kept for the next stage (the lab's words) and W there hides them."""
    words = pg.locator("#present-panel .pp-words")
    assert words.is_hidden()
    pg.keyboard.press("w")
    words.wait_for(state="visible")
    pg.wait_for_timeout(300)
    frames(pg)  # (the cards move under the words a frame later, and again once their ResizeObserver has seen them)
    box = words.bounding_box()
    assert box and box["y"] == 0 and pg.evaluate(WHOLE) == [], box
    assert pg.evaluate(ON_SCREEN)["bad"] == [] and pg.evaluate(SMALLEST_TEXT)["least"] >= SMALLEST[size]
    assert "weights" in words.inner_text()


@pytest.mark.parametrize("size", [(1920, 1080), (1280, 720), (390, 844)], ids=["1080p", "720p", "phone"])
def test_the_shipped_lecture_steps_with_the_keys_and_survives_a_reload(
    browser: Browser, app_url: str, size: tuple[int, int]
) -> None:
    """Every stage of the shipped lecture, stepped with the keys a lecturer presses (PageDown, Space, →, ↓; PageUp
    back), with the Projector's text size: what is on screen at each (check_stage), the words on demand (W), the lab's
    controls one key away (C), a reload mid-lesson."""
    pg = browser.new_page(viewport={"width": size[0], "height": size[1]})
    pg.set_default_timeout(30_000)
    pg.add_init_script(FIRST_LOAD)
    pg.goto(f"{app_url}?lesson=five-stage-lecture&step=1")
    seen = {}
    try:
        for n in range(1, 6):
            got = lesson_stage(pg, n)
            seen[n] = (got["stage"], got["now"], got["smallest"], round(got.get("panel", 0), 3))
            check_stage(pg, n, size, got)
            if size[0] > 760 and n == 2:  # (W was pressed at stage 1: kept; the figure under the words, whole)
                pg.locator("#scaling-words").wait_for(state="visible")
                pg.keyboard.press("w")
                pg.locator("#scaling-words").wait_for(state="hidden")
                pg.wait_for_timeout(500)  # (the figure takes the room back)
                assert pg.evaluate(WHOLE) == []
            if size[0] > 760 or n == 1:  # (the phone: its first stage)
                SHOTS.mkdir(parents=True, exist_ok=True)
                pg.screenshot(path=str(SHOTS / f"lecture-{n}-{size[0]}x{size[1]}.png"))
            if size[0] > 760 and n == 1:
                words_on_demand(pg, size)
            if size[0] > 760 and n == 2:
                assert got["now"] >= 32, got  # the chart's tick labels
                assert not pg.locator("#topbar").is_visible() and not pg.locator("#lab-dk").is_visible()
                pg.keyboard.press("c")  # the lab's controls, one key away
                pg.wait_for_selector("#lab-dk", state="visible")
                pg.keyboard.press("c")
                pg.wait_for_selector("#lab-dk", state="hidden")
            if n == 3:  # a reload mid-lesson comes back to the same stage
                pg.reload()
                lesson_stage(pg, 3)
            if n < 5:
                with pg.expect_navigation():
                    pg.keyboard.press({1: "PageDown", 2: " ", 3: "ArrowRight", 4: "ArrowDown"}[n])
        with pg.expect_navigation():
            pg.keyboard.press("PageUp")
        lesson_stage(pg, 4)
    finally:
        print(size, seen)
        pg.close()


def test_the_tour_says_grouped_query_heads_share_k_and_v(browser: Browser, app_url: str) -> None:
    """Llama-style: 2 query heads, 1 kv head. The tour's step on the heads combined no longer says each head has its
    own W_k and W_v (resumed at that step, as the Tour button resumes a tour left there)."""
    step = next(i for i, st in enumerate(present.TOUR) if st.target == "#overview [data-card=combine]")
    pg = browser.new_page(viewport={"width": 1280, "height": 720})
    pg.add_init_script(f"localStorage.setItem('attention-playground-tour', '{step}')")
    try:
        pg.goto(f"{app_url}?preset=llama-style")
        pg.wait_for_selector("#overview [data-card=combine] td")
        pg.click("#tour-btn")
        pg.wait_for_function("(i) => document.querySelector('#tour-pop')?.dataset.step === String(i)", arg=step)
        words = pg.inner_text("#tour-pop")
        assert "sharing K and V" in words and "own W_q, W_k, W_v" not in words, words
    finally:
        pg.close()


def test_a_lecturer_prepares_a_plan_saves_it_and_loads_it_back(browser: Browser, app_url: str, tmp_path) -> None:
    pg = open_page(browser, f"{app_url}?preset=statquest-masked", 1280, 720)
    try:
        pg.click("#present-btn")
        for _ in range(4):
            pg.keyboard.press("ArrowRight")
        assert pg.evaluate("() => document.body.dataset.presentStage") == "masked"
        pg.keyboard.press("l")  # the Lesson menu, over present mode
        pg.click("#lesson-pop .lp-add")
        assert "Added stage 1: Masked" in pg.inner_text("#lesson-pop .lp-note")
        pg.keyboard.press("l")
        pg.keyboard.press("Escape")
        pg.get_by_role("tab", name="Scaling lab").click()
        box = pg.locator("#lab-dk input[type=number]")
        box.click()
        box.press("Control+a")
        box.press_sequentially("512", delay=80)
        box.press("Enter")
        box.press("Tab")
        pg.wait_for_function("() => document.querySelector('#scaling-words').innerText.includes('At d_k = 512')")
        pg.click("#lesson-btn")
        pg.click("#lesson-pop .lp-add")
        assert "Added stage 2" in pg.inner_text("#lesson-pop .lp-note")
        with pg.expect_download() as got:
            pg.click("#lesson-pop .lp-save")
        saved = tmp_path / "lesson.json"
        got.value.save_as(saved)
        plan = json.loads(saved.read_text())
        assert [st["query"] for st in plan["stages"]] == [
            {"preset": "statquest-masked", "present": "masked"},
            {"preset": "statquest-masked", "tab": "scaling", "d_k": "512"},  # (the workbench under the lab)
        ]
        pg.click("#lesson-pop .lp-clear")
        bad = tmp_path / "bad.json"
        bad.write_text(json.dumps({"stages": [{"title": "x", "query": {"colour": "red"}}]}))
        pg.set_input_files("#lesson-pop .lp-load input", str(bad))
        pg.wait_for_function("() => document.querySelector('#lesson-pop .lp-note').innerText.includes('colour')")
        assert "stage 1: colour is not one of" in pg.inner_text("#lesson-pop .lp-note")
        pg.set_input_files("#lesson-pop .lp-load input", str(saved))
        pg.wait_for_function("() => document.querySelector('#lesson-pop .lp-note').innerText.includes('Loaded 2')")
        with pg.expect_navigation():
            pg.locator("#lesson-pop a[href*='lesson=own']").click()
        pg.wait_for_function("() => document.body.dataset.presentStage === 'masked'")
        assert pg.inner_text("#lesson-bar .lb-count") == "Lesson 1 / 2"
        with pg.expect_navigation():
            pg.keyboard.press("PageDown")
        pg.wait_for_function("() => document.querySelector('#scaling-words')?.innerText.includes('At d_k = 512')")
    finally:
        pg.close()


def test_a_short_link_opens_the_edited_state_at_the_present_stage(browser: Browser, app_url: str) -> None:
    pg = open_page(browser, f"{app_url}?preset=statquest-self", 1280, 720)
    other = None
    try:
        cell = "#inputs table[data-name=x] td[data-r='0'][data-c='1']"
        pg.locator(cell).click()
        pg.keyboard.press("Control+a")
        pg.locator("#inputs table.grid td input").press_sequentially("2.5", delay=80)
        pg.keyboard.press("Enter")
        pg.wait_for_function("(s) => document.querySelector(s).textContent.trim() === '2.5'", arg=cell)
        pg.click("#present-btn")
        pg.keyboard.press("ArrowRight")
        pg.keyboard.press("ArrowRight")  # the scores
        pg.keyboard.press("c")  # the toolbar, with Share · export
        pg.locator("#share").get_by_text("Share · export").click()
        pg.click("#link-btn")
        pg.wait_for_function("() => document.querySelector('#short-link textarea')?.value.includes('?s=')")
        short = pg.locator("#short-link textarea").input_value()
        full = pg.locator("#link textarea").input_value()
        assert "present=scores" in short and len(short) < len(app_url) + 40 < len(full), (short, len(full))
        other = open_page(browser, short, 1280, 720)
        other.wait_for_function("() => document.body.dataset.presentStage === 'scores'")
        other.wait_for_function("(s) => document.querySelector(s)?.textContent.trim() === '2.5'", arg=cell)
        assert other.evaluate(ON_SCREEN)["bad"] == []
    finally:
        pg.close()
        if other:
            other.close()


def steady(pg: Page, selector: str) -> str:
    """``selector``'s text once it stays the same for 0.7 s (a lab's events answered)."""
    before = None
    for _ in range(30):
        now = pg.inner_text(selector)
        if now == before:
            return now
        before = now
        pg.wait_for_timeout(700)
    raise AssertionError(f"{selector} never settled")


# the scaling lab's sentence, shown or not (a lab stage shows it on W), its spaces as one
LAB_WORDS = "document.querySelector('#scaling-words')?.textContent.trim().replace(/\\s+/g, ' ')"


# the mask lab's tables and words, shown or not (a lab stage shows its words on W), spaces as one
MASK_TEXT = "document.querySelector('#mask-lab-out')?.textContent.trim().replace(/\\s+/g, ' ')"
# the mask lab's stage as laid out: its tables' top and bottom, the lesson bar's top, the numbers' size
MASK_STAGE = """() => {
  const tables = Array.from(document.querySelectorAll('#mask-lab-out table')).map((t) => t.getBoundingClientRect());
  return { top: Math.min(...tables.map((r) => r.top)), bottom: Math.max(...tables.map((r) => r.bottom)),
    bar: document.getElementById('lesson-bar').getBoundingClientRect().top,
    px: parseFloat(getComputedStyle(document.querySelector('#mask-lab-out td')).fontSize) };
}"""


def add_stage(pg: Page, n: int) -> None:
    """The Lesson menu opened, "Add this view as a stage" pressed (stage ``n`` of the plan), the menu closed."""
    pg.click("#lesson-btn")
    pg.click("#lesson-pop .lp-add")
    assert f"Added stage {n}" in pg.inner_text("#lesson-pop .lp-note")
    pg.click("#lesson-btn")


def test_a_lab_stage_with_its_settings_reopens_exactly(browser: Browser, app_url: str, tmp_path) -> None:
    """The mask lab (causal unticked, key 2 padded, row 1 hidden) and the scaling lab at d_k 512, seed 3, each added
    as a stage from the page, the plan saved and loaded back, each stage stepped to: the same boxes and tables, the
    same seed's sentence (present.LESSON_KEYS and lesson.js's KEYS hold lab_seed, causal, pad and rows)."""
    pg = open_page(browser, f"{app_url}?preset=statquest-masked", 1280, 720)
    try:
        pg.get_by_role("tab", name="Mask lab").click()
        pg.wait_for_selector("#mask-lab-out table[data-name=mask-causal] td")
        for label, text in (("padded key positions (e.g. 3)", "2"), ("hide every key from query rows (e.g. 1)", "1")):
            box = pg.get_by_label(label, exact=True)
            box.click()
            box.press_sequentially(text, delay=80)
        pg.get_by_role("checkbox", name="causal mask", exact=True).click()  # unticked
        pg.wait_for_function("() => ['causal=0', 'pad=2', 'rows=1'].every((p) => location.search.includes(p))")
        steady(pg, "#mask-lab-out")
        mask = pg.evaluate(f"() => {MASK_TEXT}")
        add_stage(pg, 1)
        pg.get_by_role("tab", name="Scaling lab").click()
        pg.wait_for_selector("#scaling-words .lab-words")
        for selector, text in (("#lab-dk input[type=number]", "512"), ("#lab-seed input", "3")):
            box = pg.locator(selector)
            box.click()
            box.press("Control+a")
            box.press_sequentially(text, delay=80)
            box.press("Enter")
        pg.wait_for_function("() => ['d_k=512', 'lab_seed=3'].every((p) => location.search.includes(p))")
        steady(pg, "#scaling-words")
        words = pg.evaluate(f"() => {LAB_WORDS}")
        assert "At d_k = 512" in words
        add_stage(pg, 2)
        pg.click("#lesson-btn")
        with pg.expect_download() as got:
            pg.click("#lesson-pop .lp-save")
        saved = tmp_path / "lesson.json"
        got.value.save_as(saved)
        plan = json.loads(saved.read_text())
        assert [st["query"] for st in plan["stages"]] == [
            {"preset": "statquest-masked", "tab": "mask", "causal": "0", "pad": "2", "rows": "1"},
            {"preset": "statquest-masked", "tab": "scaling", "d_k": "512", "lab_seed": "3"},
        ]
        pg.click("#lesson-pop .lp-clear")
        pg.set_input_files("#lesson-pop .lp-load input", str(saved))
        pg.wait_for_function("() => document.querySelector('#lesson-pop .lp-note').innerText.includes('Loaded 2')")
        with pg.expect_navigation():
            pg.locator("#lesson-pop a[href*='lesson=own']").click()
        pg.wait_for_function(f"(w) => {MASK_TEXT} === w", arg=mask)  # (its words shown on W only)
        assert pg.inner_text("#lesson-bar .lb-count") == "Lesson 1 / 2"
        assert pg.get_by_label("padded key positions (e.g. 3)", exact=True).input_value() == "2"
        assert pg.get_by_label("hide every key from query rows (e.g. 1)", exact=True).input_value() == "1"
        assert not pg.locator("#mask-causal input[type=checkbox]").is_checked()  # (the stage hides the controls)
        steady(pg, "#mask-lab-out")
        assert pg.evaluate(f"() => {MASK_TEXT}") == mask
        pg.wait_for_timeout(300)  # (the stage's fit, a frame after the lab's last answer)
        laid = pg.evaluate(MASK_STAGE)  # the mask lab's stage: every table on screen, above the lesson's bar
        assert laid["bottom"] <= laid["bar"] and laid["top"] >= 0 and laid["px"] >= 15, laid
        assert pg.locator("#mask-controls").is_hidden() and pg.locator("#mask-intro").is_hidden()
        with pg.expect_navigation():
            pg.keyboard.press("PageDown")
        pg.wait_for_function(f"(w) => {LAB_WORDS} === w", arg=words)  # (at a lab stage, hidden until W)
        assert pg.locator("#lab-seed input").input_value() == "3"
        steady(pg, "#scaling-words")
        assert pg.evaluate(f"() => {LAB_WORDS}") == words
    finally:
        pg.close()


# the present panel on a phone: its share of the screen, whether it scrolls, each button's box, its text's size
PHONE_PANEL = """() => {
  const p = document.getElementById('present-panel');
  return { share: p.getBoundingClientRect().height / innerHeight, scrolls: p.scrollHeight > p.clientHeight + 1
    || p.scrollWidth > p.clientWidth + 1, px: parseFloat(getComputedStyle(p).fontSize),
    buttons: Array.from(p.querySelectorAll('button')).filter((b) => b.getClientRects().length).map((b) => {
      const r = b.getBoundingClientRect(), at = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
      return [b.textContent, r.left >= 0 && r.right <= innerWidth && r.top >= 0 && r.bottom <= innerHeight
        && (at === b || b.contains(at))];
    }) };
}"""


def test_the_present_panel_on_a_phone_keeps_under_a_quarter_with_every_button_on_screen(
    browser: Browser, app_url: str
) -> None:
    """390×844: the panel ≤ 25% of the screen, unscrolled, its eight buttons each whole on screen (← → A− A+ Words ⚙
    Full ✕: ✕ leaves, by a tap); the formula shows with the words (W), not in the head."""
    pg = browser.new_page(viewport={"width": 390, "height": 844})
    pg.set_default_timeout(30_000)
    pg.add_init_script("localStorage.setItem('pg-text-size', '1.5')")  # the Projector's text size
    try:
        pg.goto(f"{app_url}?preset=statquest-self&present=weights")
        pg.wait_for_selector("#present-panel:not([hidden])")
        pg.wait_for_timeout(300)
        got = pg.evaluate(PHONE_PANEL)
        print(got)
        assert got["share"] <= 0.25 and not got["scrolls"] and got["px"] >= 27, got
        assert [b for b, whole in got["buttons"] if not whole] == [] and len(got["buttons"]) == 8, got
        assert pg.locator("#present-panel .pp-head .pp-formula").is_hidden()
        pg.locator("#present-panel .pp-say").click()
        pg.locator("#present-panel .pp-words .pp-wf").wait_for(state="visible")
        assert "softmax" in pg.inner_text("#present-panel .pp-wf")
        pg.locator("#present-panel .pp-say").click()  # (the words hidden again; the panel as it was)
        pg.locator("#present-panel .pp-words").wait_for(state="hidden")
        pg.locator("#present-panel .pp-exit").click()
        pg.wait_for_selector("#present-panel", state="hidden")
    finally:
        pg.close()


# the mask lab's stage as shown: the fill conventions shown (their masked table's name), every visible number cell
# found at its centre above the lesson's bar, the numbers' smallest size
MASK_SHOWN = """() => {
  const bar = document.getElementById('lesson-bar')?.getBoundingClientRect().top ?? 0, bad = [], px = [];
  for (const td of document.querySelectorAll('#mask-lab-out td[data-r]')) {
    if (!td.getClientRects().length) continue;
    const r = td.getBoundingClientRect(), at = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    if (!at || !(td === at || td.contains(at)) || r.bottom > bar) {
      bad.push(`${td.closest('table').dataset.name}[${td.dataset.r},${td.dataset.c}] at (${r.left | 0}, ${r.top | 0}) `
        + `is under ${at ? `${at.tagName}#${at.id}.${at.className}` : 'nothing'}`);
    }
    // (a long number shown with four decimals is its ::after's text: lesson.js maskStage)
    px.push(parseFloat(getComputedStyle(td, td.dataset.shown ? '::after' : null).fontSize));
  }
  return { fills: Array.from(document.querySelectorAll('#mask-lab-out .lab-col')).filter((c) => c.getClientRects()
    .length).map((c) => c.querySelector('table').dataset.name), bad, px: Math.min(...px),
    button: document.querySelector('#lesson-bar .lb-fill')?.textContent, bar, scroll: scrollY,
    out: document.getElementById('mask-lab-out')?.getBoundingClientRect().height, fs: document.body.style
    .getPropertyValue('--lab-fs') };  // (the stage's fit, for a failure's message)
}"""


def mask_stage_shows(pg: Page, fill: str) -> dict[str, Any]:
    """The mask stage once it shows ``fill``'s tables and has fitted them: MASK_SHOWN and the smallest visible text."""
    pg.wait_for_function(f"(f) => ({MASK_SHOWN})().fills.join() === 'lab-masked' + f", arg=fill)
    loaded(pg)  # (after a reload too: its load answer and fonts, then the frames the fit comes in)
    try:  # the fit, once the page has laid the stage out (a fixed 300 ms was sometimes too short: CI-style run)
        pg.wait_for_function(f"() => !({MASK_SHOWN})().bad.length", timeout=5000)
    except PlaywrightError:
        pass  # (what is still wrong is asserted on, with what it is)
    return {**pg.evaluate(MASK_SHOWN), "smallest": pg.evaluate(SMALLEST_TEXT)}


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080)], ids=["720p", "1080p"])
def test_the_mask_labs_stage_shows_one_fill_convention_at_a_time_and_keeps_it(
    browser: Browser, app_url: str, tmp_path, size: tuple[int, int]
) -> None:
    """A plan of one mask lab stage loaded from a file, with the Projector's text size: the masks and one fill
    convention's three tables (-inf first), every number on screen at 32 px or more, every text 32 px or more; N steps
    -inf → -1e9 → additive → -inf; the stage (the address, a reload, the saved plan) keeps the one shown."""
    plan = {"title": "masks", "stages": [{"title": "the mask lab", "query": {
        "preset": "statquest-masked", "tab": "mask", "causal": "0", "pad": "2", "rows": "1"}}]}  # fmt: skip
    (tmp_path / "plan.json").write_text(json.dumps(plan))
    pg = browser.new_page(viewport={"width": size[0], "height": size[1]})
    pg.set_default_timeout(30_000)
    pg.add_init_script("localStorage.setItem('pg-text-size', '1.5'); localStorage.removeItem('pg-present-words')")
    try:
        pg.goto(f"{app_url}?preset=statquest-masked")
        pg.click("#lesson-btn")
        pg.set_input_files("#lesson-pop .lp-load input", str(tmp_path / "plan.json"))
        pg.wait_for_function("() => document.querySelector('#lesson-pop .lp-note').innerText.includes('Loaded 1')")
        with pg.expect_navigation():
            pg.locator("#lesson-pop a[href*='lesson=own']").click()
        pg.wait_for_selector("#mask-lab-out table[data-name=mask-causal] td")
        steady(pg, "#mask-lab-out")  # (the lab's answers to the stage's boxes drawn)
        for fill in ("-inf", "-1e9", "additive", "-inf"):
            got = mask_stage_shows(pg, fill)
            print(size, fill, got["px"], got["smallest"])
            assert got["bad"] == [] and got["button"] == f"fill: {fill}", got
            assert got["px"] >= 32 and got["smallest"]["least"] >= 32, got
            pg.keyboard.press("n")
        mask_stage_shows(pg, "-1e9")
        assert "fill_shown=-1e9" in pg.url
        pg.reload()
        mask_stage_shows(pg, "-1e9")
        pg.keyboard.press("l")  # the Lesson menu (its button steps aside with the title bar)
        with pg.expect_download() as saved:
            pg.click("#lesson-pop .lp-save")
        saved.value.save_as(tmp_path / "saved.json")
        assert json.loads((tmp_path / "saved.json").read_text())["stages"][0]["query"]["fill_shown"] == "-1e9"
    finally:
        pg.close()


def test_a_reload_mid_lesson_keeps_an_edit_made_at_the_stage(browser: Browser, app_url: str) -> None:
    """Lesson stage 3 (the causal mask): the lecturer leaves present mode (Escape), types a new X[0][0] key by key
    and reloads. The stage comes back with the edit, as the address followed it, not with the stage's saved state
    (which the page used to put back: the edit was lost)."""
    x00 = "#inputs table[data-name=x] td[data-r='0'][data-c='0']"
    pg = browser.new_page(viewport={"width": 1280, "height": 720})
    pg.set_default_timeout(30_000)
    pg.add_init_script(FIRST_LOAD)
    try:
        pg.goto(f"{app_url}?lesson=five-stage-lecture&step=3")
        lesson_stage(pg, 3)
        pg.keyboard.press("Escape")
        pg.wait_for_function("() => !document.body.classList.contains('presenting')")
        pg.locator(x00).click()
        editor = pg.locator("#inputs table.grid td input")
        editor.press("Control+a")
        editor.press_sequentially("1.75", delay=80)
        editor.press("Enter")
        pg.wait_for_function("(s) => document.querySelector(s)?.textContent.trim() === '1.75'", arg=x00)
        pg.wait_for_function("() => /[?&](scenario|s)=/.test(location.search) && !/[?&]preset=/.test(location.search)")
        output = pg.inner_text("#overview table[data-name=output]")
        pg.reload()
        pg.wait_for_function("() => document.querySelector('#lesson-bar .lb-count')?.textContent === 'Lesson 3 / 5'")
        pg.wait_for_selector("#overview table[data-name=output] td[data-r]", state="attached")
        pg.wait_for_function(LOADED)
        assert pg.locator(x00).text_content().strip() == "1.75"
        assert pg.inner_text("#overview table[data-name=output]") == output
        assert not pg.evaluate("() => document.body.classList.contains('presenting')")  # (left before the reload)
    finally:
        pg.close()


def layouts(browser: Browser, pg: Page, act: Any) -> int:
    """How many times the page was laid out (Chromium's trace: Layout) while ``act`` ran and the frame after it."""
    browser.start_tracing(page=pg, categories=["devtools.timeline"])
    act()
    pg.evaluate("() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok)))")
    trace = json.loads(browser.stop_tracing())
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    return sum(1 for e in events if e.get("ph") == "X" and e.get("name") == "Layout")


def test_present_mode_at_64_tokens_fits_each_stage_once_and_shows_its_own_cards_large(
    browser: Browser, app_url: str
) -> None:
    """A lecturer presents a 64-token, 8-head state (X and each W 64×64: 23,000 cells) at 1280×720. The first stage
    fits the room at no size, and its fit searched every size anew on each of the page's three redraws that follow
    Present: 41 layouts of the whole page, 10 s before it showed; now it is fitted once and keeps its smallest size
    (at most 15 layouts). At the Q, K, V stage, Q beside X and a 512-row W_q fit at no size either: Q was drawn at
    6 px and lay under the panel (y = 1117 on a 720 px screen); now the stage's own card shows alone, large."""
    g = torch.Generator().manual_seed(0)
    x = (torch.randn(64, 64, generator=g) * 2).round(decimals=1).tolist()
    big = {"x": x, "heads": 8, "head_mode": "concat", "d_out": 64, "weights": {"init": "linear", "seed": 1},
           "mask": {"kind": "causal", "fill": "-inf"}}  # fmt: skip
    pg = open_page(browser, f"{app_url}?scenario={share.encode_link(big)}", timeout=120_000)
    stage = "(s) => document.body.dataset.presentStage === s"
    own = """() => { const c = document.querySelector('#bench .card.p-now'), td = c.querySelector('td[data-r]');
      return [c.getBoundingClientRect().top, document.getElementById('present-panel').getBoundingClientRect().top,
              parseFloat(getComputedStyle(td).fontSize), c.dataset.card]; }"""
    try:
        start = layouts(
            browser, pg, lambda: (pg.locator("#present-btn").click(), pg.wait_for_function(stage, arg="inputs"))
        )
        assert pg.locator("#present-panel .pp-title").inner_text() == "The inputs"
        assert start <= 15, start
        assert pg.evaluate("() => document.body.style.getPropertyValue('--p-now')") == "6.00px"  # (its smallest)
        pg.keyboard.press("ArrowRight")
        pg.wait_for_function(stage, arg="qkv")
        pg.wait_for_timeout(500)  # (its fit done)
        top, panel, px, card = pg.evaluate(own)
        assert card == "q" and 0 <= top < panel - 100 and px >= 20, (card, top, panel, px)
        pg.screenshot(path="/tmp/shots/present-64-qkv.png")
    finally:
        pg.close()


def test_todays_stages_say_their_live_numbers_on_the_panel(browser: Browser, app_url: str) -> None:
    """A lecturer presents RoPE, grouped-query heads and a sliding window, stepping with →: each of today's stages says
    its numbers on the panel's live line, as the notebooks' stages do (it was empty at all three)."""
    x = torch.randn(6, 8, generator=torch.Generator().manual_seed(3)).round(decimals=2).tolist()
    sc = {"x": x, "heads": 4, "kv_heads": 2, "head_mode": "split", "positions": "rope", "window": 3,
          "mask": {"kind": "causal"}, "weights": {"init": "linear", "seed": 3}}  # fmt: skip
    pg = open_page(browser, f"{app_url}?scenario={share.encode_link(sc)}", 1280, 720)
    try:
        pg.locator("#present-btn").click()
        said = {}
        for _ in range(20):
            key = pg.evaluate("() => document.body.dataset.presentStage")
            said[key] = pg.inner_text("#present-panel .pp-live").strip()
            if pg.locator("#present-panel .pp-next").is_disabled():
                break
            pg.keyboard.press("ArrowRight")
            pg.wait_for_function("(k) => document.body.dataset.presentStage !== k", arg=key)
        assert re.fullmatch(r"pair \(d1, d\d+\): θ = 1 rad \(base 10000\)", said.get("rope", "")), said
        assert said.get("kv_heads") == "4 query heads read 2 kv heads", said
        assert said.get("window") == "the window of 3", said
        pg.screenshot(path="/tmp/shots/present-today.png")
    finally:
        pg.close()
