"""Learner journeys in real Chromium: the mask lab keeps its tables through a typo, a share link (and
scenario.json) brings back every control of the workbench, the quiz's answer box and tally, the badge beside the
preset picker."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from browser import open_page
from browser import settled as answered
from playwright.sync_api import Browser, Page
from test_journey_truth import open_more, rows_shown, type_in

import attention_core as ac
from ui import learn, pipeline, wiring
from ui.values import scenario_from

TIMEOUT = 30_000
OUT = "#overview table[data-name=output]"
SHOTS = Path("/tmp/shots/learn_share")
SIZES = {"wide": (1280, 720), "phone": (390, 844)}


@pytest.fixture
def page(browser: Browser, app_url: str) -> Iterator[Page]:
    pg = open_page(browser, app_url)
    yield pg
    pg.close()


def shot(pg: Page, name: str, selector: str | None = None) -> None:
    """A screenshot for the eye (not asserted): the viewport, scrolled to ``selector`` when given."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    if selector:
        pg.locator(selector).first.scroll_into_view_if_needed()
    pg.screenshot(path=str(SHOTS / f"{name}.png"))


HAS_TEXT = "([s, t]) => Array.from(document.querySelectorAll(s)).some((e) => e.innerText.includes(t))"


def wait_text(pg: Page, selector: str, text: str) -> None:
    """Until ``text`` is in ``selector`` (60 s: a loaded machine took over 30 for the head box's answer)."""
    pg.wait_for_function(HAS_TEXT, arg=[selector, text], timeout=60_000)


def choose(pg: Page, label: str, option: str) -> None:
    """Pick ``option`` in the dropdown labelled ``label``, as a learner does: open it, click the option."""
    pg.get_by_label(label, exact=True).click()
    pg.locator(f"li[role='option'][aria-label='{option}']").click()


def type_number(pg: Page, label: str, value: str) -> None:
    box = pg.get_by_label(label, exact=True)
    box.fill(value)
    box.press("Enter")


# ---- the mask lab: a typo names its field, and the last good tables stay ----------------------------------


LAB_CELL = "#mask-lab-out table[data-name='{}'] td[data-r='{}'][data-c='{}']"


def test_a_typo_in_the_mask_lab_names_its_field_and_keeps_the_tables(page: Page) -> None:
    page.get_by_role("tab", name="Mask lab").click()
    rows = page.get_by_label("hide every key from query rows (e.g. 1)")
    rows.click()
    rows.press_sequentially("1", delay=80)  # (the lab opens on a plain causal mask)
    wait_text(page, "#mask-lab-out", "softmax gives NaN (0/0); the app shows 0")
    assert page.inner_text(LAB_CELL.format("lab-raw-inf", 0, 0)).strip() == "nan"  # row 1 is hidden: 0/0
    tables = page.locator("#mask-lab-out table").count()
    rows.press("End")
    rows.press_sequentially("abc")  # "1abc"
    wait_text(page, "body", "'1abc' is not a query position")
    assert page.locator("#mask-lab-out table").count() == tables  # every table of the lab is still on screen
    msg = page.inner_text("#mask-lab-msg")
    assert "mask lab rows: '1abc' is not a query position 1..3" in msg and "last valid masks" in msg, msg
    assert page.inner_text(LAB_CELL.format("lab-raw-inf", 0, 0)).strip() == "nan"  # the last good state
    for phase, size in SIZES.items():
        page.set_viewport_size({"width": size[0], "height": size[1]})
        shot(page, f"mask-lab-typo-{phase}", "#mask-lab-msg")
    page.set_viewport_size({"width": 1280, "height": 720})
    rows.fill("9")
    rows.press("End")
    wait_text(page, "#mask-lab-msg", "'9' is not a query position 1..3")
    assert page.locator("#mask-lab-out table").count() == tables
    rows.fill("")
    rows.press_sequentially("2")  # a good value: the tables follow it and the message goes
    page.wait_for_function(
        "(s) => document.querySelector(s)?.innerText.trim() === 'nan'", arg=LAB_CELL.format("lab-raw-inf", 1, 0)
    )
    assert page.inner_text(LAB_CELL.format("lab-raw-inf", 0, 0)).strip() != "nan"
    page.wait_for_function("() => !document.querySelector('#mask-lab-msg').innerText.trim()")
    pad = page.get_by_label("padded key positions (e.g. 3)")
    pad.click()
    pad.press_sequentially("x")
    wait_text(page, "#mask-lab-msg", "mask lab padding: 'x' is not a key position")
    assert page.inner_text(LAB_CELL.format("lab-raw-inf", 1, 0)).strip() == "nan"  # still the last good tables


