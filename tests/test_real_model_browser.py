"""The Real model tab in Chromium: type a sentence, open a head from the 6 × 12 grid, click a score and a q cell and
read the bias terms in the explanation, hide a token and watch the head respond."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import torch
from browser import CHROMIUM_ARGS, chromium_path, serve
from playwright.sync_api import Browser, Page, sync_playwright

from attention_core.teaching import real_model as rm

TIMEOUT = 90_000  # the first use loads transformers and the model on a shared CPU


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with serve() as url, sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        b.url = url  # type: ignore[attr-defined]
        yield b
        b.close()


def open_tab(browser: Browser, width: int = 1280, height: int = 720) -> Page:
    pg = browser.new_page(viewport={"width": 1280, "height": 720})  # a phone folds the tabs into a menu
    pg.set_default_timeout(TIMEOUT)
    pg.goto(browser.url)  # type: ignore[attr-defined]
    pg.wait_for_selector("#overview table[data-name=output] td[data-r]")
    pg.get_by_role("tab", name="Real model").click()
    pg.wait_for_selector("#rm-heads .rm-hm[data-layer='6'][data-head='12']")
    pg.set_viewport_size({"width": width, "height": height})
    return pg


def weights_row(pg: Page, row: int) -> list[float]:
    cells = pg.locator(f"#rm-weights table[data-name=weights] td[data-r='{row}']")
    return [float(t) for t in cells.all_inner_texts()]


def test_type_a_sentence_open_a_head_and_explain_with_bias_terms(browser: Browser, tmp_path: Path) -> None:
    pg = open_tab(browser)
    sentence = "Attention is all you need!"
    pg.locator("#rm-sentence textarea").fill(sentence)
    pg.locator("#rm-go").click()
    pg.wait_for_function("() => document.querySelector('#rm-tokens').innerText.includes('need')")
    assert pg.locator("#rm-tokens .rm-tok").count() == 8  # [CLS] attention is all you need ! [SEP]
    assert pg.locator("#rm-heads .rm-hm").count() == 72
    pg.locator("#rm-heads .rm-hm[data-layer='3'][data-head='7']").click()
    pg.wait_for_function("() => document.querySelector('#rm-title').innerText.includes('L3H7')")
    assert pg.locator("#rm-heads .rm-hm.sel").get_attribute("data-layer") == "3"
    assert "bias=True" in pg.locator("#rm-qkv").inner_text()
    fw = rm.forward(sentence)  # the page's numbers are the model's own weights, at the table's precision
    want = fw.attentions[2, 6]
    torch.testing.assert_close(torch.tensor(weights_row(pg, 1)), want[1], atol=6e-4, rtol=0)

    pg.locator("#rm-scores table[data-name=scores] td[data-r='2'][data-c='1']").click()
    pg.wait_for_function("() => document.querySelector('#rm-explain').innerText.includes('scores[3, 2]')")
    text = pg.locator("#rm-explain").inner_text()
    assert "q_3 = x_3 W_qᵀ + b_q" in text and "k_2 = x_2 W_kᵀ + b_k" in text and "√32" in text
    pg.locator("#rm-qkv table[data-name=q] td[data-r='1'][data-c='4']").click()
    pg.wait_for_function("() => document.querySelector('#rm-explain').innerText.includes('q[2, 5]')")
    assert "+ b_q[5]" in pg.locator("#rm-explain").inner_text()
    pg.screenshot(path=tmp_path / "real-model-1280.png")

    pg.locator("#rm-hide label", has_text="4 all").click()  # hide 'all' from every query, as padding
    pg.wait_for_function("() => document.querySelector('#rm-tokens .hid') !== null")
    pg.wait_for_function("() => document.querySelector('#rm-title').innerText.includes('hidden')")
    hidden = rm.forward(sentence, [i == 3 for i in range(8)]).attentions[2, 6]
    row = weights_row(pg, 1)
    assert row[3] == 0.0
    torch.testing.assert_close(torch.tensor(row), hidden[1], atol=6e-4, rtol=0)
    pg.close()


def test_bad_sentences_are_named_and_the_phone_layout_holds(browser: Browser, tmp_path: Path) -> None:
    pg = open_tab(browser, 390, 844)
    pg.locator("#rm-sentence textarea").fill("word " * 40)
    pg.locator("#rm-go").click()
    pg.wait_for_function("() => document.querySelector('#rm-message').innerText.includes('WordPiece tokens')")
    assert f"at most {rm.MAX_TOKENS}" in pg.locator("#rm-message").inner_text()
    assert pg.locator("#rm-heads .rm-hm").count() == 72  # the last good views stay
    pg.locator("#rm-sentence textarea").fill("The cat sat on the mat.")
    pg.locator("#rm-go").click()
    pg.wait_for_function("() => document.querySelector('#rm-tokens').innerText.includes('mat')")
    assert pg.evaluate("() => document.documentElement.scrollWidth <= innerWidth + 1")  # no page-wide sideways scroll
    pg.locator("#rm-heads").scroll_into_view_if_needed()
    pg.screenshot(path=tmp_path / "real-model-390.png")
    pg.close()
