"""What a control shows is what is computed, for the boxes a fresh learner's walk found still wrong (issue 37): the
scaling lab's d_k, the Train tab's N steps, sentence mode's d_out, d and seed, in real Chromium, typed key by key at
80 ms. Each journey asserts what is on screen: the box, the words the lab or the tab shows, one message naming the
field as the page labels it, no gradio toast, and no traceback in the server's log."""

from __future__ import annotations

from pathlib import Path

import pytest
from browser import open_page, settled, type_over
from playwright.sync_api import Browser, Page, expect

from attention_core import train

TYPE_DELAY = 80  # ms between keys: a person's typing speed


def tracebacks(served: tuple[str, Path]) -> int:
    return sum("Traceback" in line for line in served[1].read_text().splitlines())


def toasts(pg: Page) -> list[str]:
    return pg.locator(".toast-body").all_inner_texts()


def wait_text(pg: Page, selector: str, text: str) -> None:
    pg.wait_for_function("([s, t]) => (document.querySelector(s)?.innerText || '').includes(t)", arg=[selector, text])


# ---- 1. the scaling lab's d_k ------------------------------------------------------------------------------------


DK = "#lab-dk input[type=number]"


def open_scaling(pg: Page) -> None:
    pg.get_by_role("tab", name="Scaling lab").click()
    wait_text(pg, "#scaling-words", "At d_k = 64")
    settled(pg)


def test_the_scaling_labs_d_k_applies_on_enter_and_a_d_k_past_its_end_is_set_to_it_with_words(
    page: Page, served: tuple[str, Path]
) -> None:
    """Typed 1000 + Enter: no event per key (the old page applied 1, 10, 100: gradio's red 'Value 1 is less than
    minimum value 2' naming no field, a traceback), then d_k set to 512 with words naming d_k; the box, the slider and
    the lab's words all say 512. Then 128 + Tab applies 128 and the message goes."""
    before = tracebacks(served)
    open_scaling(page)
    box = page.locator(DK)
    box.click()  # (a click in the box is the slider's release: it sends the value in force, which changes nothing)
    box.press("Control+a")
    sent = settled(page)
    box.press_sequentially("1000", delay=TYPE_DELAY)
    page.wait_for_timeout(400)
    assert settled(page) == sent  # nothing sent while typing
    assert "At d_k = 64" in page.inner_text("#scaling-words")
    box.press("Enter")
    wait_text(page, "#scaling-words", "At d_k = 512")
    settled(page)
    words = page.inner_text("#scaling-words")
    assert "d_k: 1000 is past the slider's end; set to 512" in words, words
    assert box.input_value() == "512"
    assert page.locator("#lab-dk input[type=range]").input_value() == "512"
    type_over(page, DK, "128", key="Tab")
    wait_text(page, "#scaling-words", "At d_k = 128")
    settled(page)
    assert "past the slider's end" not in page.inner_text("#scaling-words")
    assert box.input_value() == "128"
    assert toasts(page) == []
    assert tracebacks(served) == before


def test_the_scaling_labs_bad_seed_is_named_in_words_and_its_box_goes_back(
    page: Page, served: tuple[str, Path]
) -> None:
    """Seed −5 + Enter: one message in words, the box back at 0, the words those of seed 0; no toast."""
    before = tracebacks(served)
    open_scaling(page)
    words0 = page.inner_text("#scaling-words")
    type_over(page, "#lab-seed input", "-5")
    wait_text(page, "#scaling-words", "seed: -5 is below 0")
    settled(page)
    assert page.locator("#lab-seed input").input_value() == "0"
    assert words0 in page.inner_text("#scaling-words")
    assert toasts(page) == []
    assert tracebacks(served) == before


# ---- 2. the Train tab's N steps and seed -------------------------------------------------------------------------


def step_shown(pg: Page) -> int:
    return int(pg.locator("#train-status .train-status").get_attribute("data-step") or -1)


def refused(pg: Page, selector: str, text: str, message: str, keeps: str, key: str = "Enter") -> None:
    """``text`` typed over the box ``selector`` and ``key``: the Train tab's status names it (``message``), and once
    settled the box reads the value in force again (``keeps``)."""
    type_over(pg, selector, text, key=key)
    wait_text(pg, "#train-status", message)
    settled(pg)
    assert pg.locator(selector).input_value() == keeps


