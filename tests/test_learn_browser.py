"""Learn by doing in real Chromium: answer a question right and wrong; pin, edit, see the change; train and watch."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from browser import LOADED
from playwright.sync_api import Browser, Page

import attention_core as ac
from attention_core.teaching import train

TIMEOUT = 30_000
OUT = "#overview table[data-name=output]"


@pytest.fixture
def page(browser: Browser, app_url: str) -> Iterator[Page]:
    pg = browser.new_page(viewport={"width": 1280, "height": 720})
    pg.set_default_timeout(TIMEOUT)
    pg.goto(app_url)
    pg.wait_for_selector(f"{OUT} td[data-r]")
    pg.wait_for_function(LOADED)
    yield pg
    pg.close()


def preset_weights() -> list[list[float]]:
    """The default preset's attention weights, from the core (not from the page)."""
    return ac.evaluate(ac.parse(ac.get_preset("statquest-self").scenario)).head(0)["weights"].tolist()


def ask_weight(pg: Page) -> tuple[int, int, float]:
    """Wait for a weights question; (row, col) 0-based from its prompt, and the exact value."""
    pg.wait_for_selector("#quiz-q .quiz-q[data-step=weights]")
    prompt = pg.locator("#quiz-q .quiz-q").inner_text()
    i, j = (int(n) - 1 for n in re.search(r"weights\[(\d+), (\d+)\]", prompt).groups())
    return i, j, preset_weights()[i][j]


SEEN_JS = """() => { window.seenSteps = []; new MutationObserver(() => {
  const s = document.querySelector('#train-status .train-status'); if (s) window.seenSteps.push(+s.dataset.step);
}).observe(document.querySelector('#train-status'), {subtree: true, childList: true, attributes: true}); }"""


def check(pg: Page, text: str) -> None:
    pg.locator("#quiz-answer textarea, #quiz-answer input").first.fill(text)
    pg.locator("#quiz-check").click()


def test_answer_a_question_right_then_wrong(page: Page) -> None:
    page.locator("#quiz-box").get_by_text("Quiz me").click()
    page.locator("#quiz-kind input").click()
    page.locator("li[role='option'][aria-label='an attention weight']").click()
    page.locator("#quiz-new").click()
    i, j, right = ask_weight(page)
    cell = f"#overview table[data-name=weights] td[data-r='{i}'][data-c='{j}']"
    assert page.locator(cell).evaluate("td => getComputedStyle(td).color") == "rgba(0, 0, 0, 0)"  # hidden
    first = page.locator("#quiz-q .quiz-q").get_attribute("data-index")
    check(page, f"{right:.4f}")
    page.wait_for_selector("#quiz-feedback [data-correct=true]")
    assert "1 of 1 this session" in page.locator("#quiz-feedback").inner_text()
    page.wait_for_function(f"() => document.querySelector('#quiz-q .quiz-q').dataset.index !== '{first}'")
    i, j, right = ask_weight(page)
    check(page, "0.5" if abs(right - 0.5) > 0.05 else "0.9")
    page.wait_for_selector("#quiz-feedback [data-correct=false]")
    fb = page.locator("#quiz-feedback").inner_text()
    assert "1 of 2 this session" in fb and "your answer" in fb and f"{right:.4f}" in fb
    assert page.locator("#quiz-feedback .ex-title").count() == 1  # the arithmetic for that cell
    check(page, "banana")
    page.wait_for_selector("#quiz-feedback .msg-error")
    assert "answer" in page.locator("#quiz-feedback").inner_text()


