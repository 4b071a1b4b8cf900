// Views that live edits update (grid.js -> the server's live_edit -> window.apViews[id] -> here).
//
// liveView (the badge, the message): setting gradio's own value re-renders the view as an event's output would,
// and keeps what gradio holds equal to what is shown. ``after`` runs once the new value is drawn.
//
// drawnView (the number tables and heatmaps): the component's html_template is empty (ui/assets.py drawn), so
// gradio keeps the value (props.value) and draws nothing; this draws it. When the new value has the shape of the
// one shown (an edit: numbers, colours and titles change, nothing else) only what differs is written into the
// nodes already on the page; otherwise the view is replaced whole. Gradio's own redraw parses the value and then
// walks every node of old and new in JavaScript, attribute by attribute: ~50 ms of an edit at T=64, d=64, where
// this takes a few. ``after(kept)`` runs once the value is drawn (``kept``: drawn into the same nodes).
const viewId = () => element.parentElement && element.parentElement.closest('[id]')?.id;
function liveView(after) {
  const id = viewId();
  if (!id) return;
  (window.apViews = window.apViews || {})[id] = (u) => {
    if ('visible' in u) props.visible = u.visible;
    if ('value' in u) props.value = u.value;
    if (after) queueMicrotask(after);
  };
}
function drawnView(after) {
  let shown = null;
  const draw = () => {
    const v = props.value ?? '';
    if (v === shown) return;
    shown = v;
    const kept = window.apMorph(element, v);
    if (after) after(kept);
  };
  draw();  // the value the page was built with
  watch('value', draw);  // an event's output
  const id = viewId();
  if (!id) return;
  (window.apViews = window.apViews || {})[id] = (u) => {
    if ('visible' in u) props.visible = u.visible;
    if ('value' in u) { props.value = u.value; draw(); }
  };
}
// apMorph(host, html): draws ``html`` into ``host``, in place when the shapes agree; true when it did so
window.apMorph = window.apMorph || (() => {
  // attributes the page itself sets on drawn nodes, kept: the Tab stop (a11y.js), a canvas's painted bytes
  // (heat.js), a <details> opened by the learner
  const KEEP = new Set(['tabindex', 'data-painted', 'open']);
  function attrs(x, y) {
    const ya = y.attributes;
    for (let i = 0; i < ya.length; i++) {
      const a = ya[i];
      if (x.getAttribute(a.name) !== a.value) {
        if (x.nodeName === 'CANVAS' && (a.name === 'width' || a.name === 'height')) delete x.dataset.painted;
        x.setAttribute(a.name, a.value);
      }
    }
    const xa = x.attributes;
    if (xa.length === ya.length) return;
    for (let i = xa.length - 1; i >= 0; i--) {
      const n = xa[i].name;
      if (!KEEP.has(n) && !y.hasAttribute(n)) x.removeAttribute(n);
    }
  }
  // a number cell: its class (colour), title (exact value), row and column are compared by name, and every
  // attribute only when it has others (reading every attribute of thousands of cells is what makes gradio's redraw
  // slow)
  const CELL = ['class', 'title', 'data-r', 'data-c'];
  function cell(x, y) {
    let named = 0;
    for (const n of CELL) {
      const v = y.getAttribute(n);
      if (v !== null) named++;
      if (x.getAttribute(n) !== v) { if (v === null) x.removeAttribute(n); else x.setAttribute(n, v); }
    }
    if (named !== y.attributes.length || named !== x.attributes.length - x.hasAttribute('tabindex')) attrs(x, y);
  }
  // one walk over old and new together (elements and texts): each difference is written as it is met, and the
  // first node that differs in kind means another shape (the caller then replaces the whole view)
  function same(host, fresh) {
    const a = document.createTreeWalker(host, 5), b = document.createTreeWalker(fresh, 5);
    let x = a.nextNode(), y = b.nextNode();
    while (x && y) {
      if (x.nodeName !== y.nodeName) return false;
      // (equal child counts at every element too: then the same order of names means the same tree)
      if (x.nodeType === 1 && x.childNodes.length !== y.childNodes.length) return false;
      if (x.nodeType === 3) { if (x.data !== y.data) x.data = y.data; }
      else if (x.nodeName === 'TD') cell(x, y);
      else attrs(x, y);
      x = a.nextNode();
      y = b.nextNode();
    }
    return !x && !y;
  }
  return (host, html) => {
    const tpl = document.createElement('template');
    tpl.innerHTML = html;
    if (host.firstChild && same(host, tpl.content)) return true;
    host.replaceChildren(tpl.content);
    return false;
  };
})();
