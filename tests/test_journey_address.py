"""The address bar follows the page as the learner edits (issue 41, item 4), in Chromium: a cell typed key by key
and a control changed, then F5, and the page shows the edited numbers again; present mode at the KV-cache stage's
third token, then F5, and the same stage and token come back; the address copied from the bar, opened in another
browser, shows the same state; in a lesson room, the teacher steps the KV cache's token with the arrow key and the
student's stepper shows the same token and row."""

from __future__ import annotations

import re
from collections.abc import Iterator
from urllib.parse import parse_qsl

import pytest
import torch
from browser import LOADED, Held, press
from playwright.sync_api import Browser, Page

import attention_core as ac
from ui import share
from ui.render import scaling_plot

X00 = "#inputs table[data-name=x] td[data-r='0'][data-c='0']"
WEIGHTS = "#overview table[data-name=weights]"
# every number of the workbench (its grids and the overview), by view, table, row and column: the exact value
SHOWN = """() => { const out = {};
  document.querySelectorAll('#inputs table td[data-r], #overview table td[data-r]').forEach((td) => {
    const t = td.closest('table');
    out[`${t.closest('.block[id]').id}|${t.dataset.name}|${td.dataset.r}|${td.dataset.c}`] = td.title || td.innerText;
  });
  return out; }"""
# the KV-cache stage's card as shown: its token line and the row of weights shown (exact values)
KV = """() => { const c = document.querySelector('#bench [data-card=kv_step]');
  const row = Array.from(c.querySelectorAll('table[data-name=kv_row] tr')).find((tr) => !tr.hidden
    && tr.querySelector('td[data-r]'));
  return { at: c.querySelector('.kv-at').textContent, stage: document.body.dataset.presentStage || null,
    r: row ? +row.querySelector('td').dataset.r : null,
    row: row ? Array.from(row.querySelectorAll('td[data-r]')).map((td) => parseFloat(td.title)) : [] }; }"""


@pytest.fixture
def pages(browser: Browser) -> Iterator[list[Page]]:
    opened: list[Page] = []
    yield opened
    for pg in opened:
        pg.context.close()


def fresh(browser: Browser, url: str, pages: list[Page]) -> Page:
    """``url`` in a browser context of its own (another learner's browser: nothing of this one's storage)."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 720})
    pg = ctx.new_page()
    pg.set_default_timeout(30_000)
    pages.append(pg)
    pg.goto(url)
    loaded(pg)
    return pg


def loaded(pg: Page) -> None:
    pg.wait_for_selector("#overview table[data-name=output] td[data-r]", state="attached")
    pg.wait_for_function(LOADED)


def type_cell(pg: Page, text: str) -> None:
    """X's first cell clicked, its editor's text replaced key by key at 80 ms, then Enter."""
    pg.locator(X00).click()
    editor = pg.locator("#inputs table.grid td input")
    editor.press("Control+a")
    editor.press_sequentially(text, delay=80)
    editor.press("Enter")


def address_changes(pg: Page, act: object) -> str:
    """Do ``act`` (a callable) and wait until the address bar's query holds another state; returns the query."""
    before = pg.evaluate("() => location.search")
    act()  # type: ignore[operator]
    pg.wait_for_function("(b) => location.search !== b && /[?&](scenario|preset|s)=/.test(location.search)", arg=before)
    return pg.evaluate("() => location.search")


def choose(pg: Page, label: str, option: str) -> None:
    pg.get_by_label(label, exact=True).click()
    pg.locator(f"li[role='option'][aria-label='{option}']").click()


def decoding_on(pg: Page) -> None:
    """KV-cache decoding ticked in "More settings", as a learner ticks it."""
    pg.locator("#more").get_by_text("More settings").click()
    pg.get_by_label("KV-cache decoding", exact=True).check()
    pg.wait_for_selector("#bench [data-card=kv_step]", state="attached")
    pg.locator("#more").get_by_text("More settings").click()


