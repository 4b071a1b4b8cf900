"""A message is read whole, where the learner is looking, and moves nothing (issue 37, a fresh learner's third walk):
a long message is one line with the rest shown while pointed at, focused or tapped (its third line was cut in half
behind the toolbar at 1280×720, under the tab row at 390×844); on a phone a refusal in the drawer shows at the foot
of the screen (it was 700 px above kv heads, off screen), and no blank slot is kept for it above the tabs."""

from __future__ import annotations

import pytest
from browser import frames, open_page, settled
from playwright.sync_api import Browser, Page
from test_journey_steady import CARDS, ON_TOP, unmoved

BOX = "#message > .html-container"
# the message box's rect, and how much of its text it cuts ([left, top, right, bottom, cut px])
SEEN = """(sel) => { const b = document.querySelector(sel); const r = b.getBoundingClientRect();
  const inner = [...b.querySelectorAll('.msg-error, .msg-warn')].map((m) => m.scrollHeight - m.clientHeight);
  return [r.left, r.top, r.right, r.bottom, Math.max(b.scrollHeight - b.clientHeight, ...inner)]; }"""


def typed(pg: Page, label: str, text: str) -> None:
    """The box named ``label`` clicked, its text replaced key by key at 80 ms, then Enter."""
    box = pg.get_by_label(label, exact=True)
    box.click()
    box.press("Control+a")
    box.press_sequentially(text, delay=80)
    box.press("Enter")


def refuse_kv_heads(pg: Page) -> None:
    """2 heads on the toolbar, More settings open, 1 typed into kv heads: refused (the heads concatenated need a kv
    head per head group), the box back to 2, and the message naming the field."""
    typed(pg, "heads", "2")
    pg.wait_for_function("() => document.querySelector('#bench').innerText.includes('head 1 of 2')")
    pg.wait_for_timeout(500)
    pg.locator("#more button.label-wrap").click()
    kv = pg.get_by_label("kv heads (K, V shared)", exact=True)
    kv.wait_for(state="visible")
    typed(pg, "kv heads (K, V shared)", "1")
    pg.wait_for_function("() => document.querySelector('#message').innerText.includes('kv heads')")
    pg.wait_for_timeout(400)


def in_view(pg: Page, seen: list[float]) -> bool:
    w, h = pg.evaluate("() => [innerWidth, innerHeight]")
    return seen[0] >= -1 and seen[1] >= -1 and seen[2] <= w + 1 and seen[3] <= h + 1


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080), (390, 844)], ids=["1280x720", "1920x1080", "390x844"])
def test_a_long_refusal_is_seen_and_read_whole(browser: Browser, app_url: str, size: tuple[int, int]) -> None:
    """kv heads 1 typed with 2 heads: the message is in the viewport and on top when Enter is pressed (on a phone,
    in the drawer, too: seen failing, 700 px above), one line long and cut with "…" at most, and whole once pointed
    at (tapped on a phone); no card moves. Seen failing: the third line cut (scrollHeight 58 against 46)."""
    pg = open_page(browser, app_url, *size, events=True)
    try:
        pg.wait_for_timeout(500)
        refuse_kv_heads(pg)
        settled(pg)
        frames(pg)
        cards = pg.evaluate(CARDS)
        assert pg.get_by_label("kv heads (K, V shared)", exact=True).input_value() == "2"
        seen = pg.evaluate(SEEN, BOX)
        assert in_view(pg, seen), f"the refusal is out of sight: {seen}"
        assert pg.evaluate(ON_TOP, "#message .msg-error"), "the message is hidden under something"
        assert seen[3] - seen[1] <= 32, f"the message is not one line: {seen[3] - seen[1]:.0f} px"
        pg.locator("#message .msg-error").click()  # pointed at and tapped: all of it
        pg.wait_for_timeout(300)
        seen = pg.evaluate(SEEN, BOX)
        assert seen[4] <= 1, f"the message is cut by {seen[4]} px"
        assert in_view(pg, seen), f"the whole message is out of sight: {seen}"
        assert seen[3] - seen[1] > 40, "the long message shows one line only"
        unmoved(pg, cards, "the message read whole")
    finally:
        pg.close()


def test_the_phone_keeps_no_blank_slot_above_the_tabs(browser: Browser, app_url: str) -> None:
    """At 390×844 the tabs stand right under the top bar (seen failing: 54 px of blank kept for the message)."""
    pg = open_page(browser, app_url, 390, 844)
    try:
        gap = pg.evaluate("() => document.querySelector('#tabs > .tab-wrapper').getBoundingClientRect().top"
                          " - document.querySelector('#topbar').getBoundingClientRect().bottom")  # fmt: skip
        assert gap <= 24, f"{gap:.0f} px of blank between the top bar and the tabs"
    finally:
        pg.close()


def choose(pg: Page, label: str, option: str) -> None:
    """The toolbar's dropdown ``label`` opened and ``option`` picked, as a learner does; the overview answers."""
    out = pg.inner_text("#overview")
    pg.get_by_label(label, exact=True).click()
    pg.locator(f"li[role='option'][aria-label='{option}']").click()
    pg.wait_for_function("(b) => document.querySelector('#overview').innerText !== b", arg=out)


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080)], ids=["1280x720", "1920x1080"])
def test_a_long_warning_is_read_whole_when_pointed_at(browser: Browser, app_url: str, size: tuple[int, int]) -> None:
    """Mask custom (from causal), fill additive, t1's only kept key unticked: the three-line ⚠ warning is one line,
    on top, and whole (inside the viewport) while pointed at; no card moves (seen failing at 1280x720: its third
    line cut in half behind the toolbar, the box 46 px for 58 px of text)."""
    pg = open_page(browser, app_url, *size, events=True)
    try:
        pg.wait_for_timeout(500)
        choose(pg, "mask", "causal")
        choose(pg, "mask", "custom")
        choose(pg, "fill", "additive mask M")
        settled(pg)  # every answer in and drawn before the cards are measured (CI measured 12 where 13 came)
        frames(pg)
        cards = pg.evaluate(CARDS)
        pg.locator("#inputs table[data-name=keep] td[data-r='0'][data-c='0'] input").click()
        pg.locator("#message .msg-warn").wait_for(state="visible")
        pg.wait_for_timeout(400)
        assert "every key is masked" in pg.inner_text("#message")
        seen = pg.evaluate(SEEN, BOX)
        assert pg.evaluate(ON_TOP, "#message .msg-warn"), "the warning is hidden under something"
        assert in_view(pg, seen) and seen[3] - seen[1] <= 32, f"the warning is not one line in sight: {seen}"
        pg.locator("#message .msg-warn").hover()
        pg.wait_for_timeout(300)
        seen = pg.evaluate(SEEN, BOX)
        assert seen[4] <= 1, f"the warning is cut by {seen[4]} px"
        assert in_view(pg, seen) and seen[3] - seen[1] > 40, f"the warning is not whole in sight: {seen}"
        unmoved(pg, cards, "the warning read whole")
    finally:
        pg.close()
