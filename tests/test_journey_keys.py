"""The keyboard keeps its place (issue 37): a dropdown's option chosen with the keys leaves the focus on that
dropdown, not on <body>, and Tab from the preset box goes to the next control, with no stray stop between."""

from __future__ import annotations

from browser import open_page
from playwright.sync_api import Browser

FOCUS = """() => { const e = document.activeElement;
  return {tag: e.tagName, label: e.getAttribute('aria-label') || '', id: e.id || e.closest('[id]')?.id || ''}; }"""


def test_a_dropdown_chosen_by_keyboard_keeps_the_focus_and_tab_goes_on(browser: Browser, app_url: str) -> None:
    pg = open_page(browser, app_url)
    try:
        pg.get_by_label("Preset (notebook example)").focus()
        pg.keyboard.press("Tab")
        after_preset = pg.evaluate(FOCUS)
        assert after_preset["tag"] not in ("BODY", "UL"), after_preset  # (it was the option list, then <body>)
        pg.get_by_label("mask", exact=True).focus()
        pg.keyboard.press("ArrowDown")
        pg.keyboard.press("ArrowDown")
        pg.keyboard.press("Enter")
        pg.wait_for_function("() => document.querySelector('#tb-padding textarea, #tb-padding input')")
        # (the focus comes back a frame after gradio's blur)
        pg.wait_for_function(f"() => ({FOCUS})().label === 'mask'", timeout=5_000)
        assert pg.evaluate(FOCUS)["label"] == "mask", pg.evaluate(FOCUS)
        assert pg.get_by_label("mask", exact=True).input_value() == "padding"
        weights = "#overview table[data-name=weights] td[data-c='2']"  # padding hides the last key from every query
        pg.wait_for_function(
            f"() => [...document.querySelectorAll(\"{weights}\")].every((td) => td.textContent === '0.0000')"
        )
        pg.keyboard.press("Tab")
        assert pg.evaluate(FOCUS)["id"] == "tb-padding", pg.evaluate(FOCUS)
    finally:
        pg.close()