# the padded key positions the lab's tables use, read from its padding mask (a 0 in a column: that key is padded)
PADDED = """Array.from(document.querySelectorAll("#mask-lab-out table[data-name='mask-padding'] td[data-r='0']"))
  .filter((td) => td.innerText.trim() === '0').map((td) => String(Number(td.dataset.c) + 1)).join(', ')"""
PADDED_JS = f"() => {PADDED}"
# the padding box reads what the tables use, and the message says ``said``
BACK_JS = f"""(said) => {{ const box = document.querySelector('#mask-pad textarea, #mask-pad input');
  const padded = {PADDED};
  return !!box && !!padded && box.value === padded && document.querySelector('#mask-lab-msg').innerText.includes(said);
}}"""


def test_a_refused_padding_goes_back_to_the_value_the_tables_use(page: Page) -> None:
    """Typed key by key into the lab's padding box, then Enter (or leaving the box): a refused text ('1.5', past the
    tokens, negative, a word) is named by the message, and the box goes back to the text the tables use, as the
    workbench's controls do (it stayed in the box while the tables kept the last valid mask). Then a good value: the
    tables follow it."""
    page.get_by_role("tab", name="Mask lab").click()
    page.wait_for_selector("#mask-lab-out table[data-name='mask-padding'] td")
    pad = page.get_by_label("padded key positions (e.g. 3)")
    pad.click()
    pad.press_sequentially("2", delay=80)
    pad.press("Enter")
    page.wait_for_function(f"() => ({PADDED_JS})() === '2'")
    # each typed over the box's text (selected): '1.5' may first apply '1' as typed (unless the call for '1.' came in
    # before it was computed), which the others then go back to
    for bad, leave in (("1.5", "Enter"), ("9", "Enter"), ("-1", "Enter"), ("abc", "blur")):
        pad.click()
        pad.press("Control+a")
        pad.press_sequentially(bad, delay=80)
        if leave == "Enter":
            pad.press("Enter")
        else:
            page.locator("#mask-intro").click()  # (the box left: its blur)
        said = f"mask lab padding: '{bad}' is not a key position 1..3"
        page.wait_for_function(BACK_JS, arg=said, timeout=TIMEOUT)
        page.wait_for_timeout(1000)  # (the .change its putting back fires has answered: the message is not wiped)
        msg = page.inner_text("#mask-lab-msg")
        used = page.evaluate(PADDED_JS)  # ('2', or '1' when the call for '1' as typed was not overtaken by '1.')
        assert pad.input_value() == used and used in ("1", "2"), (bad, pad.input_value(), used)
        assert said in msg and f"it is back to “{used}”" in msg and "last valid masks" in msg, msg
        # the address keeps the value in force too, not the refused one (a reload would type it again)
        page.wait_for_function("(u) => new URLSearchParams(location.search).get('pad') === u", arg=used)
    shot(page, "mask-lab-put-back", "#mask-lab-msg")
    pad.click()
    pad.press("Control+a")
    pad.press_sequentially("3", delay=80)  # a good value: the tables follow it, the message goes
    pad.press("Enter")
    page.wait_for_function(f"() => ({PADDED_JS})() === '3'")
    page.wait_for_function("() => !document.querySelector('#mask-lab-msg').innerText.trim()")
    assert pad.input_value() == "3"


