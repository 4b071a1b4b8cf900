"""The "Train" tab: one attention head learns a toy task while the learner watches (attention_core.train).

Step, run N (streamed from a generator, a few steps per update at a readable pace), pause, reset, and
"Open in the workbench" (the learned head as explicit weights). The session keeps one compact "train" entry in
STORE: the task, seed, step, the (T, T) weights and Adam moments as lists, the losses, and ``run``: a counter
that pause, reset and closing the page move on, so a run still going stops at its next update (reset, step and
Open also cancel its event; a pause lets the run send its own last "paused" update, see ``on_train_pause``).
Each request does at most train.MAX_STEPS_PER_CALL updates; nothing is global.
"""

from __future__ import annotations

import html
import math
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import gradio as gr
import plotly.graph_objects as go
import torch
from gradio.components.plot import PlotData

import attention_core as ac
from attention_core import LOSS_LATEX, LOSS_TEXT, TrainState, parse_int, train
from serving import workers
from ui.assets import HEAT_JS, PAUSE_COUNTED, RUN_COUNTED, drawn
from ui.pipeline import scenario_values
from ui.render import heat
from ui.render import tables as vw
from ui.values import parse_seed
from ui.wiring import COMMON, STORE, Slot, bind, on, stream, whole_number

MAX_UPDATES = 25  # a run of N steps is sent as at most this many updates ...
PACE_S = 0.12  # ... at least this far apart (readable, and small: a (T, T) heatmap and the loss curve)
PLOT_EVERY = 4  # the loss curve is redrawn every 4th update (and the last): a Plotly redraw costs the page most
DEFAULT_STEPS = 50
STEPS_LABEL = "N steps"  # the box's label, which its messages name
LOSS_TICKS = [m * 10.0**e for e in range(-4, 1) for m in (1, 2, 5)]  # 0.0001 ... 5: a few labels per decade, in full
TASK_CHOICES = [(f"{train.TITLES[t]}", t) for t in train.TASKS]


# ---- the session's compact state -------------------------------------------------------------


def pack(st: TrainState, run: int) -> dict[str, Any]:
    """A TrainState as plain values (float32 values are exact as Python floats)."""
    return {
        "task": st.task.id, "size": len(st.task.tokens), "seed": st.seed, "lr": st.lr, "step": st.step,
        "W_q": st.W_q.tolist(), "W_k": st.W_k.tolist(), "W_v": st.W_v.tolist(),
        "adam": [m.tolist() for m in st.adam], "losses": list(st.losses), "run": run,
    }  # fmt: skip


def unpack(d: dict[str, Any]) -> TrainState:
    """The inverse of :func:`pack`, bit for bit."""

    def t(m: Any) -> torch.Tensor:
        return torch.tensor(m, dtype=torch.float32)

    m = d["adam"]
    return TrainState(train.make_task(d["task"], d["size"]), d["seed"], d["lr"], d["step"], t(d["W_q"]),
                      t(d["W_k"]), t(d["W_v"]), (t(m[0]), t(m[1]), t(m[2]), t(m[3])), tuple(d["losses"]))  # fmt: skip


def choose(task: Any, seed: Any) -> tuple[str, int]:
    """The task and seed boxes, checked: train.choose, a bad seed named in words (ui.values.parse_seed)."""
    return train.choose(task, parse_seed(0 if seed in (None, "") else seed))


def current(task: Any, seed: Any, saved: Any) -> TrainState:
    """The session's training when it is of this task and seed, else step 0 of them."""
    t, s = choose(task, seed)
    if isinstance(saved, dict) and saved.get("task") == t and saved.get("seed") == s:
        return unpack(saved)
    return train.start(t, s)


def run_of(saved: Any) -> int:
    return int(saved["run"]) if isinstance(saved, dict) else 0


# ---- views -----------------------------------------------------------------------------------


