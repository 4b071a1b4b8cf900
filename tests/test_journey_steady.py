"""Nothing moves the pipeline (issue 37, layout jumps): a refused cell's message, Share · export, the badge's details
and the padded positions' box open over the page or beside the controls, and the workbench's cards stay where the
learner was looking, at 1280×720 and 1920×1080. Typed key by key, as a learner types."""

from __future__ import annotations

import pytest
from browser import open_page
from playwright.sync_api import Browser, Page

TOP = "() => document.querySelector('#bench').getBoundingClientRect().top"
ON_TOP = """(sel) => { const r = document.querySelector(sel).getBoundingClientRect();
  const e = document.elementFromPoint(r.left + Math.min(40, r.width / 2), r.top + r.height / 2);
  return !!e && !!e.closest(sel); }"""


def still(pg: Page, before: float, what: str) -> None:
    after = pg.evaluate(TOP)
    assert abs(after - before) <= 1, f"{what}: the pipeline moved from y={before:.0f} to y={after:.0f}"


def type_cell(pg: Page, text: str) -> None:
    """X's first cell clicked, its editor's text replaced key by key at 80 ms, then Enter."""
    pg.locator("#inputs table[data-name=x] td[data-r='0'][data-c='0']").click()
    editor = pg.locator("#inputs table.grid td input")
    editor.press("Control+a")
    editor.press_sequentially(text, delay=80)
    editor.press("Enter")


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080)], ids=["1280x720", "1920x1080"])
def test_a_message_share_and_padding_leave_the_pipeline_where_it_was(browser: Browser, app_url: str,
                                                                    size: tuple[int, int]) -> None:  # fmt: skip
    pg = open_page(browser, app_url, *size)
    try:
        pg.wait_for_timeout(500)  # (the numbers fitted to the screen)
        top = pg.evaluate(TOP)
        pg.locator("#badge summary").click()  # the preset as loaded: which printed tensors match, how closely
        pg.locator("#badge .badge-more table").wait_for()
        assert pg.evaluate(ON_TOP, "#badge .badge-more table"), "the badge's details opened under something"
        still(pg, top, "the badge's details opened")
        pg.locator("#badge summary").click()
        type_cell(pg, "abc")
        pg.locator("#message .msg-error").wait_for()
        said = pg.locator("#message").inner_text()
        assert "x row 1, column 1" in said and "'abc'" in said, said
        assert pg.evaluate(ON_TOP, "#message .msg-error"), "the message is hidden under something"
        still(pg, top, "a refused cell's message")
        type_cell(pg, "1.5")
        pg.locator("#message .msg-error").wait_for(state="detached")
        still(pg, top, "the message gone")
        pg.locator("#share").get_by_text("Share · export").click()
        pg.get_by_role("button", name="Make a link to this exact state").wait_for()
        assert pg.evaluate(ON_TOP, "#link-btn"), "Share · export opened under something"
        still(pg, top, "Share · export opened")
        pg.locator("#share").get_by_text("Share · export").click()
        pg.get_by_label("mask", exact=True).click()
        pg.locator("li[role='option'][aria-label='padding']").click()
        pg.get_by_label("padded key positions (e.g. 3 or 2, 3)", exact=True).wait_for()
        pg.wait_for_timeout(300)
        still(pg, top, "the padded positions' box shown")
    finally:
        pg.close()


# ---- a fresh learner's second walk (issue 37, item 4): the phone's badge, and a message that covers nothing --------

# where every card of the pipeline stands (its left and top in the page: a changed number may change its size)
CARDS = """() => [...document.querySelectorAll('#bench .card')].map((c) => {
  const r = c.getBoundingClientRect(); return [r.left, r.top + scrollY]; })"""
HIT = """(sel) => { const e = document.querySelector(sel); e.scrollIntoView({block: 'center'});
  const r = e.getBoundingClientRect();
  const at = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  if (at && (e.contains(at) || at.contains(e))) return '';
  return sel + ' is under ' + (at?.closest('[id]')?.id || at?.tagName); }"""
# what a learner needs while a message is shown: the toolbar's controls, the tabs, the bench's first cards' titles
# and column headers (W_k's and W_v's lay under the message at 1280×720), the top bar's buttons
NEEDED = [
    "#tabs button[role=tab]",
    "#tb-mask",
    "#tb-scale",
    "#tb-normalize",
    "#more > button.label-wrap",
    "#share > button.label-wrap",
    "#teach button",
    "#text-size button.projector",
    "#badge .badge",
    "#inputs table[data-name=x] tr:first-child th:last-child",
    "#inputs table[data-name=W_k] tr:first-child th:last-child",
    "#inputs .card:has(table[data-name=W_v]) .card-title",
    "#inputs .card:has(table[data-name=W_k]) .card-title",
]


