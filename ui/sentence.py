"""Sentence mode (seed 003): SimpleTokenizer's tokens and ids, embeddings, weightless attention, then the
sentence's trainable attention in the workbench."""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import Any

import gradio as gr
import torch

import attention_core as ac
from attention_core import (
    EMBEDDINGS_003,
    MAX_D,
    MAX_SENTENCE,
    MAX_T,
    SENTENCE,
    embedding_table,
    parse_int,
    shown_token,
)
from ui.pipeline import scenario_values
from ui.render import grids
from ui.render import tables as vw
from ui.values import parse_seed, slider_value
from ui.wiring import COMMON, Page, bind, on, whole, whole_number

MAX_WIDTH = 16  # the embedding width d's slider: 1..16

SENTENCE_NOTE = (
    "Seeded rows are drawn exactly as nn.Embedding(vocab, d) draws them after torch.manual_seed(seed), on this "
    "machine. That normal_ fill is platform-dependent: with seed 69, only 9 of the 21 values 003 printed come back "
    "here, which is why the 003 presets carry the printed numbers (button: 003's printed embeddings)."
)


def sentence_tokens(sentence: Any) -> tuple[ac.SimpleTokenizer, list[str]]:
    """A sentence -> its tokenizer and tokens; errors name 'sentence'."""
    text = sentence if isinstance(sentence, str) else ""
    if len(text) > MAX_SENTENCE:
        raise ac.ScenarioError("sentence", f"{len(text)} characters; at most {MAX_SENTENCE}")
    toks = ac.SimpleTokenizer.tokenize(text)
    if not toks:
        raise ac.ScenarioError("sentence", "is empty; type a few words")
    if len(toks) > MAX_T:
        raise ac.ScenarioError("sentence", f"{len(toks)} tokens (spaces count); at most {MAX_T}")
    return ac.SimpleTokenizer(text), toks


def embedding_rows(
    action: str, tok: ac.SimpleTokenizer, d: int, seed: int, table: Any, drawn_seed: int | None = None
) -> list[list[Any]]:
    """The vocabulary's embedding rows: kept by token from the table on screen, new tokens drawn from the seed.
    ``drawn_seed``: the seed the table on screen was drawn from (default ``seed``), which tells its drawn rows from
    the learner's edits."""
    drawn = embedding_table(tok.vocab_size, d, seed).tolist()
    if action == "printed":
        if tok.vocab != ac.SimpleTokenizer(SENTENCE).vocab or d != 3:
            raise ac.ScenarioError("embeddings", f"003 printed rows for its own sentence ({SENTENCE!r}) and d = 3")
        ids = ac.SimpleTokenizer(SENTENCE).encode(SENTENCE)
        return [EMBEDDINGS_003[ids.index(i)] for i in range(tok.vocab_size)]
    if action == "draw":
        return drawn
    old = {str(r[0]): list(r[1:]) for r in table_rows(table) if isinstance(r, (list, tuple)) and r}
    kept = edited_rows(old, d, seed if drawn_seed is None else drawn_seed)
    return [kept[shown_token(t)] if shown_token(t) in kept else drawn[i] for i, t in enumerate(tok.vocab)]


def edited_rows(old: dict[str, list[Any]], d: int, seed: int) -> dict[str, list[Any]]:
    """The rows of the table on screen (token -> raw cells) that are not what the seed drew for that table's own
    vocabulary: the learner's edits (typos included, for the core to name) and 003's printed rows. Every other row of
    a new sentence is the new nn.Embedding(vocab, d)'s, as 003 makes one after tokenizing: a drawn row kept by token
    was the old vocabulary's draw (normal_ fills a table by its size), a value left over from a previous sentence."""
    drawn_old = embedding_table(len(old), d, seed)
    out = {}
    for i, (label, row) in enumerate(old.items()):
        if len(row) != d:
            continue  # another width: drawn again
        try:
            same = torch.equal(torch.tensor([float(c) for c in row], dtype=torch.float32), drawn_old[i])
        except (TypeError, ValueError):
            same = False
        if not same:
            out[label] = row
    return out


