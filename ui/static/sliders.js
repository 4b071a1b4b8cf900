// The sliders whose value applies on their release, never per key (issue 37: typing 1000 into the scaling lab's d_k
// sent 1, then 10, 100, a red range toast for the 1, and typing 12 into sentence mode's d drew the table at d = 1
// first). One mechanism, by the slider's elem classes (ui/labs.py, ui/sentence.py); the server answers release:
// - typed-slider (the scaling lab's d_k, sentence mode's d and d_out): its number box applies on Enter or on leaving
//   it, as the typed boxes do (ui/workbench.py TYPED). Its keys' input events stop at the slider (the box still
//   takes them: gradio's binding listens on the box itself, its event on the page's root). Enter and leaving the
//   box send the slider's release through the pointer up gradio listens for, which reads the box's value a tick
//   later. Gradio's own blur handler never runs: it released and then clamped the box to the slider's ends at
//   once, so the release read either the typed value or the clamped one, whichever came first (an emptied d was
//   named and set back, or read as 1 or as the value in force: test_journey_truth's emptied d failed 1 run in 4).
//   The server clamps a number past an end itself, and says so (ui/labs.py, ui/sentence.py).
// - on-release (sentence mode's d, which answers only its release): the range's keys, once let go, release it too
//   (gradio releases on the range's pointer up).
// Mounted by the top bar's hook (always on the page: the labs' blocks are drawn when first shown).

const SLIDER_BOX = '.typed-slider input[type=number]';
const RELEASED_RANGE = '.on-release input[type=range]';
const RANGE_KEYS = new Set(['ArrowLeft', 'ArrowRight', 'ArrowUp', 'ArrowDown', 'PageUp', 'PageDown', 'Home', 'End']);
let started = false;  // (one page, one start: a second hook that imports this finds it running)

const release = (input) => input.dispatchEvent(new PointerEvent('pointerup', { bubbles: true }));

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
    if (e.key === 'Enter' && e.target.matches?.(SLIDER_BOX)) release(e.target);
  });
  document.addEventListener('blur', (e) => {  // (capture: a blur stopped here never reaches the box's own handler)
    if (!e.target.matches?.(SLIDER_BOX)) return;
    e.stopPropagation();
    release(e.target);
  }, true);
  document.addEventListener('keyup', (e) => {
    if (RANGE_KEYS.has(e.key) && e.target.matches?.(RELEASED_RANGE)) release(e.target);
  });
}
