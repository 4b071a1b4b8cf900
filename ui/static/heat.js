// Heatmaps (js_on_load): each canvas holds one byte per cell (0–254 along its colour scale, 255 = masked);
// painted pixel by pixel and scaled up by CSS. Hovering a cell names its row, column and value (or, for a cell an
// open question hides, that it is hidden: hide.js).
import { drawnView } from './live.js';

const STOPS = {
  signed: [[33, 102, 172], [67, 147, 195], [146, 197, 222], [209, 229, 240], [247, 247, 247],
           [253, 219, 199], [244, 165, 130], [214, 96, 77], [178, 24, 43]],
  prob: [[247, 251, 255], [198, 219, 239], [107, 174, 214], [33, 113, 181], [8, 48, 107]],
};
const LUT32 = {};
for (const [kind, stops] of Object.entries(STOPS)) {
  const lut = new Uint8ClampedArray(256 * 4);
  for (let c = 0; c < 255; c++) {
    const x = c / 254 * (stops.length - 1), i = Math.min(Math.floor(x), stops.length - 2), f = x - i;
    for (let k = 0; k < 3; k++) lut[c * 4 + k] = stops[i][k] + (stops[i + 1][k] - stops[i][k]) * f;
    lut[c * 4 + 3] = 255;
  }
  lut.set([200, 200, 200, 255], 255 * 4);  // masked: grey
  LUT32[kind] = new Uint32Array(lut.buffer);
}

// one canvas painted from its bytes, unless it shows them already
export function paintCanvas(cv) {
  const key = `${cv.dataset.kind}|${cv.dataset.z}`;  // what the canvas shows: its scale and its bytes
  if (cv.dataset.painted === key) return;
  const text = atob(cv.dataset.z), lut = LUT32[cv.dataset.kind];
  const img = new ImageData(cv.width, cv.height), px = new Uint32Array(img.data.buffer);
  for (let i = 0; i < text.length; i++) px[i] = lut[text.charCodeAt(i)];  // one RGBA word per cell
  cv.getContext('2d').putImageData(img, 0, 0);
  cv.dataset.painted = key;
}

const hiddenAt = (cv, row, col) => JSON.parse(cv.dataset.hidden || '[]')
  .some(([r, c]) => r === row && (c === null || c === col));

export function mount(ctx) {
  const { element } = ctx;
  const paint = () => element.querySelectorAll('canvas[data-z]').forEach(paintCanvas);
  drawnView(ctx, paint);  // the page's value, an event's output, a live edit's answer (live.js)
  element.addEventListener('mousemove', (e) => {
    const cv = e.target.closest('canvas[data-z]');
    if (!cv) return;
    const r = cv.getBoundingClientRect();
    const col = Math.floor((e.clientX - r.left) / r.width * cv.width);
    const row = Math.floor((e.clientY - r.top) / r.height * cv.height);
    const code = atob(cv.dataset.z).charCodeAt(row * cv.width + col);
    const meta = JSON.parse(cv.dataset.meta);
    const lo = +cv.dataset.lo, hi = +cv.dataset.hi;
    const v = hiddenAt(cv, row, col) ? 'hidden while the question is open'
      : code === 255 ? 'masked (-inf)' : '≈ ' + (lo + code / 254 * (hi - lo)).toFixed(3);
    cv.title = `query ${meta.rows[row] ?? row + 1}, key ${meta.cols ? meta.cols[col] : col + 1}: ${v}`;
  });
}