def test_train_n_steps_past_500_is_named_and_run_n_runs_the_n_in_force(page: Page, served: tuple[str, Path]) -> None:
    """N steps 900 + Tab: named 'N steps' at once, the box back at 50; Reset, Run N: 50 steps run, no toast, no
    traceback. (The old page took 900 silently, then Run N gave gradio's red 'Value 900 is greater than maximum value
    500.' naming no field, the box kept 900, a traceback.) Then 20 + Enter: Run N runs 20 more."""
    before = tracebacks(served)
    page.get_by_role("tab", name="Train").click()
    page.wait_for_selector("#train-status .train-status[data-step='0']")
    settled(page)
    refused(page, "#train-n input", "900", "N steps: 900 is out of range 1..500; it keeps 50", "50", key="Tab")
    page.locator("#train-reset").click()
    page.locator("#train-run").click()
    page.wait_for_selector("#train-status .train-status[data-step='50'][data-running='0']", timeout=120_000)
    type_over(page, "#train-n input", "20")
    settled(page)
    page.locator("#train-run").click()
    page.wait_for_selector("#train-status .train-status[data-step='70'][data-running='0']", timeout=120_000)
    assert page.locator("#train-n input").input_value() == "20"
    assert toasts(page) == []
    assert tracebacks(served) == before


def test_train_seed_applies_on_enter_and_a_negative_one_is_named_in_words(page: Page, served: tuple[str, Path]) -> None:
    """Seed 12 typed: nothing per key (the old page applied 1, then 12), the tab stands at seed 12's step 0 on
    Enter; −5 + Enter: 'seed: -5 is below 0', the box back at 12; no toast, no traceback."""
    before = tracebacks(served)
    page.get_by_role("tab", name="Train").click()
    page.wait_for_selector("#train-status .train-status[data-step='0']")
    box = page.locator("#train-seed input")
    box.click()
    box.press("Control+a")
    sent = settled(page)
    box.press_sequentially("12", delay=TYPE_DELAY)
    page.wait_for_timeout(400)
    assert settled(page) == sent
    box.press("Enter")
    want = f"{train.start('previous', 12).loss:.6g}"  # the tab's default task, at seed 12
    page.wait_for_selector(f"#train-status .train-status[data-step='0'][data-loss='{want}']")
    settled(page)
    refused(page, "#train-seed input", "-5", "seed: -5 is below 0", "12")
    assert page.locator("#train-status .train-status").get_attribute("data-loss") == want
    assert toasts(page) == []
    assert tracebacks(served) == before


def test_train_seed_and_n_steps_with_a_fraction_are_named_never_rounded(page: Page, served: tuple[str, Path]) -> None:
    """Seed 7.5 + Enter: 'seed: 7.5 is not a whole number', the box back at 0 and the tab still at seed 0's step 0
    (gradio's precision=0 rounded it to 8 before the handler saw it: seed 8's weights under a box reading 7.5);
    N steps 2.5 + Enter: named, the box back at 50, and Run runs 50 steps (it ran 2, under a box reading 2.5)."""
    before = tracebacks(served)
    page.get_by_role("tab", name="Train").click()
    want = f"{train.start('previous', 0).loss:.6g}"  # the tab's default task, at seed 0
    page.wait_for_selector(f"#train-status .train-status[data-step='0'][data-loss='{want}']")
    settled(page)
    refused(page, "#train-seed input", "7.5", "seed: 7.5 is not a whole number", "0")
    said = page.locator("#train-status").inner_text()
    assert "it keeps 0" in said and "other edits" not in said, said  # (the workbench's words: this tab has no edits)
    assert page.locator("#train-status .train-status").get_attribute("data-loss") == want
    assert want != f"{train.start('previous', 8).loss:.6g}"  # (seed 8 would show: the rounding would be seen)
    refused(page, "#train-n input", "2.5", "N steps: 2.5 is not a whole number; it keeps 50", "50")
    page.locator("#train-run").click()
    page.wait_for_selector("#train-status .train-status[data-step='50'][data-running='0']", timeout=120_000)
    assert toasts(page) == []
    assert tracebacks(served) == before


