"""Present mode as a demanding lecturer walks it (issue 41's walk): the Projector button pressed on the page, the
stages stepped with the keys, and what the back row then reads: the Q, K, V stage's numbers as large as the room
allows on the first visit, and an identity W still saying it is the identity."""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import pytest
import torch
import torch.nn.functional as F
from browser import frames, open_page, type_over
from playwright.sync_api import Browser, Page
from test_journey_projector import ON_SCREEN, SMALLEST_TEXT

import attention_core as ac


@pytest.fixture
def lecture(browser: Browser, app_url: str, request: pytest.FixtureRequest) -> Iterator[Page]:
    """``request.param``: (preset, width, height); the page at the first stage after a press of Projector (text size
    150% and present mode), as a lecturer starts."""
    preset, w, h = request.param
    pg = open_page(browser, f"{app_url}?preset={preset}", w, h)
    try:
        pg.click("button.projector")
        pg.wait_for_function("() => document.body.dataset.presentStage === 'inputs'")
        pg.wait_for_timeout(300)
        yield pg
    finally:
        pg.close()


def step_to(pg: Page, key: str) -> dict:
    """→ pressed (small pauses, as a person presses it) until the stage is ``key``; then what ON_SCREEN reads."""
    for _ in range(12):
        if pg.evaluate("() => document.body.dataset.presentStage") == key:
            break
        pg.keyboard.press("ArrowRight")
        pg.wait_for_timeout(150)
    pg.wait_for_timeout(400)  # (the fit, a frame later)
    frames(pg)  # (and one more after a ResizeObserver's)
    got = pg.evaluate(ON_SCREEN)
    assert got["stage"] == key, got
    return got


@pytest.mark.parametrize("lecture", [("llama-style", 1920, 1080)], indirect=True, ids=["1080p"])
def test_the_qkv_stages_first_visit_is_fitted_with_its_own_layout(lecture: Page) -> None:
    """At 1920×1080 llama-style's whole Q, K, V stage fits at about 60 px (docs/projector.md). The first → into it
    fitted the cards while the W's notes ("d_model×d_model, split into 2 heads…", hidden at this stage by present.css
    keyed on the stage's name) were still there, two rows of W's, and kept that fit: 34.5 px, the room under Q, K, V
    empty; leaving the stage and coming back gave 58.7 px."""
    got = step_to(lecture, "qkv")
    assert got["bad"] == [] and got["now"] >= 55, got
    assert not lecture.evaluate("() => document.body.classList.contains('pp-part')")  # (the whole stage: Q, K and V)
    lecture.keyboard.press("ArrowLeft")
    lecture.wait_for_timeout(300)
    again = step_to(lecture, "qkv")
    assert abs(again["now"] - got["now"]) < 0.5, (got, again)  # the same fit on every visit


IDENT = """() => {
  const e = document.querySelector('#bench .card[data-card=W_q] .card-title .sub.ident');
  if (!e || !e.getClientRects().length) return null;
  const r = e.getBoundingClientRect(), at = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  return { text: e.textContent, px: parseFloat(getComputedStyle(e).fontSize), top: e === at || e.contains(at) };
}"""


@pytest.mark.parametrize("lecture", [("numpy-scaled", 1280, 720), ("llm-simplified", 1920, 1080)], indirect=True,
                         ids=["numpy-720p", "llm-1080p"])  # fmt: skip
def test_an_identity_w_says_so_at_the_qkv_stage(lecture: Page) -> None:
    """numpy-scaled's and llm-simplified's W_q is the identity, shown folded as "= I (the identity: q = x)". At the
    Q, K, V stage that line was hidden with the W's other notes, so the card read "W_q [edit cells]" beside Q = X·W_q,
    and "edit cells" was the stage's smallest text (29 px, under the 32 px every text has with the Projector)."""
    step_to(lecture, "qkv")
    ident = lecture.evaluate(IDENT)
    assert ident and ident["text"].startswith("= I") and ident["top"] and ident["px"] >= 32, ident
    smallest = lecture.evaluate(SMALLEST_TEXT)
    assert smallest["least"] >= 32, smallest


LIVE = """() => {
  const p = document.querySelector('#present-panel .pp-live'), nav = document.querySelector('#present-panel .pp-nav');
  const r = p.getBoundingClientRect(), px = parseFloat(getComputedStyle(p).fontSize);
  const n = nav.getBoundingClientRect();  // (clear: beside the buttons, on their row, so the panel keeps its height)
  return { text: p.textContent, lines: Math.round(r.height / (1.25 * px)), clear: r.right <= n.left
    && n.top < r.bottom && r.top < n.bottom };
}"""


