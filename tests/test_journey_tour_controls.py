"""Journeys in real Chromium: the tour on a preset other than the default, padding chosen from the toolbar,
the "More settings" drawer, the notebook's step headings following the controls, float64 numbers, the identity
notes and "head shown" past the heads there are (issue 22, items 8 and 9 and the smaller ones)."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from browser import open_page
from playwright.sync_api import Browser, Page, expect

from ui import present

OUT = "#overview table[data-name=output]"
POP = "#tour-pop"


@pytest.fixture
def page(browser: Browser, app_url: str) -> Iterator[Page]:
    pg = open_page(browser, app_url)
    yield pg
    pg.close()


def choose(pg: Page, label: str, option: str) -> None:
    """Pick ``option`` in the dropdown labelled ``label``, as a learner does: open it, click the option."""
    pg.get_by_label(label, exact=True).click()
    pg.locator(f"li[role='option'][aria-label='{option}']").click()


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


def weights(pg: Page) -> dict[tuple[int, int], float]:
    cells = pg.evaluate(
        """() => Array.from(document.querySelectorAll('#overview table[data-name=weights] td[data-r]'))
            .map((td) => [+td.dataset.r, +td.dataset.c, td.title || td.textContent])"""
    )
    return {(r, c): float(v) for r, c, v in cells}


# ---- the tour on another preset ------------------------------------------------------------------------------


def tour_at(pg: Page) -> int:
    return int(pg.get_attribute(POP, "data-step") or -1)


def wait_step(pg: Page, i: int) -> str:
    """Wait for tour step ``i``; check that its card covers neither its outlined element nor the control it asks
    for; return the card's text."""
    pg.wait_for_function("(i) => document.querySelector('#tour-pop').dataset.step === String(i)", arg=i)
    pg.wait_for_timeout(350)  # one tick of the tour's placing
    clash = pg.evaluate(
        """() => { const pop = document.querySelector('#tour-pop').getBoundingClientRect();
        const hit = (e) => { const r = e.getBoundingClientRect();
          return r.width > 0 && r.left < pop.right && pop.left < r.right && r.top < pop.bottom && pop.top < r.bottom; };
        const out = [];
        const targets = document.querySelectorAll('.tour-target');
        if (targets.length !== 1) out.push(`${targets.length} outlined elements`);
        targets.forEach((t) => { if (hit(t)) out.push('covers the target ' + (t.id || t.dataset.card)); });
        document.querySelectorAll('.tour-also').forEach((t) => { if (hit(t)) out.push('covers the control ' + t.id); });
        if (pop.top < 0 || pop.left < 0 || pop.bottom > innerHeight || pop.right > innerWidth) out.push('off screen');
        return out; }"""
    )
    assert clash == [], (i, clash)
    return pg.inner_text(POP)


def test_the_tour_from_numpy_masked_speaks_of_x_q_and_its_tokens_and_notices_each_action(
    browser: Browser, app_url: str
) -> None:
    pg = open_page(browser, f"{app_url}?preset=numpy-masked")
    try:
        pg.evaluate("() => localStorage.clear()")
        pg.click("#tour-btn")
        seen = [wait_step(pg, 0)]
        assert "x_q" in seen[0] and "q1, q2, q3, q4" in seen[0] and "k1, k2, k3, k4" in seen[0], seen[0]
        act = pg.inner_text(f"{POP} .tp-act")
        value = re.search(r"x_q\[q2, d1\].* to (-?[0-9.]+)", act)
        assert value, act  # the edit it asks for names x_q's own row and column
        pg.locator("#inputs table[data-name=x] td[data-r='1'][data-c='0']").click()
        pg.locator("#inputs table.grid td input").fill(value.group(1))
        pg.keyboard.press("Enter")
        seen.append(wait_step(pg, 1))  # noticed without a click on Next
        assert "x_q" in seen[1] and "K and V" in seen[1], seen[1]
        pg.click(f"{POP} .tp-next")
        seen.append(wait_step(pg, 2))
        pg.locator("#overview table[data-name=scores] td[data-r='1'][data-c='0']").click()
        seen.append(wait_step(pg, 3))
        pg.click(f"{POP} .tp-next")
        seen.append(wait_step(pg, 4))
        assert "causal" in seen[4], seen[4]  # this preset is masked already: the card says so
        choose(pg, "scale", "off")
        seen.append(wait_step(pg, 5))
        act = pg.inner_text(f"{POP} .tp-act")
        assert "to none" in act and "to causal" not in act, act  # the mask is causal already: the action undoes it
        choose(pg, "mask", "none")
        seen.append(wait_step(pg, 6))
        assert min(weights(pg).values()) > 0  # what the card now says: no key is hidden any more
        pg.click(f"{POP} .tp-next")
        seen.append(wait_step(pg, 7))
        type_number(pg, "heads", "2")
        seen.append(wait_step(pg, 8))
        assert pg.locator("#overview [data-card=combine] td").count() > 0
        pg.click(f"{POP} .tp-next")
        seen.append(wait_step(pg, 9))
        text = "\n".join(seen)
        assert not re.search(r"\bt[123]\b|\bX:", text), text  # the default preset's tokens and table never appear
        pg.click(f"{POP} .tp-next")
        pg.wait_for_function("() => document.body.dataset.tour === 'done'")
    finally:
        pg.close()


