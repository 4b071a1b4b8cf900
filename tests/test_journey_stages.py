"""Present mode's stages for today's attention, in Chromium as a lecturer steps them with the Projector's text size,
at 1280×720 and 1920×1080: RoPE's pair and its angle, which kv head each query head reads, the window, the KV cache
stepped token by token (its row read from the page equals full causal attention's row, computed here with torch), and
every head's weights side by side. Each stage's cards are on screen above the panel (elementFromPoint at every number
shown), at sizes the back row reads; a stage that does not apply to the state is skipped, and the count says so."""

from __future__ import annotations

import math
import os
import re
from collections.abc import Iterator
from typing import Any

import pytest
import torch
from browser import ROOT, frames, loaded
from playwright.sync_api import Browser, Page
from test_journey_projector import SMALLEST_TEXT

import attention_core as ac
from ui import present
from ui.render import stages, tables

BASE = ["inputs", "qkv", "scores", "scaled", "masked", "weights", "output"]
NEW = ("rope", "kv_heads", "window", "kv_cache", "heads")
SHOTS = ROOT / os.environ.get("STAGES_SHOTS", "artifacts/stages")

# every number shown in the stage's cards (p-now) and their inputs (p-in), looked up at its centre: a cell under the
# panel, cut by the window or scrolled inside its card is not there. Rows the stepper hides are not shown, so not
# looked up; nor may a card's title be cut by its card. The sizes: the current numbers' smallest, and the smallest
# other text of the stage's cards (titles, captions, the stepper's words).
SEEN = """() => {
  const bad = [], now = [], words = [];
  const panel = document.getElementById('present-panel').getBoundingClientRect();
  for (const td of document.querySelectorAll('#bench .card.p-now td[data-r], #bench .card.p-in td[data-r]')) {
    const hidden = !td.getClientRects().length || getComputedStyle(td).visibility !== 'visible';
    if (hidden || td.closest('.card.collapsed')) continue;
    const r = td.getBoundingClientRect();
    const x = r.left + r.width / 2, y = r.top + r.height / 2;
    const at = document.elementFromPoint(x, y);
    if (!at || !(td === at || td.contains(at)) || r.bottom > panel.top) {
      bad.push(`${td.closest('table').dataset.name}[${td.dataset.r},${td.dataset.c}] at (${x | 0}, ${y | 0})`);
    }
    if (td.closest('.p-now')) now.push(parseFloat(getComputedStyle(td).fontSize));
  }
  for (const t of document.querySelectorAll('#bench .card.p-now .card-title')) {  // a title cut by its card
    if (t.scrollWidth > t.clientWidth + 1) bad.push(`the title "${t.textContent.slice(0, 30)}" is cut`);
  }
  const walk = document.createTreeWalker(document.querySelector('#bench'), NodeFilter.SHOW_TEXT);
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    const e = n.parentElement;
    if (!n.textContent.trim() || !e.closest('.card.p-now') || e.closest('table') || !e.getClientRects().length) {
      continue;
    }
    words.push([parseFloat(getComputedStyle(e).fontSize), n.textContent.trim().slice(0, 30)]);
  }
  words.sort((a, b) => a[0] - b[0]);
  return { bad, n: now.length, now: Math.min(...now), least: words[0] || [Infinity, ''],
    stage: document.body.dataset.presentStage, count: document.querySelector('#present-panel .pp-count').textContent,
    cards: Array.from(document.querySelectorAll('#bench .card.p-now')).map((c) => c.dataset.card) };
}"""

# the KV-cache card as shown: the token t, the k rows cached, the two rows shown (cache, full) with their exact values
KV = """() => {
  const c = document.querySelector('#bench [data-card=kv_step]');
  const shown = (name) => Array.from(c.querySelectorAll(`table[data-name=${name}] tr`))
    .filter((tr) => tr.getClientRects().length && getComputedStyle(tr).visibility === 'visible'
      && tr.querySelector('td[data-r]'));
  const row = (name) => shown(name).map((tr) => Array.from(tr.querySelectorAll('td[data-r]'))
    .map((td) => parseFloat(td.title || td.textContent)));
  const rows = (name) => shown(name).map((tr) => +tr.querySelector('td').dataset.r);
  return { at: c.querySelector('.kv-at').textContent, cached: rows('kv_k'), row: row('kv_row'), full: row('kv_full'),
    rowAt: [...rows('kv_row'), ...rows('kv_full')],
    say: Array.from(c.querySelectorAll('.kv-say')).filter((p) => !p.hidden).map((p) => p.textContent) };
}"""


