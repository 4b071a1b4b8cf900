"""The variant steps' own numbers are explained (issue 37, item 10): with the causal mask and KV-cache decoding
ticked through the page's controls, a "KV cache size" number of the overview says what the cache holds after that
step, and a cell of present mode's KV-cache stage (token t's weights over the cache) says what that decode step is:
token t's query reads the cached K and V rows 1..t, the cache grew by one row, and the row equals the full causal
attention's row t, with that cell's number; with RoPE on, a "q before RoPE" number is its projection. Each number
on the card is checked against torch (compute()'s q and k, softmax by the formula; x · W_q from the grids)."""

from __future__ import annotations

import math
import re
from collections.abc import Iterator

import pytest
import torch
from browser import open_page, settled
from playwright.sync_api import Browser, Page
from test_journey_random import choose, choose_in_more, shown_state, tick

import attention_core as ac

TITLE = "() => document.querySelector('#explain .ex-title')?.textContent ?? ''"


@pytest.fixture
def page(browser: Browser, app_url: str) -> Iterator[Page]:
    pg = open_page(browser, app_url, events=True)
    yield pg
    pg.close()


def explained(pg: Page, cell: str, title: str) -> list[str]:
    """Click ``cell`` as a learner does and wait for the card titled ``title``: its lines."""
    pg.locator(cell).click()
    pg.wait_for_function(f"(t) => ({TITLE})().startsWith(t)", arg=title)
    settled(pg)
    assert pg.locator("#explain .ex-title").is_visible()
    return [line.strip() for line in pg.locator("#explain .ex-line").all_inner_texts()]


def causal_weights() -> torch.Tensor:
    """statquest-self's weights (T, T) with the causal mask, from compute()'s q and k by the formula in torch."""
    sc = {**ac.get_preset("statquest-self").scenario, "mask": {"kind": "causal"}}
    head = ac.compute(sc)["heads"][0]
    q, k = torch.tensor(head["q"], dtype=torch.float64), torch.tensor(head["k"], dtype=torch.float64)
    t = q.shape[0]
    causal = torch.ones(t, t, dtype=torch.bool).tril()
    return torch.softmax((q @ k.T / math.sqrt(q.shape[-1])).masked_fill(~causal, float("-inf")), dim=-1)


def test_a_decode_step_the_cache_size_and_q_before_rope_explain_themselves(page: Page) -> None:
    choose(page, "mask", "causal")
    settled(page)
    tick(page, "KV-cache decoding")
    page.wait_for_selector("#overview table[data-name=cache] td[data-r]", state="attached")
    settled(page)
    page.locator("#more button.label-wrap").click()  # (the drawer closed again, as a learner leaves it)

    lines = explained(page, "#overview table[data-name=cache] td[data-r='1'][data-c='0']", "KV cache size after step 2")
    assert "the K and V rows of tokens 1, 2" in lines[1] and lines[2].endswith(": 2 rows"), lines

    page.click("#present-btn")
    page.wait_for_selector("#present-panel:not([hidden])")
    for _ in range(12):  # → through the stages to the KV cache's (at token 1), then once more: token 2
        if page.evaluate("() => document.body.dataset.presentStage") == "kv_cache":
            break
        page.keyboard.press("ArrowRight")
        page.wait_for_timeout(150)
    assert page.evaluate("() => document.body.dataset.presentStage") == "kv_cache"
    page.keyboard.press("ArrowRight")
    cell = "#bench [data-card=kv_step] table[data-name=kv_row] td[data-r='1'][data-c='0']"
    page.wait_for_selector(cell, state="visible")
    lines = explained(page, cell, "KV-cache decode step 2, key 1")
    want = causal_weights()
    assert "token 2 comes; its k and v join the cache as one more row, so the cache grows to 2 rows" in lines[1]
    assert "query q_2 reads only the cached K and V rows 1..2" in lines[2], lines
    got = float(re.search(r"key 1 \(cached\): weight (-?[0-9.]+)", lines[3]).group(1))
    assert abs(got - float(want[1, 0])) <= 5e-5, (got, float(want[1, 0]))  # (4 decimals shown)
    assert f"row 2, column 1 is {got:.4f}: the same row, equal" in lines[4], lines[4]
    page.keyboard.press("Escape")  # the card, then present mode
    page.keyboard.press("Escape")
    page.wait_for_selector("#present-panel", state="hidden")

    choose_in_more(page, "positions", "RoPE (turns q, k)")
    settled(page)
    page.locator("#more button.label-wrap").click()
    grids = shown_state(page)["grids"]
    x = torch.tensor([[float(c) for c in row] for _, row in grids["x"]], dtype=torch.float64)
    w_q = torch.tensor([[float(c) for c in row] for _, row in grids["W_q"]], dtype=torch.float64)  # out×in
    lines = explained(page, "#overview table[data-name=q_before] td[data-r='1'][data-c='0']", "q before RoPE[2, 1]")
    got = float(re.search(r"= (-?[0-9.]+)$", lines[-2]).group(1))
    assert abs(got - float((x @ w_q.T)[1, 0])) <= 5e-5, (lines, float((x @ w_q.T)[1, 0]))  # nn.Linear: x @ W.T
    assert lines[-1].startswith("RoPE then turns this row"), lines