def test_the_scaling_labs_d_k_past_the_end_is_drawn_at_the_end_and_the_words_say_so(page: Page) -> None:
    """d_k 9999 + Tab: box and slider at 512, the figure at d_k = 512, and the message says it was set to 512, not
    that 'the views show the last valid state' (they show 512: a helper's walk read the two as a contradiction)."""
    page.get_by_role("tab", name="Scaling lab").click()
    wait_text(page, "#scaling-words", "At d_k = 64")
    type_over(page, "#lab-dk input[type=number]", "9999", key="Tab")
    wait_text(page, "#scaling-words", "At d_k = 512")
    said = page.locator("#scaling-words").inner_text()
    assert "d_k: 9999 is past the slider's end; set to 512" in said, said
    assert "last valid state" not in said, said
    assert page.locator("#lab-dk input[type=number]").input_value() == "512"
    assert page.locator("#lab-dk input[type=range]").input_value() == "512"


# ---- 3. sentence mode's d_out, d and seed --------------------------------------------------------------------------


def open_sentence(pg: Page) -> None:
    pg.get_by_role("tab", name="Sentence mode").click()
    wait_text(pg, "#sentence-tokens", "11 tokens, vocabulary of 7")
    settled(pg)


def test_sentence_modes_d_out_past_16_is_set_to_16_with_words_and_the_button_uses_the_d_out_shown(
    page: Page, served: tuple[str, Path]
) -> None:
    """d_out 20 + Enter: the box and the slider say 16 and the message says why (the old page: box 20, slider 16, no
    word, then W_q 3×16); 4 + Tab, then the button: the workbench's W_q is 3×4 (matmul: d rows, d_out columns). The
    views' divide-by-sum warning stays through both (d_out's answer erased it)."""
    warning = "divide-by-sum gives negative"
    before = tracebacks(served)
    open_sentence(page)
    assert warning in page.inner_text("#sentence-message")
    box = page.locator("#sentence-d-out input[type=number]")
    type_over(page, "#sentence-d-out input[type=number]", "20")
    wait_text(page, "#sentence-message", "d_out: 20 is past the slider's end; set to 16")
    settled(page)
    assert box.input_value() == "16"
    assert page.locator("#sentence-d-out input[type=range]").input_value() == "16"
    assert warning in page.inner_text("#sentence-message")
    type_over(page, "#sentence-d-out input[type=number]", "4", key="Tab")
    # (the box left sends its event a tick after the key, and 20's answer may send one more: wait for the words)
    expect(page.locator("#sentence-message")).not_to_contain_text("d_out:", timeout=30_000)
    settled(page)
    assert box.input_value() == "4"
    said = page.inner_text("#sentence-message")
    assert warning in said and "d_out:" not in said, said
    page.locator("#sent-go").click()
    page.wait_for_function(
        "() => document.querySelectorAll('#inputs table[data-name=W_q] th[scope=col]').length === 4"
        " && document.querySelectorAll('#inputs table[data-name=W_q] tr th[scope=row]').length === 3"
    )
    assert toasts(page) == []
    assert tracebacks(served) == before


def test_sentence_modes_d_past_16_says_so_and_a_negative_seed_is_one_message_in_words(
    page: Page, served: tuple[str, Path]
) -> None:
    """Embedding width d 20 + Enter: 16 columns, the box 16, and a message naming d (it was clamped with no word);
    seed −5 + Enter: one message in words, no toast (the old page: 'out of range 0..9223372036854775807' and a second,
    gradio 'Warning' toast), the box back at 69."""
    before = tracebacks(served)
    open_sentence(page)
    type_over(page, "#sentence-d input[type=number]", "20")
    wait_text(page, "#sentence-message", "embedding width d: 20 is past the slider's end; set to 16")
    settled(page)
    assert page.locator("#sentence-d input[type=number]").input_value() == "16"
    cols = page.locator("#sentence-emb thead th").count()
    assert cols == 17, cols  # the token column and d1..d16
    type_over(page, "#sentence-seed input", "-5")
    wait_text(page, "#sentence-message", "seed: -5 is below 0; a seed is a whole number, 0 or more")
    settled(page)
    assert "9223372036854775807" not in page.inner_text("#sentence-message")
    assert page.locator("#sentence-seed input").input_value() == "69"
    assert toasts(page) == []
    assert tracebacks(served) == before


