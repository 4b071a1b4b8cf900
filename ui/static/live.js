// Views that live edits update (grid.js -> the server's live_edit -> page.js views -> here).
//
// liveView (the badge, the message): setting gradio's own value re-renders the view as an event's output would,
// and keeps what gradio holds equal to what is shown. ``after`` runs once the new value is drawn.
//
// drawnView (the number tables and heatmaps): the component's html_template is empty (ui/assets.py drawn), so
// gradio keeps the value (props.value) and draws nothing; this draws it. When the new value has the shape of the
// one shown (an edit: numbers, colours and titles change, nothing else) only what differs is written into the
// nodes already on the page (morph.js); otherwise the view is replaced whole. Gradio's own redraw parses the value
// and then walks every node of old and new in JavaScript, attribute by attribute: ~50 ms of an edit at T=64, d=64,
// where this takes a few. ``after(kept)`` runs once the value is drawn (``kept``: drawn into the same nodes).
//
// Both take the hook's own {element, props, watch} (ui/assets.py hook).
import { morph } from './morph.js';
import { stale, untold, views } from './page.js';

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
  let shown = null;
  const draw = (v = props.value ?? '') => {
    if (v === shown) return;
    const was = shown;
    shown = v;
    const kept = morph(element, v, was);
    if (after) after(kept);
  };
  draw();  // the value the page was built with
  watch('value', () => {  // an event's output (or gradio told what a live edit drew: the same value)
    if ((props.value ?? '') !== shown) stale();  // a look made before it is of other values
    draw();
  });
  const id = viewId(element);
  if (!id) return;
  // A live edit's value is drawn at once; gradio is told it (props.value, which it copies and compares: up to 2 ms
  // a view at T=64) once the page is idle, after the frame that shows it, and only if it is still the value drawn
  // (a queued event first tells every view at once: page.js tellAll, through liveIdle)
  const tell = () => { untold.delete(tell); if (props.value !== shown) props.value = shown; };
  const idle = window.requestIdleCallback || ((f) => setTimeout(f, 50));
  views.set(id, (u) => {
    if ('visible' in u) props.visible = u.visible;
    if (!('value' in u)) return;
    draw(u.value ?? '');
    if (!untold.has(tell)) { untold.add(tell); idle(tell, { timeout: 500 }); }
  });
}

// the badge and the message (ui/assets.py PLAIN_JS)
export function mount(ctx) {
  liveView(ctx);
}