def test_a_reload_keeps_a_typed_cell_a_control_and_the_tab(browser: Browser, app_url: str, pages: list[Page]) -> None:
    pg = fresh(browser, app_url, pages)
    preset_weights = pg.inner_text(WEIGHTS)
    address_changes(pg, lambda: type_cell(pg, "1.75"))
    address_changes(pg, lambda: choose(pg, "mask", "causal"))
    pg.wait_for_function("() => document.querySelector('#overview table[data-name=weights]').innerText"
                         ".includes('0.0000')")  # fmt: skip
    want = pg.evaluate(SHOWN)
    assert want["inputs|x|0|0"] == "1.75" and pg.inner_text(WEIGHTS) != preset_weights
    pg.get_by_role("tab", name="Scaling lab").click()
    pg.wait_for_function("() => location.search.includes('tab=scaling')")
    pg.reload()
    loaded(pg)
    pg.wait_for_function("() => document.querySelector('#tabs [role=tab][aria-selected=true]')?.textContent.trim()"
                         " === 'Scaling lab'")  # fmt: skip
    pg.get_by_role("tab", name="Workbench").click()
    pg.wait_for_function("() => document.querySelector('#tb-mask input')?.value === 'causal'")
    got = pg.evaluate(SHOWN)
    diff = {k: (want.get(k), got.get(k)) for k in set(want) | set(got) if want.get(k) != got.get(k)}
    assert not diff, f"{len(diff)} numbers differ after F5, e.g. {sorted(diff.items())[:4]}"


def step_to_token(pg: Page, t: int) -> None:
    """Present, then → as a lecturer presses it until the KV-cache stage shows token ``t`` (1-based)."""
    pg.click("#present-btn")
    pg.wait_for_selector("#present-panel:not([hidden])")
    for _ in range(30):
        if pg.evaluate(KV)["at"].startswith(f"token t = {t} ") and pg.evaluate(KV)["stage"] == "kv_cache":
            return
        pg.keyboard.press("ArrowRight")
        pg.wait_for_timeout(100)
    raise AssertionError(f"never at token {t}: {pg.evaluate(KV)}")


def causal_row(t: int) -> torch.Tensor:
    """Llama-style's head 1, row t of its causal weights, by the formula in torch from compute()'s q and k."""
    head = ac.compute({**ac.scenario_of("llama-style"), "decode": True})["heads"][0]
    q, k = torch.tensor(head["q"], dtype=torch.float64), torch.tensor(head["k"], dtype=torch.float64)
    scores = q[t] @ k[: t + 1].T / q.shape[-1] ** 0.5  # (E,) x (E, t+1) -> (t+1,)
    return torch.cat([torch.softmax(scores, -1), torch.zeros(q.shape[0] - t - 1, dtype=torch.float64)])


def test_a_reload_mid_lesson_keeps_the_stage_and_the_caches_token(
    browser: Browser, app_url: str, pages: list[Page]
) -> None:
    pg = fresh(browser, f"{app_url}?preset=llama-style", pages)
    address_changes(pg, lambda: decoding_on(pg))
    step_to_token(pg, 3)
    pg.wait_for_function("() => /present=kv_cache/.test(location.search) && /[?&]t=3/.test(location.search)")
    before = pg.evaluate(KV)
    pg.reload()
    loaded(pg)
    pg.wait_for_function("() => document.body.dataset.presentStage === 'kv_cache'")
    after = pg.evaluate(KV)
    assert after["at"] == before["at"] and after["at"].startswith("token t = 3 of "), (before, after)
    assert after["r"] == 2 and after["row"] == before["row"]
    torch.testing.assert_close(torch.tensor(after["row"], dtype=torch.float64), causal_row(2), atol=5e-7, rtol=0)


