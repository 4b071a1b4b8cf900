"""One format a table, and one reading a cell (issue 37, item 4), in real Chromium, typed as a learner types.

A number typed into the X grid reads at once as every redraw of the grid writes it (3 -> 3.0), before and after a
structural change redraws the grids; the mask lab's tables each write their numbers in one format."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from browser import open_page, settled
from playwright.sync_api import Browser, Page
from test_journey_truth import TYPE_DELAY, open_more, rows_shown, type_in
from test_table_formats import number_format

CELL = "#inputs table[data-name=x] td[data-r='1'][data-c='0']"
OUT = "#overview table[data-name=output]"


@pytest.fixture
def page(browser: Browser, app_url: str) -> Iterator[Page]:
    pg = open_page(browser, app_url, events=True)
    yield pg
    pg.close()


def cell_text(pg: Page) -> str:
    return (pg.text_content(CELL) or "").strip()


def test_a_typed_3_reads_3_0_at_once_and_after_the_grids_are_redrawn(page: Page) -> None:
    """x[t2, d1] typed as 3 + Enter reads 3.0 when committed, and still 3.0 after T 3 -> 4 -> 3 redraws the grids.
    (Seen failing before grid.js wrote the committed value as the server's grids do: '3' then '3.0'.)"""
    out = page.inner_text(OUT)
    page.locator(CELL).click()
    editor = page.locator("#inputs table.grid td input")
    editor.press("Control+a")
    editor.press_sequentially("3", delay=TYPE_DELAY)
    page.wait_for_function("() => document.querySelector('#inputs table.grid td input')?.value === '3'")
    editor.press("Enter")
    page.wait_for_function("([s, b]) => document.querySelector(s).innerText !== b", arg=[OUT, out])
    settled(page)
    committed = cell_text(page)
    assert committed == "3.0"
    open_more(page)
    type_in(page, "T (query tokens)", "4")
    rows_shown(page, "x", 4)
    settled(page)
    assert cell_text(page) == committed  # the grids redrawn by the server
    type_in(page, "T (query tokens)", "3", key="Tab")
    rows_shown(page, "x", 3)
    settled(page)
    assert cell_text(page) == committed


def test_the_mask_labs_tables_each_write_one_format(page: Page) -> None:
    """Every table of the Mask lab's tab, as shown, writes its numbers in one format (the same decimals, or all
    scientific). (Seen failing before: '1.0' beside '0.36060232' in the softmax tables.)"""
    page.get_by_role("tab", name="Mask lab").click()
    page.wait_for_selector("#mask-lab-out table[data-name=lab-raw-inf] td[data-r]")
    tables = page.evaluate(
        """() => [...document.querySelectorAll('#mask-lab-out table')].map((t) => [t.dataset.name,
            [...t.querySelectorAll('td[data-r]')].map((td) => td.textContent.trim())])"""
    )
    assert len(tables) == 13
    mixed = {name: sorted({f for f in map(number_format, cells) if f}) for name, cells in tables}
    mixed = {name: formats for name, formats in mixed.items() if len(formats) > 1}
    assert not mixed, mixed
    assert any((number_format(c) or ("", 0))[1] > 4 for _, cells in tables for c in cells)  # (the numbers were read)