def badge_whole_when_pointed_at(pg: Page) -> None:
    """Pointed at, the badge shows its whole text (nothing left to scroll in it)."""
    pg.locator("#badge").hover()
    pg.wait_for_timeout(200)
    cut = pg.evaluate("() => { const b = document.querySelector('#badge .badge'); "
                      "return b.scrollHeight - b.clientHeight; }")  # fmt: skip
    assert cut <= 1, cut


def unmoved(pg: Page, before: list[list[float]], what: str) -> None:
    after = pg.evaluate(CARDS)
    assert len(after) == len(before), what
    for a, b in zip(after, before, strict=True):
        assert all(abs(x - y) <= 1 for x, y in zip(a, b, strict=True)), f"{what}: a card moved from {b} to {a}"


def covered(pg: Page) -> list[str]:
    """Every element in NEEDED that is not the topmost thing at its own centre (scrolled into view)."""
    said = [pg.evaluate(HIT, sel) for sel in NEEDED if pg.locator(sel).count()]
    pg.evaluate("() => window.scrollTo(0, 0)")
    return [s for s in said if s]


def test_the_phones_badge_keeps_one_height(browser: Browser, app_url: str) -> None:
    """At 390×844 the badge is as tall for StatQuest as for llama-style's long text, and the cards stay where they
    were when a typed cell turns it from yellow to green (seen failing: the green badge a line shorter than the
    yellow, and llama-style's badge five lines, 114 px against 63)."""
    pg = open_page(browser, app_url, 390, 844)
    try:
        pg.wait_for_timeout(500)
        type_cell(pg, "1.17")  # the preset left: the yellow badge (as many digits as 1.16: the numbers keep a size)
        pg.wait_for_function("() => document.querySelector('#badge').innerText.includes('left the preset')")
        pg.wait_for_timeout(500)
        tall, cards = pg.evaluate("() => document.querySelector('#badge').offsetHeight"), pg.evaluate(CARDS)
        type_cell(pg, "1.16")  # back to the preset's own: the green badge, a line shorter
        pg.wait_for_function("() => document.querySelector('#badge').innerText.includes('✓ matches')")
        pg.wait_for_timeout(300)
        assert pg.evaluate("() => document.querySelector('#badge').offsetHeight") == tall
        unmoved(pg, cards, "the badge turned green")
    finally:
        pg.close()
    pg = open_page(browser, app_url + "?preset=llama-style", 390, 844)
    try:
        pg.wait_for_timeout(500)
        assert pg.evaluate("() => document.querySelector('#badge').offsetHeight") == tall, "llama-style's badge"
        badge_whole_when_pointed_at(pg)
    finally:
        pg.close()


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080), (390, 844)], ids=["1280x720", "1920x1080", "390x844"])
def test_a_message_moves_no_card_and_covers_nothing_the_learner_needs(browser: Browser, app_url: str,
                                                                       size: tuple[int, int]) -> None:  # fmt: skip
    """'abc' typed into X's first cell: the message is on top and whole, no card moves, and every control, tab,
    header and title in NEEDED is still the topmost thing at its centre; then, More settings open, heads 9 typed on
    the toolbar: the message is on top, and so is Share · export (seen failing: the message over W_k's headers and
    W_v's title, and over Share · export with the drawer open)."""
    pg = open_page(browser, app_url, *size)
    try:
        pg.wait_for_timeout(500)
        cards = pg.evaluate(CARDS)
        type_cell(pg, "abc")
        pg.locator("#message .msg-error").wait_for()
        pg.wait_for_timeout(300)
        assert pg.evaluate(ON_TOP, "#message .msg-error"), "the message is hidden under something"
        whole = pg.evaluate("() => { const m = document.querySelector('#message > .html-container'); "
                            "return m.scrollHeight - m.clientHeight; }")  # fmt: skip
        assert whole <= 1, f"the message is cut by {whole} px"
        unmoved(pg, cards, "a refused cell's message")
        assert covered(pg) == []
        pg.locator("#more button.label-wrap").click()
        pg.get_by_label("T (query tokens)", exact=True).wait_for(state="visible")
        heads = pg.get_by_label("heads", exact=True)
        heads.click()
        heads.press("Control+a")
        heads.press_sequentially("9", delay=80)
        heads.press("Enter")
        pg.wait_for_function("() => document.querySelector('#message').innerText.includes('heads: 9')")
        pg.wait_for_timeout(300)
        assert pg.evaluate(ON_TOP, "#message .msg-error"), "the message is hidden under something"
        unmoved(pg, cards, "the drawer's message")
        assert pg.evaluate(HIT, "#share > button.label-wrap") == "", "Share · export is under the message"
    finally:
        pg.close()


