"""A link made the moment a box was typed in: a learner types 3 into heads and clicks "Make a link to this exact state"
at once, without Enter or Tab. The box's value goes to the server with the box's blur, an event of its own; the link
is another. On a busy server the link's event was taken first and made the link of the state before the box's value,
under a page that showed three heads (a helper's walk: 2 runs of 3, and the temperature box 4 of 6). The journey holds
the box's event on the network, as a busy server would, for as long as the link's event could overtake it."""

from __future__ import annotations

import time
from urllib.parse import parse_qs, urlsplit

from browser import open_page, settled
from playwright.sync_api import Browser, Page, Route

from ui import share

HOLD_S = 2.0  # how long the box's event is held when the link's event does not come first
LINK_ID = "() => window.gradio_config.components.find((c) => c.props?.elem_id === 'link-btn').id"
PICKED = "#overview table[data-name=q] td[data-r='0'][data-c='0']"  # (left of the open Share panel)


def type_then_link(pg: Page) -> tuple[list[Route], list[Route]]:
    """3 typed into heads key by key, then the link clicked at once, with the first queued event after the typing
    (the box's blur) held on the network: (the held one, the link's own joins that left the page meanwhile)."""
    link_id = pg.evaluate(LINK_ID)
    held: list[Route] = []
    links: list[Route] = []

    def join(route: Route) -> None:
        if not held:
            held.append(route)
            return
        if (route.request.post_data_json or {}).get("trigger_id") == link_id:
            links.append(route)
        route.continue_()

    box = pg.locator("#tb-heads input")
    box.click()
    box.press("Control+a")
    box.press_sequentially("3", delay=80)
    pg.route("**/gradio_api/queue/join*", join)
    pg.locator("#link-btn").click()  # (the box's blur, then the link's click)
    return held, links


def test_a_link_made_right_after_typing_in_a_box_is_of_the_value_typed(browser: Browser, app_url: str) -> None:
    pg = open_page(browser, app_url, events=True)
    try:
        pg.locator("#share").get_by_text("Share · export").click()
        pg.locator("#link-btn").click()
        pg.wait_for_function("() => document.querySelector('#link textarea').value.includes('?')")
        first = pg.locator("#link textarea").input_value()
        assert "preset=" in first, first  # (the preset as loaded)
        held, links = type_then_link(pg)
        end = time.monotonic() + HOLD_S
        while not links and time.monotonic() < end:
            pg.wait_for_timeout(50)
        assert held, "the box's blur sent no event"
        overtook = bool(links)
        held[0].continue_()
        link, end = first, time.monotonic() + 30
        while link == first and time.monotonic() < end:  # (a link of the state before would read as the first)
            pg.wait_for_timeout(100)
            link = pg.locator("#link textarea").input_value()
        settled(pg)  # (both events answered: no later link)
        link = pg.locator("#link textarea").input_value()
        query = parse_qs(urlsplit(link).query)
        assert "scenario" in query, f"the link is of another state than the page's: {link} (overtook: {overtook})"
        assert share.decode_link(query["scenario"][0])["heads"] == 3, link
        assert not overtook, "the link's event left the page before the box's had been answered"
        assert pg.locator("#tb-heads input").input_value() == "3"
        assert "head 1 of 3" in pg.locator("#overview [data-card=q] .card-title").inner_text()
    finally:
        pg.close()


def test_a_link_waits_for_the_box_even_when_a_later_event_is_answered_first(browser: Browser, app_url: str) -> None:
    """As above, and while the box's event is held a number is clicked for its explanation, an event that leaves after
    the link's and is answered first: the link still waits for the box's (events are not answered in the order they
    left; the page counts them, page.js afterEvents)."""
    pg = open_page(browser, app_url, events=True)
    try:
        pg.locator("#share").get_by_text("Share · export").click()
        held, links = type_then_link(pg)
        pg.locator(PICKED).evaluate("(td) => td.scrollIntoView({block: 'center'})")  # (beside the open Share panel)
        pg.locator(PICKED).click()  # (the explanation's event, after the link's)
        pg.wait_for_function("() => document.querySelector('#explain .ex-title')?.innerText.length > 0")
        pg.wait_for_timeout(500)  # (the explanation answered: a link let go by its landing would have left by now)
        assert held, "the box's blur sent no event"
        overtook = bool(links)
        held[0].continue_()
        pg.wait_for_function("() => (document.querySelector('#link textarea')?.value || '').includes('?')")
        link = pg.locator("#link textarea").input_value()
        query = parse_qs(urlsplit(link).query)
        assert "scenario" in query, f"the link is of another state than the page's: {link} (overtook: {overtook})"
        assert share.decode_link(query["scenario"][0])["heads"] == 3, link
        assert not overtook, "the link's event left once the explanation was answered, before the box's"
    finally:
        pg.close()
