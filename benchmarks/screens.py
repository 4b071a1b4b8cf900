"""One screenshot per feature, into docs/: python benchmarks/screens.py (needs Debian's chromium)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from harness import CHROMIUM_ARGS, LOADED, chromium_path, serve  # noqa: E402
from playwright.sync_api import Browser, Page, sync_playwright  # noqa: E402

DOCS = ROOT / "docs"


LLM_LINEAR = "LLMs from scratch: trainable self-attention (nn.Linear, seed 69)"
OUT = [DOCS]  # where shot() writes; --out replaces it


def shot(page: Page, name: str, selector: str | None = None) -> None:
    if selector:
        page.locator(selector).scroll_into_view_if_needed()
    page.wait_for_timeout(400)
    page.screenshot(path=str(OUT[0] / f"{name}.png"))
    print("wrote", OUT[0] / f"{name}.png")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", default=str(DOCS), help="folder for the PNGs (default: docs/)")
    OUT[0] = Path(ap.parse_args().out)
    OUT[0].mkdir(parents=True, exist_ok=True)
    with serve() as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        phone = browser.new_page(viewport={"width": 390, "height": 844})
        phone.goto(url)
        phone.wait_for_selector("#overview table[data-name=output] td")
        shot(phone, "phone")
        page = browser.new_page(viewport={"width": 1280, "height": 720})  # a laptop or a classroom projector
        page.goto(url)
        page.wait_for_selector("#overview table[data-name=output] td")
        page.wait_for_function(LOADED)
        shot(page, "screenshot")
        page.locator("#inputs table[data-name=x] td[data-r='1'][data-c='0']").click()
        page.locator("#inputs table.grid td input").fill("3")
        page.keyboard.press("Enter")
        page.wait_for_selector("#overview td.chg")
        page.wait_for_timeout(150)
        page.screenshot(path=str(OUT[0] / "change.png"))  # mid-flash: the cells this edit moved
        print("wrote", OUT[0] / "change.png")
        page.locator("#overview table[data-name=weights] td[data-r='2'][data-c='1']").click()
        page.wait_for_function("() => document.querySelector('#explain').innerText.includes('this cell')")
        shot(page, "explain")
        page.locator("#preset input").click()
        page.locator("li[role='option'][aria-label='Encoder-decoder multi-head attention, 2 heads, seed 42']").click()
        page.wait_for_function("() => document.querySelectorAll('#heads-fig canvas[data-painted]').length === 2")
        shot(page, "multi-head", "#heads-fig")
        page.get_by_role("tab", name="Mask lab").click()
        page.wait_for_selector("#mask-lab-out table")
        shot(page, "mask-lab", "#mask-lab-out h3 >> nth=1")
        page.get_by_role("tab", name="Scaling lab").click()
        page.wait_for_selector("#scaling-fig .js-plotly-plot")
        shot(page, "scaling-lab", "#scaling-words")
        page.get_by_role("tab", name="Sentence mode").click()
        page.wait_for_selector("#sentence-out table")
        shot(page, "sentence-mode", "#sentence-tokens")
        page.get_by_role("tab", name="Real model").click()  # the first use loads the model: seconds
        page.locator("#rm-heads .rm-hm[data-layer='3'][data-head='7']").click(timeout=120_000)
        page.wait_for_function("() => document.querySelector('#rm-title').innerText.includes('L3H7')")
        shot(page, "real-model", "#rm-tokens")
        page.get_by_role("tab", name="Workbench").click()
        page.locator("#share").get_by_text("Share · export").click()
        page.locator("#export-btn").click()
        page.locator("#link-btn").click()
        page.wait_for_function("() => document.querySelectorAll('#downloads a').length === 3")
        shot(page, "export", "#share")
        classroom_shots(browser, url)
        browser.close()


def classroom_shots(browser: Browser, url: str) -> None:
    """The first screen of an 11-token preset (003's nn.Linear head) and the custom mask with a key hidden."""
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    page.goto(url)
    page.wait_for_function(LOADED)
    page.locator("#preset input").click()
    page.locator(f"li[role='option'][aria-label='{LLM_LINEAR}']").click()
    page.wait_for_function("() => document.querySelectorAll('#overview table[data-name=output] tr').length === 12")
    page.wait_for_timeout(300)  # fit.js sizes the numbers to the screen after the views land
    shot(page, "eleven-tokens")
    page.goto(url)
    page.wait_for_function(LOADED)
    page.get_by_label("mask", exact=True).click()
    page.locator("li[role='option'][aria-label='custom']").click()
    box = page.locator("#inputs table[data-name=keep] td[data-r='0'][data-c='2'] input[type=checkbox]")
    box.wait_for()
    box.click()  # t1 may no longer look at t3
    page.wait_for_function("() => document.querySelector('#badge')?.innerText.includes('changed: mask')")
    page.wait_for_timeout(300)
    shot(page, "custom-mask")
    page.close()


if __name__ == "__main__":
    main()
