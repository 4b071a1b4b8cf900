"""Screenshots of the teaching layer into docs/teaching/: python benchmarks/teaching_screens.py (Debian's chromium).

Present mode at 1280×720 (the inputs, the scores, the weights), one tour step, present mode on a 390×844 phone.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from harness import CHROMIUM_ARGS, LOADED, chromium_path, serve  # noqa: E402
from playwright.sync_api import Browser, Page, sync_playwright  # noqa: E402

OUT = ROOT / "docs" / "teaching"


def opened(b: Browser, url: str, width: int = 1280, height: int = 720) -> Page:
    pg = b.new_page(viewport={"width": width, "height": height})
    pg.set_default_timeout(30_000)
    pg.goto(url)
    pg.wait_for_selector("#overview table[data-name=output] td[data-r]", state="attached")
    pg.wait_for_function(LOADED)
    return pg


def shot(pg: Page, name: str, presses: list[str]) -> None:
    for key in presses:
        pg.keyboard.press(key)
    pg.wait_for_timeout(500)
    pg.screenshot(path=str(OUT / f"{name}.png"))
    print("wrote", OUT / f"{name}.png")


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    with serve() as url, sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        pg = opened(b, url + "?present=1")
        pg.wait_for_selector("#present-panel:not([hidden])")
        shot(pg, "present-inputs", [])
        shot(pg, "present-scores", ["ArrowRight", "ArrowRight"])
        shot(pg, "present-weights", [" ", " ", " "])
        pg.close()
        pg = opened(b, url)
        pg.evaluate("() => localStorage.clear()")
        pg.click("#tour-btn")
        shot(pg, "tour-step", [])
        pg.close()
        pg = opened(b, url + "?present=1", 390, 844)
        pg.wait_for_selector("#present-panel:not([hidden])")
        shot(pg, "present-phone", ["ArrowRight"])
        b.close()


if __name__ == "__main__":
    main()