def test_sentence_modes_d_says_what_each_value_typed_did_and_an_emptied_box_keeps_the_width(
    page: Page, served: tuple[str, Path]
) -> None:
    """Embedding width d −4 + Enter: set to 1, and said; then 0 + Enter: set to 1 again, and the message says 0 (it
    went on quoting −4: 1 was in force, so nothing was answered); then the box emptied + Enter: 'the box is empty; it
    keeps 1' and the box reads 1 (it said 'None is not a whole number'). Each time one column of numbers."""
    before = tracebacks(served)
    open_sentence(page)
    box = "#sentence-d input[type=number]"
    type_over(page, box, "-4")
    wait_text(page, "#sentence-message", "embedding width d: -4 is past the slider's end; set to 1")
    settled(page)
    assert page.locator(box).input_value() == "1"
    type_over(page, box, "0")
    wait_text(page, "#sentence-message", "embedding width d: 0 is past the slider's end; set to 1")
    settled(page)
    assert "-4" not in page.inner_text("#sentence-message")
    assert page.locator(box).input_value() == "1"
    page.locator(box).click()
    page.locator(box).press("Control+a")
    page.locator(box).press("Backspace")
    page.locator(box).press("Enter")
    wait_text(page, "#sentence-message", "embedding width d: the box is empty; it keeps 1")
    settled(page)
    said = page.inner_text("#sentence-message")
    assert "None" not in said and "0 is past" not in said, said
    assert page.locator(box).input_value() == "1"
    assert page.locator("#sentence-emb thead th").count() == 2  # the token column and d1
    assert toasts(page) == []
    assert tracebacks(served) == before


# ---- 4. a refusal made in the open drawer is seen ----------------------------------------------------------------


def on_top(pg: Page, selector: str) -> bool:
    """Whether the element at the centre of ``selector``'s box is it or inside it (nothing lies over it)."""
    return pg.evaluate(
        """(s) => { const el = document.querySelector(s), r = el.getBoundingClientRect();
          const at = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
          return r.width > 0 && !!at && el.contains(at); }""",
        selector,
    )


@pytest.mark.parametrize("size", [(1280, 720), (900, 800)])
@pytest.mark.parametrize(("label", "typed", "said"), [("T (query tokens)", "65", "T: 65 is out of range 1..64"),
                                                      ("heads", "9", "heads: 9 is out of range 1..8")])  # fmt: skip
def test_a_refusal_made_with_the_drawer_open_is_on_top_and_leaves_the_box_in_sight(
    browser: Browser, served: tuple[str, Path], size: tuple[int, int], label: str, typed: str, said: str
) -> None:
    """More settings open, T 65 (in it) or heads 9 (on the toolbar) + Enter: the message's centre is the message
    (elementFromPoint; the old page: the drawer), and the box typed in is still on top at its centre."""
    pg = open_page(browser, served[0], width=size[0], height=size[1], events=True)
    try:
        pg.locator("#more button.label-wrap").click()
        pg.get_by_label("T (query tokens)", exact=True).wait_for(state="visible")
        type_over(pg, f"[aria-label='{label}']", typed)
        wait_text(pg, "#message", said)
        settled(pg)
        pg.wait_for_timeout(300)  # (past any transition)
        assert pg.get_by_label("T (query tokens)", exact=True).is_visible()  # the drawer is still open
        assert on_top(pg, "#message .msg-error"), "the message is covered"
        if size[0] >= 1100:
            box = pg.get_by_label(label, exact=True)
            r = box.bounding_box()
            assert r is not None
            at = pg.evaluate(
                "([x, y]) => document.elementFromPoint(x, y)?.getAttribute('aria-label')",
                [r["x"] + r["width"] / 2, r["y"] + r["height"] / 2],
            )
            assert at == label, at
    finally:
        pg.close()


# ---- 6. the badge names what the learner changed ----------------------------------------------------------------


def test_switching_the_dtype_alone_is_the_one_change_the_badge_names(page: Page) -> None:
    """A fresh StatQuest page, dtype → float64 (clicked as a learner clicks it): the badge says 'changed: dtype' and
    nothing else (the old page: 'changed: x, W_q, W_k, W_v, dtype': the preset's float32 numbers read in float64
    compared unequal); back to float32, it matches again."""
    page.get_by_label("dtype", exact=True).click()
    page.locator("li[role='option'][aria-label='float64']").click()
    page.wait_for_function("() => document.querySelector('#badge').innerText.includes('changed:')")
    settled(page)
    said = page.inner_text("#badge")
    assert "changed: dtype)" in said, said
    page.get_by_label("dtype", exact=True).click()
    page.locator("li[role='option'][aria-label='float32']").click()
    page.wait_for_function("() => document.querySelector('#badge').innerText.includes('✓ matches')")


# ---- 8. one format a table ---------------------------------------------------------------------------------------