@pytest.mark.parametrize(("preset", "width", "height"), [("numpy-masked", 390, 844), ("encdec-mha2", 1280, 720)])
def test_the_tour_card_never_covers_what_it_points_at(browser: Browser, app_url: str, preset: str, width: int,
                                                      height: int) -> None:  # fmt: skip
    pg = open_page(browser, f"{app_url}?preset={preset}", width, height)
    try:
        pg.evaluate("() => localStorage.clear()")
        pg.click("#tour-btn")
        for i in range(len(present.TOUR)):
            text = wait_step(pg, i)
            assert "{" not in text, text  # every placeholder filled
            if i == 7 and preset == "encdec-mha2":  # two heads already: it asks for the other head instead
                assert "head shown" in pg.inner_text(f"{POP} .tp-act")
                type_number(pg, "head shown", "2")
                wait_step(pg, 8)
                continue
            if i < len(present.TOUR) - 1:
                pg.click(f"{POP} .tp-next")
    finally:
        pg.close()


# ---- padding, and the drawer ---------------------------------------------------------------------------------


def test_choosing_padding_shows_its_box_by_the_mask_and_hides_the_last_key(page: Page) -> None:
    before = page.inner_text(OUT)
    choose(page, "mask", "padding")
    changed(page, OUT, before)
    box = page.get_by_label("padded key positions (e.g. 3 or 2, 3)", exact=True)
    assert box.is_visible() and box.input_value() == "3"  # a default that visibly does something
    mask, pad = page.locator("#tb-mask").bounding_box(), box.bounding_box()
    assert mask and pad and abs(pad["y"] - mask["y"]) < mask["height"]  # on the mask's row…
    assert 0 <= pad["x"] - (mask["x"] + mask["width"]) < 150  # …right after it
    w = weights(page)
    assert [w[(r, 2)] for r in range(3)] == [0, 0, 0] and all(w[(r, 0)] > 0 for r in range(3))  # key t3 hidden
    for sel in ("[data-card=weights]", "[data-card=output]"):  # the pipeline is still on the first screen
        b = page.locator(f"#overview {sel}").bounding_box()
        assert b and b["y"] + b["height"] <= 720, sel
    before = page.inner_text(OUT)
    box.fill("1, 3")
    box.press("Enter")
    changed(page, OUT, before)
    w = weights(page)
    assert all(w[(r, 0)] == 0 and w[(r, 2)] == 0 and w[(r, 1)] == 1 for r in range(3))


def test_more_settings_opens_over_the_page_without_pushing_the_pipeline_down(page: Page) -> None:
    out = page.locator("#overview [data-card=output]").bounding_box()
    page.locator("#more").get_by_text("More settings").click()
    t_box = page.get_by_label("T (query tokens)", exact=True)
    t_box.wait_for()
    assert t_box.is_visible()
    after = page.locator("#overview [data-card=output]").bounding_box()
    assert out and after and after["y"] == out["y"] and after["y"] + after["height"] <= 720
    before = page.inner_text(OUT)
    t_box.fill("4")
    t_box.press("Enter")
    changed(page, OUT, before)  # the drawer stays usable, and the change shows below it
    assert page.locator(f"{OUT} tr").count() == 5  # header row + 4 tokens
    page.keyboard.press("Escape")
    page.get_by_label("T (query tokens)", exact=True).wait_for(state="hidden")


# ---- the notebook's headings follow the controls -------------------------------------------------------------


def heading(pg: Page, number: int) -> str:
    """The notebook step's heading block as the learner reads it, scrolled to (the notebook's steps are laid out
    only once seen): its title, formula and sentence."""
    return pg.wait_for_function(
        """(n) => { const h = Array.from(document.querySelectorAll('.nb-view h3'))
            .find((e) => e.textContent.startsWith(n + ' ·'));
          if (!h) return false;
          h.closest('.nb-view').scrollIntoView({ block: 'center' });
          return h.parentElement.innerText.trim() || false; }""",
        arg=number,
    ).json_value()


SCALED, MASKED, WEIGHTS = 3, 4, 5  # the notebook steps' numbers (1 · Q, K, V, 2 · QKᵀ, …)


