"""Screenshots of "Quiz me", "Pin and compare" and the Train tab at 1280×720 and 390×844:
python benchmarks/learn_screens.py --out /tmp/shots (needs Debian's chromium)."""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from harness import CHROMIUM_ARGS, chromium_path, serve  # noqa: E402
from playwright.sync_api import Page, sync_playwright  # noqa: E402

SIZES = {"laptop": (1280, 720), "phone": (390, 844)}


def shot(pg: Page, out: Path, name: str, selector: str) -> None:
    pg.locator(selector).scroll_into_view_if_needed()
    pg.wait_for_timeout(400)
    pg.screenshot(path=str(out / f"{name}.png"))
    print("wrote", out / f"{name}.png")


def quiz(pg: Page, out: Path, tag: str) -> None:
    pg.locator("#quiz-box").get_by_text("Quiz me").click()
    pg.locator("#quiz-new").click()
    pg.wait_for_selector("#quiz-q .quiz-q[data-index]")
    shot(pg, out, f"quiz-question-{tag}", "#quiz-box")
    prompt = pg.locator("#quiz-q .quiz-q").inner_text()
    answer = "t9" if re.search(r"Which key", prompt) else "0.5"  # a wrong answer, to show the arithmetic
    pg.locator("#quiz-answer textarea, #quiz-answer input").first.fill(answer)
    pg.locator("#quiz-check").click()
    pg.wait_for_selector("#quiz-feedback [data-correct], #quiz-feedback .msg-error")
    shot(pg, out, f"quiz-feedback-{tag}", "#quiz-feedback")


def compare(pg: Page, out: Path, tag: str) -> None:
    pg.locator("#compare-box").get_by_text("Pin and compare").click()
    pg.locator("#pin-btn").click()
    pg.wait_for_selector("#compare .cmp-summary")
    pg.locator("#inputs table[data-name=x] td[data-r='1'][data-c='0']").click()
    pg.locator("#inputs table.grid td input").fill("3")
    pg.keyboard.press("Enter")
    pg.wait_for_function("() => !document.querySelector('#compare .cmp-summary').innerText.includes('nothing')")
    shot(pg, out, f"compare-{tag}", "#compare .cmp-summary")


def training(pg: Page, out: Path, tag: str) -> None:
    tab = pg.get_by_role("tab", name="Train")
    if tab.is_visible():
        tab.click()
    else:  # a phone: the last tabs sit in gradio's overflow menu
        pg.locator(".overflow-menu button").first.click()
        pg.locator(".overflow-dropdown button", has_text="Train").click()
    pg.wait_for_selector("#train-status .train-status")
    pg.locator("#train-run").click()
    pg.wait_for_selector("#train-status .train-status[data-step='50']", timeout=120_000)
    shot(pg, out, f"train-{tag}", "#train-status")
    shot(pg, out, f"train-heat-{tag}", "#train-heat")


STEPS = [quiz, compare, training]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", default=str(ROOT / "docs"))
    ap.add_argument("--only", choices=[f.__name__ for f in STEPS], help="one feature only")
    a = ap.parse_args()
    out = Path(a.out)
    STEPS[:] = [f for f in STEPS if a.only in (None, f.__name__)]
    out.mkdir(parents=True, exist_ok=True)
    with serve() as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        for tag, (w, h) in SIZES.items():
            for step in STEPS:
                pg = browser.new_page(viewport={"width": w, "height": h})
                pg.set_default_timeout(30_000)
                pg.goto(url)
                pg.wait_for_selector("#overview table[data-name=output] td")
                step(pg, out, tag)
                pg.close()
        browser.close()


if __name__ == "__main__":
    main()