# every toolbar dropdown's choice, measured in its own font, ends left of its chevron: the toolbar dropdowns whose
# text runs under the chevron (at 390×844 the dtype's 100 px box drew "float3⌄2"), as [label, text end, chevron]
UNCOVERED_CHOICES = """() => {
  const ctx = document.createElement('canvas').getContext('2d');
  return [...document.querySelectorAll('#toolbar input[role=combobox]')].flatMap((inp) => {
    const icon = inp.parentElement.querySelector('.icon-wrap path');  // (the arrow drawn, not its 20 px box)
    if (!icon || !inp.offsetParent) return [];
    const cs = getComputedStyle(inp);
    ctx.font = `${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
    const end = inp.getBoundingClientRect().left + parseFloat(cs.paddingLeft) + ctx.measureText(inp.value).width;
    const chevron = icon.getBoundingClientRect().left;
    return end <= chevron + 1 ? [] : [[inp.getAttribute('aria-label'), Math.round(end), Math.round(chevron)]];
  });
}"""


SHOWS = """([c, v]) => [...document.querySelectorAll('#toolbar input[role=combobox]')]
  .some((i) => i.getAttribute('aria-label') === c && i.value === v)"""


def choose(pg: Page, control: str, choice: str) -> None:
    """``choice`` clicked in the toolbar's ``control`` dropdown, as a learner picks it; waits until the box shows it."""
    pg.get_by_label(control, exact=True).click()
    pg.locator(f"li[role='option'][aria-label='{choice}']").click()
    pg.wait_for_function(SHOWS, arg=[control, choice])


def inside_toolbar(pg: Page, label: str) -> None:
    box = pg.get_by_label(label, exact=True)
    box.wait_for(state="visible")
    pg.wait_for_timeout(300)
    t, b = pg.locator("#toolbar").bounding_box(), box.bounding_box()
    assert t and b, label
    inside = t["y"] <= b["y"] and b["y"] + b["height"] <= t["y"] + t["height"] + 1
    inside = inside and t["x"] <= b["x"] and b["x"] + b["width"] <= t["x"] + t["width"] + 1
    assert inside, f"the {label} box is not inside the toolbar"


SIZES = [(1280, 720), (1920, 1080), (390, 844)]
PAD = "padded key positions (e.g. 3 or 2, 3)"


@pytest.mark.parametrize("size", SIZES, ids=["1280x720", "1920x1080", "390x844"])
def test_the_temperature_and_padded_positions_boxes_move_no_card(browser: Browser, app_url: str,
                                                                 size: tuple[int, int]) -> None:  # fmt: skip
    """scale → temperature, then, the temperature still shown, mask → padding, fill → additive mask M and mask →
    causal+padding (the longest choices), clicked as a learner clicks them: each box shows, whole in the toolbar, no
    card moves (seen failing at 390×844: the temperature box wrapped the toolbar, the cards 71 px lower; at 1280×720:
    the temperature with the padded positions wrapped the dtype to a second row, 64 px), and no dropdown's chevron
    covers its choice (seen failing at 390×844 with the dtype's box at 100 px: "float32" ran under it; at every size
    with "additive mask M": its "M" under the fill's arrow, [['fill', 255, 245]] at 1280×720)."""
    pg = open_page(browser, app_url, *size)
    try:
        pg.wait_for_timeout(500)
        cards = pg.evaluate(CARDS)
        assert pg.evaluate(UNCOVERED_CHOICES) == [], "a dropdown's chevron is drawn over its choice"
        steps = [("scale", "temperature", "temperature (divide by)"), ("mask", "padding", PAD),
                 ("fill", "additive mask M", ""), ("mask", "causal+padding", PAD)]  # fmt: skip
        for control, choice, label in steps:
            choose(pg, control, choice)
            if label:
                inside_toolbar(pg, label)
            pg.wait_for_timeout(300)
            unmoved(pg, cards, f"{control} → {choice}")
            assert pg.evaluate(UNCOVERED_CHOICES) == [], f"{control} → {choice}: a chevron is drawn over a choice"
        inside_toolbar(pg, "temperature (divide by)")
    finally:
        pg.close()