def test_a_padding_the_state_refuses_goes_from_the_box_and_the_address_when_the_lab_opens(
    browser: Browser, app_url: str
) -> None:
    """A link asking padding 9 of 3 keys opens the lab with the box at what its tables use (empty), the message
    naming 9, and 9 gone from the address (the box and the address kept 9 until the box was left). Then padding 3,
    the workbench's T typed down to 2 (2 keys), and the lab opened again: the box holding 3 is emptied and the message
    says why (the tab said 3 was no key position and kept it in the box, the tables on the old state)."""
    pg = open_page(browser, f"{app_url}?tab=mask&pad=9", events=True)
    try:
        said = "mask lab padding: '9' is not a key position 1..3"
        pg.wait_for_function("(s) => document.querySelector('#mask-lab-msg')?.innerText.includes(s)", arg=said)
        pad = pg.get_by_label("padded key positions (e.g. 3)")
        pg.wait_for_function(f"() => ({PADDED_JS})() === '' && !new URLSearchParams(location.search).get('pad')")
        wait_text(pg, "#mask-lab-msg", "it is emptied")  # (the answer to the box's emptying says it last)
        assert pad.input_value() == ""
        pad.click()
        pad.press_sequentially("3", delay=80)
        pad.press("Enter")
        pg.wait_for_function(f"() => ({PADDED_JS})() === '3'")
        pg.get_by_role("tab", name="Workbench").click()
        open_more(pg)
        type_in(pg, "T (query tokens)", "2")
        rows_shown(pg, "x", 2)
        answered(pg)
        pg.get_by_role("tab", name="Mask lab").click()
        said = "mask lab padding: '3' is not a key position 1..2"
        pg.wait_for_function("(s) => document.querySelector('#mask-lab-msg')?.innerText.includes(s)", arg=said)
        pg.wait_for_function(f"() => ({PADDED_JS})() === '' && !new URLSearchParams(location.search).get('pad')")
        wait_text(pg, "#mask-lab-msg", "it is emptied")  # (the answer to the box's emptying says it last)
        assert pad.input_value() == ""
        assert pg.locator("#mask-lab-out table[data-name='mask-padding'] td[data-r='0']").count() == 2  # 2 keys
    finally:
        pg.close()


# ---- share: a link and scenario.json bring back every control ---------------------------------------------

RADIOS = ("concat", "split", "Linear out×in (x @ W.T)", "matmul in×out (x @ W)")
CHECKS = ("cross-attention (separate K/V source)", "output projection W_o")
BOXES = ("mask", "fill", "heads", "head shown", "scale", "normalise", "dtype", "T (query tokens)", "S (key tokens)",
         "d_model", "d_out per head", "temperature (divide by)", "padded key positions (e.g. 3 or 2, 3)",
         "token labels (comma-separated)", "key/value token labels")  # fmt: skip

SHOWN_JS = """() => { const out = {};
  document.querySelectorAll('#inputs table td[data-r], #overview table td[data-r], .nb-view table td[data-r]')
    .forEach((td) => { const t = td.closest('table'); const where = t.closest('.block[id]').id;
      out[where + '|' + t.dataset.name + '|' + td.dataset.r + '|' + td.dataset.c] = td.title || td.innerText; });
  document.querySelectorAll('.nb-view pre.tensor').forEach((p, i) => { out['print|' + i] = p.innerText; });
  out['note'] = document.querySelector('#overview').innerText.match(/head \\d+ of \\d+/)?.[0] ?? '';
  return out; }"""


def open_drawer(pg: Page) -> None:
    pg.locator("#more").get_by_text("More settings").click()
    pg.get_by_label("T (query tokens)", exact=True).wait_for()