@pytest.fixture
def projector(browser: Browser) -> Iterator[Any]:
    pages = []

    def opened(url: str, size: tuple[int, int]) -> Page:
        pg = browser.new_page(viewport={"width": size[0], "height": size[1]})
        pg.set_default_timeout(30_000)
        pg.add_init_script("localStorage.setItem('pg-text-size', '1.5')")  # the Projector's text size
        pg.goto(url)
        loaded(pg)
        pages.append(pg)
        return pg

    yield opened
    for pg in pages:
        pg.close()


def decoding_on(pg: Page) -> None:
    """KV-cache decoding ticked in "More settings", as a learner ticks it."""
    pg.locator("#more").get_by_text("More settings").click()
    pg.get_by_label("KV-cache decoding", exact=True).check()
    pg.wait_for_selector("#bench [data-card=kv_step]", state="attached")
    pg.locator("#more").get_by_text("More settings").click()


def full_causal_weights(scenario: dict[str, Any], h: int) -> torch.Tensor:
    """Head h's causal attention weights (T, T) from compute()'s q and k (after RoPE), by the formula in torch."""
    head = ac.compute(scenario)["heads"][h]
    q, k = torch.tensor(head["q"], dtype=torch.float64), torch.tensor(head["k"], dtype=torch.float64)
    t = q.shape[0]
    scores = q @ k.T / math.sqrt(q.shape[-1])  # (T, E) x (E, T) -> (T, T)
    causal = torch.ones(t, t, dtype=torch.bool).tril()
    want = torch.softmax(scores.masked_fill(~causal, float("-inf")), dim=-1)
    torch.testing.assert_close(torch.tensor(head["weights"], dtype=torch.float64), want, atol=5e-7, rtol=0)
    return want  # compute()'s own full causal weights, checked by the formula


def step_through(pg: Page, size: tuple[int, int], preset: str, want: torch.Tensor | None) -> list[dict[str, Any]]:
    """Present, then → until the last stage: at every new stage, SEEN (at the KV cache, each token's rows, checked
    against ``want``, head 1's full causal weights (T, T)); a screenshot of each new stage (the cache: token 3)."""
    pg.click("#present-btn")
    pg.wait_for_selector("#present-panel:not([hidden])")
    seen = []
    for _ in range(40):
        pg.wait_for_timeout(150)  # (the fit settles after a font's late arrival)
        got = pg.evaluate(SEEN)
        seen.append(got)
        if got["stage"] == "kv_cache" and want is not None:
            kv = pg.evaluate(KV)
            t = len(kv["cached"]) - 1
            assert kv["cached"] == list(range(t + 1)) and kv["rowAt"] == [t, t], kv  # the cache grew to t
            torch.testing.assert_close(torch.tensor(kv["row"][0], dtype=torch.float64), want[t], atol=5e-7, rtol=0)
            assert kv["row"][0] == kv["full"][0] and f"row {t + 1} " in kv["say"][0] and "equals" in kv["say"][0]
            got["t"] = t
        if got["stage"] in NEW and got.get("t", 2) == 2:  # (the cache at its third token: half grown)
            SHOTS.mkdir(parents=True, exist_ok=True)
            pg.screenshot(path=str(SHOTS / f"{preset}-{got['stage']}-{size[0]}x{size[1]}.png"))
        if pg.locator("#present-panel .pp-next").is_disabled():
            break
        pg.keyboard.press("ArrowRight")
    return seen


