"""Teaching demos in real Chromium: present mode, the guided tour, keyboard-only use and an axe-core check."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
import torch
from axe_playwright_python.sync_playwright import Axe
from browser import open_page
from playwright.sync_api import Browser, Page

import attention_core as ac
from ui import present
from ui.render import overview as ov

TIMEOUT = 30_000
OUT = "#overview table[data-name=output]"


@pytest.fixture
def page(browser: Browser, app_url: str) -> Iterator[Page]:
    pg = open_page(browser, app_url)
    yield pg
    pg.close()


def stage(pg: Page) -> str | None:
    return pg.evaluate("() => document.body.dataset.presentStage ?? null")


def card_state(pg: Page, name: str) -> list[str]:
    """The present-mode classes of every card named ``name`` (p-now, p-done, or '' for not reached)."""
    return pg.evaluate(
        """(n) => Array.from(document.querySelectorAll(`#bench [data-card="${n}"]`)).map((c) =>
            c.classList.contains('p-now') ? 'now' : c.classList.contains('p-done') ? 'done' : '')""",
        name,
    )


def shown_cells(pg: Page, name: str) -> list[dict[str, float]]:
    """Cells of one overview table that are visible (a box of some size), with their exact values."""
    cells = pg.evaluate(
        """(n) => Array.from(document.querySelectorAll(`#overview table[data-name="${n}"] td[data-r]`))
            .filter((td) => { const r = td.getBoundingClientRect(); return r.width > 0 && r.height > 0
              && getComputedStyle(td).visibility === 'visible'; })
            .map((td) => ({ r: +td.dataset.r, c: +td.dataset.c, v: td.title || td.textContent }))""",
        name,
    )
    return [{**c, "v": float(c["v"])} for c in cells]


def test_present_mode_steps_with_the_keyboard_and_an_edit_updates_the_current_stage(page: Page) -> None:
    page.click("#present-btn")
    page.wait_for_selector("#present-panel:not([hidden])")
    assert stage(page) == "inputs" and card_state(page, "x") == ["now"] and card_state(page, "q") == [""]
    assert shown_cells(page, "q") == []  # later stages are not shown yet
    page.keyboard.press("ArrowRight")
    assert stage(page) == "qkv" and card_state(page, "x") == ["done"] and card_state(page, "q") == ["now"]
    assert page.inner_text("#present-panel .pp-title") == "Q, K, V"  # the list of steps' title (contract/steps.py)
    assert "Q = X·W" in page.inner_text("#present-panel .pp-formula")
    page.keyboard.press(" ")
    assert stage(page) == "scores"
    page.keyboard.press("ArrowLeft")
    assert stage(page) == "qkv" and card_state(page, "scores") == [""]
    # the numbers are large: the current card's numbers are bigger than those of a dimmed stage
    big, small = (
        page.evaluate(f"() => parseFloat(getComputedStyle(document.querySelector('{s}')).fontSize)")
        for s in ("#overview table[data-name=q] td", "#inputs table[data-name=x] td[data-r]")
    )
    assert big >= 1.4 * small, (big, small)
    # an edit re-renders the overview: the new cards carry the stage, and q follows the edit
    before = page.get_attribute("#overview table[data-name=q] td[data-r='0'][data-c='0']", "title")
    page.locator("#inputs table[data-name=x] td[data-r='0'][data-c='0']").click()
    page.locator("#inputs table.grid td input").fill("2")
    page.keyboard.press("Enter")  # commits (the grid owns Enter and the arrows while it has the focus)
    q_cell = "#overview table[data-name=q] td[data-r='0'][data-c='0']"
    page.wait_for_function("([s, b]) => document.querySelector(s).title !== b", arg=[q_cell, before])
    page.wait_for_function("() => document.querySelector('#bench [data-card=q]').classList.contains('p-now')")
    assert stage(page) == "qkv" and card_state(page, "x") == ["done"]
    s = ac.parse(ac.get_preset("statquest-self").scenario)
    x = s.x_q.clone()
    x[0, 0] = 2.0
    want = (x @ s.weights.W_q[0].T).tolist()  # nn.Linear layout: q = x @ W.T
    got = {(c["r"], c["c"]): c["v"] for c in shown_cells(page, "q")}
    assert len(got) == 6
    for (r, c), v in got.items():
        assert v == pytest.approx(want[r][c], abs=1e-5)
    page.locator("#present-panel .pp-next").focus()
    page.keyboard.press("Escape")
    assert stage(page) is None and page.locator("#present-panel").is_hidden()
    assert page.locator("#bench .p-now, #bench .p-done").count() == 0
    assert shown_cells(page, "weights") != []


@pytest.mark.parametrize("preset", ["statquest-masked", "encdec-cross", "encdec-mha2", "qkv-split", "numpy-masked"])
def test_present_mode_walks_every_stage_of_masked_multi_head_and_cross_presets(
    browser: Browser, app_url: str, preset: str
) -> None:
    pg = open_page(browser, f"{app_url}?preset={preset}&present=1")
    try:
        pg.wait_for_selector("#present-panel:not([hidden])")
        s = ac.parse(ac.get_preset(preset).scenario)
        keys = [st[0] for st in present.STAGES if st[0] != "combine" or s.heads > 1]  # (no variant is on here)
        keys[-1:-1] = ["heads"] if s.heads > 1 else []  # every head side by side, before they are combined
        seen, masked = [], {}
        for i, key in enumerate(keys):
            seen.append(stage(pg))
            assert pg.inner_text("#present-panel .pp-count") == f"{i + 1} / {len(keys)}"
            now = pg.locator("#bench .card.p-now")
            assert now.count() >= 1 and all((now.nth(j).bounding_box() or {}).get("width") for j in range(now.count()))
            if key in ("scaled", "masked", "weights", "output"):
                assert shown_cells(pg, key), key
            if key == "masked":  # (a later stage shows only its own cards and their inputs)
                masked = {(c["r"], c["c"]): c["v"] for c in shown_cells(pg, "masked")}
            pg.keyboard.press("ArrowRight")
        assert seen == keys
        pg.keyboard.press("ArrowRight")  # past the last stage: stays there
        assert stage(pg) == keys[-1]
        if s.mask_kind == "causal":
            assert masked[(0, 1)] == float("-inf") and masked[(1, 0)] != float("-inf")
        if not s.self_attention:  # cross-attention: the three sources were the first stage
            assert card_state(pg, "x_k") == ["done"] and card_state(pg, "x_v") == ["done"]
    finally:
        pg.close()


def tour_step(pg: Page) -> int:
    return int(pg.get_attribute("#tour-pop", "data-step") or -1)


def wait_step(pg: Page, i: int) -> None:
    pg.wait_for_function("(i) => document.querySelector('#tour-pop').dataset.step === String(i)", arg=i)
    target = present.TOUR[i][0]
    assert pg.evaluate(  # the outlined element is the step's own
        "(sel) => { const t = document.querySelectorAll('.tour-target'); return t.length === 1 && t[0].matches(sel); }",
        target,
    ), target


def choose(pg: Page, label: str, option: str) -> None:
    pg.get_by_label(label, exact=True).click()
    pg.locator(f"li[role='option'][aria-label='{option}']").click()


def test_the_tour_completes_on_the_default_preset_by_performing_each_action(page: Page) -> None:
    page.evaluate("() => localStorage.clear()")
    page.click("#tour-btn")
    wait_step(page, 0)
    assert page.locator("#tour-pop").is_visible()
    page.locator("#inputs table[data-name=x] td[data-r='1'][data-c='0']").click()  # the page is not blocked
    page.locator("#inputs table.grid td input").fill("3")
    page.keyboard.press("Enter")
    wait_step(page, 1)  # noticed, moved on without a click on Next
    page.click("#tour-pop .tp-next")
    wait_step(page, 2)
    # leave and resume
    page.click("#tour-pop .tp-leave")
    assert page.locator("#tour-pop").is_hidden() and page.locator(".tour-target").count() == 0
    assert page.inner_text("#tour-btn") == f"Resume tour (3/{len(present.TOUR)})"
    page.click("#tour-btn")
    wait_step(page, 2)
    page.locator("#overview table[data-name=scores] td[data-r='1'][data-c='0']").click()
    wait_step(page, 3)
    page.click("#tour-pop .tp-next")
    wait_step(page, 4)
    choose(page, "scale", "off")
    wait_step(page, 5)
    choose(page, "mask", "causal")
    wait_step(page, 6)
    weights = {(c["r"], c["c"]): c["v"] for c in shown_cells(page, "weights")}
    assert weights[(0, 1)] == 0 and weights[(0, 2)] == 0 and weights[(1, 2)] == 0 and weights[(0, 0)] == 1
    page.click("#tour-pop .tp-next")
    wait_step(page, 7)
    box = page.get_by_label("heads", exact=True)
    box.click()
    box.press("Control+a")
    box.press_sequentially("2")
    box.press("Enter")  # a typed box applies on Enter (or on leaving it)
    wait_step(page, 8)
    assert page.locator("#overview [data-card=combine] td").count() > 0
    page.click("#tour-pop .tp-next")
    wait_step(page, 9)
    assert page.inner_text("#tour-pop .tp-next") == "Finish"
    page.click("#tour-pop .tp-next")
    page.wait_for_function("() => document.body.dataset.tour === 'done'")
    assert page.locator("#tour-pop").is_hidden() and page.inner_text("#tour-btn") == "Tour"
    assert page.evaluate("() => localStorage.getItem('attention-playground-tour')") is None


def focused(pg: Page) -> dict[str, str]:
    return pg.evaluate(
        """() => { const e = document.activeElement; const t = e.closest('table');
        return { tag: e.tagName, table: t ? t.dataset.name || '' : '', r: e.dataset.r ?? '',
                 c: e.dataset.c ?? '' }; }"""
    )


def tab_to(pg: Page, table: str, limit: int = 120) -> dict[str, str]:
    """Press Tab from the top of the page until a cell of ``table`` has the focus."""
    for _ in range(limit):
        pg.keyboard.press("Tab")
        f = focused(pg)
        if f["tag"] == "TD" and f["table"] == table:
            return f
    raise AssertionError(f"Tab never reached a cell of {table}; last focus {focused(pg)}")


def test_keyboard_only_editing_of_a_cell_and_explaining_a_number(page: Page) -> None:
    page.locator("body").focus()
    assert tab_to(page, "x") == {"tag": "TD", "table": "x", "r": "0", "c": "0"}
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowRight")
    assert focused(page)["r"] == "1" and focused(page)["c"] == "1"
    out = page.inner_text(OUT)
    page.keyboard.press("Enter")
    editor = page.locator("#inputs table.grid td input")
    assert editor.get_attribute("aria-label") == "X: encodings (editable) t2, d2"  # its row and column tokens
    page.keyboard.press("Control+a")
    page.keyboard.type("7")
    page.keyboard.press("Enter")
    page.wait_for_function("([s, b]) => document.querySelector(s).innerText !== b", arg=[OUT, out])
    assert page.inner_text("#inputs table[data-name=x] td[data-r='1'][data-c='1']").strip() == "7.0"  # (issue 37)
    # the read-only tables: one Tab stop each, arrows move, Enter explains
    assert tab_to(page, "q")["r"] == "0"
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowRight")
    assert focused(page) == {"tag": "TD", "table": "q", "r": "1", "c": "1"}
    page.keyboard.press("Enter")
    page.wait_for_function("() => document.querySelector('#explain').innerText.includes('q[2, 2]')")


def test_number_tables_carry_names_and_row_and_column_headers(page: Page) -> None:
    bad = page.evaluate(
        """() => { const bad = [];
        document.querySelectorAll('#bench table.nt, #bench table.grid, [id^=html-] table.nt').forEach((t) => {
          const name = t.dataset.name;
          if (!t.getAttribute('aria-label')) bad.push(name + ': no name');
          const rows = Array.from(t.querySelectorAll('tr'));
          const cols = rows[0].querySelectorAll('th[scope=col]').length;
          rows.slice(1).forEach((tr, i) => {
            const th = tr.querySelector('th[scope=row]');
            if (!th || !th.textContent.trim()) bad.push(`${name} row ${i}: no row header`);
            if (tr.querySelectorAll('td').length !== cols) bad.push(`${name} row ${i}: cells ≠ column headers`);
          }); });
        return bad; }"""
    )
    assert bad == []
    assert page.get_attribute("#inputs table[data-name=x]", "role") == "grid"


def serious(pg: Page) -> list[str]:
    """axe-core's serious and critical violations on the page as it is now."""
    found = Axe().run(pg).response["violations"]
    return [
        f"{v['impact']} {v['id']}: {[n['target'] for n in v['nodes'][:3]]}"
        for v in found
        if v["impact"] in ("serious", "critical")
    ]