def test_the_kv_caches_sizes_are_written_as_the_counts_they_are(page: Page) -> None:
    """mask → causal, KV-cache decoding ticked, as a learner does: the overview's 'KV cache size' card reads 1, 2, 3
    (keys cached at each token), not 1.0000, 2.0000, 3.0000."""
    page.get_by_label("mask", exact=True).click()
    page.locator("li[role='option'][aria-label='causal']").click()
    settled(page)
    page.locator("#more button.label-wrap").click()
    page.get_by_label("KV-cache decoding", exact=True).check()
    page.wait_for_selector("#overview table[data-name=cache] td[data-r]", state="attached")
    settled(page)
    cells = page.locator("#overview table[data-name=cache] td[data-r]").all_inner_texts()
    assert cells == ["1", "2", "3"], cells


# ---- 7. no badge moves the pipeline ------------------------------------------------------------------------------

TOPS = """() => ['#tabs', '#bench'].map((s) => document.querySelector(s).getBoundingClientRect().top + scrollY)"""


def test_a_long_badge_moves_nothing_and_shows_whole_when_pointed_at(browser: Browser, served: tuple[str, Path]) -> None:
    """At 1280x720: the tabs and the bench stand where a fresh page has them, with Mistral-style's long badge and
    after KV-cache decoding is ticked (its badge four lines: the old page moved the tabs 114 -> 148); pointed at,
    the badge shows its whole text (nothing cut) and the bench still stands."""
    pg = open_page(browser, served[0], events=True)
    try:
        settled(pg)
        fresh = pg.evaluate(TOPS)
    finally:
        pg.close()
    pg = open_page(browser, served[0] + "?preset=mistral-style", events=True)
    try:
        settled(pg)
        pg.locator("#more button.label-wrap").click()
        pg.get_by_label("KV-cache decoding", exact=True).check()
        pg.wait_for_selector("#overview table[data-name=cache] td[data-r]", state="attached")
        settled(pg)
        pg.keyboard.press("Escape")
        assert "changed: KV-cache decoding" in pg.inner_text("#badge")
        for got, want in zip(pg.evaluate(TOPS), fresh, strict=True):
            assert abs(got - want) <= 1, (got, want)
        pg.locator("#badge").hover()
        pg.wait_for_timeout(200)
        cut = pg.evaluate("() => { const b = document.querySelector('#badge .badge'); "
                          "return b.scrollHeight - b.clientHeight; }")  # fmt: skip
        assert cut <= 1, cut
        for got, want in zip(pg.evaluate(TOPS), fresh, strict=True):
            assert abs(got - want) <= 1, (got, want)
    finally:
        pg.close()


# ---- 9. the scaling lab's words agree with themselves ------------------------------------------------------------


def test_the_scaling_labs_words_agree_with_its_numbers_and_write_decimals(page: Page) -> None:
    """d_k 64, seed 64 typed + Enter: row 1 is one-hot (0.99) while the Jacobian norm, over every row, is still 0.2:
    the words say both without 'at this small d_k the scores are not yet large', and write no 2.0e-01."""
    open_scaling(page)
    type_over(page, "#lab-seed input", "64")
    wait_text(page, "#scaling-words", "row 1 is nearly one-hot already")
    words = page.inner_text("#scaling-words")
    assert "softmax puts 0.99 of row 1 on one key" in words and "Jacobian norm is still 0.2:" in words, words
    assert "small d_k" not in words and "e-0" not in words, words


def test_window_below_zero_is_named_with_the_range_its_box_takes(page: Page, served: tuple[str, Path]) -> None:
    """window −1 + Enter, typed key by key: 'window: -1 is out of range 0..64 (0 is off)' (the old page said 1..64
    under a box labelled "window (0 = off)"), the box back at 0; then 2 + Enter applies a window of 2 and the message
    goes."""
    before = tracebacks(served)
    page.locator("#more button.label-wrap").click()
    box = "#md-window input"
    page.locator(box).wait_for(state="visible")
    settled(page)
    type_over(page, box, "-1")
    wait_text(page, "#message", "window: -1 is out of range 0..64 (0 is off)")
    settled(page)
    assert page.locator(box).input_value() == "0"
    type_over(page, box, "2")
    page.wait_for_function("() => !document.querySelector('#message').innerText.trim()")
    settled(page)
    assert page.locator(box).input_value() == "2"
    assert "window" in page.inner_text("#badge").lower()
    assert toasts(page) == []
    assert tracebacks(served) == before


# ---- 4. the workbench's typed boxes: a refused value's box goes back ---------------------------------------------

