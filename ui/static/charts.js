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
  // a lesson's lab stage (lesson.js labStage, wide screens): the text at present mode's panel size (21.5 px × the
  // text size, at most 3.2% of the height or 2.6% of the width: 32.25 px with the Projector at 1080p and 720p), the
  // legend on the right (below, its rows took the plots' height at 720p), the figure as tall as the room between its
  // top and the lab's words (when shown: W) and the lesson's bar
  function stage(k) {
    const px = Math.min(21.5 * k, Math.max(innerHeight * 0.032, innerWidth * 0.026));
    const gd = fig(), below = ['scaling-words', 'lesson-bar'].map((id) => document.getElementById(id)?.offsetHeight || 0);
    const room = innerHeight - gd.getBoundingClientRect().top - below[0] - below[1] - 16;
    const few = [2, 32, 512];  // (five d_k labels at 32 px turned on their side at 720p)
    return { px, set: { height: Math.max(240, room), 'margin.t': 2.7 * px, 'margin.b': 3 * px, 'margin.l': 2.4 * px,
      'margin.r': 11 * px, 'legend.orientation': 'v', 'legend.xref': 'paper', 'legend.x': 1.02, 'legend.yref': 'paper',
      'legend.y': 1, 'legend.yanchor': 'top', 'xaxis.tickvals': few, 'xaxis3.tickvals': few,
      'xaxis.tickangle': 0, 'xaxis3.tickangle': 0, 'xaxis2.tickangle': 0, 'yaxis3.tickvals': [0.05, 0.1, 0.2, 0.5, 1],
      'xaxis.domain': [0, 0.26], 'xaxis2.domain': [0.38, 0.62], 'xaxis3.domain': [0.74, 1] } };
  }
  // the legend where the server's figure has it (ui/render/scaling_plot.py), after a lab stage moved it
  const BELOW = { 'legend.orientation': 'h', 'legend.xref': null, 'legend.x': null, 'legend.yref': 'container',
    'legend.y': 0, 'legend.yanchor': 'bottom', 'margin.r': 10, 'xaxis.tickvals': [2, 8, 32, 128, 512],
    'xaxis3.tickvals': [2, 8, 32, 128, 512], 'xaxis.tickangle': null, 'xaxis2.tickangle': null,
    'xaxis3.tickangle': null, 'yaxis3.tickvals': null, 'xaxis.domain': [0, 0.28], 'xaxis2.domain': [0.36, 0.64],
    'xaxis3.domain': [0.72, 1] };
  function layout() {
    const gd = fig();
    if (!gd || !gd.layout || !window.Plotly) return;
    const k = ts(), phone = innerWidth <= NARROW, lab = !phone && document.body.classList.contains('lab-stage');
    const tools = ['lab-tools', 'lab-say'].map((c) => document.body.classList.contains(c)).join();
    const want = `${phone ? 'stacked' : 'wide'} ${k}${lab ? ` stage ${innerHeight} ${tools}` : ''}`;
    if (gd.layout.meta === want) return;
    const { px, set } = lab ? stage(k) : { px: 13 * k, set: { ...BELOW, ...(phone ? stacked(k)
      : { height: 480 * k, 'margin.t': 70 * k, 'margin.b': 120 * k, 'margin.l': 50 * k }) } };
    window.Plotly.relayout(gd, { ...set, meta: want, 'font.size': px });
  }
  let queued = false;
  const later = () => {
    if (queued) return;
    queued = true;
    requestAnimationFrame(() => { queued = false; layout(); });
  };
  const box = document.getElementById('scaling-fig');
  if (box) new MutationObserver(later).observe(box, { childList: true, subtree: true });
  const words = document.getElementById('scaling-words');
  if (words) new MutationObserver(later).observe(words, { childList: true, subtree: true });
  new MutationObserver(later).observe(document.body, { attributes: true, attributeFilter: ['class'] });
  addEventListener('resize', later);
  document.addEventListener('pg-ts', later);
}
