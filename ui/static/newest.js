// The views of a handler whose calls the page numbers (ui/wiring.py on(stamp=): the mask lab's tables and message).
// Each answer's HTML starts with the number of the call it answers (<!--call N-->); one that answers an older call
// than the view shows is not drawn. The server drops a call once a newer one has come in (a newer one of any handler
// the stamp numbers: on(newest=)), but two answers can still reach the page out of order: an older call computed
// before the newer one arrived, whose answer (the tables, longer to send) came after the newer one's message (seen
// under load: the message for '1ab' drawn, then wiped by the answer for '1' computed before '1ab' arrived).
// Unnumbered values (the page's first) are always drawn.
import { morph } from './morph.js';

const CALL = /^<!--call (\d+)-->/;

export function mount({ element, props, watch }) {
  let newest = 0;  // the number of the call whose answer is drawn
  const draw = () => {
    const value = props.value ?? '';
    const n = Number(CALL.exec(value)?.[1] ?? 0);
    if (n && n < newest) return;
    newest = Math.max(newest, n);
    morph(element, value);
  };
  draw();
  watch('value', draw);
}