def controls(pg: Page) -> dict[str, object]:
    """Every workbench control as the learner sees it (the drawer open); hidden ones are left out."""
    out: dict[str, object] = {}
    for label in BOXES:
        box = pg.get_by_label(label, exact=True)
        if box.count() and box.is_visible():
            out[label] = box.input_value()
    for label in RADIOS + CHECKS:
        out[label] = pg.get_by_label(label, exact=True).is_checked()
    out["preset picker"] = pg.locator("#preset input").input_value()
    return out


def shown(pg: Page) -> dict[str, str]:
    """Every number the workbench shows (grids, overview, notebook tables and prints) and the head note."""
    return pg.evaluate(SHOWN_JS)


def settled(pg: Page, act: Callable[[], None]) -> None:
    """Do ``act`` and wait until the workbench answered it (its overview, grids or badge changed)."""
    probe = "() => ['#overview', '#inputs', '#badge'].map((s) => document.querySelector(s).innerHTML).join('|')"
    before = pg.evaluate(probe)
    act()
    pg.wait_for_function(f"(b) => ({probe})() !== b", arg=before)


def set_every_control(pg: Page) -> None:
    """Move every control of the workbench off its default, one learner action at a time."""
    open_drawer(pg)
    settled(pg, lambda: pg.get_by_label(CHECKS[0], exact=True).click())  # cross-attention
    pg.get_by_label("S (key tokens)", exact=True).wait_for()
    for label, value in (("T (query tokens)", "4"), ("S (key tokens)", "5"), ("d_model", "4"),
                         ("d_out per head", "3"), ("heads", "2")):  # fmt: skip
        settled(pg, lambda label=label, value=value: type_number(pg, label, value))
    settled(pg, lambda: pg.get_by_label(CHECKS[1], exact=True).click())  # W_o
    settled(pg, lambda: pg.get_by_label(RADIOS[3], exact=True).click())  # matmul layout
    settled(pg, lambda: type_number(pg, "head shown", "2"))
    wait_text(pg, "#overview", "head 2 of 2")
    settled(pg, lambda: choose(pg, "mask", "causal+padding"))
    settled(pg, lambda: type_number(pg, BOXES[12], "2"))  # padding: key 2
    settled(pg, lambda: choose(pg, "fill", "-1e9"))
    settled(pg, lambda: choose(pg, "scale", "temperature"))
    settled(pg, lambda: type_number(pg, "temperature (divide by)", "2.5"))
    settled(pg, lambda: choose(pg, "normalise", "sum"))
    settled(pg, lambda: choose(pg, "dtype", "float64"))
    settled(pg, lambda: type_number(pg, BOXES[13], "the, cat, sat, down"))
    settled(pg, lambda: type_number(pg, BOXES[14], "a, b, c, d, e"))
    # clicked at once, while the grids' redraw for the key labels may still be coming (test_journey_race)
    cell = "#inputs table[data-name=x] td[data-r='1'][data-c='2']"
    pg.locator(cell).click()
    pg.locator("#inputs table.grid td input").fill("1.25")
    settled(pg, lambda: pg.keyboard.press("Enter"))


EVERY = {"mask": "causal+padding", "fill": "-1e9", "heads": "2", "head shown": "2", "scale": "temperature",
         "normalise": "sum", "dtype": "float64", "T (query tokens)": "4", "S (key tokens)": "5", "d_model": "4",
         "d_out per head": "3", "temperature (divide by)": "2.5", BOXES[12]: "2", BOXES[13]: "the, cat, sat, down",
         BOXES[14]: "a, b, c, d, e", RADIOS[3]: True, CHECKS[0]: True, CHECKS[1]: True}  # fmt: skip


def make_link(pg: Page) -> str:
    share = pg.locator("#share")
    if not pg.locator("#link-btn").is_visible():
        share.get_by_text("Share · export").click()
    pg.locator("#link-btn").click()
    pg.wait_for_function("() => document.querySelector('#link textarea').value.includes('?')")
    return pg.locator("#link textarea").input_value()


