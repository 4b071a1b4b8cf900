"""Journeys in real Chromium through today's attention (issue 24), driven as a learner does, with clicks and keys:
load the Llama-style preset and read the rotated q and the output; turn a sliding window on and see the keys it
hides; set the kv heads and read the one shared K; a bad value in each new box is named and the views stay."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import torch
from browser import open_page
from playwright.sync_api import Browser, Page, expect

import attention_core as ac

OUT = "#overview table[data-name=output]"


@pytest.fixture
def page(browser: Browser, app_url: str) -> Iterator[Page]:
    pg = open_page(browser, app_url)
    yield pg
    pg.close()


def pick_option(pg: Page, label: str, option: str) -> None:
    """Open the dropdown labelled ``label`` and click ``option``, as a learner does."""
    pg.get_by_label(label, exact=True).click()
    pg.get_by_role("option", name=option, exact=True).click()


def open_drawer(pg: Page) -> None:
    pg.locator("#more").get_by_text("More settings").click()
    pg.get_by_label("window (0 = off)", exact=True).wait_for()


def type_number(pg: Page, label: str, value: str) -> None:
    box = pg.get_by_label(label, exact=True)
    box.click()
    box.press("Control+a")
    box.press_sequentially(value)
    box.press("Enter")  # a typed box applies on Enter (or on leaving it), never per keystroke


def changed(pg: Page, selector: str, before: str) -> None:
    pg.wait_for_function(
        "([s, b]) => { const e = document.querySelector(s); return !!e && e.innerText !== b; }", arg=[selector, before]
    )


def numbers(pg: Page, selector: str) -> dict[tuple[int, int], float]:
    """An exact-number table's cells by (row, col), read as the page writes them."""
    cells = pg.evaluate(
        """(s) => Array.from(document.querySelectorAll(s + ' td[data-r]'))
            .map((td) => [+td.dataset.r, +td.dataset.c, td.title || td.textContent])""",
        selector,
    )
    return {(r, c): float(v) for r, c, v in cells}


def as_tensor(cells: dict[tuple[int, int], float]) -> torch.Tensor:
    n_r, n_c = max(r for r, _ in cells) + 1, max(c for _, c in cells) + 1
    return torch.tensor([[cells[(r, c)] for c in range(n_c)] for r in range(n_r)], dtype=torch.float64)


def test_the_llama_preset_shows_q_turned_by_rope_and_the_output(page: Page) -> None:
    title = next(p.title for p in ac.decoder_presets() if p.id == "llama-style")
    before = page.inner_text(OUT)
    pick_option(page, "Preset (notebook example)", title)
    changed(page, OUT, before)
    assert "today's attention" in page.inner_text("#badge")
    r = ac.compute(ac.get_preset("llama-style").scenario)
    q_after = torch.tensor(r["rope"]["q_after"][0], dtype=torch.float64)
    q_before = torch.tensor(r["rope"]["q_before"][0], dtype=torch.float64)
    shown = "#html-qkv table[data-name=q_after]"
    page.wait_for_function(  # the notebook's RoPE cell, scrolled to (its steps are laid out once seen)
        "(s) => { const t = document.querySelector(s); t.scrollIntoView({ block: 'center' }); return !!t.innerText; }",
        arg=shown,
    )
    torch.testing.assert_close(as_tensor(numbers(page, shown)), q_after, atol=5e-5, rtol=0)  # as printed, 4 places
    torch.testing.assert_close(as_tensor(numbers(page, "#overview table[data-name=q]")), q_after, atol=5e-5, rtol=0)
    torch.testing.assert_close(as_tensor(numbers(page, "#overview table[data-name=q_before]")), q_before, atol=5e-5,
                               rtol=0)  # fmt: skip
    want = torch.tensor(r["heads"][0]["output"], dtype=torch.float64)
    torch.testing.assert_close(as_tensor(numbers(page, OUT)), want, atol=5e-5, rtol=0)
    assert "kv head 1, shared" in page.inner_text("#overview [data-card=k]")
    # clicking a rotated q explains the turn, pair by pair
    page.locator("#overview table[data-name=q] td[data-r='2'][data-c='0']").click()
    page.wait_for_function("() => document.querySelector('#explain').innerText.includes('RoPE turns')")
    assert "position 2" in page.inner_text("#explain")


def test_a_sliding_window_hides_the_keys_behind_it(browser: Browser, app_url: str) -> None:
    pg = open_page(browser, f"{app_url}?preset=statquest-masked")
    try:
        w = numbers(pg, "#overview table[data-name=weights]")
        assert w[(2, 0)] > 0  # causal alone: t3 sees t1
        open_drawer(pg)
        before = pg.inner_text(OUT)
        type_number(pg, "window (0 = off)", "2")
        changed(pg, OUT, before)
        w = numbers(pg, "#overview table[data-name=weights]")
        assert w[(2, 0)] == 0 and w[(2, 1)] > 0 and w[(2, 2)] > 0 and w[(1, 0)] > 0  # t1 is behind t3's window
        assert "+ window 2" in pg.inner_text("#overview")
        pg.keyboard.press("Escape")
        pg.wait_for_function(  # the notebook's steps are laid out once scrolled to
            """() => { const e = document.querySelector('#html-masked'); e.scrollIntoView({ block: 'center' });
              return e.innerText.includes('sliding window: 2') && e.innerText.includes('the 1 key(s) before it'); }"""
        )
    finally:
        pg.close()