def assert_readable(seen: list[dict[str, Any]], size: tuple[int, int]) -> dict[str, tuple[float, float]]:
    """Every new stage's cards on screen, its numbers and its other words ≥ 32 px at 1080p and at 720p (issue 41:
    every text of present mode at least 32 px with the Projector's text size); returns {stage: (numbers px, smallest
    words px)}."""
    sizes = {}
    for got in seen:
        if got["stage"] not in NEW:
            continue
        assert got["n"] > 0 and got["bad"] == [], got
        assert got["now"] >= 32, (size, got)
        assert got["least"][0] >= 32, (size, got)
        sizes[got["stage"]] = (got["now"], got["least"][0])
    return sizes


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080)], ids=["720p", "1080p"])
def test_llama_style_has_rope_grouped_heads_the_cache_stepper_and_every_head(
    projector: Any, app_url: str, size: tuple[int, int]
) -> None:
    pg = projector(f"{app_url}?preset=llama-style", size)
    decoding_on(pg)
    seen = step_through(
        pg, size, "llama-style", full_causal_weights({**ac.scenario_of("llama-style"), "decode": True}, 0)
    )
    stages = [g["stage"] for g in seen]
    n = len(ac.scenario_of("llama-style")["tokens"])
    order = ["inputs", "qkv", "rope", "kv_heads", "scores", "scaled", "masked", "weights", "output"]
    assert stages == [*order, *["kv_cache"] * n, "heads", "combine"], stages  # → steps each token, then on
    assert [g.get("t") for g in seen if g["stage"] == "kv_cache"] == list(range(n))
    steps = [g["now"] for g in seen if g["stage"] == "kv_cache"]
    assert max(steps) <= 1.03 * min(steps), steps  # the cache grows into its room: the numbers keep their size
    assert seen[2]["count"] == "3 / 12" and seen[-1]["count"] == "12 / 12"
    assert seen[-2]["cards"] == ["head_weights", "head_weights"]  # both heads, side by side
    print(size, assert_readable(seen, size))
    pg.keyboard.press("ArrowLeft")  # back into the cache: at its last token, and ← steps it back
    pg.keyboard.press("ArrowLeft")
    pg.keyboard.press("ArrowLeft")
    assert pg.evaluate(KV)["cached"] == list(range(n - 1)) and pg.evaluate(SEEN)["stage"] == "kv_cache"
    pg.locator("#bench [data-card=kv_step] .kv-prev").click()  # the card's own button, then the keys again
    assert len(pg.evaluate(KV)["cached"]) == n - 2
    pg.keyboard.press("ArrowRight")
    assert len(pg.evaluate(KV)["cached"]) == n - 1 and pg.evaluate(SEEN)["bad"] == []


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080)], ids=["720p", "1080p"])
def test_mistral_style_has_rope_and_the_window_and_skips_what_it_has_not(
    projector: Any, app_url: str, size: tuple[int, int]
) -> None:
    pg = projector(f"{app_url}?preset=mistral-style", size)
    seen = step_through(pg, size, "mistral-style", None)
    stages = [g["stage"] for g in seen]
    # no kv heads' stage (G = H) and no KV cache (no decoding)
    want = ["inputs", "qkv", "rope", "scores", "scaled", "masked", "window", "weights", "output", "heads", "combine"]
    assert stages == want, stages
    assert seen[6]["count"] == "7 / 11"
    print(size, assert_readable(seen, size))


def test_a_state_with_none_of_them_skips_every_new_stage(projector: Any, app_url: str) -> None:
    pg = projector(f"{app_url}?preset=statquest-self", (1280, 720))
    pg.click("#present-btn")
    stages = []
    for _ in range(12):
        stages.append(pg.evaluate("() => document.body.dataset.presentStage"))
        if pg.locator("#present-panel .pp-next").is_disabled():
            break
        pg.keyboard.press("ArrowRight")
    assert stages == BASE and pg.inner_text("#present-panel .pp-count") == "7 / 7"


@pytest.mark.parametrize("target", ["#overview [data-card=output]", "#overview [data-card=combine]"])
def test_the_tour_says_grouped_heads_share_k_and_v(projector: Any, app_url: str, target: str) -> None:
    """Llama-style (2 query heads, 1 kv head), the tour resumed at its output step and its heads step: neither says
    that each head has its own W_k and W_v, nor that K and V change with the head shown."""
    step = next(i for i, st in enumerate(present.TOUR) if st.target == target)
    pg = projector(f"{app_url}?preset=llama-style", (1280, 720))
    pg.evaluate(f"() => localStorage.setItem('attention-playground-tour', '{step}')")
    pg.click("#tour-btn")
    pg.wait_for_function("(i) => document.querySelector('#tour-pop')?.dataset.step === String(i)", arg=step)
    words = pg.inner_text("#tour-pop")
    assert "own W_q, W_k, W_v" not in words and "Q, K, V, the scores" not in words, words
    assert "K and V stay" in words or "sharing K and V" in words, words


