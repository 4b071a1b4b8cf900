"""The number views are drawn by the page itself (static/live.js drawnView): an edit writes only what changed
into the nodes already there, a new preset replaces them. Either way the learner must see exactly what the server
renders for the values on screen, and a number they were looking at (or had focused) must stay where it was.

Checked in Chromium against ``ui.pipeline.compute_views`` run in this process for the same values.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from browser import module, open_page
from playwright.sync_api import Browser, Page
from playwright.sync_api import Error as PlaywrightError
from slot_reader import as_data, read, skeleton
from test_browser import choose_preset, edit_cell

import attention_core as ac
from ui import live, pipeline, values
from ui.edits import edit_result

DRAWN = ["overview", *(f"html_{s}" for s in live.vw.STEPS), "fig"]  # the workbench's drawn views, by view key

# The page's DOM of a view against a fresh parse of the server's HTML for it, after taking away what the page
# itself adds to drawn nodes (a Tab stop, a painted canvas's mark, an edit's flash): equal node for node.
SAME_AS = """([id, html]) => {
  const host = document.querySelector(`#${id} .html-container > div`);
  const tpl = document.createElement('template');
  tpl.innerHTML = html;
  const clean = (root) => {
    const c = root.cloneNode(true);
    c.querySelectorAll('*').forEach((e) => {
      e.removeAttribute('tabindex');
      e.removeAttribute('data-painted');
      e.classList.remove('chg', 'chg2');
      if (e.getAttribute('class') === '') e.removeAttribute('class');
    });
    const box = document.createElement('div');
    box.append(...c.childNodes);
    return box;
  };
  const a = clean(host), b = clean(tpl.content);
  if (a.isEqualNode(b)) return '';
  const x = a.innerHTML, y = b.innerHTML;
  let i = 0;
  while (i < x.length && x[i] === y[i]) i++;
  return `differs at ${i}: page '${x.slice(i, i + 80)}' vs server '${y.slice(i, i + 80)}'`;
}"""


@pytest.fixture
def page(browser: Browser, app_url: str) -> Iterator[Page]:
    pg = open_page(browser, app_url, timeout=20_000)
    pg.wait_for_function("() => document.querySelector('#weights-fig canvas[data-painted]')")
    yield pg
    pg.close()


def expected(preset: str, edits: list[tuple[int, int, str]]) -> dict[str, Any]:
    """The server's views for ``preset`` after these X edits (row, column, text), computed here."""
    _, vals, got = pipeline.load_values(preset)
    for r, c, v in edits:
        vals, got, _ = edit_result("cell", preset, vals, {"table": "x", "row": r, "col": c, "value": v})
        assert vals is not None, got
    return got


def first_output_title(got: dict[str, Any]) -> str:
    """The exact value (title) of the output's first cell in the overview the server rendered."""
    return got["overview"].split("data-name='output'")[1].split("title='")[1].split("'")[0]


def assert_shows(pg: Page, got: dict[str, Any]) -> None:
    """Every drawn view comes to equal the server's (a preset's answers arrive as more than one event: each view is
    given until the timeout to settle, and one that settles on anything else fails with the first difference)."""
    for key in DRAWN:
        view = got[key]
        html = view["value"] if isinstance(view, dict) else view
        arg = [live.VIEW_IDS[key], html]
        try:
            pg.wait_for_function(f"(a) => ({SAME_AS})(a) === ''", arg=arg, timeout=10_000)
        except PlaywrightError:
            pass
        assert pg.evaluate(SAME_AS, arg) == "", key


MARK = """() => { const t = document.querySelector('#overview table[data-name=output] td[data-r="0"][data-c="0"]');
  const n = document.querySelector('#html-weights table.nt td[data-r="1"][data-c="1"]');
  t.__kept = n.__kept = true; return [t.textContent, n.textContent]; }"""
KEPT = """() => [document.querySelector('#overview table[data-name=output] td[data-r="0"][data-c="0"]').__kept,
  document.querySelector('#html-weights table.nt td[data-r="1"][data-c="1"]').__kept]"""


PAINTED = """() => [...document.querySelectorAll('#weights-fig canvas[data-z]')]
  .every((c) => c.dataset.painted === `${c.dataset.kind}|${c.dataset.z}`)"""


