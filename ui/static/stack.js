// The scaling lab's figure on a phone (js_on_load of a small HTML component in the lab's tab): its three panels,
// side by side in the figure the server sends, are stacked one under another when the window is narrow, so each
// keeps the phone's whole width and none is cut. Every new figure (a d_k moved) is stacked again: gradio draws it
// afresh, without the 'stacked' mark this leaves in its layout. Plotly is the page's own (gradio loads it).
(() => {
  const NARROW = 760;
  const fig = () => document.querySelector('#scaling-fig .js-plotly-plot');
  // each panel: its y domain (the plot's height minus margins: panels of 0.279, gaps of 0.081 for the tick
  // labels, the axis title and the next panel's two-line title) and its title's place just above it
  const PANELS = [[0.721, 1], [0.361, 0.64], [0, 0.279]];
  function stack() {
    const gd = fig();
    if (!gd || !gd.layout || !window.Plotly || innerWidth > NARROW || gd.layout.meta === 'stacked') return;
    // (the legend's eight entries take a line each on a phone: the bottom margin holds them under the last axis)
    const set = { meta: 'stacked', height: 1400, 'margin.t': 60, 'margin.b': 230 };
    ['', '2', '3'].forEach((n, i) => {
      set[`xaxis${n}.domain`] = [0, 1];
      set[`yaxis${n}.domain`] = PANELS[i];
      set[`annotations[${i}].x`] = 0.5;
      set[`annotations[${i}].y`] = PANELS[i][1];
    });
    window.Plotly.relayout(gd, set);
  }
  let queued = false;
  const later = () => {
    if (queued) return;
    queued = true;
    requestAnimationFrame(() => { queued = false; stack(); });
  };
  const box = document.getElementById('scaling-fig');
  if (box) new MutationObserver(later).observe(box, { childList: true, subtree: true });
  addEventListener('resize', later);
})();