def test_the_notebook_headings_follow_scale_normalise_and_mask(page: Page) -> None:
    assert "√d" in heading(page, SCALED) and "softmax" in heading(page, WEIGHTS)
    choose(page, "scale", "off")
    page.wait_for_function("() => !document.querySelector('#html-scaled').textContent.includes('√')")
    h5 = heading(page, SCALED)
    assert "√" not in h5 and "off" in h5, h5
    choose(page, "scale", "temperature")
    page.wait_for_function("() => document.querySelector('#html-scaled').textContent.includes('temperature')")
    assert "temperature" in heading(page, SCALED) and "√" not in heading(page, SCALED)
    choose(page, "normalise", "sum")
    page.wait_for_function("() => document.querySelector('#html-weights pre.code').textContent.includes('sum(')")
    h7 = heading(page, WEIGHTS)
    title, formula, words = [line for line in h7.splitlines() if line.strip()][:3]
    assert "row sum" in title and "softmax" not in title + formula, h7  # softmax is named only as the alternative
    assert "positive" not in h7 and "negative" in words, h7
    assert "no mask" in heading(page, MASKED).lower()
    choose(page, "mask", "causal")
    page.wait_for_function("() => document.querySelector('#html-masked pre.code').textContent.includes('masked_fill')")
    assert "causal" in heading(page, MASKED), heading(page, MASKED)


# ---- numbers, identity notes, head shown ---------------------------------------------------------------------


def test_float64_tables_show_at_most_ten_significant_digits(page: Page) -> None:
    choose(page, "dtype", "float64")
    page.wait_for_function("() => document.querySelector('#html-qkv pre.tensor').textContent.includes('float64')")
    texts = page.evaluate(
        """() => Array.from(document.querySelectorAll('.nb-view table.nt td[data-r], #inputs table.grid td[data-r]'))
            .map((td) => td.textContent.trim())"""
    )
    # (a table's zeros added for its one format, issue 37, are no significant digits: 2.8610460000 has 7)
    digits = {t: len(re.sub(r"e.*|[^0-9]", "", t).strip("0")) for t in texts}
    assert texts and max(digits.values()) <= 10, [t for t, n in digits.items() if n > 10][:5]
    # q[t1, d1] = 1.16·0.54062945 + 0.23·0.5869042 in float64 is 0.7620960299999999: it reads 0.76209603
    q00 = page.text_content("#html-qkv table[data-name=q] td[data-r='0'][data-c='0']") or ""
    assert re.fullmatch(r"0\.762096030*", q00), q00  # (then zeros, to its table's decimals)


def test_identity_weights_name_their_own_role(browser: Browser, app_url: str) -> None:
    pg = open_page(browser, f"{app_url}?preset=numpy-masked")
    try:
        notes = {n: pg.inner_text(f"#inputs [data-card={n}] .card-title") for n in ("W_q", "W_k", "W_v")}
        assert "q = x_q" in notes["W_q"] and "k = x_k" in notes["W_k"] and "v = x_v" in notes["W_v"], notes
        assert "q = x" not in notes["W_k"] + notes["W_v"], notes
    finally:
        pg.close()


def test_head_shown_past_the_heads_says_so_and_shows_the_last_head(page: Page) -> None:
    type_number(page, "heads", "2")
    page.wait_for_selector("#overview [data-card=combine] td")
    type_number(page, "head shown", "3")
    page.wait_for_function("() => document.querySelector('#message').innerText.includes('head shown')")
    message = page.inner_text("#message")
    assert "2 heads" in message and "head 2" in message, message
    assert "head 2 of 2" in page.inner_text("#overview")
    expect(page.get_by_label("head shown", exact=True)).to_have_value("2")  # the control shows what is shown


# ---- the tour's card stays where the learner reads it (issue 37, item 4, a fresh learner's second walk) ----------

TRAIL = """() => { window.apTrail = []; const pop = document.querySelector('#tour-pop');
  const tick = () => { if (pop.dataset.step !== '7') return; const r = pop.getBoundingClientRect();
    window.apTrail.push([r.left, r.top, r.height]); requestAnimationFrame(tick); };
  tick(); }"""


@pytest.mark.parametrize("size", [(1280, 720), (390, 844)], ids=["1280x720", "390x844"])
def test_two_heads_typed_at_the_tours_step_leave_its_card_where_it_was(browser: Browser, app_url: str,
                                                                        size: tuple[int, int]) -> None:  # fmt: skip
    """The tour's 'Set heads to 2' step: 2 typed at 80 ms + Enter; from the first key until the next step the card
    stays put within 1 px, every frame (seen failing: its 'Done ✓' line grew it 23 px and it was placed again for
    the new cards, 18 then 23 px higher)."""
    pg = open_page(browser, app_url, *size)
    try:
        pg.evaluate("() => localStorage.clear()")
        pg.click("#tour-btn")
        for i in range(7):
            wait_step(pg, i)
            pg.click(f"{POP} .tp-next")
        assert "heads to 2" in wait_step(pg, 7)
        box = pg.get_by_label("heads", exact=True)
        box.click()  # (the page may scroll to the box: the card follows, before the learner types)
        box.press("Control+a")
        pg.wait_for_timeout(400)
        pg.evaluate(TRAIL)
        box.press_sequentially("2", delay=80)
        box.press("Enter")
        wait_step(pg, 8)
        trail = pg.evaluate("() => window.apTrail")
        assert len(trail) > 10, trail  # (the card was watched through the answer, frame by frame)
        moved = [t for t in trail if any(abs(a - b) > 1 for a, b in zip(t, trail[0], strict=True))]
        assert moved == [], f"the card moved from {trail[0]} to {moved[0]}"
    finally:
        pg.close()