def heat_html(st: TrainState) -> str:
    """The head's weights now beside the target pattern, both 0..1 heatmaps."""
    t = st.task
    rows = [f"{i + 1}:{q}" for i, q in enumerate(t.tokens)]
    cols = [f"{j + 1}:{k}" for j, k in enumerate(t.tokens_k)]
    now = heat.heatmap(train.weights_matrix(st), heat.PROB, f"weights at step {st.step}", rows, cols, "train-now")
    goal = heat.heatmap(t.target_rows(), heat.PROB, "target pattern", rows, cols, "train-target")
    return f"<div class='hms train-maps' data-step='{st.step}'>{now}{goal}</div>"


def loss_plot(st: TrainState) -> PlotData:
    """The loss after each update so far (log scale), the current step marked (plotly.graph_objects, which checks
    every property; ``template="none"``: plotly.js' own look, and no 6 KB template sent with each update)."""
    fig = go.Figure(
        [
            go.Scatter(mode="lines", x=list(range(len(st.losses))), y=list(st.losses), name="loss",
                       line={"color": "#2171b5"}),
            go.Scatter(mode="markers", x=[st.step], y=[st.loss], name=f"step {st.step}",
                       marker={"size": 9, "color": "#c0392b"}),
        ],
        layout={"template": "none", "height": 300, "margin": {"l": 55, "r": 15, "t": 45, "b": 45}, "showlegend": False,
                "font": {"size": 13},
                "title": {"text": f"loss: {st.loss:.4f} at step {st.step}", "font": {"size": 14}, "yref": "paper",
                          "y": 1, "yanchor": "bottom", "pad": {"b": 8}},  # just over the plot, clear of the label
                "xaxis": {"title": {"text": "step"}, "range": [0, max(10, st.step)]},
                "yaxis": {"type": "log", "tickvals": LOSS_TICKS, "ticktext": [f"{t:g}" for t in LOSS_TICKS],
                          "title": {"text": "loss"}}},
    )  # fmt: skip
    return PlotData(type="plotly", plot=fig.to_json())


def status_html(st: TrainState, note: str = "", done: int = 0, total: int = 0) -> str:
    on_target = int(train.matches(st).sum())
    bar = f" <progress value='{done}' max='{total}'></progress> {done} of {total}" if total else ""
    return (
        f"<div class='train-status' data-step='{st.step}' data-loss='{st.loss:.6g}' data-running='{int(done < total)}'>"
        f"step {st.step} · loss {st.loss:.4f} · {on_target} of {len(st.task.tokens)} queries put most weight on "
        f"their target{bar}{f' · {html.escape(note)}' if note else ''}</div>"
    )


@dataclass(frozen=True)
class TrainView:
    """The Train tab's components and its state slot."""

    slot: Any
    status: Any
    heat: Any
    plot: Any
    boxes: dict[str, Any] = field(default_factory=dict)  # the typed boxes: "seed", "n"
    kept: Any = None  # a gr.State: the seed and N steps in force ({"seed", "n"})
    held: Slot | None = None  # the most Run clicks a Pause has stopped (on_train_pause), as the session holds it

    def show(self, st: TrainState, run: int, note: str = "", done: int = 0, total: int = 0) -> dict[Any, Any]:
        return {self.slot: pack(st, run), self.status: status_html(st, note, done, total), self.heat: heat_html(st),
                self.plot: loss_plot(st)}  # fmt: skip

    def problem(self, e: Exception) -> dict[Any, Any]:
        return {self.status: vw.message_html([], error=str(e), after="")}  # (the tab has no other edits to keep)


# ---- handlers --------------------------------------------------------------------------------


def on_train_show(v: TrainView, task: Any, seed: Any, saved: Any) -> dict[Any, Any]:
    """The tab opened, or the task or seed changed: show where this task and seed stand."""
    try:
        st = current(task, seed, saved)
    except ac.ScenarioError as e:
        return v.problem(e)
    return v.show(st, run_of(saved))