@pytest.mark.parametrize("lecture", [("llama-style", 1280, 720), ("llama-style", 1920, 1080)], indirect=True,
                         ids=["720p", "1080p"])  # fmt: skip
def test_the_panel_says_h_steps_the_head_at_the_qkv_stage(lecture: Page) -> None:
    """H (the next head shown) works at the Q, K, V stage, but the panel said only "keys Q K V" (720p, one projection
    at a time) or nothing (1080p): a lecturer reads which keys work from the panel, not from a button's title. The
    live line names H, stays one line beside the buttons (it took a row of its own at 720p, the panel 16% -> 22% of
    the screen, until the projection's shape, on its card beside, left the line), and H then shows head 2."""
    step_to(lecture, "qkv")
    got = lecture.evaluate(LIVE)
    assert "head 1 of 2" in got["text"] and got["text"].endswith("H"), got
    assert got["lines"] == 1 and got["clear"], got
    lecture.keyboard.press("h")
    lecture.wait_for_function("() => /head 2 of 2/.test(document.querySelector('#present-panel .pp-live').textContent)")
    assert lecture.evaluate(LIVE)["text"].endswith("H")


@pytest.mark.parametrize("lecture", [("statquest-self", 1280, 720)], indirect=True, ids=["720p"])
def test_one_head_names_no_h(lecture: Page) -> None:
    """With one head, H does nothing, and the panel does not name it."""
    step_to(lecture, "qkv")
    assert "H" not in lecture.evaluate(LIVE)["text"]


# the Q, K, V stage's numbers, each cell's exact value (an input cell's own text; Q's as shown)
CELLS = """(n) => Array.from(document.querySelector(`#bench table[data-name=${n}]`).querySelectorAll('tr'))
  .map((tr) => Array.from(tr.querySelectorAll('td[data-r]')).map((td) => Number(td.textContent)))
  .filter((r) => r.length)"""


@pytest.mark.parametrize("lecture", [("llama-style", 1280, 720)], indirect=True, ids=["720p"])
def test_the_qkv_stages_formula_is_what_its_numbers_are(lecture: Page) -> None:
    """With RoPE on, the Q card at the Q, K, V stage holds q turned by its position (its title says RoPE(X·W_q)), as
    plain torch computes it from the X and W_q on screen; the panel's formula said "Q = X·W_q", which the row
    X, W_q, Q (one projection at a time) then read as a false product. The formula now says RoPE; a state without
    RoPE keeps the plain one (the next test)."""
    step_to(lecture, "qkv")
    x = torch.tensor(lecture.evaluate(CELLS, "x"), dtype=torch.float64)  # (T, d_model)
    w_q = torch.tensor(lecture.evaluate(CELLS, "W_q"), dtype=torch.float64)  # (heads·E, d_model), nn.Linear's
    q = torch.tensor(lecture.evaluate(CELLS, "q"), dtype=torch.float64)  # (T, E) head 1, 4 decimals
    q1 = (x @ w_q.T)[:, : q.shape[1]]  # head 1's columns
    t = torch.arange(x.shape[0], dtype=torch.float64)[:, None]  # positions 0..T-1; E = 2: one pair, θ = 1
    turned = torch.cat((q1[:, :1] * t.cos() - q1[:, 1:] * t.sin(), q1[:, 1:] * t.cos() + q1[:, :1] * t.sin()), 1)
    torch.testing.assert_close(q, turned, atol=5e-5, rtol=0)  # (half the last printed digit)
    assert (q1 - q).abs().max() > 0.1  # (X·W_q alone is not what the card shows)
    formula = lecture.inner_text("#present-panel .pp-formula")
    assert "RoPE(X·W" in formula and formula.startswith("Q = RoPE"), formula


@pytest.mark.parametrize("lecture", [("statquest-self", 1280, 720)], indirect=True, ids=["720p"])
def test_without_rope_the_qkv_formula_is_the_plain_product(lecture: Page) -> None:
    step_to(lecture, "qkv")
    assert lecture.inner_text("#present-panel .pp-formula").startswith("Q = X·W")