def cards_of(preset: str, **more: Any) -> str:
    """The present-only cards ui/render/stages.py draws for a preset's state (head 1), as the overview draws them."""
    s = ac.parse({**ac.scenario_of(preset), **more})
    tr = ac.evaluate(s)

    def table(t: torch.Tensor, rows: list[str], cols: list[str], name: str, kind: str = "signed", **opts: Any) -> str:
        return tables.html_table(t, s.dtype, rows, cols, name, kind, title="", short=True, **opts)  # (bits, attrs)

    return stages.stage_cards(s, tr, 0, table)


def shown(html: str, name: str) -> torch.Tensor:
    """Table ``name``'s exact values (each cell's title) as a (rows, cols) tensor."""
    table = re.search(rf"data-name='{name}'.*?</table>", html, re.S)
    assert table, name
    cells = re.findall(r"data-r='(\d+)' data-c='(\d+)' title='([^']*)'", table.group(0))
    out = torch.zeros(max(int(r) for r, _, _ in cells) + 1, max(int(c) for _, c, _ in cells) + 1, dtype=torch.float64)
    for r, c, v in cells:
        out[int(r), int(c)] = float(v)
    return out


def names(html: str) -> list[str]:
    return sorted(set(re.findall(r"data-card='(\w+)'", html)))


def test_each_new_stage_follows_its_own_and_its_card_is_drawn_only_where_it_applies() -> None:
    keys = [st["key"] for st in present.with_more([{"key": k} for k in [*BASE, "combine"]])]
    assert keys == ["inputs", "qkv", "rope", "kv_heads", "scores", "scaled", "masked", "window", "weights", "output",
                    "kv_cache", "heads", "combine"]  # fmt: skip
    assert cards_of("statquest-self") == ""
    assert names(cards_of("llama-style")) == ["head_weights", "kv_map", "rope_pair"]
    assert names(cards_of("llama-style", decode=True)) == ["head_weights", "kv_map", "kv_step", "rope_pair"]
    assert names(cards_of("mistral-style")) == ["head_weights", "rope_pair", "window_keep"]


def outputs_of(preset: str, **more: Any) -> str:
    """The heads combined stage's input cards (every head's output) for a preset's state, as the overview draws them."""
    s = ac.parse({**ac.scenario_of(preset), **more})

    def table(t: torch.Tensor, rows: list[str], cols: list[str], name: str, kind: str = "signed", **opts: Any) -> str:
        return tables.html_table(t, s.dtype, rows, cols, name, kind, title="", short=True, **opts)  # (bits, attrs)

    return stages.head_output_cards(s, ac.evaluate(s), table)


def test_every_heads_output_card_is_that_heads_named_as_the_heads_are_joined() -> None:
    """statquest-mha2: head h's card holds head h's output (its exact values, plain torch: softmax(QKᵀ/√2)·V from X
    and head h's W's), titled "head h output", its columns named as in the combined table (o1 o2, then o3 o4);
    through W_o, d1 d2. One head, or more than a projector shows side by side, draws none (the stage shows the shown
    head's output: present.INSTEAD)."""
    html = outputs_of("statquest-mha2")
    assert re.findall(r"<div class='card-title'>(head \d output)", html) == ["head 1 output", "head 2 output"]
    s = ac.parse(ac.scenario_of("statquest-mha2"))
    w = s.weights  # (H, E, D) each: nn.Linear's out×in, applied as x @ W.T
    for h in range(2):
        q, k, v = s.x_q @ w.W_q[h].T, s.x_k @ w.W_k[h].T, s.x_v @ w.W_v[h].T  # (T, E)
        want = torch.softmax(q @ k.T / 2**0.5, dim=-1) @ v
        torch.testing.assert_close(shown(html, f"output_h{h + 1}"), want.double(), atol=1e-6, rtol=0)
    heads = re.findall(r"data-name='output_h\d'.*?</tr>", html, re.S)
    assert [re.findall(r">(o\d)</th>", t) for t in heads] == [["o1", "o2"], ["o3", "o4"]]
    through = outputs_of("statquest-mha2", weights={"init": "linear", "seed": 42, "w_o": True})
    assert re.findall(r">(d\d)</th>", through) == ["d1", "d2", "d1", "d2"]
    assert outputs_of("statquest-self") == "" and outputs_of("statquest-mha2", heads=5, d_out=1) == ""
    assert present.INSTEAD["combine"] == ("output",) and "head_output" in present.USES["combine"]