def opened_like(browser: Browser, url: str, want_controls: dict[str, object], want_shown: dict[str, str]) -> Page:
    """Open ``url`` in a fresh page and check it shows exactly ``want_*``."""
    pg = open_page(browser, url)
    open_drawer(pg)
    got_controls, got_shown = controls(pg), shown(pg)
    assert got_controls == want_controls
    diff = {k: (want_shown.get(k), got_shown.get(k)) for k in set(want_shown) | set(got_shown)
            if want_shown.get(k) != got_shown.get(k)}  # fmt: skip
    assert not diff, f"{len(diff)} shown values differ, e.g. {sorted(diff.items())[:4]}"
    return pg


def test_a_link_brings_back_every_control_and_so_does_scenario_json(
    browser: Browser, app_url: str, tmp_path: Path
) -> None:
    pg = open_page(browser, app_url)
    set_every_control(pg)
    want_controls, want_shown = controls(pg), shown(pg)
    assert {k: want_controls.get(k) for k in EVERY} == EVERY  # every control really moved off its default
    assert want_shown["note"] == "head 2 of 2"
    link = make_link(pg)
    assert "?scenario=" in link
    shot(pg, "share-link-wide", "#link")
    other = opened_like(browser, link, want_controls, want_shown)
    wait_text(other, "#badge", "left the preset")
    other.close()
    pg.locator("#export-btn").click()  # scenario.json keeps the head shown too, and loading it brings it back
    pg.wait_for_function("() => document.querySelectorAll('#downloads a').length >= 3")
    hrefs = {Path(a.get_attribute("href")).name: a.get_attribute("href") for a in pg.locator("#downloads a").all()}
    saved = tmp_path / "scenario.json"
    saved.write_bytes(pg.request.get(hrefs["scenario.json"]).body())
    assert json.loads(saved.read_text())["head_shown"] == 2
    script = pg.request.get(hrefs["attention.py"]).text()
    title = script.splitlines()[0]
    assert title.startswith(f"# {ac.get_preset('statquest-self').title}, edited"), title  # not the preset's title
    notebook = json.loads(pg.request.get(hrefs["attention.ipynb"]).text())
    assert "".join(notebook["cells"][0]["source"]).startswith(title + "\n")
    fresh = open_page(browser, app_url)
    open_drawer(fresh)
    with fresh.expect_file_chooser() as chooser:
        fresh.locator("#share").get_by_text("Share · export").click()
        fresh.locator("#upload-btn").click()
    chooser.value.set_files(str(saved))
    fresh.wait_for_function("() => document.querySelector('#overview').innerText.includes('head 2 of 2')")
    assert controls(fresh) == want_controls
    assert shown(fresh) == want_shown
    fresh.close()
    pg.close()


def test_a_preset_link_keeps_the_head_shown(browser: Browser, app_url: str) -> None:
    pg = open_page(browser, f"{app_url}?preset=statquest-mha2")
    open_drawer(pg)
    settled(pg, lambda: type_number(pg, "head shown", "2"))
    wait_text(pg, "#overview", "head 2 of 2")
    want_controls, want_shown = controls(pg), shown(pg)
    link = make_link(pg)
    assert "preset=statquest-mha2" in link and "scenario=" not in link  # the preset itself is untouched
    other = opened_like(browser, link, want_controls, want_shown)
    wait_text(other, "#badge", "✓ matches")
    other.close()
    pg.close()


# ---- quiz: the answer box, the tally, key names ---------------------------------------------------------


def quiz_open(pg: Page, kind: str) -> None:
    pg.locator("#quiz-box").get_by_text("Quiz me").click()
    choose(pg, "ask about", kind)
    pg.locator("#quiz-new").click()


def answer_box(pg: Page) -> object:
    return pg.locator("#quiz-answer textarea, #quiz-answer input").first


def preset_weights() -> list[list[float]]:
    return ac.evaluate(ac.parse(ac.get_preset("statquest-self").scenario)).head(0)["weights"].tolist()


