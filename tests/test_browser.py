"""End to end: launch playground.py and drive it in headless Debian Chromium through Playwright."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from browser import ROOT
from playwright.sync_api import Browser, Page

TIMEOUT = 20_000
PLOT_Z = "() => document.querySelector('#weights-fig canvas[data-kind=prob]').dataset.z"


@pytest.fixture
def page(browser: Browser, app_url: str) -> Iterator[Page]:
    """A fresh page of the worker's shared server (conftest), in the module's Chromium."""
    pg = browser.new_page(viewport={"width": 1400, "height": 1600})
    pg.set_default_timeout(TIMEOUT)
    pg.goto(app_url)
    pg.wait_for_selector("#html-output pre.tensor")
    pg.wait_for_function("() => document.querySelector('#weights-fig canvas[data-painted]')")
    yield pg
    pg.close()


def text(pg: Page, selector: str) -> str:
    """The element's text from the DOM (textContent): the notebook's cells skip layout until scrolled near
    (content-visibility: auto), and innerText reads nothing from a cell that was not laid out."""
    return pg.text_content(selector) or ""


def wait_text(pg: Page, selector: str, needle: str) -> None:
    pg.wait_for_function(
        "([s, n]) => { const e = document.querySelector(s); return e && e.textContent.includes(n); }",
        arg=[selector, needle],
    )


def wait_changed(pg: Page, selector: str, before: str) -> None:
    pg.wait_for_function("([s, b]) => document.querySelector(s).textContent !== b", arg=[selector, before])


def edit_cell(pg: Page, table: str, row: int, col: int, value: str) -> None:
    """Click one grid cell, type, commit with Enter (``col`` counts the row-label column, as tables show it)."""
    name = table.removesuffix("-input")
    pg.locator(f"#inputs table[data-name='{name}'] td[data-r='{row}'][data-c='{col - 1}']").click()
    editor = pg.locator("#inputs table.grid td input")
    editor.fill(value)  # replaces the old text
    editor.press("Enter")


def choose(pg: Page, label: str, option: str) -> None:
    """Pick an option of a toolbar dropdown by its label."""
    pg.get_by_label(label, exact=True).click()
    pg.locator(f"li[role='option'][aria-label='{option}']").click()


def choose_preset(pg: Page, title: str) -> None:
    pg.locator("#preset input").click()
    pg.locator(f"li[role='option'][aria-label='{title}']").click()


def test_two_presets_show_the_notebooks_printed_output(page: Page) -> None:
    wait_text(page, "#html-output", "tensor([[1.0100, 1.0641],\n        [0.2040, 0.7057],\n        [3.4989, 2.2427]])")
    wait_text(page, "#badge", "✓ matches")
    choose_preset(page, "StatQuest: masked self-attention, seed 42")
    wait_text(
        page, "#html-output", "tensor([[ 0.6038,  0.7434],\n        [-0.0062,  0.6072],\n        [ 3.4989,  2.2427]])"
    )
    wait_text(page, "#badge", "masked self-attention")
    assert "✓ matches" in text(page, "#badge")
    choose_preset(page, "Self-attention for Transformers: look-ahead mask M (numpy)")
    wait_text(page, "#html-output", "[-0.7244,  0.3167, -0.2657,  0.6183, -0.0062,  0.1369]")
    wait_text(page, "#html-masked table[data-name=masked]", "-inf")


def test_editing_one_encoding_cell_updates_q_heatmap_and_output(page: Page) -> None:
    q, out, z = text(page, "#html-qkv table[data-name=q]"), text(page, "#html-output pre.tensor"), page.evaluate(PLOT_Z)
    edit_cell(page, "x-input", 0, 1, "2.5")
    wait_changed(page, "#html-qkv table[data-name=q]", q)
    wait_changed(page, "#html-output pre.tensor", out)
    page.wait_for_function(f"(z) => ({PLOT_Z})() !== z", arg=z)
    wait_text(page, "#badge", "left the preset")
    shot = Path(os.environ.get("SCREENSHOT_PATH", ROOT / "artifacts" / "screenshot.png"))
    shot.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(shot))
    assert shot.stat().st_size > 10_000


def test_causal_mask_zeroes_the_weights_above_the_diagonal(page: Page) -> None:
    choose(page, "mask", "causal")
    page.wait_for_function(
        "() => [[0, 1], [0, 2], [1, 2]].every(([r, c]) => document.querySelector("
        "`#html-weights td[data-r='${r}'][data-c='${c}']`)?.textContent.trim().match(/^0\\.0+$/))"
    )  # (0.0 in its table's one format: 0.000000000, issue 37)
    assert float(text(page, "#html-weights td[data-r='1'][data-c='1']")) != 0.0
    wait_text(page, "#html-masked table[data-name=masked]", "-inf")


def test_text_in_a_cell_gets_a_message_and_the_app_still_answers(page: Page) -> None:
    out = text(page, "#html-output pre.tensor")
    edit_cell(page, "x-input", 1, 1, "abc")
    wait_text(page, "#message", "x row 2, column 1: 'abc' is not a number")
    assert text(page, "#html-output pre.tensor") == out  # last good views stay
    edit_cell(page, "x-input", 1, 1, "0.9")
    wait_changed(page, "#html-output pre.tensor", out)
    page.wait_for_function("() => !document.querySelector('#message').innerText.includes('abc')")


def test_clicking_a_score_cell_explains_it_and_follows_an_edit(page: Page) -> None:
    page.locator("#html-scores table[data-name=scores] td[data-r='0'][data-c='0']").click()
    wait_text(page, "#explain", "0.7621×(-0.1469) + (-0.0428)×(-0.3038)")  # 000's q_1 · k_1, term by term
    assert "= -0.0990" in text(page, "#explain") and "√d_k = √2" in text(page, "#explain")
    page.wait_for_selector("#html-scores td.pick[data-r='0'][data-c='0']")
    before = text(page, "#explain")
    edit_cell(page, "x-input", 0, 1, "2.0")  # x_1 changes, so q_1 and this score change
    wait_changed(page, "#explain", before)
    assert "scores[1, 1] = q_1 · k_1" in text(page, "#explain")
    page.locator("#html-weights table[data-name=weights] td[data-r='2'][data-c='1']").click()
    wait_text(page, "#explain", "◀ this cell")
    assert "sum = " in text(page, "#explain")
    shot = Path(os.environ.get("SCREENSHOT_DIR", ROOT / "artifacts")) / "explain.png"
    page.screenshot(path=str(shot))


def test_export_round_trip_and_a_scenario_file_upload(page: Page, tmp_path: Path) -> None:
    edit_cell(page, "x-input", 2, 2, "-1.5")
    wait_text(page, "#badge", "left the preset")
    shown = text(page, "#html-combine pre.tensor")
    page.locator("#share").get_by_text("Share · export").click()
    page.locator("#export-btn").click()
    page.wait_for_function("() => document.querySelectorAll('#downloads a').length === 3")
    hrefs = {Path(a.get_attribute("href")).name: a.get_attribute("href") for a in page.locator("#downloads a").all()}
    for name, href in hrefs.items():
        (tmp_path / name).write_bytes(page.request.get(href).body())
    run = subprocess.run([sys.executable, tmp_path / "attention.py"], capture_output=True, text=True, check=True)
    assert run.stdout.split("## combined\n")[1].strip() == shown  # the downloaded script prints what the page shows
    page.locator("#link-btn").click()
    page.wait_for_function("() => document.querySelector('#link textarea').value.includes('?scenario=')")
    link = page.locator("#link textarea").input_value()
    choose_preset(page, "StatQuest: masked self-attention, seed 42")
    wait_changed(page, "#html-combine pre.tensor", shown)
    with page.expect_file_chooser() as chooser:
        page.locator("#upload-btn").click()
    chooser.value.set_files(str(tmp_path / "scenario.json"))
    wait_text(page, "#html-combine pre.tensor", shown)  # the uploaded file restores the edited state
    page.goto(link)  # and so does the link
    wait_text(page, "#html-combine pre.tensor", shown)
    wait_text(page, "#badge", "left the preset")


def test_mask_lab_shows_nan_against_uniform_and_the_apps_answer(page: Page) -> None:
    page.get_by_role("tab", name="Mask lab").click()  # a plain causal mask first, its masks written 1 and 0
    wait_text(page, "#mask-lab-out", "in every row that sees a key, the three fills give exactly the same weights")
    causal = [text(page, f"#mask-lab-out table[data-name='mask-causal'] td[data-c='{c}'][data-r='0']") for c in (0, 1)]
    assert [t.strip() for t in causal] == ["1", "0"]
    rows = page.get_by_label("hide every key from query rows (e.g. 1)")
    rows.click()
    rows.press_sequentially("1", delay=80)
    wait_text(page, "#mask-lab-out", "softmax gives NaN (0/0); the app shows 0")
    assert "uniform 1/3" in text(page, "#mask-lab-out")
    assert text(page, "#mask-lab-out table[data-name='lab-raw-inf'] td[data-r='0'][data-c='0']").strip() == "nan"
    assert text(page, "#mask-lab-out table[data-name='lab-raw-1e9'] td[data-r='0'][data-c='0']").strip() != "nan"
    rows.press("End")
    rows.press("Backspace")  # typing fires gradio's input event; fill() alone does not
    wait_text(page, "#mask-lab-out", "in every row that sees a key, the three fills give exactly the same weights")


def test_scaling_lab_slider_shows_saturation_at_large_d_k(page: Page) -> None:
    page.get_by_role("tab", name="Scaling lab").click()
    page.wait_for_selector("#scaling-fig .js-plotly-plot")
    wait_text(page, "#scaling-words", "At d_k = 64")
    box = page.locator("#lab-dk input[type=number]")
    box.fill("512")
    box.press("Enter")
    wait_text(page, "#scaling-words", "At d_k = 512")
    assert "saturated" in text(page, "#scaling-words")
    n = page.evaluate("() => document.querySelector('#scaling-fig .js-plotly-plot').data.length")
    assert n == 8


def test_sentence_mode_tokens_then_trainable_attention_with_token_labels(page: Page) -> None:
    page.get_by_role("tab", name="Sentence mode").click()
    wait_text(page, "#sentence-tokens", "11 tokens, vocabulary of 7")
    field = page.locator("#sentence-text textarea")
    field.fill("the cat sa")
    field.press_sequentially("t")
    field.press("Enter")  # the sentence applies on Enter (or on leaving the box), never per keystroke
    wait_text(page, "#sentence-tokens", "5 tokens, vocabulary of 4")
    field.press("Backspace")  # a deletion applies too
    field.press("Enter")
    wait_text(page, "#sentence-tokens", "=2, the=3")
    field.press_sequentially("t")
    field.press("Enter")
    page.wait_for_selector("#sentence-out table[data-name='sent-softmax']")
    page.locator("#sent-go").click()
    wait_text(page, "#html-weights table[data-name=weights]", "sat")  # the sentence's tokens label every table
    wait_text(page, "#badge", "Free play")
    rows = page.evaluate(
        "() => JSON.parse(document.querySelector('#weights-fig canvas[data-kind=prob]').dataset.meta).rows"
    )
    assert rows == ["1:the", "2:␣", "3:cat", "4:␣", "5:sat"]


def test_multi_head_view_shows_every_head_side_by_side(page: Page) -> None:
    choose_preset(page, "Encoder-decoder multi-head attention, 2 heads, seed 42")
    wait_text(page, "#html-combine", "torch.cat(dim=-1) → (L, H·d) = (3, 4)")
    page.wait_for_function("() => document.querySelectorAll('#heads-fig canvas[data-painted]').length === 2")
    titles = page.evaluate("() => Array.from(document.querySelectorAll('#heads-fig figcaption')).map(f => f.innerText)")
    assert titles == ["head 1", "head 2"]
    z = page.evaluate(
        """() => Array.from(document.querySelectorAll('#heads-fig canvas')).map((cv) => {
        const b = Uint8Array.from(atob(cv.dataset.z), (c) => c.charCodeAt(0)); const px = cv.getContext('2d')
          .getImageData(0, 0, cv.width, cv.height).data; return [Array.from(b), px[3]]; })"""
    )
    for codes, alpha in z:  # 3×3 weights, one byte each (254 = weight 1): every row sums to 1, and it was painted
        assert len(codes) == 9 and alpha == 255
        assert all(abs(sum(codes[3 * r : 3 * r + 3]) - 254) <= 2 for r in range(3))