def test_the_notebooks_decode_table_explains_its_cells(page: Page) -> None:
    """The notebook view's KV-cache table (under the output's step), clicked and keyed as a learner does: a weight
    (step 2, key 1) explains its decode step with compute()'s number, a '·' (step 1, key 3) says key 3 is not cached
    yet, a 'cached' count explains the cache's size, and Enter on a weight reached by the arrow keys explains it
    too (the table's Tab stop, ArrowDown twice, ArrowRight). (Seen failing before: its cells were plain, a click opened
    no card.)"""
    choose(page, "mask", "causal")
    settled(page)
    tick(page, "KV-cache decoding")
    table = "#html-output table.md-cache"
    weight = f"{table} td:not([data-name])"  # (a step's weights; its count is the cache's: td[data-name=cache])
    page.wait_for_selector(table, state="attached")
    settled(page)
    page.locator("#more button.label-wrap").click()  # (the drawer closed again)
    page.locator(table).scroll_into_view_if_needed()
    want = causal_weights()

    lines = explained(page, f"{weight}[data-r='1'][data-c='0']", "KV-cache decode step 2, key 1")
    got = float(re.search(r"key 1 \(cached\): weight (-?[0-9.]+)", lines[3]).group(1))
    assert abs(got - float(want[1, 0])) <= 5e-5, (got, float(want[1, 0]))
    shown = page.locator(f"{weight}[data-r='1'][data-c='0']").inner_text()
    assert abs(float(shown) - float(want[1, 0])) <= 5e-5, shown  # (what the cell itself shows)
    page.keyboard.press("Escape")  # (the card lies beside the number, over its neighbours: closed, as a learner does)
    lines = explained(page, f"{weight}[data-r='0'][data-c='2']", "KV-cache decode step 1, key 3")
    assert page.locator(f"{weight}[data-r='0'][data-c='2']").inner_text() == "·"
    assert "key 3 is not in the cache at this step: weight 0" in lines[3], lines
    page.keyboard.press("Escape")
    lines = explained(page, f"{table} td[data-name=cache][data-r='2']", "KV cache size after step 3")
    assert lines[2].endswith(": 3 rows"), lines

    page.keyboard.press("Escape")
    stop = page.locator(f"{table} td[tabindex='0']")  # the table's one Tab stop (a11y.js): step 1, key 1
    assert (stop.get_attribute("data-r"), stop.get_attribute("data-c")) == ("0", "0")
    stop.focus()
    for key in ("ArrowDown", "ArrowDown", "ArrowRight", "Enter"):  # to key 2 of step 3, then explained
        page.keyboard.press(key)
    page.wait_for_function(f"(t) => ({TITLE})().startsWith(t)", arg="KV-cache decode step 3, key 2")
    settled(page)
    text = page.locator("#explain").inner_text()
    got = float(re.search(r"key 2 \(cached\): weight (-?[0-9.]+)", text).group(1))
    assert abs(got - float(want[2, 1])) <= 5e-5, (got, float(want[2, 1]))