def asked_weight(pg: Page) -> float:
    pg.wait_for_selector("#quiz-q .quiz-q[data-step=weights]")
    prompt = pg.locator("#quiz-q .quiz-q").inner_text()
    i, j = (int(n) - 1 for n in re.search(r"weights\[(\d+), (\d+)\]", prompt).groups())
    return preset_weights()[i][j]


def test_a_right_answer_clears_the_box_and_a_blank_check_is_not_counted(page: Page) -> None:
    quiz_open(page, "an attention weight")
    first = page.locator("#quiz-q .quiz-q").get_attribute("data-index")
    answer_box(page).fill(f"{asked_weight(page):.4f}")
    page.locator("#quiz-check").click()
    page.wait_for_selector("#quiz-feedback [data-correct=true]")
    wait_text(page, "#quiz-feedback", "1 of 1 this session")
    page.wait_for_function(f"() => document.querySelector('#quiz-q .quiz-q').dataset.index !== '{first}'")
    page.wait_for_function("() => document.querySelector('#quiz-answer textarea, #quiz-answer input').value === ''")
    page.locator("#quiz-check").click()  # the empty box: a message, nothing counted
    page.wait_for_selector("#quiz-feedback .msg-error")
    fb = page.locator("#quiz-feedback").inner_text()
    assert "answer" in fb and "blank" in fb, fb
    assert "last valid state" not in fb and "other edits" not in fb  # only what applies to a quiz answer
    assert "1 of 1 this session" in page.inner_text("#quiz-q") and "of 2" not in page.inner_text("#quiz-box")
    shot(page, "quiz-blank-wide", "#quiz-box")


def test_pressing_check_twice_grades_one_submission_once(page: Page) -> None:
    quiz_open(page, "an attention weight")
    answer_box(page).fill(f"{asked_weight(page):.4f}")
    page.evaluate("() => { const b = document.querySelector('#quiz-check'); b.click(); b.click(); }")  # a double click
    wait_text(page, "#quiz-feedback", "1 of 1 this session")
    page.wait_for_timeout(2_500)  # the second click's event has been answered by now
    box = page.inner_text("#quiz-box")
    assert "1 of 1 this session" in box and "of 2" not in box, box  # the text was not graded again on the next question
    assert page.locator("#quiz-feedback [data-correct=true]").count() == 1  # the verdict stays on screen


def test_a_wrong_which_key_answer_names_the_keys(page: Page) -> None:
    quiz_open(page, "which key gets the most weight")
    page.wait_for_selector("#quiz-q .quiz-q[data-kind=argmax]")
    prompt = page.locator("#quiz-q .quiz-q").inner_text()
    i = int(re.search(r"from query t(\d)", prompt).group(1)) - 1
    for where, name in (("#overview", "weights"), ("#overview", "output"), ("#html-output", "output")):
        # the asked row reads '?', and so does its output (weights · V: output t3 beside V t3 named key t3); the
        # text, not innerText: a closed notebook step has none
        page.wait_for_function(
            "(s) => { const tds = [...document.querySelectorAll(s)];"
            " return tds.length > 0 && tds.every((td) => td.textContent.trim() === '?'); }",
            arg=f"{where} table[data-name={name}] td[data-r='{i}']",
        )
    row = preset_weights()[i]
    wrong = min(range(len(row)), key=lambda j: row[j])
    right = max(range(len(row)), key=lambda j: row[j])
    answer_box(page).fill(f"t{wrong + 1}")
    page.locator("#quiz-check").click()
    page.wait_for_selector("#quiz-feedback [data-correct=false]")
    fb = page.locator("#quiz-feedback").inner_text()
    assert f"your answer: t{wrong + 1} (key {wrong + 1})" in fb, fb
    assert f"right answer: t{right + 1} (key {right + 1})" in fb, fb
    assert "(" + f"{wrong}," + ")" not in fb and "last valid state" not in fb
    page.wait_for_function("() => document.querySelector('#quiz-answer textarea, #quiz-answer input').value === ''")
    for phase, size in SIZES.items():
        page.set_viewport_size({"width": size[0], "height": size[1]})
        shot(page, f"quiz-wrong-key-{phase}", "#quiz-feedback")