def test_pin_edit_a_cell_and_see_the_difference(page: Page) -> None:
    page.locator("#compare-box").get_by_text("Pin and compare").click()
    page.locator("#pin-btn").click()
    page.wait_for_function("() => document.querySelector('#compare .cmp-summary')?.innerText.includes('nothing moved')")
    page.locator("#inputs table[data-name=x] td[data-r='1'][data-c='0']").click()
    page.locator("#inputs table.grid td input").fill("3")
    page.keyboard.press("Enter")
    moved_js = "() => { const s = document.querySelector('#compare .cmp-summary')?.innerText || '';"
    page.wait_for_function(moved_js + " return s.includes('→ ') && !s.includes('nothing'); }")
    summary = page.locator("#compare .cmp-summary").inner_text()
    assert summary.startswith("x[") and "weights" in summary and "largest weight change" in summary
    moved = page.locator("#compare table[data-name=cmp-weights] td[data-st='1']")
    assert moved.count() >= 1 and re.fullmatch(r"[+-]\d\.\d{3}", moved.first.inner_text())
    assert page.locator("#compare table[data-name=cmp-q] td[data-st='0']").count() >= 1  # row 1 of q is quiet
    page.wait_for_selector("#compare canvas[data-painted]")


def test_train_fifty_steps_and_watch_the_heatmap_and_loss(page: Page) -> None:
    page.get_by_role("tab", name="Train").click()
    page.wait_for_selector("#train-status .train-status[data-step='0']")
    loss0 = float(page.locator("#train-status .train-status").get_attribute("data-loss"))
    assert loss0 == pytest.approx(train.start("previous", 0).loss, rel=1e-5)
    page.wait_for_selector("#train-loss .js-plotly-plot")  # (drawn before Run: see the pause's test)
    page.evaluate(SEEN_JS)  # record every status the page shows while the run streams
    page.locator("#train-run").click()
    page.wait_for_selector("#train-status .train-status[data-step='50']", timeout=120_000)
    loss50 = float(page.locator("#train-status .train-status").get_attribute("data-loss"))
    assert loss50 == pytest.approx(train.train_steps(train.start("previous", 0), 50).loss, rel=1e-4)
    assert loss50 < 0.5 * loss0
    seen = page.evaluate("window.seenSteps")
    assert len(set(seen)) >= 5 and max(seen) == 50, seen  # streamed: several updates before the end
    page.wait_for_selector("#train-heat .train-maps[data-step='50'] canvas[data-painted]")
    page.wait_for_function("() => document.querySelector('#train-loss .js-plotly-plot')?.innerText.includes('step 50')")
    page.locator("#train-open").click()
    page.wait_for_function(LOADED)
    page.wait_for_selector("#overview table[data-name=weights][data-shape='6x6']")


RUN_THEN_PAUSE_JS = """() => new Promise((done) => {
  new MutationObserver(() => {
    const s = document.querySelector('#train-status .train-status');
    if (s && +s.dataset.step > 0 && window.pausedAt === undefined) {
      window.pausedAt = +s.dataset.step; document.querySelector('#train-pause').click(); done(window.pausedAt);
    }
  }).observe(document.querySelector('#train-status'), {subtree: true, childList: true, attributes: true});
  document.querySelector('#train-run').click();
})"""


def test_pause_stops_a_run_and_nothing_more_arrives(page: Page) -> None:
    """Run 500 steps and press Pause at the first streamed update (in the page, without Playwright's latency)."""
    page.get_by_role("tab", name="Train").click()
    page.wait_for_selector("#train-status .train-status[data-step='0']")
    page.locator("#train-n input").fill("500")
    page.locator("#train-n input").blur()
    # the loss curve drawn first, as a learner sees it before pressing Run. Pressed before it, on a loaded machine,
    # the page drew nothing for the ~4 s of the whole run (its first Plotly drawing held the main thread), every
    # update then came at once after the run had ended, and a Pause pressed at the first one came too late
    page.wait_for_selector("#train-loss .js-plotly-plot")
    first = page.evaluate(RUN_THEN_PAUSE_JS)
    assert 0 < first < 500
    page.wait_for_function("() => document.querySelector('#train-status').innerText.includes('paused')")
    step = int(page.locator("#train-status .train-status").get_attribute("data-step"))
    page.evaluate(SEEN_JS)
    page.wait_for_timeout(3_000)  # the rest of a 500-step run would arrive in about this time
    later = page.evaluate("window.seenSteps")
    assert step < 500 and all(s == step for s in later), (step, later)  # nothing past the pause arrives
    assert int(page.locator("#train-heat .train-maps").get_attribute("data-step")) < 500