# the combine stage's input cards on screen (every .p-in card but W_o), in the page's order: each card's title, its
# numbers as shown (4 decimals), the cells not themselves at their centre (elementFromPoint: under the panel, cut, or
# scrolled inside the card), its box and its numbers' font size; and the combined card's numbers
JOINED = """() => {
  const nums = (c) => Array.from(c.querySelectorAll('tr')).map((tr) => Array.from(tr.querySelectorAll('td[data-r]'))
    .map((td) => Number(td.textContent))).filter((r) => r.length);
  const cards = Array.from(document.querySelectorAll('#bench .card.p-in')).filter((c) => c.getClientRects().length
    && c.dataset.card !== 'W_o');
  const heads = cards.map((c) => {
    const tds = Array.from(c.querySelectorAll('td[data-r]'));
    const hidden = tds.filter((td) => {
      const r = td.getBoundingClientRect(), at = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
      return !at || !(td === at || td.contains(at));
    }).length;
    const r = c.getBoundingClientRect();
    return { title: c.querySelector('.card-title').textContent.trim(), rows: nums(c), hidden, n: tds.length,
      box: [r.left, r.top, r.right, r.bottom], px: parseFloat(getComputedStyle(tds[0]).fontSize) };
  });
  return { heads, combined: nums(document.querySelector('#bench .card.p-now[data-card=combine]')) };
}"""


