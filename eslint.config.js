// ESLint for the page's JavaScript (ui/static/), run by tests/test_lint.py so the README's one test command lints it.
//
// Each file is an ES module (ui/assets.py serves them; docs/architecture.md has their map): what it uses of another
// it imports, and a component's element, trigger, props, server and watch come to its mount() as parameters
// (ui/assets.py hook), so any other name not declared is an error. The page-wide interface is the module page.js:
// nothing is put on window (or globalThis, self) to be shared, and the rule below says so.
import js from "@eslint/js";
import globals from "globals";

const GLOBAL = "/^(window|globalThis|self)$/";
const NO_NEW_GLOBALS = [
  "error",
  {
    selector: `AssignmentExpression > MemberExpression.left[object.name=${GLOBAL}]`,
    message: "No globals on window: share through page.js (the page-wide interface).",
  },
  {
    selector: `CallExpression[callee.object.name='Object'][callee.property.name=/^(assign|defineProperty|defineProperties)$/] > Identifier.arguments:first-child[name=${GLOBAL}]`,
    message: "No globals on window: share through page.js (the page-wide interface).",
  },
];

export default [
  js.configs.recommended,
  {
    files: ["ui/static/*.js"],
    languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: globals.browser },
    // STYLE.md: no function over 80 lines (the Python's own check is in tests/test_lint.py)
    rules: { "no-restricted-syntax": NO_NEW_GLOBALS, "max-lines-per-function": ["error", { max: 80 }] },
  },
];