TOKENS = "token labels (comma-separated)"  # (gradio labels no text box by aria-label: the page finds it by elem_id)
TEMPERATURE = "input[type=number][aria-label='temperature (divide by)']"
BOX_READS = "([s, v]) => document.querySelector(s)?.value === v"


def test_a_refused_token_list_goes_back_to_the_labels_in_force(page: Page) -> None:
    """Two labels typed for three tokens, key by key, and Enter: the message names the field, and the box shows the
    labels the views use again (the page puts a refused box back, static/putback.js; a review found the text boxes
    never put back, as the page looked for them by an aria-label gradio does not give them). Leaving the box then
    changes nothing: the refusal stays to be read."""
    page.locator("#more button.label-wrap").click()
    box = page.get_by_label(TOKENS, exact=True)
    box.wait_for(state="visible")
    before = box.input_value()
    box.click()
    box.press("Control+a")
    box.press_sequentially("a, b", delay=TYPE_DELAY)
    box.press("Enter")
    wait_text(page, "#message", "token labels")
    expect(box).to_have_value(before)
    page.locator("#more button.label-wrap").click()  # (the box left: its blur)
    settled(page)
    assert box.input_value() == before and "token labels" in page.inner_text("#message")
    assert not toasts(page)


def test_the_same_refused_temperature_twice_goes_back_twice(page: Page) -> None:
    """-1 typed into the temperature and Enter, twice: each time the message says why and the box shows 1 again (the
    same refusal twice was the same message, which gradio does not draw again, and the box kept the second -1)."""
    page.get_by_label("scale", exact=True).click()
    page.locator("li[role='option'][aria-label='temperature']").click()
    page.wait_for_selector(TEMPERATURE)
    settled(page)
    for _ in range(2):
        type_over(page, TEMPERATURE, "-1", delay=TYPE_DELAY)
        wait_text(page, "#message", "a temperature must be positive")
        page.wait_for_function(BOX_READS, arg=[TEMPERATURE, "1"])
        settled(page)
    scaled = page.evaluate("() => document.querySelector('#html-scaled').textContent")  # (drawn below the screen)
    assert page.input_value(TEMPERATURE) == "1" and "scores ÷ 1" in scaled, scaled[:300]


def test_a_number_past_what_a_number_holds_goes_back_to_the_value_in_force(page: Page) -> None:
    """1e999 typed into "heads" and Enter: the browser reads it as Infinity, which gradio sends as nothing, so the
    server keeps 1 and says the box is empty, and the box shows 1 again. (A review feared the page, which puts back
    a box the server took as empty only while it is empty, would leave 1e999 in it: gradio empties the box itself.)"""
    box = "input[type=number][aria-label='heads']"
    type_over(page, box, "1e999", delay=TYPE_DELAY)
    wait_text(page, "#message", "heads: the box is empty; it keeps 1")
    page.wait_for_function(BOX_READS, arg=[box, "1"])
    settled(page)
    assert page.input_value(box) == "1"


@pytest.mark.parametrize("emptied", ["Backspace", "abc"])
def test_a_box_emptied_after_a_value_entered_in_it_goes_back_to_that_value(page: Page, emptied: str) -> None:
    """A learner's walk: 12 typed into the temperature and Enter, then, the focus still in the box, its text deleted
    (or letters typed, which a number box does not take) and Enter: the box read 1, the value it showed when the
    focus came to it, while the views divided by 12 and the message said "it keeps 12"."""
    page.get_by_label("scale", exact=True).click()
    page.locator("li[role='option'][aria-label='temperature']").click()
    page.wait_for_selector(TEMPERATURE)
    settled(page)
    type_over(page, TEMPERATURE, "12", delay=TYPE_DELAY)
    page.wait_for_function("() => document.querySelector('#html-scaled').textContent.includes('scores ÷ 12')")
    settled(page)
    box = page.locator(TEMPERATURE)
    box.press("Control+a")  # (the focus never left the box)
    box.press("Backspace") if emptied == "Backspace" else box.press_sequentially(emptied, delay=TYPE_DELAY)
    box.press("Enter")
    wait_text(page, "#message", "the box is empty; it keeps 12")
    settled(page)
    page.wait_for_timeout(300)  # (anything that would set the box otherwise has done so)
    scaled = page.evaluate("() => document.querySelector('#html-scaled').textContent")
    shown = page.input_value(TEMPERATURE)
    assert shown == "12" and "scores ÷ 12" in scaled, (shown, scaled[:200])