def head_outputs(preset: str) -> list[torch.Tensor]:
    """Each head's output (T, E), by plain torch from the preset's X and the weights its computation used:
    nn.Linear's layout (x @ W.T); concat mode has a W per head, split mode one W whose rows come in heads of E;
    grouped-query heads read kv head h·G/H; RoPE (E = 2: one pair, θ = 1) turns q and k by their positions; the
    preset's causal mask; ÷√E; softmax. torch's own scaled_dot_product_attention does the last three."""
    sc = ac.scenario_of(preset)
    used = ac.compute(sc)["weights_used"]
    assert used["layout"] == "linear" and used["W_o"] is None, used["layout"]  # (the two presets asked for)
    x = torch.tensor(sc.get("x", sc.get("x_q")), dtype=torch.float64)  # (T, D): self-attention in both
    w = {n: torch.tensor(used[n], dtype=torch.float64) for n in ("W_q", "W_k", "W_v")}  # (n_mats, out, in)
    heads = sc["heads"]
    if sc["head_mode"] == "concat":
        proj = {n: [x @ m.T for m in w[n]] for n in w}  # a (T, E) per head
    else:  # split: one (T, H·E) projection cut into heads of E columns (K and V: G kv heads)
        e = w["W_q"].shape[1] // heads
        proj = {n: list((x @ w[n][0].T).split(e, dim=-1)) for n in w}
    if sc.get("positions") == "rope":
        proj["W_q"], proj["W_k"] = [turned(a) for a in proj["W_q"]], [turned(a) for a in proj["W_k"]]
    causal = sc.get("mask", {}).get("kind") == "causal"
    g = len(proj["W_k"])
    q, k, v = proj["W_q"], proj["W_k"], proj["W_v"]
    return [F.scaled_dot_product_attention(q[h], k[h * g // heads], v[h * g // heads], is_causal=causal)
            for h in range(heads)]  # fmt: skip


def turned(a: torch.Tensor) -> torch.Tensor:
    """RoPE of a (T, 2) projection: row t's pair turned by t radians (E = 2: θ = base^0 = 1)."""
    t = torch.arange(a.shape[0], dtype=a.dtype)[:, None]
    return torch.cat((a[:, :1] * t.cos() - a[:, 1:] * t.sin(), a[:, 1:] * t.cos() + a[:, :1] * t.sin()), 1)


@pytest.mark.parametrize(
    "lecture",
    [(p, w, h) for p in ("statquest-mha2", "llama-style") for w, h in ((1280, 720), (1920, 1080))],
    indirect=True,
    ids=["mha2-720p", "mha2-1080p", "llama-720p", "llama-1080p"],
)
def test_the_combine_stage_shows_every_heads_output_beside_the_combined(lecture: Page) -> None:
    """The heads combined stage ("their outputs joined", the lecture's stage 4) showed as its input only the shown
    head's output, titled "output": head 2's output, the combined card's o3 and o4, was nowhere on screen. Every
    head's output now shows beside the combined card, titled with its head, in the order they are joined, each cell
    whole on screen; their numbers are each head's (plain torch) and the combined card's are theirs side by side."""
    preset = lecture.url.split("preset=")[1].split("&")[0]
    got = step_to(lecture, "combine")
    assert got["bad"] == [], got["bad"][:3]
    shown = lecture.evaluate(JOINED)
    want = head_outputs(preset)
    titles = [c["title"] for c in shown["heads"]]
    assert len(titles) == len(want) and all(t.startswith(f"head {i + 1} output") for i, t in enumerate(titles)), titles
    for card, ref in zip(shown["heads"], want, strict=True):
        assert card["n"] > 0 and card["hidden"] == 0, card
        torch.testing.assert_close(torch.tensor(card["rows"], dtype=torch.float64), ref, atol=5e-5, rtol=0)
    boxes = [c["box"] for c in shown["heads"]]
    assert all(b[0] >= a[2] - 1 or b[1] >= a[3] - 1 for a, b in itertools.pairwise(boxes)), boxes  # read in order
    joined = torch.cat([torch.tensor(c["rows"]) for c in shown["heads"]], dim=-1)
    torch.testing.assert_close(torch.tensor(shown["combined"]), joined, atol=0, rtol=0)  # o3, o4: head 2's
    smallest = lecture.evaluate(SMALLEST_TEXT)
    print(preset, lecture.viewport_size, "numbers", got["now"], "inputs", got["other"], "smallest", smallest)
    assert smallest["least"] >= 32 and min(c["px"] for c in shown["heads"]) >= 32, (smallest, shown["heads"])


def test_h_pressed_twice_quickly_moves_two_heads(browser: Browser, app_url: str) -> None:
    """Four heads typed on the toolbar key by key, then Projector, the Q, K, V stage, and H H as a lecturer presses
    it (80 ms apart, before the page has redrawn): head 3 of 4 on the panel, the cards and the box. (The old page
    took both presses from the head still drawn, and showed head 2.)"""
    pg = open_page(browser, f"{app_url}?preset=statquest-mha2", 1280, 720)
    try:
        type_over(pg, "#tb-heads input", "4")
        pg.wait_for_function("() => /head 1 of 4/.test(document.querySelector('#overview [data-card=q]').innerText)")
        pg.click("button.projector")
        pg.wait_for_function("() => document.body.dataset.presentStage === 'inputs'")
        step_to(pg, "qkv")
        pg.keyboard.press("h")
        pg.wait_for_timeout(80)
        pg.keyboard.press("h")
        pg.wait_for_function("() => /head 3 of 4/.test(document.querySelector('#present-panel .pp-live').textContent)")
        pg.wait_for_timeout(1000)  # (a third redraw, had one been asked for, would have come by now)
        assert "head 3 of 4" in pg.locator("#present-panel .pp-live").inner_text()
        assert "head 3 of 4" in pg.locator("#overview [data-card=q] .card-title").inner_text()
        assert pg.locator("#tb-view-head input").input_value() == "3"
    finally:
        pg.close()


# the cards a stage shows: its inputs (p-in) and what it computes (p-now)
SHOWN_NOW = """() => [...document.querySelectorAll('#bench [data-card].p-now, #bench [data-card].p-in')]
  .map((c) => c.dataset.card)"""


@pytest.mark.parametrize("lecture", [("statquest-mha2", 1280, 720)], indirect=True, ids=["mha2-720p"])
def test_one_projection_at_a_time_shows_its_own_source(lecture: Page) -> None:
    """Cross-attention (x_q, x_k, x_v: three sources) at 1280×720, where the Q, K, V stage shows one projection at a
    time: K and V showed "x_q: queries" beside x_k (x_v), W and their projection, read as though x_q gave the keys
    (a lecturer's walk). Each projection shows its own source only."""
    step_to(lecture, "qkv")
    assert lecture.evaluate("() => document.body.classList.contains('pp-part')")  # (one projection at a time here)
    for key, source, others in (("k", "x_k", {"x", "x_v"}), ("v", "x_v", {"x", "x_k"}), ("q", "x", {"x_k", "x_v"})):
        lecture.keyboard.press(key)
        lecture.wait_for_function(f"() => document.body.dataset.presentPart === '{key}'")
        frames(lecture)
        now = set(lecture.evaluate(SHOWN_NOW))
        assert source in now and not now & others, (key, sorted(now))
    formula = lecture.inner_text("#present-panel .pp-formula")  # (as the cards' titles: K = x_k·W_k)
    assert "".join(formula.split()).startswith("Q=xq·Wq,K=xk·Wk,V=xv·Wv"), formula
