// The toolbar's "More settings" drawer (js_on_load of a block inside it, ui/workbench.py): the drawer opens over
// the page (app.css), so Escape closes it, as any overlay, while the focus is in it or on nothing in particular.
// (Present mode, the tour and a cell being edited keep their own Escape.)
// A number box of the toolbar or the drawer left empty (a letter typed over its value: the browser's number input
// takes no letters, and gradio keeps the value in force without redrawing the box) shows that value again on
// Enter or when the focus leaves it. (A slider's box and keys: sliders.js.)

let started = false;  // (one page, one start: a second hook that imports this finds it running)

export function mount() {
  if (started) return;
  started = true;
  document.addEventListener('keydown', (e) => {
    if (e.key !== 'Escape' || e.defaultPrevented || document.body.dataset.presentStage) return;
    const more = document.getElementById('more');
    const header = more && more.querySelector(':scope > button.label-wrap.open');
    const at = document.activeElement;
    if (!header || (at && at !== document.body && !more.contains(at))) return;
    if (at && at.closest && at.closest('[role=listbox], [aria-expanded=true]')) return;  // an open dropdown first
    e.preventDefault();
    header.click();
    header.focus();
  });
  const BOX = '#toolbar input[type=number], #more input[type=number]';
  // a number box -> the value in force as far as the page knows: the box's value when the focus came to it, then
  // each value entered in it (Enter), and the value a refusal set it back to (putback.js, an input event of the
  // page's own). Kept from the focus alone, 12 entered and then the box emptied and entered again showed the 1 it
  // read when focused, under views dividing by 12 (a learner's walk)
  const shown = new WeakMap();
  document.addEventListener('focusin', (e) => { if (e.target.matches?.(BOX)) shown.set(e.target, e.target.value); });
  const back = (box) => { if (box.matches?.(BOX) && box.value === '' && shown.get(box)) box.value = shown.get(box); };
  document.addEventListener('focusout', (e) => back(e.target));
  document.addEventListener('keydown', (e) => {
    if (e.key !== 'Enter') return;
    back(e.target);
    if (e.target.matches?.(BOX) && e.target.value !== '') shown.set(e.target, e.target.value);
  });
  document.addEventListener('input', (e) => { if (!e.isTrusted && e.target.matches?.(BOX)) shown.set(e.target, e.target.value); }, true);
}
