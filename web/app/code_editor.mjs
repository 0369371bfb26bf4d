// CodeMirror 6 for the workbench's editor (editor.mjs), bundled by the build into one module
// (build/page_files.py, BUNDLES) that editor.mjs imports when the first file opens, not at boot.
// One EditorView shows the active tab's EditorState; each tab keeps its own state (its undo
// history too). Colours come from workbench.css's variables, so light and dark follow the system.

import { defaultKeymap, history, historyKeymap, indentWithTab } from "@codemirror/commands";
import { css } from "@codemirror/lang-css";
import { html } from "@codemirror/lang-html";
import { javascript } from "@codemirror/lang-javascript";
import { json } from "@codemirror/lang-json";
import { markdown } from "@codemirror/lang-markdown";
import { python } from "@codemirror/lang-python";
import { bracketMatching, HighlightStyle, indentOnInput, indentUnit, syntaxHighlighting } from "@codemirror/language";
import { highlightSelectionMatches, searchKeymap } from "@codemirror/search";
import { EditorState } from "@codemirror/state";
import {
  drawSelection, EditorView, highlightActiveLine, highlightActiveLineGutter, keymap, lineNumbers,
} from "@codemirror/view";
import { tags } from "@lezer/highlight";

const LANGUAGES = {
  js: () => javascript(), mjs: () => javascript(), cjs: () => javascript(),
  jsx: () => javascript({ jsx: true }), ts: () => javascript({ typescript: true }),
  mts: () => javascript({ typescript: true }), tsx: () => javascript({ jsx: true, typescript: true }),
  py: () => python(), html: () => html(), htm: () => html(), css: () => css(), json: () => json(),
  md: () => markdown(), markdown: () => markdown(),
};

const highlight = HighlightStyle.define([
  { tag: [tags.keyword, tags.controlKeyword, tags.moduleKeyword], color: "var(--code-keyword)" },
  { tag: [tags.string, tags.special(tags.string), tags.regexp], color: "var(--code-string)" },
  { tag: [tags.number, tags.bool, tags.null, tags.atom], color: "var(--code-number)" },
  { tag: [tags.comment, tags.lineComment, tags.blockComment], color: "var(--code-comment)", fontStyle: "italic" },
  { tag: [tags.function(tags.variableName), tags.function(tags.propertyName)], color: "var(--code-function)" },
  { tag: [tags.typeName, tags.className, tags.tagName], color: "var(--code-type)" },
  { tag: [tags.propertyName, tags.attributeName], color: "var(--code-property)" },
  { tag: tags.heading, fontWeight: "bold", color: "var(--code-keyword)" },
  { tag: tags.link, textDecoration: "underline" },
  { tag: tags.invalid, color: "var(--error)" },
]);

const theme = EditorView.theme({
  "&": { color: "var(--fg)", backgroundColor: "var(--panel)", fontSize: "13px" },
  ".cm-content": { fontFamily: 'ui-monospace, "SF Mono", Menlo, Consolas, "DejaVu Sans Mono", monospace' },
  ".cm-gutters": { backgroundColor: "var(--bg)", color: "var(--muted)", borderRight: "1px solid var(--border)" },
  ".cm-activeLine": { backgroundColor: "var(--active-line)" },
  ".cm-activeLineGutter": { backgroundColor: "var(--active-line)" },
  ".cm-cursor": { borderLeftColor: "var(--fg)" },
  "&.cm-focused .cm-selectionBackground, .cm-selectionBackground": { backgroundColor: "var(--selected)" },
});

// An empty view in `parent`; editor.mjs gives it each tab's state.
export function createView(parent) {
  return new EditorView({ parent, state: EditorState.create({ doc: "" }) });
}

// The state of a tab: `text` of the file at `path` (its name picks the language), read-only or
// not; `onChange()` after each edit of the text, `onSave()` on Ctrl-S (Cmd-S).
export function makeState({ text, path, readOnly, onChange, onSave }) {
  const ext = path.includes(".") ? path.split(".").pop().toLowerCase() : "";
  return EditorState.create({
    doc: text,
    extensions: [
      lineNumbers(), highlightActiveLineGutter(), highlightActiveLine(), drawSelection(), history(),
      indentOnInput(), bracketMatching(), highlightSelectionMatches(),
      syntaxHighlighting(highlight), theme,
      keymap.of([
        { key: "Mod-s", run: () => { onSave(); return true; }, preventDefault: true },
        ...defaultKeymap, ...historyKeymap, ...searchKeymap, indentWithTab,
      ]),
      LANGUAGES[ext]?.() ?? [],
      ext === "py" ? indentUnit.of("    ") : [],  // PEP 8's four spaces
      EditorState.readOnly.of(readOnly),
      EditorView.editable.of(!readOnly),
      EditorView.contentAttributes.of({ "aria-label": `Contents of ${path}` }),
      EditorView.updateListener.of((update) => { if (update.docChanged) onChange(); }),
    ],
  });
}

// A state like `state` with its whole text replaced by `text` (a reload from the disk).
export function replaceText(view, text) {
  view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
}