def test_the_address_copied_opens_the_same_state_in_another_browser(
    browser: Browser, app_url: str, pages: list[Page]
) -> None:
    pg = fresh(browser, f"{app_url}?preset=statquest-mha2", pages)
    pg.locator("#more").get_by_text("More settings").click()
    box = pg.get_by_label("head shown", exact=True)
    box.click()
    box.press("Control+a")
    address_changes(pg, lambda: (box.press_sequentially("2", delay=80), box.press("Enter")))
    pg.wait_for_function("() => document.querySelector('#overview').innerText.includes('head 2 of 2')")
    query = address_changes(pg, lambda: type_cell(pg, "-0.5"))
    assert "scenario=" in query, query
    want = pg.evaluate(SHOWN)
    assert want["inputs|x|0|0"] == "-0.5"
    other = fresh(browser, pg.url, pages)  # the address as the bar shows it, in another browser
    other.wait_for_function("() => document.querySelector('#overview').innerText.includes('head 2 of 2')")
    got = other.evaluate(SHOWN)
    diff = {k: (want.get(k), got.get(k)) for k in set(want) | set(got) if want.get(k) != got.get(k)}
    assert not diff, f"{len(diff)} numbers differ in the other browser, e.g. {sorted(diff.items())[:4]}"


def test_a_rooms_student_follows_the_caches_token(browser: Browser, app_url: str, pages: list[Page]) -> None:
    teacher = fresh(browser, f"{app_url}?preset=llama-style", pages)
    press(teacher, "#room .room-teach")
    code = teacher.locator(".room-card .rc-code").inner_text().strip()
    teacher.locator(".room-card .rc-hide").click()
    student = fresh(browser, app_url, pages)
    press(student, "#room .room-code")
    student.locator("#room .room-code").press_sequentially(code.lower(), delay=80)
    press(student, "#room .room-join button")
    student.wait_for_selector("#room .room-status[data-kind=following]")
    decoding_on(teacher)
    student.wait_for_selector("#bench [data-card=kv_step]", state="attached")
    step_to_token(teacher, 2)
    for t in (2, 3, 4):
        if t > 2:
            teacher.keyboard.press("ArrowRight")
        teacher.wait_for_function("(t) => document.querySelector('#bench .kv-at').textContent"
                                  ".startsWith(`token t = ${t} `)", arg=t)  # fmt: skip
        want = teacher.evaluate(KV)
        student.wait_for_function("(w) => document.querySelector('#bench .kv-at')?.textContent === w", arg=want["at"])
        got = student.evaluate(KV)
        assert got == want and got["r"] == t - 1, (want, got)
    torch.testing.assert_close(torch.tensor(got["row"], dtype=torch.float64), causal_row(3), atol=5e-7, rtol=0)


def steady(pg: Page, selector: str) -> str:
    """``selector``'s text once it stays the same for 0.7 s (the lab's events answered)."""
    before = None
    for _ in range(30):
        now = pg.inner_text(selector)
        if now == before:
            return now
        before = now
        pg.wait_for_timeout(700)
    raise AssertionError(f"{selector} never settled")


def test_a_reload_keeps_the_mask_labs_boxes(browser: Browser, app_url: str, pages: list[Page]) -> None:
    pg = fresh(browser, app_url, pages)
    pg.get_by_role("tab", name="Mask lab").click()
    pg.wait_for_selector("#mask-lab-out table[data-name=mask-causal] td")
    plain = steady(pg, "#mask-lab-out")
    for label, text in (("padded key positions (e.g. 3)", "2"), ("hide every key from query rows (e.g. 1)", "1")):
        box = pg.get_by_label(label, exact=True)
        box.click()
        box.press_sequentially(text, delay=80)
    pg.get_by_role("checkbox", name="causal mask", exact=True).click()  # unticked
    pg.wait_for_function("() => ['causal=0', 'pad=2', 'rows=1'].every((p) => location.search.includes(p))")
    want = steady(pg, "#mask-lab-out")
    assert want != plain
    pg.reload()
    loaded(pg)
    pg.wait_for_function("(w) => document.querySelector('#mask-lab-out')?.innerText === w", arg=want)
    assert pg.get_by_role("tab", name="Mask lab").get_attribute("aria-selected") == "true"
    assert pg.get_by_label("padded key positions (e.g. 3)", exact=True).input_value() == "2"
    assert pg.get_by_label("hide every key from query rows (e.g. 1)", exact=True).input_value() == "1"
    assert not pg.get_by_role("checkbox", name="causal mask", exact=True).is_checked()
    assert steady(pg, "#mask-lab-out") == want