def on_train_reset(v: TrainView, task: Any, seed: Any, saved: Any) -> dict[Any, Any]:
    """Back to step 0 of the chosen task and seed (a run still going stops)."""
    try:
        st = train.start(*choose(task, seed))
    except ac.ScenarioError as e:
        return v.problem(e)
    return v.show(st, run_of(saved) + 1, "reset")


def on_train_step(v: TrainView, task: Any, seed: Any, saved: Any) -> dict[Any, Any]:
    """One Adam update."""
    try:
        st = workers.call(train.train_steps, current(task, seed, saved), 1)
    except ac.ScenarioError as e:
        return v.problem(e)
    return v.show(st, run_of(saved) + 1)


def on_train_typed(v: TrainView, name: str, task: Any, seed: Any, n: Any, kept: Any, saved: Any) -> dict[Any, Any]:
    """The seed's or N steps' Enter or blur (never per key: the seed applied each key, and N steps had gradio's range,
    whose red "Value 900 is greater than maximum value 500." named no field, after Run, and logged a traceback).
    A good value is in force (N steps: what Run runs; the seed: where the tab stands); a bad one is named as the
    box is labelled, and the box shows the value in force again."""
    kept = kept if isinstance(kept, dict) else {"seed": 0, "n": DEFAULT_STEPS}
    value = seed if name == "seed" else n
    if value == kept[name]:
        return {}
    try:
        good = parse_seed(value) if name == "seed" else parse_int(value, STEPS_LABEL, 1, train.MAX_STEPS_PER_CALL)
    except ac.ScenarioError as e:
        try:
            stands = status_html(current(task, kept["seed"], saved))
        except ac.ScenarioError:
            stands = ""
        return {v.status: vw.message_html([], error=f"{e}; it keeps {kept[name]}", after="") + stands,
                v.boxes[name]: kept[name]}  # fmt: skip
    out: dict[Any, Any] = {v.kept: {**kept, name: good}}
    return out | on_train_show(v, task, good, saved) if name == "seed" else out


def on_train_pause(v: TrainView, saved: Any, clicked: Any = None, held: Any = None) -> dict[Any, Any]:
    """Ask a run to stop: the run counter moves on, marked as a pause of the run it stopped (``"paused"``).

    The run itself sends the last update ("paused", with every step it finished) when it next looks at the counter,
    at most one update later. Pause does not cancel the run's event and shows nothing itself: an update the run had
    already sent could reach the page after Pause's own answer (gradio finishes its events' outputs in parallel)
    and show "running" for good.

    ``clicked``: how many times the page had clicked Run N when Pause was clicked (page.js runsClicked). Pause stops
    every run clicked before it, also one not begun yet: Run N waits for the events on their way (ui/assets.py
    RUN_COUNTED), and Pause, which does not, may reach the server first. Kept as the session's ``v.held``
    (``held``: its value now), the most runs a Pause has stopped; a run numbered at most that stops at its next look.
    """
    out: dict[Any, Any] = {}
    if isinstance(saved, dict):
        run = run_of(saved)
        out[v.slot] = {**saved, "run": run + 1, "paused": saved.get("paused", run)}  # a 2nd Pause keeps the mark
    if v.held is not None and (k := count_of(clicked)) is not None:
        out[v.held] = max(k, count_of(held) or 0)
    return out


def count_of(x: Any) -> int | None:
    """A count the page sent (a hidden gr.Number: a float, an int, or None), as an int; None for anything else (text,
    a bool, NaN, ±inf, a negative or fractional number). An int of any size is taken as it is (no float of it)."""
    if isinstance(x, bool) or not isinstance(x, int | float):
        return None
    if isinstance(x, float) and not (math.isfinite(x) and x.is_integer()):
        return None
    return int(x) if x >= 0 else None