def test_axe_finds_no_serious_or_critical_violation_on_the_main_views(page: Page) -> None:
    page.wait_for_timeout(1000)  # the footer and the heatmaps settle
    assert serious(page) == [], "on load"
    page.locator("#overview table[data-name=weights] td[data-r='1'][data-c='0']").click()
    page.wait_for_function("() => document.querySelector('#explain .ex-title')")
    assert serious(page) == [], "explain open"
    page.click("#present-btn")
    for _ in range(5):
        page.keyboard.press("ArrowRight")
    assert stage(page) == "weights"
    assert serious(page) == [], "present mode"
    page.keyboard.press("Escape")  # the explanation still open closes first, and present mode stays
    assert stage(page) == "weights"
    page.keyboard.press("Escape")  # then present mode leaves
    page.wait_for_function("() => !document.body.dataset.presentStage")
    page.click("#tour-btn")
    page.wait_for_selector("#tour-pop:not([hidden])")
    assert serious(page) == [], "tour"


def test_the_stage_and_step_texts_are_complete() -> None:
    stages = json.loads(present.stages_json())
    assert [s["key"] for s in stages] == ["inputs", "qkv", "rope", "kv_heads", "scores", "scaled", "masked", "window",
                                          "weights", "output", "kv_cache", "heads", "combine"]  # fmt: skip
    assert all(s["formula"] and s["words"] and s["cards"] for s in stages)
    steps = json.loads(present.tour_json())
    assert 8 <= len(steps) <= 12 and sum(bool(s["act"]) for s in steps) >= 4
    assert all(bool(s["act"]) == bool(s["check"]) for s in steps)
    scores = torch.zeros(2, 3)
    html = ov.present_cards(scores, scores, ["a", "b"], ["x", "y", "z"], lambda t, r, c, n: f"<table {n}>")
    assert "data-card='scaled'" in html and "data-card='masked'" in html and "2×3" in html


def test_the_heads_combined_stage_names_w_o_only_when_it_is_drawn() -> None:
    """Present mode's heads combined stage: concat(head_1, …, head_h) when there is no output projection, and
    ·W_o only with W_o's card drawn (present.js picks a stage's variant formula by the card it names), as the
    notebook's own combine step writes it (ui/render/step_cells.py)."""
    combine = next(st for st in json.loads(present.stages_json()) if st["key"] == "combine")
    assert combine["formula"] == "combined = concat(head<sub>1</sub>, …, head<sub>h</sub>)"
    assert combine["formulas"] == [["W_o", "combined = concat(head<sub>1</sub>, …, head<sub>h</sub>)·W<sub>o</sub>"]]
    assert "W_o" in combine["cards"]  # (the card whose presence picks the W_o formula is one the stage lights up)
