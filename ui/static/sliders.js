// A slider's number box (elem class typed-slider: the scaling lab's d_k, sentence mode's d_out) applies on Enter or
// on leaving it, as the typed boxes do (ui/workbench.py TYPED): gradio's slider sent each key's value (1000 typed
// sent 1, then 10, 100: a red range toast for the 1, every key applied). Its keys' input events stop at the slider
// (the box still takes them: gradio's binding listens on the box itself, its event on the page's root), and Enter
// sends the slider's release, as leaving the box does; the server answers release (ui/labs.py, ui/sentence.py).
// Mounted by the top bar's hook (always on the page: the drawer's and the labs' blocks are drawn when first shown).

const SLIDER_BOX = '.typed-slider input[type=number]';
let started = false;  // (one page, one start: a second hook that imports this finds it running)

export function mount() {
  if (started) return;
  started = true;
  const held = new WeakSet();  // the slider boxes whose keys stop at their slider
  document.addEventListener('input', (e) => {  // (capture: before the event reaches the box's parent)
    const box = e.target;
    if (!box.matches?.(SLIDER_BOX) || held.has(box)) return;
    held.add(box);
    box.parentElement.addEventListener('input', (k) => { if (k.target === box) k.stopPropagation(); });
  }, true);
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && e.target.matches?.(SLIDER_BOX)) {
      e.target.dispatchEvent(new PointerEvent('pointerup', { bubbles: true }));
    }
  });
}
