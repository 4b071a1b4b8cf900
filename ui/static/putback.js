// A refused value typed into a workbench box (ui/workbench.py put_back): the message line says why and carries a
// mark, {box (its elem_id), refused, keeps, n}: the box is set back to the value in force, but only while it still
// reads the value refused. The answer setting the box itself set it back over a value typed since (temperature -1 Enter, then 4
// Enter, both on their way: -1's answer, drawn first, showed 1 while 4 was computed; or gradio sent the 4 it held
// back, always_last, with the box's 1).

// whether the box's text ``text`` still reads the value ``refused`` as its call carried it (a number box's as a
// number, or null when it was empty; a text box's as text)
function reads(text, refused) {
  if (refused === null) return text.trim() === '';
  if (typeof refused === 'number') return text.trim() !== '' && Number(text) === refused;
  return text === String(refused);
}

// the text field of the box whose block has the elem_id ``id`` (a number's input, a text box's textarea)
const boxOf = (id) => document.querySelector(`#${CSS.escape(id)} input, #${CSS.escape(id)} textarea`);

// the marks in a message's HTML ``html``, each box still reading its refused value set back, as typing does
export function putBack(html) {
  if (typeof html !== 'string' || !html.includes('data-put-back')) return;
  const marks = new DOMParser().parseFromString(html, 'text/html').querySelectorAll('[data-put-back]');
  marks.forEach((mark) => {
    const { box: id, refused, keeps } = JSON.parse(mark.dataset.putBack);
    const box = boxOf(id);
    if (!box) return;
    if (reads(box.value, refused)) box.value = String(keeps);
    else if (refused !== null || !reads(box.value, keeps)) return;  // a value typed since: it stays
    // (an emptied box drawer.js has shown again, as the page does on Enter or leaving it: gradio told it too, else
    // it still held the box empty)
    box.dispatchEvent(new Event('input', { bubbles: true }));
  });
}