def test_the_rope_card_turns_q_by_t_theta_in_torch() -> None:
    """q′ as shown = q as shown turned by the angle shown (θ₁ = base⁰ = 1: t radians), by the rotation's formula."""
    html = cards_of("llama-style")
    q, q_rot, angle = shown(html, "rope_q"), shown(html, "rope_q_rot"), shown(html, "rope_angle")
    t = torch.arange(q.shape[0], dtype=torch.float64)
    torch.testing.assert_close(angle[:, 0], t * 1.0, atol=5e-5, rtol=0)
    torch.testing.assert_close(angle[:, 1], torch.rad2deg(t), atol=5e-4, rtol=0)
    cos, sin = torch.cos(t), torch.sin(t)
    turned = torch.stack((q[:, 0] * cos - q[:, 1] * sin, q[:, 1] * cos + q[:, 0] * sin), dim=-1)
    torch.testing.assert_close(q_rot, turned, atol=5e-5, rtol=0)


# the Q, K, V stage's W's as shown: each visible row's name, the text shown (the rounded ::after) and the exact value
# the cell holds, and the smallest size of those numbers
W_SHOWN = """() => {
  const out = {};
  for (const name of ['W_q', 'W_k', 'W_v']) {
    const rows = Array.from(document.querySelectorAll(`#bench .p-in table[data-name=${name}] tr`)).slice(1)
      .filter((tr) => tr.getClientRects().length);
    out[name] = rows.map((tr) => [tr.querySelector('th').textContent, Array.from(tr.querySelectorAll('td[data-r]'))
      .map((td) => [getComputedStyle(td, '::after').content.replace(/"/g, ''), td.textContent,
        parseFloat(getComputedStyle(td, '::after').fontSize)])]);
  }
  return out;
}"""


def qkv_seen(pg: Page, head: int) -> dict[str, Any]:
    """The Q, K, V stage on head ``head`` (1-based) once the page shows it: SEEN, the smallest visible text, the W's."""
    pg.wait_for_function("(h) => document.querySelector('#overview [data-card=q] .card-title')?.textContent"
                         ".includes(`head ${h} of 2`)", arg=head)  # fmt: skip
    # (present.js's apply() writes the stage's live line from the redrawn card, a frame after it, then refits)
    pg.wait_for_function("(h) => document.querySelector('#present-panel .pp-live')?.textContent"
                         ".includes(`head ${h} of 2`)", arg=head)  # fmt: skip
    pg.wait_for_timeout(300)  # (the fit settles)
    frames(pg)
    seen = {"smallest": pg.evaluate(SMALLEST_TEXT), "w": pg.evaluate(W_SHOWN), "row": pg.evaluate(ROW)}
    return {**pg.evaluate(SEEN), **seen}


# the cards shown, left to right, with their tops: at 720p X, the projection's W and the projection read as one row
ROW = """() => Array.from(document.querySelectorAll('#bench .card.p-now, #bench .card.p-in'))
  .filter((c) => c.getClientRects().length).map((c) => [c.dataset.card, c.getBoundingClientRect()])
  .sort((a, b) => a[1].left - b[1].left).map(([n, r]) => [n, Math.round(r.top), Math.round(r.left)])"""