def test_edits_change_the_numbers_in_place_and_the_page_shows_exactly_the_servers_views(page: Page) -> None:
    """Two typed edits of X: every drawn view then equals the server's rendering of those values, the numbers
    changed in the very cells that showed the old ones, and the heatmaps show the new bytes. Then a keyboard learner
    asks for an output number's explanation (Enter on it): that event redraws the views with the number outlined,
    and the number keeps the keyboard focus."""
    out_td = "#overview table[data-name=output] td[data-r='0'][data-c='0']"
    before = page.evaluate(MARK)
    edits = [(0, 0, "1.5"), (1, 1, "-0.75")]
    for r, c, v in edits:
        edit_cell(page, "x", r, c + 1, v)
    want = expected(values.DEFAULT_PRESET, edits)
    page.wait_for_function(
        "([s, t]) => document.querySelector(s).title === t",
        arg=[out_td, first_output_title(want)],
    )
    assert_shows(page, want)
    assert page.evaluate(KEPT) == [True, True]  # drawn into the same nodes
    assert page.locator(out_td).text_content() != before[0]
    assert page.evaluate(PAINTED)
    page.locator(out_td).focus()
    page.keyboard.press("Enter")
    page.wait_for_function("(s) => document.querySelector(s).classList.contains('pick')", arg=out_td)
    assert page.evaluate("(s) => document.activeElement === document.querySelector(s)", out_td)
    assert page.evaluate("(s) => document.querySelector(s).__kept === true", out_td)


def test_a_new_preset_replaces_the_views_and_they_equal_the_servers(page: Page) -> None:
    """A preset of another shape (an event's output, not a live edit): the views are drawn anew and equal the
    server's views for that preset; an edit after it is drawn in place again."""
    other = ac.get_preset("encdec-mha2")  # 2 heads, cross attention: other tables, other sizes
    choose_preset(page, other.title)
    _, _, got = pipeline.load_values(other.id)
    page.wait_for_function(
        "(n) => document.querySelectorAll('#overview table[data-name=output] td[data-r]').length === n",
        arg=got["overview"].split("data-name='output'")[1].split("</table>")[0].count("data-r="),
    )
    assert_shows(page, got)
    cell = "#overview table[data-name=output] td[data-r='0'][data-c='0']"
    page.evaluate("(s) => { document.querySelector(s).__kept = true; }", cell)
    old = page.locator(cell).text_content()
    edit_cell(page, "x", 0, 1, "2.5")  # (x_q: its grid keeps the name x)
    page.wait_for_function("([s, o]) => document.querySelector(s).textContent !== o", arg=[cell, old])
    assert page.evaluate("(s) => document.querySelector(s).__kept === true", cell)
    assert page.evaluate(PAINTED)


# morph.js on a detached host: drawn whole from ``old``, a hover's title put on the last canvas, if any, then drawn
# again with ``now``: by its cells (fill, the data of ``now``'s slots) when it has old's skeleton, else by its HTML
# (morph). Returns [drawn into the same nodes, the cell with ``data-r='9'`` (unchanged in every case) never written
# (no mutation of it), the host equal to a fresh parse of ``now`` (the hover's title gone with the old values)]
MORPH = """async ([old, now, cells]) => {
  const { morph, fill } = await MORPH_MODULE;
  const host = document.createElement('div');
  document.body.append(host);
  morph(host, old);
  const still = host.querySelector("td[data-r='9']");
  [...host.querySelectorAll('canvas')].pop()?.setAttribute('title', 'a hover on the old values');  // (heat.js)
  const seen = new MutationObserver(() => {});
  seen.observe(still, { attributes: true, childList: true, characterData: true, subtree: true });
  const kept = cells ? fill(host, cells) : morph(host, now);
  const untouched = still.isConnected && seen.takeRecords().length === 0;
  seen.disconnect();
  const tpl = document.createElement('template');
  tpl.innerHTML = now;
  const box = document.createElement('div');
  box.append(tpl.content);
  const equal = host.isEqualNode(box) || `page ${host.innerHTML} vs ${box.innerHTML}`;
  host.remove();
  return [kept, untouched, equal];
}""".replace("MORPH_MODULE", module("morph.js"))
STILL = "<td class='s1' data-r='9' data-c='0' title='7'>7</td>"
NT = "<table class='nt'>"  # an exact-number table (tables.html_table's class): its cells with data-r are slots


def cell(r: int, c: int, title: str, text: str, cls: str = "s2") -> str:
    return f"<td class='{cls}' data-r='{r}' data-c='{c}' title='{title}'>{text}</td>"