def sentence_input(
    action: str, sentence: Any, d: Any, seed: Any, table: Any, drawn_seed: int | None = None
) -> tuple[ac.SimpleTokenizer, list[str], list[list[Any]], list[list[float]], int]:
    """Sentence mode's inputs, checked: (tokenizer, tokens, raw rows as shown, rows as floats, seed).

    Errors name the field: sentence, embedding width d, seed, or embeddings row r, column c.
    """
    tok, toks = sentence_tokens(sentence)
    d_i = parse_int(d, "embedding width d", 1, MAX_WIDTH)
    seed_i = parse_seed("" if seed is None else seed)  # (an emptied box was seed 0)
    rows = embedding_rows(action, tok, d_i, seed_i, table, drawn_seed)
    return tok, toks, rows, ac.parse_matrix(rows, "embeddings", tok.vocab_size, d_i), seed_i


def sentence_views(
    action: str, sentence: Any, d: Any, seed: Any, table: Any, drawn_seed: int | None = None
) -> dict[str, Any]:
    """Sentence mode: tokens and ids, the embedding table, weightless attention with both normalisations.

    ``action``: "text" (keep rows by token; the seed box's Enter too), "edit", "draw" (seeded nn.Embedding),
    "printed" (003's numbers). ``drawn_seed``: the seed the table on screen was drawn from (see embedding_rows).
    Returns {"table", "tokens", "simplified", "message", "seed"} ("seed": the seed the rows now come from); on bad
    input the message and gr.skip() elsewhere.
    """
    try:
        tok, toks, rows, vocab, seed_i = sentence_input(action, sentence, d, seed, table, drawn_seed)
        labels = [shown_token(t) for t in tok.vocab]
        cols = [f"d{j + 1}" for j in range(len(rows[0]))]
        ids = tok.encode(sentence)
        x = torch.tensor(vocab, dtype=torch.float32)[ids]  # (T, d): one row per token, spaces included (003 In [4])
        tr = ac.simplified_attention(x)
    except ac.ScenarioError as e:  # (one message, on the page: no gradio toast beside it)
        return {"table": gr.skip(), "tokens": gr.skip(), "simplified": gr.skip(), "seed": gr.skip(),
                "message": vw.message_html([], error=str(e))}  # fmt: skip
    shown_toks = [f"{i + 1}:{shown_token(t)}" for i, t in enumerate(toks)]
    token_table = "".join(f"<tr><th>{i + 1}</th><td>{html.escape(shown_token(t))}</td><td>{n}</td></tr>"
                          for i, (t, n) in enumerate(zip(toks, ids, strict=True)))  # fmt: skip
    tokens_html = (f"<p>{len(toks)} tokens, vocabulary of {tok.vocab_size} (sorted): "
                   f"{html.escape(', '.join(f'{shown_token(t)}={i}' for i, t in enumerate(tok.vocab)))}</p>"
                   f"<table class='nt'><tr><th>#</th><th>token</th><th>id</th></tr>{token_table}</table>")  # fmt: skip
    warn = []
    if not bool(torch.isfinite(tr.weights_sum).all()) or bool((tr.weights_sum < 0).any()):
        warn.append("divide-by-sum gives negative (or undefined) weights here: dot products can be negative, "
                    "which is why 003 moves on to softmax")  # fmt: skip

    def box(title: str, t: torch.Tensor, cols_: list[str], name: str, kind: str = "signed") -> str:
        return vw.html_table(t, "float32", shown_toks, cols_, name, kind, title=title)

    simplified = (
        "<div class='lab-cols'>"
        f"<div class='lab-col'>{box('scores = X Xᵀ', tr.scores, shown_toks, 'sent-scores')}</div>"
        f"<div class='lab-col'>{box('÷ row sum (003 cell 9)', tr.weights_sum, shown_toks, 'sent-sum', 'prob')}"
        f"{box('context = weights @ X', tr.context_sum, cols, 'sent-ctx-sum')}</div>"
        f"<div class='lab-col'>{box('softmax (003 cell 12)', tr.weights_softmax, shown_toks, 'sent-softmax', 'prob')}"
        f"{box('context = weights @ X', tr.context_softmax, cols, 'sent-ctx-softmax')}</div></div>"
    )
    return {"table": grids.raw_table(rows, labels, cols, "float32"), "tokens": tokens_html, "simplified": simplified,
            "message": vw.message_html(warn), "seed": seed_i}  # fmt: skip