def lab_words(d_k: int, seed: int) -> str:
    """The scaling lab's sentence for ``d_k`` and ``seed``, as the server words it."""
    return scaling_plot.scaling_words(ac.scaling_lab(d_k, seed))


def test_a_reload_keeps_the_scaling_labs_d_k_and_seed(browser: Browser, app_url: str, pages: list[Page]) -> None:
    pg = fresh(browser, app_url, pages)
    pg.get_by_role("tab", name="Scaling lab").click()
    pg.wait_for_selector("#scaling-words .lab-words")
    for selector, text in (("#lab-dk input[type=number]", "512"), ("#lab-seed input", "3")):
        box = pg.locator(selector)
        box.click()
        box.press("Control+a")
        box.press_sequentially(text, delay=80)
        box.press("Enter")
    pg.wait_for_function("() => ['tab=scaling', 'd_k=512', 'lab_seed=3'].every((p) => location.search.includes(p))")
    want = lab_words(512, 3)
    assert want != lab_words(512, 0)  # (the seed shows in the sentence's numbers)
    pg.wait_for_function("(w) => document.querySelector('#scaling-words')?.innerText.trim() === w", arg=want)
    pg.reload()
    loaded(pg)
    pg.wait_for_function("(w) => document.querySelector('#scaling-words')?.innerText.trim() === w", arg=want)
    assert pg.get_by_role("tab", name="Scaling lab").get_attribute("aria-selected") == "true"
    assert pg.locator("#lab-seed input").input_value() == "3"
    assert steady(pg, "#scaling-words").strip() == want