# ---- the badge and the preset picker agree ------------------------------------------------------------


def test_the_badge_and_the_picker_agree_after_leaving_the_presets(page: Page) -> None:
    page.get_by_role("tab", name="Sentence mode").click()
    page.wait_for_selector("#sentence-out table[data-name='sent-softmax']")
    page.locator("#sent-go").click()  # the sentence's own state: no preset
    wait_text(page, "#badge", "Free play")
    page.wait_for_function("() => document.querySelector('#preset input').value === ''")  # the picker agrees
    assert "free play" in page.inner_text("#preset")  # and says so in its label
    page.locator("#reload").click()  # nothing to reload: said in words, the views stay
    wait_text(page, "#message", "preset: pick a preset")
    assert "Free play" in page.inner_text("#badge")
    for phase, size in SIZES.items():
        page.set_viewport_size({"width": size[0], "height": size[1]})
        shot(page, f"badge-free-{phase}", "#badge")
    page.set_viewport_size({"width": 1280, "height": 720})
    page.locator("#preset input").click()
    page.locator(f"li[role='option'][aria-label='{ac.get_preset('qkv-single').title}']").click()
    wait_text(page, "#badge", "QKV tutorial")
    badge = page.inner_text("#badge")
    assert "notebook 001" in badge and ".txt" not in badge, badge  # the notebook in words, not a file name
    cell = "#inputs table[data-name=x] td[data-r='0'][data-c='0']"
    page.locator(cell).click()
    page.locator("#inputs table.grid td input").fill("3")
    page.keyboard.press("Enter")
    wait_text(page, "#badge", "left the preset")
    assert ac.get_preset("qkv-single").title in page.inner_text("#badge")
    assert page.locator("#preset input").input_value() == ac.get_preset("qkv-single").title
    assert "free play" not in page.inner_text("#preset")
    for phase, size in SIZES.items():
        page.set_viewport_size({"width": size[0], "height": size[1]})
        shot(page, f"badge-left-{phase}", "#badge")


def test_the_matched_badge_names_its_notebook_in_words(page: Page) -> None:
    badge = page.inner_text("#badge")
    assert "✓ matches" in badge and "notebook 000" in badge and ".txt" not in badge, badge
    page.locator("#badge summary").click()
    assert ".txt" not in page.inner_text("#badge")
    shot(page, "badge-details-wide", "#badge")


def test_an_answer_sent_for_an_earlier_question_is_not_graded() -> None:
    """The server's half of "never the same submission twice": an answer carries the number of the question the page
    showed, and one for a question already graded changes nothing (two presses racing past the page's guard)."""
    v = learn.QuizView(wiring.Slot("quiz"), "question", "feedback", "answer", "asked")
    vals = pipeline.load_values("statquest-self")[1]
    out = learn.on_quiz_new(v, "weights", vals, learn.new_quiz(7))
    qz, shown_for = out[v.slot], out["asked"]
    assert out["answer"] == "" and shown_for == str(qz["index"])
    s = ac.parse(scenario_from(vals))
    right = learn.current_question(s, ac.evaluate(s), qz).answer
    first = learn.on_quiz_check(v, f"{right:.4f}", vals, qz, shown_for)
    assert "1 of 1 this session" in first["feedback"] and first["answer"] == ""  # graded, the box emptied
    again = learn.on_quiz_check(v, f"{right:.4f}", vals, first[v.slot], shown_for)  # the same press, late
    assert again == {}  # nothing graded, nothing shown over the verdict
    blank = learn.on_quiz_check(v, "", vals, first[v.slot], first["asked"])
    assert "is blank" in blank["feedback"] and "last valid state" not in blank["feedback"] and v.slot not in blank