def sentence_scenario(
    sentence: Any, d: Any, d_out: Any, seed: Any, table: Any, drawn_seed: int | None = None
) -> dict[str, Any]:
    """Trainable attention on the sentence: its embeddings as x, 003's torch.rand(d_in, d_out) weights (seed),
    matmul layout (003's Parameter class)."""
    tok, toks, _, vocab, seed_i = sentence_input("text", sentence, d, seed, table, drawn_seed)
    d_o = parse_int(d_out, "d_out", 1, MAX_D)
    x = [vocab[i] for i in tok.encode(sentence)]
    labels = [shown_token(t).replace(",", "‚") for t in toks]  # the token box is comma-separated
    return {"x": x, "tokens": labels, "layout": "matmul", "d_out": d_o,
            "weights": {"init": "rand", "seed": seed_i}}  # fmt: skip


def build_sentence(page: Page, tabs: Any) -> None:
    with gr.Tab("Sentence mode", id="sentence") as tab:
        gr.Markdown(
            "Seed 003's path: a sentence, SimpleTokenizer's tokens and ids (every space is a token), an embedding "
            "per vocabulary entry, then attention with no weights (both normalisations), then trainable attention "
            f"in the workbench. {SENTENCE_NOTE}"
        )
        with gr.Row():
            text = gr.Textbox(SENTENCE, label="sentence", scale=3, elem_id="sentence-text")
            d = gr.Slider(
                1, MAX_WIDTH, value=3, step=1, label="embedding width d", elem_id="sentence-d",
                elem_classes=["typed-slider", "on-release"],  # applies on its release only (static/sliders.js)
            )  # fmt: skip
            seed = whole_number(69, label="seed", elem_id="sentence-seed")
            d_out = gr.Slider(
                1,
                MAX_WIDTH,
                value=D_OUT,
                step=1,
                label="d_out for trainable attention (the book uses 2)",
                elem_id="sentence-d-out",
                elem_classes=["typed-slider"],  # its box applies on Enter or leaving it (static/sliders.js)
            )
        with gr.Row():
            draw = gr.Button("Draw embeddings: nn.Embedding (seed)")
            printed = gr.Button("003's printed embeddings")
            go = gr.Button("Trainable attention on this sentence →", variant="primary", elem_id="sent-go")
        msg = gr.HTML(elem_id="sentence-message")
        with gr.Row():
            tokens = gr.HTML(elem_id="sentence-tokens")
            table = gr.Dataframe(
                value={"data": [["", 0.0]], "headers": ["", "d1"]},
                interactive=True,
                type="array",
                label="embeddings (one row per vocabulary entry; edit any cell)",
                static_columns=[0],
                max_height=300,
                wrap=False,
                elem_id="sentence-emb",
            )
        out = gr.HTML(elem_id="sentence-out")
        # the seed the table's drawn rows came from (the seed box's value when they were drawn): on the page, beside the
        # table, so that a call carries the two as one answer left them. Held on the server (a gr.State), it was read
        # as the call began, against a table read as the call left: the seed's Enter and the blur after it, both sent
        # before either was answered, drew seed 70's rows and then took them all, as seed 69's table the blur carried,
        # for the learner's edits (the table went back to seed 69's rows under a box reading 70; a review, stop 53)
        drawn = gr.Number(69, visible=False, precision=0)
        stamp = gr.Number(None, visible=False)  # each call's number (ui/wiring.py Newest)
        said = gr.State(SENTENCE)  # the sentence the views show
        # d_out's value in force; inside the tab: a component beside the tabs counts among them, so the tabs after
        # this one registered in the next one's place (clicking "Real model" showed it twice, and Train not at all)
        d_out_kept = gr.State(D_OUT)
    ins, outs = [text, d, seed, table, d_out, drawn, said], [table, tokens, out, msg, drawn, seed, said, text, d]
    # one stamp numbers every call of the tab's: each reads every control, so the newest answer is the one to draw (a
    # blur's and a slider's release, a click apart, were taken in either order: the table 3 wide under d = 8)
    counted = {"stamp": stamp, "newest": "sentence", **COMMON}
    for trigger, action in (
        (tab.select, "text"),
        (text.submit, "text"),  # on Enter or leaving the box: per keystroke, half-typed words raced the sentence
        (text.blur, "text"),
        (seed.submit, "text"),  # the seed applies on Enter or leaving the box: the drawn rows are drawn again from it
        (seed.blur, "text"),
        (table.input, "edit"),
        (draw.click, "draw"),
        (printed.click, "printed"),
    ):
        on(trigger, bind(sentence, action), ins, outs, by_value=sentence_key(action), **counted)
    # d applies on its release, as a typed box of the workbench on Enter or on leaving it, never per keystroke (typing
    # 12 drew the table at d = 1 first): the range's pointer up, and (static/sliders.js) the box's Enter and blur and
    # the range's arrow keys once let go. Unprocessed, so gradio's own range check (a red "Value 17 is greater than
    # maximum value 16", and no answer) is not in the way of clamped()
    on(d.release, bind(sentence, "width"), ins, outs, preprocess=False, by_value=sentence_key("width"), **counted)
    for trigger in (d_out.input, d_out.release):  # unprocessed: gradio's range check names no field
        trigger(on_d_out, [d_out, d_out_kept, said, drawn, table], [d_out, d_out_kept, msg], preprocess=False,
                **COMMON)  # fmt: skip
    on(go.click, bind(on_sentence_go, page, tabs, msg), ins, [tabs, msg, *page.everything()], writes=True, **COMMON)


