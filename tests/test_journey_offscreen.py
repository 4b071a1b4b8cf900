"""At T=64 the overview lies below the inputs. Its tables are neither laid out nor painted while they are off screen
(app.css, issue 39: an edit's frame took twice the main thread's work painting them), yet each holds every edit's
numbers, on screen the moment the learner scrolls to it. Typed key by key, at 1280×720, checked against torch."""

from __future__ import annotations

import sys
from pathlib import Path

import torch
import torch.nn.functional as F
from browser import open_page
from playwright.sync_api import Browser

import attention_core as ac
from ui import share

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
from bench import large_scenario

OUT = "#overview table[data-name=output]"
# whether the browser renders the table (false: skipped, content-visibility), its box, and its on-screen cells' exact
# values (null: a cell not on screen)
RENDERED = f"() => document.querySelector('{OUT}').checkVisibility({{contentVisibilityAuto: true}})"
BOX = f"""() => {{ const r = document.querySelector('{OUT}').closest('.nt-wrap').getBoundingClientRect();
  return [r.width, r.height]; }}"""
SHOWN = f"""() => Array.from(document.querySelector('{OUT}').rows).slice(1).map((tr) =>
  Array.from(tr.querySelectorAll('td[data-r]'), (td) => {{
    const r = td.getBoundingClientRect(), hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    return hit === td ? Number(td.title) : null;
  }}))"""


def head_one_output(sc: dict) -> torch.Tensor:
    """Head 1's output (T, E) by plain torch: nn.Linear's layout (x @ W.T) with the weights the scenario uses (a W
    per head, concat), the causal mask, ÷√E and softmax by F.scaled_dot_product_attention."""
    used = ac.compute(sc)["weights_used"]
    x = torch.tensor(sc["x"], dtype=torch.float64)
    q, k, v = (x @ torch.tensor(used[n][0], dtype=torch.float64).T for n in ("W_q", "W_k", "W_v"))
    return F.scaled_dot_product_attention(q, k, v, is_causal=True)


def test_an_edit_below_the_screen_is_shown_when_the_learner_scrolls_to_it(browser: Browser, app_url: str) -> None:
    sc = large_scenario()
    pg = open_page(browser, f"{app_url}?scenario={share.encode_link(sc)}", 1280, 720)
    try:
        assert pg.evaluate(RENDERED) is False, "the overview's output table is rendered while far below the screen"
        placeholder = pg.evaluate(BOX)  # (the size it is given until drawn)
        first = f"{OUT} td[data-r='0'][data-c='0']"
        before = pg.locator(first).get_attribute("title")
        pg.locator("#inputs table[data-name=x] td[data-r='0'][data-c='0']").click()
        editor = pg.locator("#inputs table.grid td input")
        editor.press("Control+a")
        editor.press_sequentially("9.5", delay=80)
        editor.press("Enter")
        pg.wait_for_function(f'(b) => document.querySelector("{first}").title !== b', arg=before)
        assert pg.evaluate(RENDERED) is False, "the edit rendered the table below the screen"
        pg.evaluate(f"() => document.querySelector('{OUT}').scrollIntoView({{block: 'center'}})")
        pg.wait_for_function(RENDERED)
        pg.evaluate("() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok)))")
        drawn = pg.evaluate(BOX)
        for was, now, what in zip(placeholder, drawn, ("width", "height"), strict=True):
            assert abs(was - now) <= 0.15 * now, f"drawn, the table's {what} jumped from {was:.0f} to {now:.0f} px"
        shown = pg.evaluate(SHOWN)
        assert all(v is not None for row in shown for v in row), "a number of the output's window is not on screen"
        sc["x"][0][0] = 9.5
        want = head_one_output(sc)[: len(shown), : len(shown[0])]
        assert want.shape == (12, 12), want.shape
        torch.testing.assert_close(torch.tensor(shown, dtype=torch.float64), want, atol=1e-5, rtol=1e-4)
    finally:
        pg.close()