def on_train_run(
    v: TrainView,
    task: Any,
    seed: Any,
    n: Any,
    saved: Any,
    clicked: Any,
    live: Callable[[str], Any],
    pace_s: float = PACE_S,
) -> Iterator[dict[Any, Any]]:
    """Run N updates, sent as at most MAX_UPDATES updates PACE_S apart; stops when another event (pause, reset,
    step, a closed page) moves the session's run counter, or a Pause clicked after this Run (``clicked``: the
    page's count of Run clicks, this one included) has been taken (:func:`on_train_pause`), even before it began."""
    try:
        st = current(task, seed, saved)
        total = parse_int(n, STEPS_LABEL, 1, train.MAX_STEPS_PER_CALL)
        if st.step + total > train.MAX_TOTAL_STEPS:
            raise train.TrainError("steps", f"{total} more would pass {train.MAX_TOTAL_STEPS} in all; reset first")
    except ac.ScenarioError as e:
        yield v.problem(e)
        return
    run = run_of(saved) + 1
    mine = count_of(clicked)

    def held() -> bool:  # a Pause clicked after this Run has been taken
        k = count_of(live(v.held.name)) if v.held is not None and mine is not None else None
        return k is not None and mine <= k  # (k is None whenever mine is)

    if held():  # (the Pause reached the server first: this run never begins)
        yield v.show(st, run, "paused", 0, total)
        return
    yield v.show(st, run, "running", 0, total)
    chunk, done, updates, stopped = math.ceil(total / MAX_UPDATES), 0, 0, False
    while done < total:
        t0 = time.monotonic()
        k = min(chunk, total - done)
        st, done = workers.call(train.train_steps, st, k), done + k  # off the server's interpreter (workers.py)
        time.sleep(max(0.0, pace_s - (time.monotonic() - t0)))
        if run_of(live("train")) != run or held():  # paused, reset, stepped or closed meanwhile: nothing more ...
            stopped = True
            break
        up = v.show(st, run, "done" if done == total else "running", done, total)
        updates += 1
        if done < total and updates % PLOT_EVERY:  # the heatmap every update, Plotly's redraw less often
            up[v.plot] = gr.skip()
        yield up
    # ... but a pause's last word: for a Pause taken before this run's first update was written (which wrote over the
    # Pause's counter and mark), under this run's counter,
    if stopped and held() and run_of(live("train")) == run:
        yield v.show(st, run, "paused", done, total)
    # and else under the Pause's own. Also when the pause came after this run's last check (its update was then not
    # written, see learn_ui.superseded), and again under a second Pause's counter if that one came first: a
    # written "paused" update drops the mark (pack has none), so this ends.
    while isinstance(now := live("train"), dict) and now.get("paused") == run:
        yield v.show(st, run_of(now), "paused", done, total)


def on_train_open(page: Any, tabs: Any, v: TrainView, saved: Any) -> dict[Any, Any]:
    """The Open in the workbench button: the trained head as explicit weights, every step inspectable."""
    if not isinstance(saved, dict):
        return {v.status: vw.message_html([], error="train: nothing trained yet; press Step or Run first", after="")}
    try:
        preset_id, shape, nv, got = scenario_values(train.handoff(unpack(saved)))
    except ac.ScenarioError as e:
        return v.problem(e)
    return {tabs: gr.Tabs(selected="bench"), **page.answer(preset_id, shape, nv, got)}


def on_unload(request: gr.Request) -> None:
    """The page closed: a run still going stops at its next update (gradio also cancels its event)."""
    key = getattr(request, "session_hash", None)
    saved = (STORE.get(key) or {}).get("train")
    if isinstance(saved, dict):
        STORE.put(key, {"train": {**saved, "run": run_of(saved) + 1}}, used=True)


# ---- the tab ---------------------------------------------------------------------------------


