// The workbench around the terminal: the layout (layout.mjs), the file tree (tree_view.mjs)
// with its actions (tree_actions.mjs) and uploads (upload.mjs), the history (history.mjs) and
// the editor (editor.mjs), and the terminal's tabs (terminal_tabs.mjs).
// app.mjs starts it once the disk answers; nothing of the boot waits for it, and its listing
// reads are answered early, before Python has booted (docs/boot.md).

import { Editor } from "./editor.mjs";
import { startHistory } from "./history.mjs";
import { isNarrow, showView, startLayout } from "./layout.mjs";
import { TreeActions } from "./tree_actions.mjs";
import { TreeView } from "./tree_view.mjs";
import { TerminalTabs } from "./terminal_tabs.mjs";
import { startUpload } from "./upload.mjs";
import { startUsageAlert } from "./usage_panel.mjs";

const $ = (id) => document.getElementById(id);

// `session`: the disk's terminal (the first tab); `describe(error)` words an error for the
// user. Resolves once the tree shows the disk's root and listens for changes.
export async function startWorkbench(vfs, { session, describe }) {
  const workbench = $("workbench");
  const terminals = new TerminalTabs($("terminal"), session, vfs, { describe });
  const fit = () => terminals.fit();
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
  });
  actions = new TreeActions(tree, vfs, { status, describe, onRenamed: (from, to) => editor.renamed(from, to) });
  startUpload(tree, vfs, { status: (...args) => actions.status(...args), describe });
  const history = startHistory(vfs, { describe });
  startUsageAlert(workbench.querySelector(".topbar"), vfs, {
    onOpen: () => {
      if (isNarrow()) showView(workbench, "files");
      history.show();
      $("usage-body").scrollIntoView();
    },
  });
  terminals.attachTree(tree);

  async function openFile(path) {
    try {
      await editor.open(path);
      if (isNarrow()) showView(workbench, "editor");
    } catch (error) {
      actions.status("failed", `Not opened: ${describe(error)}`);
    }
  }

  await tree.start();
  workbench.dataset.tree = "ready";
  return { tree, editor, actions, terminals };
}