D_OUT = 2  # d_out's slider as the page opens (the book's)


def on_d_out(d_out: Any, kept: Any, shown: Any = SENTENCE, drawn: Any = None, tbl: Any = None) -> tuple[Any, Any, Any]:
    """d_out's slider moved, or its box Entered or left: (the box, d_out in force, the message). Past an end it is
    set to that end and the message says so (20 showed 20 over a slider at 16, and the button then built W_q 3×16
    with no word); an emptied box keeps the d_out in force. The message keeps what the views say of the sentence
    ``shown`` with the rows ``tbl`` on screen (``drawn``: their seed): moving d_out erased the divide-by-sum warning
    of the default sentence."""
    kept = kept if isinstance(kept, int) else D_OUT
    value, said = slider_value(d_out, "d_out", 1, MAX_WIDTH, kept)
    if value == kept and said is None:
        return gr.skip(), gr.skip(), gr.skip()
    message = vw.message_html([said] if said else []) + views_warning(shown, drawn, tbl)
    return value if value != d_out else gr.skip(), value, message


def views_warning(shown: Any, drawn: Any, tbl: Any) -> str:
    """What the views' own answer says (the divide-by-sum warning) of the sentence ``shown`` with the rows ``tbl`` on
    screen, drawn from seed ``drawn``; "" when there are no rows or they are not valid (the views' own answer names
    that)."""
    width = width_in_force(tbl)
    if width is None:
        return ""
    got = sentence_views("edit", shown, width, seed_of(drawn), tbl, seed_of(drawn))
    return "" if isinstance(got["seed"], type(gr.skip())) else str(got["message"])


def clamped(d: Any) -> Any:
    """The width a typed d stands for: gradio's slider box clamped a number past its ends when it lost the focus,
    with no event, so 17 (refused) then showed 16 over the rows of d = 1, drawn for the first key typed (sliders.js
    now keeps gradio's clamp away). A number is clamped here, and the box is sent the result; anything else is left
    for the check to name."""
    if isinstance(d, (int, float)) and not isinstance(d, bool) and float(d).is_integer():
        return min(max(int(d), 1), MAX_WIDTH)
    return d


def table_rows(tbl: Any) -> list[Any]:
    """The rows of the embeddings table as a call gives it (a Dataframe's dict, a list, or pandas, as some clients
    send it); [] for anything else."""
    data = tbl.get("data") if isinstance(tbl, dict) else tbl
    data = data.values.tolist() if hasattr(data, "columns") else data
    return data if isinstance(data, list) else []


def width_in_force(tbl: Any) -> int | None:
    """The embedding width d of the table on screen (its rows' numbers; None for no rows)."""
    rows = table_rows(tbl)
    first = rows[0] if rows else None
    return len(first) - 1 if isinstance(first, (list, tuple)) and len(first) > 1 else None


