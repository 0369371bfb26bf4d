// The workbench around the terminal: the layout (layout.mjs), the file tree (tree_view.mjs)
// with its actions (tree_actions.mjs) and uploads (upload.mjs), the history (history.mjs) and
// the editor (editor.mjs), and the terminal's tabs (terminal_tabs.mjs).
// app.mjs starts it as soon as the disk answers reads, which may be before Python has booted
// (the page's early reads, docs/boot.md): the tree lists and is walked then, and what needs
// Python (changes, uploads, opening a file in the editor) says it waits for it; the terminal's
// tabs come once the disk's shell has started. Nothing of the boot waits for the workbench.

import { Editor } from "./editor.mjs";
import { startHistory } from "./history.mjs";
import { isNarrow, showView, startLayout } from "./layout.mjs";
import { TreeActions } from "./tree_actions.mjs";
import { TreeView } from "./tree_view.mjs";
import { TerminalTabs } from "./terminal_tabs.mjs";
import { startUpload } from "./upload.mjs";
import { startUsageAlert } from "./usage_panel.mjs";

const $ = (id) => document.getElementById(id);

// `terminal`: a promise of the disk's terminal session (the first tab), once it has started;
// `describe(error)` words an error for the user; `python`: a promise settled once Python is up;
// `onMounts()`: after a mounted folder was reconnected (the top bar follows). Sets
// #workbench[data-tree="listed"] once the tree shows the disk's root, and "ready" (and resolves)
// once it also listens for changes. `terminals` (the tabs) is a promise: it waits for the shell.
export async function startWorkbench(vfs, { terminal, describe, python, onMounts }) {
  const workbench = $("workbench");
  workbench.dataset.python = "starting";
  let tabs = null;
  const fit = () => tabs?.fit();
  startLayout(workbench, { onResize: fit });
  new ResizeObserver(fit).observe($("terminal"));
  const editorButton = workbench.querySelector('.views button[data-view="editor"]');
  editorButton.disabled = true;
  const editor = new Editor(vfs, {
    describe,
    onShown: (open) => {
      editorButton.disabled = !open;
      if (!open && workbench.dataset.view === "editor") showView(workbench, "files");
      fit();
    },
  });
  const status = $("files-status");
  let actions = null;
  const tree = new TreeView($("tree"), vfs, {
    onOpen: (path) => openFile(path),
    onKey: (event, path) => actions.key(event, path),
    onError: (error) => actions.status("failed", describe(error)),
    onReconnect: (path) => actions.run("reconnect", path),
  });
  actions = new TreeActions(tree, vfs, { status, describe, python, onMounts, onRenamed: (from, to) => editor.renamed(from, to) });
  const stopWaitingDrops = refuseDrops(tree, actions);
  python.then(() => {
    workbench.dataset.python = "ready";
    stopWaitingDrops();
    startUpload(tree, vfs, { status: (...args) => actions.status(...args), describe });
  });
  const history = startHistory(vfs, { describe });
  startUsageAlert(workbench.querySelector(".topbar"), vfs, {
    onOpen: () => {
      if (isNarrow()) showView(workbench, "files");
      history.show();
      $("usage-body").scrollIntoView();
    },
  });
  const terminals = terminal.then((session) => {
    tabs = new TerminalTabs($("terminal"), session, vfs, { describe });
    tabs.attachTree(tree);
    return tabs;
  });

  async function openFile(path) {
    try {
      if (workbench.dataset.python !== "ready") {
        actions.status("waiting", `${path} opens once Python has started…`);
        await python;
      }
      await editor.open(path);
      if (isNarrow()) showView(workbench, "editor");
    } catch (error) {
      actions.status("failed", `Not opened: ${describe(error)}`);
    }
  }

  await tree.start(() => { workbench.dataset.tree = "listed"; });
  workbench.dataset.tree = "ready";
  return { tree, editor, actions, terminals };
}

// Until Python is up, files dropped on the tree are refused, saying why (and never opened by
// the browser in place of the app). Returns the function that stops refusing them.
function refuseDrops(tree, actions) {
  const over = (event) => {
    if (!event.dataTransfer?.types.includes("Files")) return;
    event.preventDefault();
  };
  const drop = (event) => {
    if (!event.dataTransfer?.types.includes("Files")) return;
    event.preventDefault();
    actions.status("failed", "Not uploaded: Python is still starting; drop the files again once it has.");
  };
  tree.element.addEventListener("dragover", over);
  tree.element.addEventListener("drop", drop);
  return () => {
    tree.element.removeEventListener("dragover", over);
    tree.element.removeEventListener("drop", drop);
  };
}