def build_train(page: Any, tabs: Any) -> Any:
    """The Train tab: controls, the loss formula, the weights heatmap beside the target, the loss curve."""
    with gr.Tab("Train", id="train") as tab:
        gr.Markdown(
            "One attention head (T = 6, d = 6, ÷√d_k) learns a toy task: W_q and W_k start from the seeded "
            f"nn.Linear init and train with autograd and Adam (lr {train.DEFAULT_LR}); W_v keeps its init.\n\n"
            "".join(f"$${part}$$\n\n" for part in LOSS_LATEX.split(r",\qquad"))
            + f"{LOSS_TEXT}.",
            latex_delimiters=[{"left": "$$", "right": "$$", "display": True}],
            elem_id="train-formula",
        )
        with gr.Row():
            task = gr.Radio(TASK_CHOICES, value="previous", label="task", elem_id="train-task", scale=2)
            # (no minimum or maximum: gradio's range check names no field; on_train_typed names it. No precision:
            # gradio's precision=0 rounded 7.5 to 8 unseen, so seed 7.5 trained seed 8 under a box reading 7.5)
            seed = whole_number(0, label="seed", elem_id="train-seed", min_width=80)
            steps = whole_number(DEFAULT_STEPS, label=STEPS_LABEL, elem_id="train-n", min_width=80)
        with gr.Row():
            buttons = {name: gr.Button(label, elem_id=f"train-{name}", variant=variant, min_width=90)
                       for name, label, variant in (("step", "Step", "secondary"), ("run", "Run N", "primary"),
                                                    ("pause", "Pause", "secondary"), ("reset", "Reset", "secondary"),
                                                    ("open", "Open in the workbench →", "secondary"))}  # fmt: skip
        status = gr.HTML(elem_id="train-status")
        maps = drawn(HEAT_JS, elem_id="train-heat")
        plot = gr.Plot(elem_id="train-loss", label="loss curve")
        kept = gr.State({"seed": 0, "n": DEFAULT_STEPS})
        clicks = gr.Number(None, visible=False)  # the page's count of Run N clicks (page.js runsClicked)
    view = TrainView(Slot("train"), status, maps, plot, {"seed": seed, "n": steps}, kept, Slot("train_held"))
    wire_train(page, tabs, view, tab, task, seed, steps, buttons, clicks)
    return tab


def wire_train(
    page: Any, tabs: Any, v: TrainView, tab: Any, task: Any, seed: Any, steps: Any,
    b: dict[str, Any], clicks: Any,
) -> None:  # fmt: skip
    outs = [v.slot, v.status, v.heat, v.plot]
    two = [task, seed, v.slot]
    run = stream(b["run"].click, bind(on_train_run, v), [task, seed, steps, v.slot, clicks], outs,
                 js=RUN_COUNTED, concurrency_limit=16, concurrency_id="train", **COMMON)  # fmt: skip
    for trigger in (tab.select, task.input):
        on(trigger, bind(on_train_show, v), two, outs, **COMMON)
    typed = [task, seed, steps, v.kept, v.slot]
    for name, box in (("seed", seed), ("n", steps)):
        for trigger in (box.submit, box.blur):
            on(trigger, bind(on_train_typed, v, name), typed, [*outs, box, v.kept], **COMMON)
    on(b["step"].click, bind(on_train_step, v), two, outs, cancels=[run], **COMMON)
    on(b["reset"].click, bind(on_train_reset, v), two, outs, cancels=[run], **COMMON)
    # Pause: no cancels= (the run sends its own last update), and every click goes, each with the count of Runs
    # clicked before it
    pause = {**COMMON, "trigger_mode": "multiple", "before": PAUSE_COUNTED}
    on(b["pause"].click, bind(on_train_pause, v), [v.slot, clicks, v.held], [v.slot, v.held, v.status], **pause)
    every = [tabs, v.status, *page.everything()]
    on(b["open"].click, bind(on_train_open, page, tabs, v), [v.slot], every, cancels=[run], writes=True, **COMMON)