def sentence(
    action: str, text: Any, d: Any, seed: Any, tbl: Any, _d_out: Any, drawn: Any, said: Any = SENTENCE
) -> list[Any]:
    """One sentence-mode event: the views, the seed the rows now come from, the seed box, the sentence the views
    show, the sentence box and d's box. ``action`` "width" is d's release: the width the table has already (the
    box's blur after its Enter) changes nothing. A refused seed, sentence or d goes back to the one in force (an
    emptied sentence stayed empty over the previous sentence's views, an emptied d showed 1), so none is shown as
    if applied."""
    width, in_force = clamped(d), width_in_force(tbl)
    if in_force and (d is None or (isinstance(d, str) and not d.strip())):
        width = in_force  # an emptied box keeps the width in force, and says so (it said 'None is not a whole number')
    if action == "width" and width == in_force:
        if width == d:
            return [gr.skip()] * 9
        # set to the width in force (0 or -4 set to 1 at d = 1, an emptied box): nothing to draw, but the message
        # says what this value did (it went on quoting the one before: "-4 is past the slider's end")
        note = slider_value(d, "embedding width d", 1, MAX_WIDTH, width)[1]
        # (the views' own words of the sentence they show, ``said``: the boxes may hold what is not applied yet)
        message = vw.message_html([str(note)]) + views_warning(said, drawn, tbl)
        return [gr.skip()] * 3 + [message] + [gr.skip()] * 4 + [width]
    got = sentence_views("text" if action == "width" else action, text, width, seed, tbl, seed_of(drawn))
    ok = not isinstance(got["seed"], type(gr.skip()))
    if action == "edit" and ok and rows_key(got["table"]) == rows_key(tbl):
        got["table"] = gr.skip()  # the table as the learner left it: written back, it wiped an edit made meanwhile
    if ok and width != d:  # set to the slider's end: said (it was silent)
        note = slider_value(d, "embedding width d", 1, MAX_WIDTH, width)[1]
        got["message"] = vw.message_html([str(note)]) + got["message"]
    said_ = html.unescape(str(got["message"]))
    back = {f: not ok and f"{f}:" in said_ for f in ("seed", "sentence", "embedding width d")}
    d_back = in_force if back["embedding width d"] and in_force else gr.skip()
    return [got["table"], got["tokens"], got["simplified"], got["message"], got["seed"],
            drawn if back["seed"] else gr.skip(), text if ok else gr.skip(),
            said if back["sentence"] else gr.skip(), width if ok and width != d else d_back]  # fmt: skip


def number_key(v: Any) -> Any:
    """A value as a call asks it: a number as a float (gradio's processed 70.0 and an unprocessed 70 are one)."""
    try:
        return float(v) if not isinstance(v, bool) else repr(v)
    except (TypeError, ValueError):
        return repr(v)


def rows_key(tbl: Any) -> tuple[tuple[Any, ...], ...]:
    """A table's rows as a call asks them: every cell by :func:`number_key` (a Dataframe as dict, list or pandas)."""
    return tuple(
        tuple(number_key(c) for c in r) if isinstance(r, (list, tuple)) else (repr(r),) for r in table_rows(tbl)
    )


def sentence_key(action: str) -> Callable[[list[Any]], str]:
    """What a call of ``action`` asks, for on(by_value=): two calls asking the same are one, however gradio gave
    their values (d's release is unprocessed), so neither outdates the other. d's release at the width in force asks
    what the sentence's blur before it asks (it left the tab's newest answer to a blur it had outdated: the sentence
    typed stayed in its box over the views of the one before); a Draw asks something else than a blur with the same
    values. d_out (no view) and the sentence the views show (read on the server) are left out."""
    tag = "text" if action == "width" else action

    def key(values: list[Any]) -> str:
        text, d, seed, tbl, _d_out, drawn, _said = values
        return repr((tag, text, number_key(clamped(d)), number_key(seed), rows_key(tbl), seed_of(drawn)))

    return key


def seed_of(drawn: Any) -> int | None:
    """The seed the table's drawn rows came from, as the hidden box holds it (None: not a whole number)."""
    seed = whole(drawn)  # (70.0, as an unprocessed call may give it, is 70)
    return seed if isinstance(seed, int) and not isinstance(seed, bool) else None


def on_sentence_go(
    page: Page, tabs: Any, msg: Any, text: Any, d: Any, seed: Any, tbl: Any, d_out: Any, drawn: Any, _said: Any
) -> dict[Any, Any]:
    try:
        preset_id, new_shape, nv, got = scenario_values(sentence_scenario(text, d, d_out, seed, tbl, seed_of(drawn)))
    except ac.ScenarioError as e:
        return {msg: vw.message_html([], error=str(e))}
    return {tabs: gr.Tabs(selected="bench"), **page.answer(preset_id, new_shape, nv, got)}
