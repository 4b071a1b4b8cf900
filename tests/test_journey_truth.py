"""What a control shows is what is computed (issue 37), in real Chromium, typed as a learner types: key by key at
80 ms, Enter or Tab as a person presses them. Each journey asserts what is on screen, against torch computed here.

A number or text box applies on Enter or on leaving it, never per keystroke; a structural change keeps every cell it
can; a refused value is named in the app's own words and its control goes back to the value in force; the seed box
applies; sentence mode draws the typed sentence's own embeddings."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
import torch
from browser import LOADED, Held, open_page, settled
from playwright.sync_api import Browser, Page
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from test_journey_tour_controls import wait_step

from attention_core.notebooks.presets import STATQUEST_X

TYPE_DELAY = 80  # ms between keys: a person's typing speed


def open_more(pg: Page) -> None:
    """Open the "More settings" drawer, as a learner clicks it."""
    if not pg.get_by_label("T (query tokens)", exact=True).is_visible():
        pg.locator("#more button.label-wrap").click()
        pg.get_by_label("T (query tokens)", exact=True).wait_for(state="visible")


def type_in(pg: Page, label: str, text: str, key: str = "Enter") -> None:
    """Select what the box labelled ``label`` holds and type ``text`` over it key by key, then press ``key``."""
    box = pg.get_by_label(label, exact=True)
    box.click()
    box.press("Control+a")
    box.press_sequentially(text, delay=TYPE_DELAY)
    if key:
        box.press(key)


def grid(pg: Page, name: str) -> list[tuple[str, list[str]]]:
    """An editable input grid as shown: (row label, the row's cells' text), row by row."""
    rows = pg.evaluate(
        """(name) => [...document.querySelectorAll(`#inputs table[data-name=${name}] tr`)]
            .filter((tr) => tr.querySelector('td[data-r]'))
            .map((tr) => [tr.querySelector('th').textContent.trim(),
                          [...tr.querySelectorAll('td[data-r]')].map((td) => td.textContent.trim())])""",
        name,
    )
    return [(label, cells) for label, cells in rows]


def labels(rows: list[tuple[str, list[str]]]) -> list[str]:
    return [label for label, _ in rows]


def numbers(rows: list[tuple[str, list[str]]]) -> list[list[float]]:
    return [[float(c) for c in cells] for _, cells in rows]


def rows_shown(pg: Page, name: str, n: int) -> None:
    pg.wait_for_function(
        "([name, n]) => document.querySelectorAll(`#inputs table[data-name=${name}] tr td[data-r][data-c='0']`)"
        ".length === n",
        arg=[name, n],
    )


def message(pg: Page) -> str:
    return pg.inner_text("#message")


def toasts(pg: Page) -> list[str]:
    return pg.locator(".toast-body").all_inner_texts()


def log_tracebacks(served: tuple[str, Path]) -> list[str]:
    return [line for line in served[1].read_text().splitlines() if "Traceback" in line]


# ---- 1. a two-digit size applies once, and every cell it can keep is kept ------------------------------------


def test_a_two_digit_T_applies_on_enter_and_keeps_the_presets_rows_both_ways(page: Page) -> None:
    """T 3 → 12 → 3, typed: rows t1..t3 stay StatQuest's encodings, and back at 3 the badge matches the notebook
    again. (Seen failing on the old page: the '1' of '12' applied T=1, and row t2 came back drawn, 1.8 −4.21.)"""
    open_more(page)
    type_in(page, "T (query tokens)", "12")
    rows_shown(page, "x", 12)
    settled(page)
    x = grid(page, "x")
    assert numbers(x)[:3] == STATQUEST_X, x
    assert labels(x)[:3] == ["t1", "t2", "t3"] and len(x) == 12
    type_in(page, "T (query tokens)", "3", key="Tab")  # leaving the box applies it too
    rows_shown(page, "x", 3)
    settled(page)
    assert numbers(grid(page, "x")) == STATQUEST_X
    page.wait_for_function("() => document.querySelector('#badge').innerText.includes('✓ matches')")


def test_a_two_digit_d_model_keeps_every_column(page: Page) -> None:
    """d_model 2 → 12 keeps columns d1, d2 (the old page replaced d2's 0.23 with 2.97: d_model went to 1 first)."""
    open_more(page)
    type_in(page, "d_model", "12")
    page.wait_for_function("() => document.querySelectorAll('#inputs table[data-name=x] th[scope=col]').length === 12")
    settled(page)
    assert [r[:2] for r in numbers(grid(page, "x"))] == STATQUEST_X
    assert page.get_by_label("d_model", exact=True).input_value() == "12"


@pytest.mark.parametrize(
    ("label", "typed", "said", "in_force"),
    [("T (query tokens)", "65", "T: 65 is out of range 1..64", "3"),
     ("heads", "9", "heads: 9 is out of range 1..8", "1"),
     # not whole: gradio's precision=0 rounded them half to even, unseen (T 2 tokens, heads 2 under 2.5 and 1.5)
     ("T (query tokens)", "2.5", "T: 2.5 is not a whole number", "3"),
     ("heads", "1.5", "heads: 1.5 is not a whole number", "1")],
)  # fmt: skip
def test_an_out_of_range_size_is_named_and_its_box_goes_back(
    page: Page, served: tuple[str, Path], label: str, typed: str, said: str, in_force: str
) -> None:
    """The app's own message names the field and its limit; no gradio range toast, no traceback in the log; the box
    shows the value in force again (seen failing: 'Value 9 is greater than maximum value 8', the box kept 9)."""
    before = len(log_tracebacks(served))
    if label.startswith("T"):
        open_more(page)
    out = page.inner_text("#overview table[data-name=output]")
    type_in(page, label, typed)
    page.wait_for_function("(s) => document.querySelector('#message').innerText.includes(s)", arg=said)
    settled(page)
    assert page.get_by_label(label, exact=True).input_value() == in_force
    assert toasts(page) == []  # no gradio range toast, and no toast of ours over the badge: the message line says it
    assert page.inner_text("#overview table[data-name=output]") == out  # the views kept the state in force
    assert len(log_tracebacks(served)) == before


@pytest.mark.parametrize(("label", "typed", "said", "in_force"),
                         [("heads", "9", "heads: 9 is out of range 1..8", "1"),
                          ("seed", "-3", "seed: -3 is out of range", "42")])  # fmt: skip
def test_a_refusal_stays_when_the_box_is_left_and_goes_when_the_value_in_force_is_entered(
    page: Page, label: str, typed: str, said: str, in_force: str
) -> None:
    """A refused value, the box set back: Tab away, and the refusal is still there to read; the value in force typed
    again and entered, and the line no longer says a refusal of a value the box does not show (seen failing: 'heads:
    9 is out of range' stayed under heads 1 after its Enter); the views are those they were. For the seed, a new seed
    taken after a refused one takes the refusal back too."""
    if label == "seed":
        open_more(page)
    out = page.inner_text("#overview table[data-name=output]")
    type_in(page, label, typed, key="Enter")
    page.wait_for_function("(s) => document.querySelector('#message').innerText.includes(s)", arg=said)
    page.get_by_label(label, exact=True).press("Tab")  # leaving the box: the blur, the value in force
    page.wait_for_timeout(300)
    settled(page)
    assert said in message(page) and page.get_by_label(label, exact=True).input_value() == in_force
    type_in(page, label, in_force)
    page.wait_for_function("(s) => !document.querySelector('#message').innerText.includes(s)", arg=said)
    settled(page)
    assert "✖" not in message(page), message(page)
    assert page.get_by_label(label, exact=True).input_value() == in_force
    assert page.inner_text("#overview table[data-name=output]") == out
    if label == "seed":  # a new seed taken after a refused one
        type_in(page, label, typed)
        page.wait_for_function("(s) => document.querySelector('#message').innerText.includes(s)", arg=said)
        type_in(page, label, "7")
        page.wait_for_function("(s) => !document.querySelector('#message').innerText.includes(s)", arg=said)
        settled(page)
        assert "✖" not in message(page) and page.get_by_label(label, exact=True).input_value() == "7"


# ---- 2. the seed box applies -----------------------------------------------------------------------------------


def drawn_weights(recipe: str, seed: int, d_in: int = 2, d_out: int = 2) -> list[torch.Tensor]:
    """W_q, W_k, W_v as the notebooks draw them after torch.manual_seed(seed), out×in (the linear layout shown)."""
    torch.manual_seed(seed)
    if recipe == "linear":
        return [torch.nn.Linear(d_in, d_out, bias=False).weight.detach() for _ in range(3)]
    return [torch.rand(d_in, d_out).T for _ in range(3)]  # 003: nn.Parameter(torch.rand(d_in, d_out)), x @ W


@pytest.mark.parametrize(("button", "recipe", "key"), [("nn.Linear", "linear", "Enter"), ("torch.rand", "rand", "")])
def test_the_seed_box_applies_to_the_init_buttons(page: Page, button: str, recipe: str, key: str) -> None:
    """seed 8, then an init button: seed 8's weights (with Enter, or straight from the box to the button), and the
    badge says the preset was left. (Seen failing: W_q stayed seed 42's 0.5406, the badge '✓ matches'.)"""
    open_more(page)
    type_in(page, "seed", "8", key=key)
    page.get_by_role("button", name=f"Init weights: {button} (seed)").click()
    want = drawn_weights(recipe, 8)
    shown = lambda: [torch.tensor(numbers(grid(page, n))) for n in ("W_q", "W_k", "W_v")]  # noqa: E731
    page.wait_for_function("() => document.querySelector('#badge').innerText.includes('left the preset')")
    settled(page)
    for got, exp in zip(shown(), want, strict=True):
        torch.testing.assert_close(got, exp, atol=5e-5, rtol=0)  # the grid prints 4 decimals at most
    if recipe == "linear":
        torch.testing.assert_close(want[0][0], torch.tensor([0.1385, 0.4883]), atol=5e-5, rtol=0)  # issue 37's
    assert "✓ matches" not in page.inner_text("#badge")
    assert page.get_by_label("seed", exact=True).input_value() == "8"


PAST = r"seed: a number past 9007199254740991, the largest whole number the box holds exactly"


@pytest.mark.parametrize(
    ("typed", "said"),
    [("-3", r"seed: -3 is out of range 0\.\."), ("7.5", r"seed: 7\.5 is not a whole number"),
     # (the box holds a double: 2⁵³ + 1 was drawn from as 2⁵³ under a box reading what was typed, and 2⁶³ − 1, the
     # core's limit, was refused as "9223372036854775808 is out of range 0..9223372036854775807")
     ("9007199254740993", PAST), ("9223372036854775807", PAST)],
)  # fmt: skip
def test_a_bad_seed_is_named_and_the_box_goes_back(page: Page, typed: str, said: str) -> None:
    """A seed below 0, or not whole (7.5 drew torch.manual_seed(8)'s weights under a box reading 7.5), is named and
    the box goes back; the init button then draws the seed in force's weights (42's, the preset's own), not 8's."""
    open_more(page)
    w_q = numbers(grid(page, "W_q"))
    type_in(page, "seed", typed)
    page.wait_for_function("() => document.querySelector('#message').innerText.includes('seed')")
    settled(page)
    assert re.search(said, message(page)), message(page)
    assert page.get_by_label("seed", exact=True).input_value() == "42"
    assert numbers(grid(page, "W_q")) == w_q  # nothing drawn from a seed refused
    page.get_by_role("button", name="Init weights: nn.Linear (seed)").click()
    settled(page)
    got = torch.tensor(numbers(grid(page, "W_q")))
    torch.testing.assert_close(got, drawn_weights("linear", 42)[0], atol=5e-5, rtol=0)
    assert not torch.allclose(got, drawn_weights("linear", 8)[0], atol=5e-5)


def test_the_largest_seed_the_box_holds_is_the_one_drawn_from_and_linked(page: Page) -> None:
    """2⁵³ − 1, typed key by key: the init button draws torch.manual_seed(9007199254740991)'s weights, not its
    neighbour's, and the address carries that very seed (the page linked 9007199254740992 for a typed ...993)."""
    open_more(page)
    type_in(page, "seed", "9007199254740991")
    page.wait_for_function("() => new URLSearchParams(location.search).get('seed') === '9007199254740991'")
    page.get_by_role("button", name="Init weights: nn.Linear (seed)").click()
    settled(page)
    got = torch.tensor(numbers(grid(page, "W_q")))
    torch.testing.assert_close(got, drawn_weights("linear", 2**53 - 1)[0], atol=5e-5, rtol=0)
    assert not torch.allclose(got, drawn_weights("linear", 2**53)[0], atol=5e-5)
    assert page.get_by_label("seed", exact=True).input_value() == "9007199254740991"


def test_a_seed_set_and_the_page_reloaded_keeps_the_seed_new_rows_are_drawn_from(page: Page) -> None:
    """A learner sets seed 99 (key by key, then Enter) and reloads: the box reads 99, not the preset's 42, and the
    row a larger T adds is seed 99's draw, as it would have been before the reload. (The address carried no seed:
    the box read 42 after a reload, and a resize drew 42's rows.)"""
    open_more(page)
    type_in(page, "seed", "99")
    page.wait_for_function("() => new URLSearchParams(location.search).get('seed') === '99'")
    page.reload()
    page.wait_for_function(LOADED)
    open_more(page)
    assert page.get_by_label("seed", exact=True).input_value() == "99"
    type_in(page, "T (query tokens)", "4")
    page.wait_for_function("() => document.querySelectorAll('#inputs table[data-name=x] tr').length === 5")
    settled(page)

    def new_row(seed: int) -> list[float]:  # ui/values.py reshape_values: X's new rows, drawn from the seed
        return (torch.randn(4, 2, generator=torch.Generator().manual_seed(seed)) * 2).round(decimals=2)[3].tolist()

    got = numbers(grid(page, "x"))[3]
    assert got == pytest.approx(new_row(99), abs=1e-6) and got != pytest.approx(new_row(42), abs=1e-6), got
    page.wait_for_function("() => new URLSearchParams(location.search).get('seed') === '99'")  # (the new state's)
    type_in(page, "seed", "42")  # a scenario's own seed: the address names none
    page.wait_for_function("() => !new URLSearchParams(location.search).has('seed')")


# ---- 3. sentence mode: the typed sentence's own embeddings ----------------------------------------------------

EMB_JS = """() => { const out = {};
  document.querySelectorAll('#sentence-emb [role=gridcell][data-row]').forEach((c) => {
    (out[c.dataset.row] ??= [])[+c.dataset.col] = c.innerText.trim(); });
  return Object.values(out); }"""


def embeddings_shown(pg: Page) -> dict[str, list[float]]:
    return {r[0]: [float(c) for c in r[1:]] for r in pg.evaluate(EMB_JS)}


@pytest.mark.parametrize("delay", [TYPE_DELAY, 15])
def test_a_typed_sentence_gets_its_own_seeded_embeddings_and_carries_them_to_the_workbench(
    page: Page, delay: int
) -> None:
    """'the cat sat on the mat' typed at a person's speed (and fast), then Enter: nn.Embedding(6, 3) after
    manual_seed(69), every row, none left from the sentence before; then the workbench's X holds those rows by
    token. (Seen failing on the old page: '␣' and 'the' had one vector, −0.5259, −2.6043, −0.6448.)"""
    sentence, vocab = "the cat sat on the mat", [" ", "cat", "mat", "on", "sat", "the"]
    torch.manual_seed(69)
    want = torch.nn.Embedding(len(vocab), 3).weight.detach()
    torch.testing.assert_close(want[0], torch.tensor([-0.5300, -1.3035, -0.6627]), atol=5e-5, rtol=0)  # issue 37's
    page.get_by_role("tab", name="Sentence mode").click()
    page.wait_for_function("() => document.querySelector('#sentence-tokens').innerText.includes('vocabulary of 7')")
    field = page.locator("#sentence-text textarea")
    field.click()
    field.press("Control+a")
    field.press_sequentially(sentence, delay=delay)
    field.press("Enter")
    page.wait_for_function("() => document.querySelector('#sentence-tokens').innerText.includes('vocabulary of 6')")
    settled(page)
    page.wait_for_function(
        "() => document.querySelectorAll('#sentence-emb [role=gridcell][data-col=\"0\"]').length === 6"
    )
    shown = embeddings_shown(page)
    assert list(shown) == ["␣", *vocab[1:]], shown
    torch.testing.assert_close(torch.tensor(list(shown.values())), want, atol=5e-7, rtol=1e-6)
    page.locator("#sent-go").click()
    rows_shown(page, "x", 11)
    settled(page)
    x = grid(page, "x")
    ids = [vocab.index(t) for t in ["the", " ", "cat", " ", "sat", " ", "on", " ", "the", " ", "mat"]]
    assert labels(x) == ["the", "␣", "cat", "␣", "sat", "␣", "on", "␣", "the", "␣", "mat"], labels(x)
    torch.testing.assert_close(torch.tensor(numbers(x)), want[ids], atol=5e-5, rtol=0)


def test_sentence_modes_seed_entered_and_left_at_once_keeps_the_new_seeds_rows(page: Page) -> None:
    """Seed 70 typed key by key, Enter, then Tab at once, with the Enter's call held on the network until the blur's
    has been answered (a server that takes them in the other order, as a slow network or a loaded server has it): the
    rows are nn.Embedding(7, 3) after manual_seed(70), and stay so. Seen failing before: the seed the rows were drawn
    from was kept on the server and read as a call began, the table as it left; the Enter's call, come last, read
    seed 70 (the blur's, just drawn) against seed 69's table, took every row for the learner's edit, and the table
    went back to seed 69's rows under a box reading 70 (a review, stop 53)."""
    open_sentence(page)
    held = Held(page)
    page.route(re.compile("/queue/join"), held.hold("enter", lambda body: 70 in (body.get("data") or [])))
    box = page.locator("#sentence-seed input")
    box.click()
    box.press("Control+a")
    box.press_sequentially("70", delay=TYPE_DELAY)
    box.press("Enter")
    box.press("Tab")
    enter = held.wait("enter")
    want = drawn_embeddings(3, 70)
    end = time.monotonic() + 30
    while time.monotonic() < end:  # the blur's call answered: seed 70's rows
        shown = embeddings_shown(page)
        if len(shown) == 7 and abs(next(iter(shown.values()))[0] - float(want[0][0])) < 1e-6:
            break
        page.wait_for_timeout(100)
    else:
        raise AssertionError(f"the blur's call never drew seed 70's rows: {embeddings_shown(page)}")
    enter.continue_()
    settled(page)
    page.wait_for_timeout(500)  # (the Enter's answer drawn, if it is)
    assert box.input_value() == "70"
    shown = sentence_rows(page, 7, 3)
    torch.testing.assert_close(torch.tensor(list(shown.values())), want, atol=5e-7, rtol=1e-6)


# every width sentence mode's table shows, in order, from now on (a width counted once per change)
WIDTHS_JS = """() => { const seen = [];
  const width = () => document.querySelectorAll('#sentence-emb [role=gridcell][data-row="0"]').length - 1;
  const note = () => { const w = width(); if (w > 0 && w !== seen.at(-1)) seen.push(w); };
  note();
  new MutationObserver(note).observe(document.querySelector('#sentence-emb'), { childList: true, subtree: true });
  window.apWidths = seen; }"""


def sentence_rows(pg: Page, n: int, d: int) -> dict[str, list[float]]:
    """Sentence mode's table once it shows ``n`` rows of ``d`` numbers, every label drawn."""
    pg.wait_for_function(
        """([n, d]) => { const c = [...document.querySelectorAll('#sentence-emb [role=gridcell][data-row]')];
           return c.length === n * (d + 1) && c.every((x) => x.innerText.trim() !== ''); }""",
        arg=[n, d],
    )
    settled(pg)
    return embeddings_shown(pg)


def open_sentence(pg: Page) -> None:
    pg.get_by_role("tab", name="Sentence mode").click()
    pg.wait_for_function("() => document.querySelector('#sentence-tokens').innerText.includes('vocabulary of 7')")
    sentence_rows(pg, 7, 3)
    pg.evaluate(WIDTHS_JS)


def drawn_embeddings(d: int, seed: int = 69, vocab: int = 7) -> torch.Tensor:
    torch.manual_seed(seed)
    return torch.nn.Embedding(vocab, d).weight.detach()


@pytest.mark.parametrize("key", ["Enter", "Tab"])
def test_sentence_modes_d_applies_on_enter_or_leaving_its_box_never_per_key(page: Page, key: str) -> None:
    """d typed as 12 key by key, then Enter or Tab: the table goes from 3 to 12 columns once, never through d = 1,
    and its rows are nn.Embedding(7, 12) after manual_seed(69); the box says 12. Leaving the box after Enter applies
    nothing more. (Seen failing before: the '1' applied, the table showed widths [3, 1, 12].)"""
    open_sentence(page)
    box = page.locator("#sentence-d input[type=number]")
    box.click()
    box.press("Control+a")
    box.press_sequentially("12", delay=TYPE_DELAY)
    page.wait_for_timeout(600)  # a keystroke's event would be answered and drawn by now
    settled(page)
    assert page.evaluate("() => window.apWidths") == [3], "a keystroke applied"
    box.press(key)
    torch.testing.assert_close(torch.tensor(list(sentence_rows(page, 7, 12).values())), drawn_embeddings(12))
    if key == "Enter":
        sent = settled(page)
        box.press("Tab")
        page.wait_for_timeout(400)
        assert settled(page) - sent <= 1  # the blur's release, answered with nothing
    assert page.evaluate("() => window.apWidths") == [3, 12]
    assert box.input_value() == "12"


def test_sentence_modes_d_slider_applies_on_its_keys_and_an_emptied_box_goes_back(page: Page) -> None:
    """The range's arrow key applies the next width when the key is let go (3 -> 4); d's box emptied, then Tab: the
    message names d, and the box shows the width in force again, 4, over 4 columns. (Gradio's own blur released the
    box and clamped it at once, and the release read the emptied box or the clamped one, whichever came first: 1 run
    in 4 no message came, the test was loosened to accept that; sliders.js now releases the box itself.)"""
    open_sentence(page)
    page.locator("#sentence-d input[type=range]").focus()
    page.keyboard.press("ArrowRight")
    rows = sentence_rows(page, 7, 4)
    torch.testing.assert_close(torch.tensor(list(rows.values())), drawn_embeddings(4))
    box = page.locator("#sentence-d input[type=number]")
    assert box.input_value() == "4"
    box.click()
    box.press("Control+a")
    box.press("Backspace")
    box.press("Tab")
    try:
        page.wait_for_function(
            "() => document.querySelector('#sentence-message').innerText.includes('width d')", timeout=10_000
        )
    except PlaywrightTimeout:
        raise AssertionError(f"no message naming d; the box shows {box.input_value()!r}") from None
    page.wait_for_function("() => document.querySelector('#sentence-d input[type=number]').value === '4'")
    settled(page)
    assert "embedding width d" in page.locator("#sentence-message").inner_text()
    assert box.input_value() == "4"
    assert page.evaluate("() => window.apWidths") == [3, 4]


# ---- 4. a refused setting never stays shown as if applied ------------------------------------------------------


def test_kv_cache_decoding_refused_under_no_mask_unticks_and_applies_once_ticked_under_causal(page: Page) -> None:
    """Ticked under mask 'none' it is refused: named, and the box unticks; under 'causal', ticked, the KV cache shows.
    (Seen failing: the box stayed ticked, and after mask → causal no cache appeared.)"""
    open_more(page)
    box = page.get_by_label("KV-cache decoding", exact=True)
    box.click()
    page.wait_for_function("() => document.querySelector('#message').innerText.includes('KV-cache decoding')")
    settled(page)
    assert "KV-cache decoding" in message(page) and not box.is_checked()
    page.keyboard.press("Escape")  # the drawer closes
    out = page.inner_text("#overview table[data-name=output]")
    page.get_by_label("mask", exact=True).click()
    page.locator("li[role='option'][aria-label='causal']").click()
    page.wait_for_function(
        "(o) => document.querySelector('#overview table[data-name=output]').innerText !== o", arg=out
    )
    settled(page)
    assert "KV cache" not in page.inner_text("#overview")  # nothing shown as applied that is not
    open_more(page)
    box.click()
    page.wait_for_function("() => document.querySelector('#overview').innerText.includes('KV cache')")
    settled(page)
    assert box.is_checked() and "msg-error" not in page.inner_html("#message")


@pytest.mark.parametrize(
    ("box", "label", "choice", "kept"),
    [("#tb-fill", "fill", "-1e9", "-inf"), ("#tb-normalize", "normalise", "sum", "softmax")],
)
def test_a_refused_dropdown_choice_shows_the_value_in_force_at_once(
    browser: Browser, served: tuple[str, Path], box: str, label: str, choice: str, kept: str
) -> None:
    """Under KV-cache decoding fill −1e9 (a score) and divide-by-sum are refused: named, and the box shows the value
    in force again while it still has the focus (a11y.js gives a chosen box its focus back), as a learner who chose
    with the mouse sees it. (Seen failing: the box read −1e9 for 7 s over views of −inf, until it was left.)"""
    pg = open_page(browser, f"{served[0]}?preset=statquest-masked", events=True)
    open_more(pg)
    pg.get_by_label("KV-cache decoding", exact=True).click()
    pg.wait_for_function("() => document.querySelector('#overview').innerText.includes('KV cache')")
    settled(pg)
    pg.keyboard.press("Escape")  # the drawer closes
    masked = pg.inner_text("#overview table[data-name=masked]") if label == "fill" else None
    pg.locator(f"{box} input").click()
    pg.locator(f"li[role='option'][aria-label='{choice}']").click()
    pg.wait_for_function("(s) => document.querySelector('#message').innerText.includes(s)", arg=f"{label}: ")
    settled(pg)
    pg.wait_for_function(  # (a11y.js writes it back a frame after the refusal's mark: a loaded page's frame is late)
        "([b, k]) => { const i = document.querySelector(`${b} input`);"
        " return document.activeElement === i && i.value === k; }",
        arg=[box, kept],
        timeout=5_000,
    )
    pg.wait_for_timeout(300)  # (a frame or two: no later event may set it back instead)
    assert pg.evaluate("(b) => document.activeElement === document.querySelector(`${b} input`)", box)
    assert pg.locator(f"{box} input").input_value() == kept
    if masked is not None:
        assert "-inf" in masked and pg.inner_text("#overview table[data-name=masked]") == masked
    pg.close()


def test_kv_heads_refused_under_concat_goes_back_and_is_not_applied_later(page: Page) -> None:
    """heads 2, kv heads 1 under concat: refused, named, the box back at 2; then head mode split shares no K.
    (Seen failing: the box said 1 after → split while every head had its own K.)"""
    type_in(page, "heads", "2")
    page.wait_for_function("() => document.querySelector('#overview').innerText.includes('head 1 of 2')")
    open_more(page)
    type_in(page, "kv heads (K, V shared)", "1")
    page.wait_for_function("() => document.querySelector('#message').innerText.includes('kv heads:')")
    settled(page)
    assert page.get_by_label("kv heads (K, V shared)", exact=True).input_value() == "2"
    page.get_by_label("split", exact=True).click()
    page.wait_for_function("() => document.querySelector('#inputs').innerText.includes('split')")
    settled(page)
    assert page.get_by_label("kv heads (K, V shared)", exact=True).input_value() == "2"
    assert "grouped" not in page.inner_text("#overview").lower()


# ---- 5. token labels apply on Enter, and label the X grid too ---------------------------------------------------


def test_token_labels_apply_on_enter_without_a_warning_per_key_and_label_the_x_grid(page: Page) -> None:
    """No warning while typing 'I, am, here'; after Enter the X grid's rows say I, am, here, as Q, K, V do.
    (Seen failing: a warning per keystroke, and the X grid still said t1, t2, t3.)"""
    open_more(page)
    type_in(page, "token labels (comma-separated)", "I, am, here", key="")
    page.wait_for_timeout(600)  # what per-keystroke events would have answered by now
    assert toasts(page) == [] and "msg-error" not in page.inner_html("#message")
    page.get_by_label("token labels (comma-separated)", exact=True).press("Enter")
    page.wait_for_function("() => document.querySelector('#inputs table[data-name=x] th[scope=row]').innerText === 'I'")
    settled(page)
    assert labels(grid(page, "x")) == ["I", "am", "here"]
    assert numbers(grid(page, "x")) == STATQUEST_X
    q_rows = page.evaluate(
        "() => [...document.querySelectorAll('#html-qkv table[data-name=q] th[scope=row]')].map((t) => t.textContent)"
    )
    assert q_rows == ["I", "am", "here"], q_rows
    assert toasts(page) == []


# ---- 6. a deliberate change is never a red mismatch --------------------------------------------------------------


def test_scale_temperature_is_a_change_of_the_preset_not_a_mismatch(page: Page) -> None:
    """Scale → temperature (the box shows 1): the yellow 'You have left the preset', as for any other change (seen
    failing: '✗ does not match', forward(...) off by 2.4e-01)."""
    page.get_by_label("scale", exact=True).click()
    page.locator("li[role='option'][aria-label='temperature']").click()
    page.wait_for_function("() => document.querySelector('#badge').innerText.includes('left the preset')")
    settled(page)
    badge = page.inner_text("#badge")
    assert "✗" not in badge and "scale" in badge, badge
    assert page.get_by_label("temperature (divide by)", exact=True).input_value() == "1"


# ---- 8. the quiz never shows the answer it asks for ------------------------------------------------------------


def hidden_cells(pg: Page, where: str, name: str, row: int) -> list[bool]:
    """Whether each cell of ``row`` in table ``name`` under ``where`` is hidden (its text transparent)."""
    return pg.evaluate(
        """([w, n, r]) => [...document.querySelectorAll(`${w} table[data-name=${n}] td[data-r='${r}']`)]
            .map((td) => getComputedStyle(td).color === 'rgba(0, 0, 0, 0)')""",
        [where, name, row],
    )


@pytest.mark.parametrize(("option", "names"), [("which key gets the most weight", ("scores", "weights")),
                                               ("an attention weight", ("weights",))])  # fmt: skip
def test_a_quiz_question_hides_every_cell_that_gives_its_answer_away(
    page: Page, option: str, names: tuple[str, ...]
) -> None:
    """'Which key gets the most weight from query t3?' hides t3's row of scores and weights (the old page showed the
    whole table above the question); a weight's question hides its whole row (1 − the rest of it was the answer)."""
    page.locator("#quiz-box").get_by_text("Quiz me").click()
    page.locator("#quiz-kind input").click()
    page.locator(f"li[role='option'][aria-label='{option}']").click()
    page.locator("#quiz-new").click()
    page.wait_for_function("() => /query t\\d/.test(document.querySelector('#quiz-q .quiz-q')?.innerText || '')")
    prompt = page.inner_text("#quiz-q .quiz-q")
    row = int(re.search(r"query t(\d)", prompt).group(1)) - 1
    for where in ("#overview", "#html-weights"):
        for name in names:
            if where == "#html-weights" and name != "weights":
                continue
            cells = hidden_cells(page, where, name, row)
            assert cells and all(cells), (prompt, where, name, cells)
    assert not any(hidden_cells(page, "#overview", "weights", (row + 1) % 3))  # the other rows stay


# ---- 9, 10. the explain card: the tour closes it past its steps, and Escape closes it ------------------------------


def card_open(pg: Page) -> bool:
    return pg.evaluate(
        "() => { const c = document.querySelector('#explain'); return !!c && !c.classList.contains('closed') "
        "&& !!c.querySelector('.ex-title') && c.getBoundingClientRect().height > 0; }"
    )


def test_the_tours_explain_card_closes_once_the_tour_moves_past_it(page: Page) -> None:
    """Steps 3 and 4 open and read the explain card; from step 5 on it is closed, so it covers none of the weights the
    next steps ask about. (Seen failing: the card stayed open over the weights through steps 5–9.)"""
    page.evaluate("() => localStorage.clear()")
    page.click("#tour-btn")
    wait_step(page, 0)
    act = page.inner_text("#tour-pop .tp-act")
    value = re.search(r"X\[t2, d1\].* to (-?[0-9.]+)", act) or re.search(r" to (-?[0-9.]+)", act)
    assert value, act
    page.locator("#inputs table[data-name=x] td[data-r='1'][data-c='0']").click()
    editor = page.locator("#inputs table.grid td input")
    editor.press("Control+a")
    editor.press_sequentially(value.group(1), delay=TYPE_DELAY)
    editor.press("Enter")
    wait_step(page, 1)
    page.click("#tour-pop .tp-next")
    wait_step(page, 2)
    page.locator("#overview table[data-name=scores] td[data-r='1'][data-c='0']").click()
    wait_step(page, 3)
    assert card_open(page)  # the step that reads it
    page.click("#tour-pop .tp-next")
    wait_step(page, 4)
    assert not card_open(page)


def test_escape_closes_the_explain_card(page: Page) -> None:
    page.locator("#overview table[data-name=weights] td[data-r='1'][data-c='0']").click()
    page.wait_for_function("() => !!document.querySelector('#explain .ex-title')")
    assert card_open(page)
    page.keyboard.press("Escape")
    assert not card_open(page)


# ---- smaller: divide-by-sum's negative weights are named, and the badge speaks in the controls' words -------------


def test_divide_by_sum_warns_of_its_negative_weights_and_the_badge_says_normalise(page: Page) -> None:
    """normalise → sum on the default preset: weights −0.0944 and 1.0476, and a message saying why (seen failing: no
    warning on the workbench, and the badge said 'normalize', a scenario key)."""
    page.get_by_label("normalise", exact=True).click()
    page.locator("li[role='option'][aria-label='sum']").click()
    page.wait_for_function("() => document.querySelector('#message').innerText.includes('divide-by-sum')")
    settled(page)
    weights = page.evaluate(
        "() => [...document.querySelectorAll('#overview table[data-name=weights] td[data-r]')].map((td) => +td.title)"
    )
    assert min(weights) < 0 and max(weights) > 1, weights
    badge = page.inner_text("#badge")
    assert "changed: normalise" in badge and "normalize" not in badge, badge


# ---- 11. the phone's slider sheet leaves what it changes in sight -------------------------------------------------


def test_the_phone_slider_sheet_leaves_the_weights_and_the_output_in_sight(
    browser: Browser, served: tuple[str, Path]
) -> None:
    """A tap on X[t1, d1] at 390×844: the sheet opens, and the weights and output cards are whole above it; a slide
    changes the output in sight. (Seen failing: the sheet covered both, from y = 673.)"""
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
    pg = ctx.new_page()
    try:
        pg.goto(served[0])
        pg.wait_for_function("() => document.querySelector('#badge .html-container')?.textContent.trim().length > 0")
        pg.tap("#inputs table[data-name=x] td[data-r='0'][data-c='0']")
        sheet = pg.locator(".scrub-sheet")
        sheet.wait_for()
        pg.wait_for_timeout(300)
        top = sheet.bounding_box()["y"]
        for card in ("weights", "output"):
            box = pg.locator(f"#overview [data-card={card}]").bounding_box()
            assert box and box["y"] >= 0 and box["y"] + box["height"] <= top, (card, box, top)
        before = pg.inner_text("#overview [data-card=output]")  # (one step up: the output follows, in sight)
        pg.tap(".scrub-sheet button[data-step='1']")
        pg.wait_for_function(
            "(b) => document.querySelector('#overview [data-card=output]').innerText !== b", arg=before
        )
        pg.tap(".scrub-sheet button[data-do=cancel]")
    finally:
        ctx.close()


def test_a_number_with_no_explanation_says_so_instead_of_reopening_an_earlier_one(
    browser: Browser, served: tuple[str, Path]
) -> None:
    """Llama-style: a weight explained, then a RoPE angle of the notebook view clicked: the card says that table has
    no step-by-step explanation (seen failing: the weight's explanation came back, unrelated to the number clicked;
    'q before RoPE', the number it clicked first, has its own explanation since: test_journey_decode)."""
    pg = open_page(browser, f"{served[0]}?preset=llama-style", events=True)
    try:
        pg.locator("#overview table[data-name=weights] td[data-r='1'][data-c='0']").click()
        pg.wait_for_function("() => !!document.querySelector('#explain .ex-title')")
        settled(pg)
        weight_title = pg.inner_text("#explain .ex-title")
        cell = pg.locator(".nb-view table[data-name=angles] td[data-r='0'][data-c='0']").first
        cell.scroll_into_view_if_needed()
        cell.click()
        pg.wait_for_function("() => document.querySelector('#explain').innerText.includes('no step-by-step')")
        settled(pg)
        assert pg.locator("#explain .msg-warn").is_visible() and "angles" in pg.inner_text("#explain")
        assert weight_title not in pg.inner_text("#explain"), weight_title
    finally:
        pg.close()


def test_the_notebooks_steps_are_numbered_from_one(page: Page) -> None:
    """The notebook's step headings read 1 · Q, K, V … 7 · heads combined, as the exported script numbers them
    (seen failing: they started at '3 ·')."""
    heads = page.evaluate("() => [...document.querySelectorAll('.nb-view .nb-head h3')].map((h) => h.textContent)")
    assert heads[0] == "1 · Q, K, V" and heads[1].startswith("2 · "), heads
    assert [int(h.split(" · ")[0]) for h in heads] == list(range(1, len(heads) + 1)), heads
