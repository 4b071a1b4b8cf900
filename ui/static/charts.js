// The scaling lab's figure follows the page (js_on_load of a small HTML component in the lab's tab): its text takes
// the teacher's text size (A− / A+, --ts: 13 px × the size, its margins and height with it), and on a phone its
// three panels, side by side in the figure the server sends, are stacked one under another, each the phone's whole
// width, so none is cut. Every new figure (a d_k moved) is laid out again: gradio draws it afresh, without the mark
// this leaves in its layout (meta). Plotly is the page's own (gradio loads it).

export function mount() {
  const NARROW = 760;
  const fig = () => document.querySelector('#scaling-fig .js-plotly-plot');
  const ts = () => parseFloat(getComputedStyle(document.documentElement).getPropertyValue('--ts')) || 1;
  // stacked, each panel's y domain (panels of 0.279, gaps of 0.081 for the tick labels, the axis title and the next
  // panel's two-line title) and its title just above it; the legend's eight entries take a line each on a phone,
  // so the bottom margin holds them under the last axis
  const PANELS = [[0.721, 1], [0.361, 0.64], [0, 0.279]];
  function stacked(k) {
    const set = { height: 1400 * k, 'margin.t': 60 * k, 'margin.b': 230 * k, 'margin.l': 50 * k };
    ['', '2', '3'].forEach((n, i) => {
      set[`xaxis${n}.domain`] = [0, 1];
      set[`yaxis${n}.domain`] = PANELS[i];
      set[`annotations[${i}].x`] = 0.5;
      set[`annotations[${i}].y`] = PANELS[i][1];
    });
    return set;
  }
  function layout() {
    const gd = fig();
    if (!gd || !gd.layout || !window.Plotly) return;
    const k = ts(), phone = innerWidth <= NARROW;
    const want = `${phone ? 'stacked' : 'wide'} ${k}`;
    if (gd.layout.meta === want) return;
    const set = phone ? stacked(k) : { height: 480 * k, 'margin.t': 70 * k, 'margin.b': 120 * k, 'margin.l': 50 * k };
    window.Plotly.relayout(gd, { ...set, meta: want, 'font.size': 13 * k });
  }
  let queued = false;
  const later = () => {
    if (queued) return;
    queued = true;
    requestAnimationFrame(() => { queued = false; layout(); });
  };
  const box = document.getElementById('scaling-fig');
  if (box) new MutationObserver(later).observe(box, { childList: true, subtree: true });
  addEventListener('resize', later);
  document.addEventListener('pg-ts', later);
}