@pytest.mark.parametrize("size", SIZES, ids=["1280x720", "1920x1080", "390x844"])
def test_a_drawer_opened_with_the_padded_positions_moves_no_card(browser: Browser, app_url: str,
                                                                 size: tuple[int, int]) -> None:  # fmt: skip
    """mask → padding, then More settings and Share · export opened and closed in turn: the toolbar's buttons keep
    their width, nothing wraps, and no card moves (seen failing at 1280×720: the open button widened from 108 to
    170 px, the dtype wrapped to a second row, and the cards moved down 64 px)."""
    pg = open_page(browser, app_url, *size)
    try:
        pg.wait_for_timeout(500)
        cards = pg.evaluate(CARDS)
        choose(pg, "mask", "padding")
        inside_toolbar(pg, PAD)
        unmoved(pg, cards, "the padded positions shown")
        height = pg.evaluate("() => document.querySelector('#toolbar').offsetHeight")
        for drawer, inner in [("#more", "T (query tokens)"), ("#share", "Make a link to this exact state")]:
            widths = pg.evaluate(BUTTONS)
            pg.locator(f"{drawer} > button.label-wrap").click()
            if drawer == "#more":
                pg.get_by_label(inner, exact=True).wait_for(state="visible")
            else:
                pg.get_by_role("button", name=inner).wait_for()
            pg.wait_for_timeout(300)
            assert pg.evaluate(BUTTONS) == widths, f"{drawer} opened: the toolbar's buttons changed width"
            assert pg.evaluate("() => document.querySelector('#toolbar').offsetHeight") == height, drawer
            unmoved(pg, cards, f"{drawer} opened with the padded positions shown")
            pg.locator(f"{drawer} > button.label-wrap").click()
            pg.wait_for_timeout(300)
            unmoved(pg, cards, f"{drawer} closed")
    finally:
        pg.close()


# the widths of the toolbar's controls and buttons (More settings, Share · export), left to right
BUTTONS = """() => [...document.querySelectorAll('#toolbar > .form > .block, #more, #share')]
  .filter((e) => e.offsetParent).map((e) => Math.round(e.getBoundingClientRect().width))"""


# the badge's lines that its fixed height cuts through (a line neither wholly shown nor wholly hidden), as
# [line top, line bottom, the badge's visible bottom], and whether a cut text ends in "…" (a line clamp)
CUT_LINES = """() => {
  const b = document.querySelector('#topbar > #badge .badge');
  const r = b.getBoundingClientRect(), cs = getComputedStyle(b);
  const bottom = r.bottom - parseFloat(cs.borderBottomWidth) - parseFloat(cs.paddingBottom);
  const range = document.createRange(); range.selectNodeContents(b);
  const lines = [...range.getClientRects()].filter((l) => l.height > 0);
  const cut = lines.filter((l) => l.top < bottom - 1 && l.bottom > bottom + 1)
    .map((l) => [Math.round(l.top), Math.round(l.bottom), Math.round(bottom)]);
  const hidden = lines.some((l) => l.top >= bottom - 1);
  return {cut, hidden, clamped: cs.webkitLineClamp !== 'none'};
}"""


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080)], ids=["1280x720", "1920x1080"])
def test_a_long_badge_ends_in_an_ellipsis_at_its_height(browser: Browser, app_url: str,
                                                        size: tuple[int, int]) -> None:  # fmt: skip
    """llama-style, then mask → none, normalise → sum, scale → off and fill → -1e9 clicked as a learner does: the
    yellow badge's long text ("…compare with its torch-checked numbers") keeps the badge's height, the pipeline
    stays, and no line is cut mid-height: a longer text ends in "…" (seen failing at 1280×720: its fifth line cut in
    half, with no ellipsis); pointed at, the whole text shows."""
    pg = open_page(browser, app_url + "?preset=llama-style", *size)
    try:
        pg.wait_for_timeout(500)
        top, tall = pg.evaluate(TOP), pg.evaluate("() => document.querySelector('#badge').offsetHeight")
        for control, choice in [("mask", "none"), ("normalise", "sum"), ("scale", "off"), ("fill", "-1e9")]:
            choose(pg, control, choice)
        pg.wait_for_function("() => document.querySelector('#badge').innerText.includes('normalise, scale')")
        pg.wait_for_timeout(500)
        assert pg.evaluate("() => document.querySelector('#badge').offsetHeight") == tall
        still(pg, top, "the long yellow badge")  # (the cards' widths follow their new numbers)
        seen = pg.evaluate(CUT_LINES)
        assert seen["cut"] == [], f"the badge's text is cut mid-line: {seen['cut']}"
        assert not seen["hidden"] or seen["clamped"], "the badge's text is cut with no '…'"
        badge_whole_when_pointed_at(pg)
    finally:
        pg.close()