@pytest.mark.parametrize(
    ("old", "now", "data_path"),
    [
        (  # cells and a print change: escaped texts and titles, an entity the server's escape never writes
            f"<pre class='tensor'>tensor([1.])</pre><table class='nt'><tr><th>t1</th>{cell(0, 0, '1', '1', 's1')}"
            f"{cell(0, 1, 'x', '2')}{STILL}<td>a</td></tr></table>",
            f"<pre class='tensor'>tensor([&lt;&amp;&gt;])</pre><table class='nt'><tr><th>t1</th>"
            f"{cell(0, 0, '&#x27;q&#x27;', '&lt;3&gt;', 's3 pick')}{cell(0, 1, 'y', '&nbsp;2')}{STILL}"
            "<td>a</td></tr></table>",
            True,
        ),
        (  # a cell holding a tag: its HTML, walked beside the nodes shown
            f"<table class='nt'><tr><td><b>1</b></td>{STILL}</tr></table>",
            f"<table class='nt'><tr><td><b>2</b></td>{STILL}</tr></table>",
            False,
        ),
        (  # a heading outside every cell and print: another skeleton, its HTML
            f"<h3>scores</h3><table class='nt'><tr>{cell(0, 0, '1', '1')}{STILL}</tr></table>",
            f"<h3>scaled scores</h3><table class='nt'><tr>{cell(0, 0, '2', '2')}{STILL}</tr></table>",
            False,
        ),
        (  # a print among unchanged cells, then a cell and a print that change; a print that starts with a newline
            f"<table class='nt'><tr>{STILL}</tr></table><pre class='tensor'>tensor([1.])</pre>"
            f"<table class='nt'><tr>{cell(0, 0, '1', '1')}</tr></table><pre class='tensor'>tensor([2.])</pre>",
            f"<table class='nt'><tr>{STILL}</tr></table><pre class='tensor'>tensor([1.])</pre>"
            f"<table class='nt'><tr>{cell(0, 0, '3', '3')}</tr></table><pre class='tensor'>\n\ntensor([4.])</pre>",
            True,
        ),
        (  # a heatmap's bytes and scale change (and a cell): its canvas's attributes are written
            "<figure><canvas width='2' height='1' data-kind='prob' data-lo='0' data-hi='1' data-z='AAA=' "
            f"data-meta='{{&quot;rows&quot;: [&quot;t1&quot;]}}'></canvas></figure>"
            f"<table class='nt'><tr>{cell(0, 0, '1', '1')}{STILL}</tr></table>",
            "<figure><canvas width='2' height='1' data-kind='prob' data-lo='-0.5' data-hi='0.5' data-z='AP8=' "
            f"data-meta='{{&quot;rows&quot;: [&quot;t1&quot;]}}'></canvas></figure>"
            f"<table class='nt'><tr>{cell(0, 0, '2', '2')}{STILL}</tr></table>",
            True,
        ),
        (  # a canvas resized: another skeleton
            f"<canvas width='1' data-lo='0' data-hi='1' data-z='A'></canvas>{NT}<tr>{STILL}</tr></table>",
            f"<canvas width='3' data-lo='0' data-hi='1' data-z='ABC'></canvas>{NT}<tr>{STILL}</tr></table>",
            False,
        ),
    ],
    ids=["cells and a print", "a tag in a cell", "a heading", "prints", "a heatmap's canvas", "a canvas resized"],
)
def test_a_redraw_by_cells_or_by_html_equals_a_fresh_parse(page: Page, old: str, now: str, data_path: bool) -> None:
    """An edit of one skeleton is drawn from its cells (ui/render/slots.py: the data the server sends, here read from
    the HTML by tests/slot_reader.py), another by walking its HTML's nodes beside the page's: either way the page then
    holds exactly the new HTML's nodes, in the nodes it had, and a cell that did not change is never written."""
    same = skeleton(old) == skeleton(now)
    assert same is data_path
    kept, untouched, equal = page.evaluate(MORPH, [old, now, as_data(read(now)) if same else None])
    assert equal is True
    assert kept is True
    assert untouched is True


def test_another_shape_is_drawn_anew(page: Page) -> None:
    """A value with more cells than the one shown is not forced into the old nodes: the view is replaced, and
    equals the new HTML."""
    old = f"<table><tr><td>1</td>{STILL}</tr></table>"
    now = f"<table><tr><td>1</td><td>2</td>{STILL}</tr></table>"
    kept, untouched, equal = page.evaluate(MORPH, [old, now, None])
    assert (kept, untouched, equal) == (False, False, True)
