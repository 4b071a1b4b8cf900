// ESLint for the page's JavaScript (ui/static/), run by tests/test_lint.py so the README's one test command lints it.
//
// Each file is the body of a gradio component hook: gradio runs js_on_load as
// new Function("element", "trigger", "props", "server", "upload", "watch", body), so those six names are the
// hook's parameters, not globals of the page. Some bodies are pasted together before gradio sees them; what one
// file uses of another it is pasted with is declared below, name by name, for that file only:
//   grid.js + scrub.js is one body (ui/assets.py GRID_JS);
//   live.js goes first in the bodies of watch.js, heat.js and explain.js (WATCH_JS, HEAT_JS, EXPLAIN_JS);
//   present.js + tour.js + a11y.js is one body (ui/present.py JS), sharing nothing but the hook's parameters.
//   room.js is a body of its own (ui/room.py ROOM_JS), self-contained: it needs the hook's parameters only.
// The names a file defines for the file it is pasted with are marked `/* exported … */` in that file.
import js from "@eslint/js";
import globals from "globals";

const HOOK = Object.fromEntries(["element", "trigger", "props", "server", "upload", "watch"].map((n) => [n, "readonly"]));
const ro = (...names) => Object.fromEntries(names.map((n) => [n, "readonly"]));

export default [
  js.configs.recommended,
  {
    files: ["ui/static/*.js"],
    languageOptions: { ecmaVersion: 2022, sourceType: "script", globals: { ...globals.browser, ...HOOK } },
  },
  {
    files: ["ui/static/grid.js"],  // from scrub.js
    languageOptions: {
      globals: { ...ro("dragged", "nudge", "openSheet", "scrubbable", "touched"), newest: "writable" },
    },
  },
  {
    files: ["ui/static/scrub.js"],  // from grid.js
    languageOptions: {
      globals: ro("send", "at", "chain", "focusCell", "cellOf", "cellName", "startEdit", "isNumber"),
    },
  },
  {
    files: ["ui/static/watch.js", "ui/static/heat.js", "ui/static/explain.js"],  // from live.js
    languageOptions: { globals: ro("viewId", "liveView", "drawnView") },
  },
];
