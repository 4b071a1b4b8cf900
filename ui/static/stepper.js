// The KV-cache stage's stepper (present.js): token t at a time, the card ui/render/stages.py cache_card draws shows
// the k and v rows the cache holds after step t (data-steps: the positions each step's cache holds), the weights
// token t's query gives them, the full causal attention's row t beneath, and the sentence saying the two are equal.
// t lives here, so it survives every re-render: show() writes it onto the card again after each.
// (A cache row's class and a row's hidden are the page's own: a live edit's redraw may put them back, and
// present.js calls show() after every redraw.)

export function stepper() {
  let t = 0;
  const card = () => document.querySelector('#bench [data-card=kv_step]');
  const held = () => JSON.parse(card()?.dataset.steps || '[]');
  const count = () => held().length;
  const rowOf = (tr) => tr.querySelector('td[data-r]')?.dataset.r;

  function show() {
    const c = card();
    if (!c) return;
    const steps = held();
    t = Math.max(0, Math.min(t, steps.length - 1));
    const cached = new Set(steps[t] || []);
    for (const tr of c.querySelectorAll('table[data-kv] tr')) {
      const r = rowOf(tr);
      if (r === undefined) continue;  // the column headers
      if (tr.closest('table').dataset.kv === 'cache') {  // a row not (or no longer) cached keeps its room, empty:
        tr.classList.toggle('kv-out', !cached.has(+r));  // the cache grows in place, the numbers keep their size
      } else if (tr.hidden !== (+r !== t)) tr.hidden = +r !== t;
    }
    c.querySelectorAll('.kv-say').forEach((p) => { p.hidden = +p.dataset.t !== t; });
    const tokens = JSON.parse(c.dataset.tokens || '[]');
    c.querySelector('.kv-at').textContent = `token t = ${t + 1} of ${steps.length}: ${tokens[t] ?? ''}`;
    c.querySelector('.kv-prev').disabled = t === 0;
    c.querySelector('.kv-next').disabled = t === steps.length - 1;
  }

  return {
    at: () => t,
    count,
    enter(d) { t = d < 0 ? count() - 1 : 0; },  // coming back from the next stage starts at the last token
    set(n) { t = n; },  // token n (0-based; show() keeps it within the steps there are): an address's, a room's
    move(d) {  // one token on (d = ±1); false at either end, where the stage keys move on to the next stage
      if (t + d < 0 || t + d >= count()) return false;
      t += d;
      return true;
    },
    show,
  };
}