def test_a_link_to_the_scaling_lab_ends_on_its_d_k_when_the_tabs_own_call_comes_in_last(
    browser: Browser, app_url: str, pages: list[Page]
) -> None:
    """A link asking d_k = 512 of the scaling lab, on a server that takes the tab's own first call (for the d_k its box
    held as the tab opened, 64) after the asked one: the journey holds that call on the network until 512's words have
    been drawn and address.js has stopped looking (3 s of 512's words), then lets it go. Its answer said d_k = 64
    under a box reading 512 (a projector journey, under load, stop 53); the lab's calls are numbered and the server
    answers only the newest."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 720})
    pg = ctx.new_page()
    pg.set_default_timeout(30_000)
    pages.append(pg)
    held = Held(pg)
    pg.route(re.compile("/queue/join"), held.hold("tab", lambda body: (body.get("data") or [])[-2:] == [64, 0]))
    pg.goto(f"{app_url}?tab=scaling&d_k=512")
    loaded(pg)
    tab = held.wait("tab")
    want = lab_words(512, 0)
    pg.wait_for_function("(w) => document.querySelector('#scaling-words')?.innerText.trim() === w", arg=want)
    pg.wait_for_timeout(4500)  # (address.js has seen 512's words for 3 s and stopped)
    tab.continue_()
    pg.wait_for_timeout(1500)  # (its answer drawn, if it is)
    assert pg.locator("#lab-dk input[type=number]").input_value() == "512"
    assert steady(pg, "#scaling-words").strip() == want, "the words are not of the d_k the box shows"


def test_a_learner_who_types_another_d_k_as_the_links_shows_keeps_theirs(
    browser: Browser, app_url: str, pages: list[Page]
) -> None:
    """A link asking d_k = 512 of the scaling lab; as soon as its words say 512 the learner types 128 into the box,
    key by key, while address.js still watches for a late answer of the tab's own. The learner's value wins: the
    words, the box and the address say 128, and stay so (it was set back to 512 within the 1.4 s it watched)."""
    pg = fresh(browser, f"{app_url}?tab=scaling&d_k=512", pages)
    words = "(w) => document.querySelector('#scaling-words')?.innerText.trim() === w"
    pg.wait_for_function(words, arg=lab_words(512, 0))
    box = pg.locator("#lab-dk input[type=number]")
    box.click()
    box.press("Control+a")
    box.press_sequentially("128", delay=80)
    box.press("Enter")
    want = lab_words(128, 0)
    pg.wait_for_function(words, arg=want)
    pg.wait_for_timeout(4000)  # (longer than address.js watches the lab once the link's value shows)
    assert box.input_value() == "128"
    assert steady(pg, "#scaling-words").strip() == want
    assert "d_k=128" in pg.url


def test_a_link_to_the_scaling_lab_at_d_k_8_is_at_8(browser: Browser, app_url: str, pages: list[Page]) -> None:
    """The lab's sentence at its first d_k, 64, also says √d_k = 8.00 and 004's d_k = 6: a link asking d_k = 8 is
    typed all the same, and the lab, its box and the address end on 8 (they stayed on 64: 8 taken as said)."""
    pg = fresh(browser, f"{app_url}?tab=scaling&d_k=8", pages)
    want = lab_words(8, 0)
    assert "√d_k = 8.00" in lab_words(64, 0)  # (what the page read as 8 before)
    pg.wait_for_function("(w) => document.querySelector('#scaling-words')?.innerText.trim() === w", arg=want)
    assert pg.locator("#lab-dk input[type=number]").input_value() == "8"
    assert steady(pg, "#scaling-words").strip() == want
    assert "d_k=8" in pg.url


# the page's address asks (static/address.js: ``{"kind": "address"}`` through the grid's server function), its presses
# and keys, and its answers drawn, each at the page's own clock
ASKS_SEEN = """(() => {
  window.__asks = []; window.__keys = []; window.__drawn = [];
  const fetch0 = window.fetch;
  window.fetch = function (input, init) {
    if (typeof init?.body === 'string' && init.body.includes('"kind":"address"')) window.__asks.push(performance.now());
    return fetch0.apply(this, arguments);
  };
  for (const type of ['pointerdown', 'keydown']) {
    document.addEventListener(type, () => window.__keys.push(performance.now()), true);
  }
  document.addEventListener('pg-updated', () => window.__drawn.push(performance.now()));
})();"""


def test_the_address_is_not_asked_for_while_the_learner_types_the_next_value(
    browser: Browser, app_url: str, pages: list[Page]
) -> None:
    """A value committed, then the next typed at once, key by key: the page asks the server for its address (for a
    large state, 0.1-0.3 s of the server's one process, which the look ahead of the value being typed waited behind)
    only once no key has come for 600 ms, never between two keys; and the address then holds the second value."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 720})
    pg = ctx.new_page()
    pg.set_default_timeout(30_000)
    pages.append(pg)
    pg.add_init_script(ASKS_SEEN)
    pg.goto(app_url)
    loaded(pg)
    first = address_changes(pg, lambda: type_cell(pg, "1.75"))
    pg.evaluate("() => { window.__asks.length = 0; window.__keys.length = 0; window.__drawn.length = 0; }")
    type_cell(pg, "0.5")  # committed: its answer drawn, its address ask waiting its 600 ms
    pg.wait_for_function("() => window.__drawn.length > 0")
    pg.locator(X00).click()
    editor = pg.locator("#inputs table.grid td input")
    editor.press("Control+a")
    editor.press_sequentially("-2.03125", delay=120)  # (8 keys, 0.96 s: past the 600 ms an ask waits)
    keys, asks, drawn = pg.evaluate("() => [window.__keys.slice(), window.__asks.slice(), window.__drawn.slice()]")
    start = min((k for k in keys if k > drawn[-1]), default=keys[-1])  # (the cell pressed after 0.5's answer)
    during = [a for a in asks if start < a < keys[-1]]
    assert not during, f"asked {[round(a - drawn[-1]) for a in during]} ms after 0.5's answer, while typing"
    second = address_changes(pg, lambda: editor.press("Enter"))
    assert second != first
    query = dict(parse_qsl(second.lstrip("?")))
    assert "scenario" in query, second  # (the default preset edited: a link's scenario)
    assert share.decode_link(query["scenario"])["x"][0][0] == -2.03125  # the value typed last, not 0.5
