// A view that live edits update (grid.js -> the server's live_edit -> here). Setting gradio's own value re-renders
// the view as an event's output would, and keeps what gradio holds equal to what is shown. ``after`` runs once the
// new value is drawn.
function liveView(after) {
  const id = element.parentElement && element.parentElement.closest('[id]')?.id;
  if (!id) return;
  (window.apViews = window.apViews || {})[id] = (u) => {
    if ('visible' in u) props.visible = u.visible;
    if ('value' in u) props.value = u.value;
    if (after) queueMicrotask(after);
  };
}
