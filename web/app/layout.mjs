// The workbench's layout (web/index.html, #workbench): the splitters between the file tree, the
// editor and the terminal, and, on a narrow screen, the top bar's choice of the one panel shown.
//
// A splitter is a focusable WAI-ARIA separator: dragged with the pointer, or moved with the
// arrow keys (Shift: in larger steps), Home and End; aria-valuenow is the size in pixels of the
// panel it controls (aria-controls), which it sets as a CSS variable of the workbench.

const STEP = 16;
const BIG_STEP = 64;

// `onResize` is called after every change of a panel's size (the terminal refits).
export function startLayout(workbench, { onResize }) {
  makeSplitter(workbench, document.getElementById("files-splitter"), {
    variable: "--files-width", axis: "x", min: 140, max: () => workbench.clientWidth - 200, onResize,
  });
  makeSplitter(workbench, document.getElementById("editor-splitter"), {
    variable: "--editor-height", axis: "y", min: 80, max: () => workbench.clientHeight - 140, onResize,
  });
  for (const button of workbench.querySelectorAll(".views button")) {
    button.addEventListener("click", () => {
      showView(workbench, button.dataset.view);
      onResize();
    });
  }
  // Captured before the terminal sees them: a terminal keeps Tab for itself.
  window.addEventListener("keydown", (event) => panelKey(workbench, event, onResize), true);
}

// F6 and Shift-F6 move the focus to the next or previous panel (the tree, the editor, the
// terminal), Ctrl-Shift-E to the tree; on a narrow screen the panel is shown first.
const PANELS = [
  { view: "files", pane: "files-pane", target: () => document.querySelector('#tree [tabindex="0"]') ?? document.getElementById("tree") },
  { view: "editor", pane: "editor-pane", target: () => document.querySelector("#editor-host .cm-content") },
  { view: "terminal", pane: "terminal", target: () => document.querySelector("#terminal > :not([hidden]) .xterm-helper-textarea, #terminal > .xterm .xterm-helper-textarea") },
];

function panelKey(workbench, event, onResize) {
  const toTree = event.key.toLowerCase() === "e" && event.ctrlKey && event.shiftKey && !event.altKey;
  if (event.key !== "F6" && !toTree) return;
  const open = PANELS.filter((panel) => !document.getElementById(panel.pane).hidden && panel.target());
  const at = open.findIndex((panel) => document.getElementById(panel.pane).contains(document.activeElement));
  const next = toTree ? PANELS[0] : open[(at + (event.shiftKey ? -1 : 1) + open.length) % open.length];
  event.preventDefault();
  event.stopPropagation();
  showView(workbench, next.view);
  onResize();
  next.target().focus();
}

// Narrow screens show one panel: "files", "editor" or "terminal" (wide ones show all).
export function showView(workbench, view) {
  workbench.dataset.view = view;
  for (const button of workbench.querySelectorAll(".views button")) {
    button.setAttribute("aria-pressed", String(button.dataset.view === view));
  }
}

export function isNarrow() {
  return window.matchMedia("(max-width: 719px)").matches;
}

function makeSplitter(workbench, separator, { variable, axis, min, max, onResize }) {
  const panel = document.getElementById(separator.getAttribute("aria-controls"));
  const size = () => (axis === "x" ? panel.getBoundingClientRect().width : panel.getBoundingClientRect().height);
  const set = (value) => {
    const bounded = Math.round(Math.max(min, Math.min(value, Math.max(min, max()))));
    workbench.style.setProperty(variable, `${bounded}px`);
    describe();
    onResize();
  };
  const describe = () => {
    separator.setAttribute("aria-valuemin", String(min));
    separator.setAttribute("aria-valuemax", String(Math.max(min, Math.round(max()))));
    separator.setAttribute("aria-valuenow", String(Math.round(size())));
  };
  separator.addEventListener("keydown", (event) => {
    const step = event.shiftKey ? BIG_STEP : STEP;
    const grow = axis === "x" ? "ArrowRight" : "ArrowDown";
    const shrink = axis === "x" ? "ArrowLeft" : "ArrowUp";
    const moves = { [grow]: size() + step, [shrink]: size() - step, Home: min, End: max() };
    if (!(event.key in moves)) return;
    event.preventDefault();
    set(moves[event.key]);
  });
  separator.addEventListener("pointerdown", (event) => {
    event.preventDefault();
    separator.setPointerCapture(event.pointerId);
    const start = axis === "x" ? event.clientX : event.clientY;
    const from = size();
    const move = (moved) => set(from + (axis === "x" ? moved.clientX : moved.clientY) - start);
    separator.addEventListener("pointermove", move);
    separator.addEventListener("pointerup", () => separator.removeEventListener("pointermove", move), { once: true });
  });
  new ResizeObserver(describe).observe(panel);
}
