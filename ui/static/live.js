// Views that live edits update (grid.js -> the server's live_edit -> page.js views -> here).
//
// liveView (the badge, the message): setting gradio's own value re-renders the view as an event's output would,
// and keeps what gradio holds equal to what is shown. ``after`` runs once the new value is drawn.
//
// drawnView (the number tables and heatmaps): the component's html_template is empty (ui/assets.py drawn), so
// gradio keeps the value (props.value) and draws nothing; this draws it. A live edit of a view whose skeleton the
// page shows comes as its cells (ui/render/slots.py), written into the nodes already on the page (morph.js fill); a new
// value (another shape, an event's output) is parsed and walked beside the nodes shown, written in place when the
// shapes agree, else the view is replaced whole (morph.js morph). Gradio's own redraw parses the value and then
// walks every node of old and new in JavaScript, attribute by attribute: ~50 ms of an edit at T=64, d=64, where
// this takes a few. ``after(kept)`` runs once the value is drawn (``kept``: drawn into the same nodes).
//
// Both take the hook's own {element, props, watch} (ui/assets.py hook).
import { fill, morph } from './morph.js';
import { putBack } from './putback.js';
import { drawnKeys, scrubbing, stale, untold, views } from './page.js';

// the elem_id of the component a hook's element belongs to (the key of page.js views)
export const viewId = (element) => element.parentElement && element.parentElement.closest('[id]')?.id;

export function liveView({ element, props }, after) {
  const id = viewId(element);
  if (!id) return;
  views.set(id, (u) => {
    if ('visible' in u) props.visible = u.visible;
    if ('value' in u) props.value = u.value;
    if (after) queueMicrotask(after);
  });
}

export function drawnView({ element, props, watch }, after) {
  const id = viewId(element);
  let shown = null;  // what is drawn: the value last drawn whole, or the mark of a live edit's cells (see cellsIn)
  const draw = (v = props.value ?? '', key = null) => {
    if (v === shown) { if (key) keyed(id, key); return; }
    shown = v;
    keyed(id, key);
    const kept = morph(element, v);
    if (after) after(kept);
  };
  draw();  // the value the page was built with
  watch('value', () => {  // an event's output (or gradio told what a live edit drew: the same value)
    if ((props.value ?? '') !== shown) stale();  // a look made before it is of other values
    draw();
  });
  if (!id) return;
  // A live edit's value is drawn at once; gradio is told it (props.value, which it copies and compares: up to 2 ms
  // a view at T=64) once the page is idle, after the frame that shows it, and only if it is still the value drawn
  // (a queued event first tells every view at once: page.js tellAll, through liveIdle)
  // While a scrub lasts (scrub.js: the class ap-scrub) gradio is told nothing: each telling re-renders the component
  // (gradio compiles its template and builds a function for it, every time), a few tenths of a ms a view, taken
  // between the scrub's frames at every answer; the scrub's end tells each view once (ap-scrub-end)
  const tell = () => { untold.delete(tell); if (props.value !== shown) props.value = shown; };
  // A live edit's cells (the view's skeleton unchanged: ui/render/slots.py) are written into the nodes shown; gradio is
  // then told a mark of its own for this view, a value no event gives, so that the next event's output is drawn
  // whatever it is (even the value gradio held before these edits)
  let edits = 0;
  const cellsIn = (u) => {
    if (u.key !== drawnKeys.get(id) || !fill(element, u.cells)) {  // (never sent for another skeleton)
      console.error(`live edit: cells for another view than ${id} shows`);
      keyed(id, null);  // the next edit brings the view's HTML
      return false;
    }
    shown = `<!-- ${id}: drawn from a live edit's cells, ${++edits} -->`;
    if (after) after(true);
    return true;
  };
  views.set(id, (u) => {
    if ('visible' in u) props.visible = u.visible;
    if ('cells' in u) { if (!cellsIn(u)) return; }
    else if ('value' in u) draw(u.value ?? '', u.key ?? null);
    else return;
    if (!untold.has(tell)) { untold.add(tell); if (!scrubbing()) idle(tell); }
  });
}
const idle = (f) => (window.requestIdleCallback || ((g) => setTimeout(g, 50)))(f, { timeout: 500 });
// the views a scrub left untold (drawnView): told once it has ended, when the page is idle
document.addEventListener('ap-scrub-end', () => untold.forEach((f) => idle(f)));

// the skeleton key of what a drawn view shows, when a live edit's answer said it (ui/render/slots.py): sent with the next
// edit (page.js drawnKeys), whose answer then carries only the view's cells
function keyed(id, key) {
  if (!id) return;
  if (key) drawnKeys.set(id, key);
  else drawnKeys.delete(id);
}

// the badge and the message (ui/assets.py PLAIN_JS); a refused typed value's box set back (putback.js)
export function mount(ctx) {
  liveView(ctx);
  ctx.watch('value', () => putBack(ctx.props.value));
}
