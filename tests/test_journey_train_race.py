"""Reset (or Step), then Run N at once, as a learner clicks them: Run N runs N from where the first click left the tab.
Each click is a queued event of its own, and a busy server may take them in either order. Reset taken after the run
had begun moved the run's counter, so the run stopped without a word and the tab stood at step 0 under a Run just
clicked (local CI's one failure, stop 50). The journey holds the first click's event on the network, as a busy
server would, for as long as Run's event could overtake it."""

from __future__ import annotations

import time

import pytest
from browser import Held, open_page, settled
from playwright.sync_api import Browser, Page, Route

HOLD_S = 2.0  # how long the first click's event is held when Run's event does not come first
ID = "(e) => window.gradio_config.components.find((c) => c.props?.elem_id === e).id"
STATUS = "#train-status .train-status"
WAIT_S = 120  # (50 steps take a few seconds; a loaded CI machine, far more)
PAUSED = "(s) => document.querySelector(s)?.innerText.includes('paused')"


def train_tab(browser: Browser, app_url: str) -> Page:
    """A fresh page on its Train tab at step 0, the loss curve drawn (as a learner sees it before pressing Run)."""
    pg = open_page(browser, app_url, events=True)
    pg.get_by_role("tab", name="Train").click()
    pg.wait_for_selector(f"{STATUS}[data-step='0']")
    pg.wait_for_selector("#train-loss .js-plotly-plot")
    settled(pg)
    return pg


@pytest.mark.parametrize(("first", "from_step", "ends_at"), [("reset", 1, 50), ("step", 0, 51)])
def test_run_n_clicked_right_after_reset_or_step_runs_n_from_where_that_click_left_the_tab(
    browser: Browser, app_url: str, first: str, from_step: int, ends_at: int
) -> None:
    pg = open_page(browser, app_url, events=True)
    try:
        pg.get_by_role("tab", name="Train").click()
        pg.wait_for_selector(f"{STATUS}[data-step='0']")
        if from_step:
            pg.locator("#train-step").click()  # (the server's first step starts its training process: seconds)
            pg.wait_for_selector(f"{STATUS}[data-step='{from_step}']", timeout=WAIT_S * 1000)
        settled(pg)
        first_id, run_id = pg.evaluate(ID, f"train-{first}"), pg.evaluate(ID, "train-run")
        held = Held(pg)
        hold = held.hold(first, lambda body: body.get("trigger_id") == first_id)
        runs: list[float] = []

        def join(route: Route) -> None:  # (the first click's join held; Run's noted as it leaves)
            if (route.request.post_data_json or {}).get("trigger_id") == run_id:
                runs.append(time.monotonic())
            hold(route)

        pg.route("**/gradio_api/queue/join*", join)
        pg.locator(f"#train-{first}").click()
        pg.locator("#train-run").click()
        route = held.wait(first)
        end = time.monotonic() + HOLD_S
        while not runs and time.monotonic() < end:
            pg.wait_for_timeout(50)
        overtook = bool(runs)
        route.continue_()
        status = pg.locator(STATUS)
        end = time.monotonic() + WAIT_S
        while time.monotonic() < end:  # (Run's update and Reset's answer can come in either order: ask until it ends)
            if (status.get_attribute("data-step"), status.get_attribute("data-running")) == (str(ends_at), "0"):
                break
            pg.wait_for_timeout(200)
        step, running = status.get_attribute("data-step"), status.get_attribute("data-running")
        assert (step, running) == (str(ends_at), "0"), (
            f"{first} then Run N: the tab stands at step {step} (running: {running}), not {ends_at} "
            f"(Run's event left before {first}'s was answered: {overtook})"
        )
        assert status.inner_text().startswith(f"step {ends_at} "), status.inner_text()
        assert not overtook, f"Run's event left the page before {first}'s had been answered"
    finally:
        pg.close()


def test_pause_clicked_while_run_n_waits_to_leave_pauses_that_run(browser: Browser, app_url: str) -> None:
    """Step, Run N and Pause clicked one after the other on a busy server: Run N waits for Step's event (above), and
    Pause, which waits for nothing, reached the server first, found no run going and did nothing; the run then ran
    all N steps under a Pause just clicked. Pause stops every run clicked before it, begun or not."""
    pg = train_tab(browser, app_url)
    try:
        step_id, pause_id = pg.evaluate(ID, "train-step"), pg.evaluate(ID, "train-pause")
        held = Held(pg)
        hold = held.hold("step", lambda body: body.get("trigger_id") == step_id)
        pauses: list[float] = []

        def join(route: Route) -> None:  # (Step's join held; Pause's noted as it leaves)
            if (route.request.post_data_json or {}).get("trigger_id") == pause_id:
                pauses.append(time.monotonic())
            hold(route)

        pg.route("**/gradio_api/queue/join*", join)
        pg.locator("#train-step").click()
        pg.locator("#train-run").click()
        route = held.wait("step")
        pg.locator("#train-pause").click()
        end = time.monotonic() + HOLD_S
        while not pauses and time.monotonic() < end:  # (Pause leaves while Run N still waits for Step)
            pg.wait_for_timeout(50)
        before_run = bool(pauses)
        route.continue_()
        status = pg.locator(STATUS)
        pg.wait_for_function(PAUSED, arg=STATUS, timeout=WAIT_S * 1000)
        settled(pg)
        pg.wait_for_timeout(1000)  # (a run not paused would go on: its next update comes 0.14 s later)
        assert status.get_attribute("data-step") == "1", status.inner_text()
        assert status.inner_text().startswith("step 1 ") and "paused" in status.inner_text(), status.inner_text()
        assert before_run, "Pause's event did not leave the page while Run N waited for Step's"
    finally:
        pg.close()


def test_pause_stops_a_run_going_and_a_second_run_clicked_while_it_went(browser: Browser, app_url: str) -> None:
    """Run N, Run N again while the first runs (gradio holds that click until the first run ends), then Pause: both
    Runs were clicked before the Pause, so neither goes on. (Counted when gradio let the second click go, after the
    Pause, it ran all N steps once the first had paused: 55aea77.)"""
    pg = train_tab(browser, app_url)
    try:
        pg.locator("#train-run").click()
        pg.wait_for_selector(f"{STATUS}[data-running='1']:not([data-step='0'])", timeout=WAIT_S * 1000)
        pg.locator("#train-run").click()
        pg.locator("#train-pause").click()
        pg.wait_for_function(PAUSED, arg=STATUS, timeout=WAIT_S * 1000)
        status = pg.locator(STATUS)
        paused_at = int(status.get_attribute("data-step") or -1)
        assert 0 < paused_at < 50, status.inner_text()
        end = time.monotonic() + 8  # (a second run not stopped begins once the first has ended: 50 steps in ~3.5 s)
        while time.monotonic() < end:
            assert status.get_attribute("data-step") == str(paused_at), (
                f"a Run went on after Pause: {status.inner_text()}"
            )
            pg.wait_for_timeout(200)
        settled(pg)
        assert status.get_attribute("data-step") == str(paused_at), status.inner_text()
    finally:
        pg.close()