def assert_one_head(got: dict[str, Any], head: int, part: str | None = None) -> None:
    """One head's Q, K, V with X and that head's W rows (W_k and W_v: the kv head all read), each W number the exact
    value rounded to 2 decimals, all on screen at the sizes the back row reads. ``part``: the one projection shown
    (1280×720: X, its W and it, in one row), else all three."""
    wq = ac.parse(ac.scenario_of("llama-style")).weights.W_q[0].tolist()  # (d_model, d_model), out × in: heads' rows
    cards = [part] if part else ["q", "k", "v"]
    assert got["stage"] == "qkv" and got["cards"] == cards and got["bad"] == [], got  # (no q before RoPE)
    rows = {name: [r[0] for r in got["w"][name]] for name in got["w"]}
    want = {"W_q": [f"out{2 * head - 1}", f"out{2 * head}"], "W_k": ["out1", "out2"], "W_v": ["out1", "out2"]}
    assert rows == {n: (r if not part or n == f"W_{part}" else []) for n, r in want.items()}, rows
    for i, (_, cells) in enumerate(got["w"]["W_q"]):
        for j, (text, exact, _) in enumerate(cells):
            assert float(exact) == pytest.approx(wq[2 * (head - 1) + i][j], abs=1e-7), (i, j, exact)
            assert text == f"{float(exact):.2f}", (text, exact)
    w_px = min(px for name in got["w"] for _, cells in got["w"][name] for *_, px in cells)
    least = min(w_px, got["smallest"]["least"])
    # issue 41: the current numbers about 60 px at 1080p, every other visible text at least 32 px at both sizes
    assert got["now"] >= (32 if part else 55) and least >= 32, (got["now"], w_px, got["smallest"])
    if part:  # X·W = the projection: one row, in the formula's order, the tops level
        row = got["row"]
        assert [n for n, *_ in row] == ["x", f"W_{part}", part] and len({t for _, t, _ in row}) == 1, row


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080)], ids=["720p", "1080p"])
def test_llama_styles_q_k_v_stage_shows_one_head_at_a_time_and_h_steps_it(
    projector: Any, app_url: str, size: tuple[int, int]
) -> None:
    """Llama-style (2 query heads of W_q's 4 rows, 1 kv head): the Q, K, V stage shows X, head 1's rows of W_q, the
    shared W_k and W_v with their numbers rounded, and Q, K, V (q and k before RoPE are the RoPE stage's); H steps the
    head shown to head 2 (W_q's rows 3 and 4, W_k and W_v the same) and back, the stage and sizes kept."""
    pg = projector(f"{app_url}?preset=llama-style&present=qkv", size)
    pg.wait_for_function("() => document.body.dataset.presentStage === 'qkv'")
    part = "q" if size[1] == 720 else None  # (720p: one projection at a time, Q first; the keys Q, K, V step it)
    got = qkv_seen(pg, 1)
    print(size, "head 1", got["now"], got["smallest"], got["row"])
    assert_one_head(got, 1, part)
    SHOTS.mkdir(parents=True, exist_ok=True)
    pg.screenshot(path=str(SHOTS / f"llama-style-qkv-{size[0]}x{size[1]}.png"))
    pg.keyboard.press("h")
    got = qkv_seen(pg, 2)
    print(size, "head 2", got["now"], got["smallest"])
    assert_one_head(got, 2, part)
    pg.screenshot(path=str(SHOTS / f"llama-style-qkv-head2-{size[0]}x{size[1]}.png"))
    if part:
        for key in "kvq":  # each projection with its W, head 2's (W_k and W_v: the kv head it reads)
            pg.keyboard.press(key)
            pg.wait_for_function("(k) => document.querySelector('#bench .card.p-now')?.dataset.card === k", arg=key)
            got = qkv_seen(pg, 2)
            print(size, key, got["now"], got["smallest"])
            assert_one_head(got, 2, key)
            pg.screenshot(path=str(SHOTS / f"llama-style-qkv-{key}-{size[0]}x{size[1]}.png"))
    pg.keyboard.press("h")
    assert_one_head(qkv_seen(pg, 1), 1, part)


def test_the_cache_card_names_the_mask_its_full_row_is_computed_under() -> None:
    """A reviewer's walk (a helper's): Mistral's KV-cache card titled its comparison row "full causal attention, row
    t" and said the cache's row "equals the full causal row 4", while that row is windowed (a key past the window of 3
    reads 0 in it). The card names the window; a state without one says causal alone."""
    windowed = cards_of("mistral-style", decode=True)
    window = ac.parse(ac.scenario_of("mistral-style")).variants.window
    assert window and f"full attention (causal, window {window}), row t" in windowed
    says = re.findall(r"<p class='kv-say'[^>]*>(.*?)</p>", windowed)
    assert says and all(f"(causal, window {window}; largest difference" in p for p in says), says
    assert "full causal" not in windowed
    plain = cards_of("llama-style", decode=True)
    assert "full attention (causal), row t" in plain and "window" not in plain