def test_one_kv_head_is_shared_by_both_heads_until_each_gets_its_own(browser: Browser, app_url: str) -> None:
    pg = open_page(browser, f"{app_url}?preset=llama-style")
    try:
        k_head1 = numbers(pg, "#overview table[data-name=k]")
        assert "kv head 1, shared" in pg.inner_text("#overview [data-card=k]")
        before = pg.inner_text(OUT)
        type_number(pg, "head shown", "2")
        changed(pg, OUT, before)
        assert "head 2 of 2" in pg.inner_text("#overview")
        assert numbers(pg, "#overview table[data-name=k]") == k_head1  # multi-query: one K for both heads
        r = ac.compute(ac.get_preset("llama-style").scenario)
        torch.testing.assert_close(as_tensor(k_head1), torch.tensor(r["kv"][0]["k"], dtype=torch.float64),
                                   atol=5e-5, rtol=0)  # fmt: skip
        open_drawer(pg)
        before = pg.inner_text("#overview [data-card=k]")
        type_number(pg, "kv heads (K, V shared)", "2")
        changed(pg, "#overview [data-card=k]", before)
        assert "shared" not in pg.inner_text("#overview [data-card=k]")  # head 2 has its own K now
        assert numbers(pg, "#overview table[data-name=k]") != k_head1
        assert "kv heads" in pg.inner_text("#badge")  # the preset was left, and the badge says how, in words
    finally:
        pg.close()


@pytest.mark.parametrize(
    ("label", "value", "named"),
    [
        ("kv heads (K, V shared)", "3", "kv heads: kv heads 3 does not divide heads 2"),
        ("window (0 = off)", "-1", "window: -1 is out of range"),
        ("tile B_r", "99", "tile B_r: 99 is out of range 0..64 (0 is off)"),  # 9 first: "9 is out of range 1..5"
        ("tile B_c", "-2", "tile B_c: -2 is out of range"),
        ("RoPE base", "0", "RoPE base: 0 must be above 0"),
    ],
)
def test_a_bad_value_in_a_modern_box_is_named_and_the_views_stay(
    browser: Browser, app_url: str, label: str, value: str, named: str
) -> None:
    pg = open_page(browser, f"{app_url}?preset=llama-style")
    try:
        out = pg.inner_text(OUT)
        open_drawer(pg)
        in_force = pg.get_by_label(label, exact=True).input_value()
        type_number(pg, label, value)
        pg.wait_for_function("(n) => document.querySelector('#message').innerText.includes(n)", arg=named)
        assert pg.inner_text(OUT) == out  # the last good views stay
        # and the box shows the value they use again, never one they do not (issue 37)
        expect(pg.get_by_label(label, exact=True)).to_have_value(in_force)
    finally:
        pg.close()


def test_present_mode_speaks_of_the_variants_that_are_on(page: Page) -> None:
    """Present mode on the Mistral-style preset (RoPE, a window of 3): the Q, K, V stage lights q before RoPE and
    says what RoPE does, the mask stage names the window; ALiBi, tiles and the cache are off, so no word of them."""
    title = next(p.title for p in ac.decoder_presets() if p.id == "mistral-style")
    before = page.inner_text(OUT)
    pick_option(page, "Preset (notebook example)", title)
    changed(page, OUT, before)
    page.click("#present-btn")
    page.wait_for_selector("#present-panel:not([hidden])")
    said = {}
    for _ in range(9):  # inputs, qkv, rope, scores, scaled, masked, window, weights, output
        key = page.evaluate("() => document.body.dataset.presentStage")
        said[key] = page.inner_text("#present-panel .pp-words")
        page.keyboard.press("ArrowRight")
    assert list(said)[-1] == "output", said
    assert "RoPE" in said["qkv"] and "RoPE" not in said["inputs"]
    assert page.locator("#bench [data-card=q_before]").count() == 1
    assert "sliding window" in said["masked"] and "window" not in said["scaled"]
    assert "ALiBi" not in said["scores"] and "FlashAttention" not in said["weights"]
    assert "cache" not in said["output"]
    # back on the default preset no stage speaks of a variant
    page.keyboard.press("Escape")
    before = page.inner_text(OUT)
    pick_option(page, "Preset (notebook example)", ac.get_preset("statquest-self").title)
    changed(page, OUT, before)
    page.click("#present-btn")
    page.wait_for_selector("#present-panel:not([hidden])")
    page.keyboard.press("ArrowRight")
    assert "RoPE" not in page.inner_text("#present-panel .pp-words")
