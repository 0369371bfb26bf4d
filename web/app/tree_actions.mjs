// What can be done to the file tree's entries (the Files toolbar, F2 and Delete in the tree):
// new file, new folder, rename in place, delete (with Undo: a restore of the path as it was
// before, through the journal), download (a file as it is, a folder as a zip; both streamed),
// preview (an HTML file or a folder, on the preview origin), reconnect (a mounted folder waiting
// for permission).
//
// Each of them needs Python: until it is up (the tree may show before, docs/workbench.md) the
// toolbar's buttons are disabled, saying why in their title, and a key that asks for one says so
// in the status line (data-state "waiting"); nothing is thrown or queued.
//
// Each outcome is shown in #files-status (data-state "done" or "failed", which tests wait for);
// an error the user caused (a bad or taken name) changes nothing.

import { openPreview } from "./preview_tab.mjs";
import { pickSaveFile, saveStream } from "./save_file.mjs";
import { join, parentOf } from "./tree_view.mjs";

export class TreeActions {
  // `status`: the status line; `describe(error)` words an error; `python`: a promise settled
  // once Python is up; `onRenamed(from, to)`: after a rename (the editor follows its tabs);
  // `onMounts()`: after a reconnect.
  constructor(tree, vfs, { status, describe, python, onRenamed, onMounts }) {
    Object.assign(this, { tree, vfs, statusLine: status, describe, onRenamed, onMounts });
    this.ready = false;
    const buttons = [...document.querySelectorAll("#files-pane [data-action]")];
    for (const button of buttons) {
      button.addEventListener("click", () => this.run(button.dataset.action));
      button.dataset.title = button.title;
      button.disabled = true;
      button.title = `${button.title} (once Python has started)`;
    }
    this.status("waiting", "Python is starting: the files can be browsed, not changed yet.");
    python.then(() => {
      this.ready = true;
      for (const button of buttons) {
        button.disabled = false;
        button.title = button.dataset.title;
      }
      if (this.statusLine.dataset.state === "waiting") this.status("idle", "");
    });
  }

  // The key handler the tree calls for keys it does not use itself.
  key(event, path) {
    const action = { F2: "rename", Delete: "delete" }[event.key];
    if (!action) return;
    event.preventDefault();
    this.run(action, path);
  }

  async run(action, path = this.tree.focused) {
    if (!this.ready) {
      this.status("waiting", `${NAMES[action]} waits for Python to start; try again once it has.`);
      return;
    }
    const actions = {
      "new-file": () => this.create("file"),
      "new-folder": () => this.create("directory"),
      rename: () => path && this.rename(path),
      delete: () => path && this.remove(path),
      download: () => path && this.download(path),
      preview: () => path && this.preview(path),
      reconnect: () => path && this.reconnect(path),
    };
    try {
      await actions[action]();
    } catch (error) {
      this.status("failed", this.describe(error));
    }
  }

  status(state, text, ...extra) {
    this.statusLine.dataset.state = state;
    this.statusLine.replaceChildren(text, ...extra);
  }

  // The folder a new entry goes into: the focused folder, or the focused file's.
  targetDir() {
    const path = this.tree.focused;
    if (!path) return "/";
    return this.tree.nodes.get(path)?.kind === "directory" ? path : parentOf(path);
  }

  async create(kind) {
    const dir = this.targetDir();
    const base = kind === "file" ? ["untitled", ".txt"] : ["folder", ""];
    let path = join(dir, base.join(""));
    for (let n = 2; await this.vfs.exists(path); n++) path = join(dir, `${base[0]} ${n}${base[1]}`);
    if (kind === "file") await this.vfs.writeFile(path, "", { flag: "wx" });
    else await this.vfs.mkdir(path);
    await this.tree.reveal(path);
    this.status("done", `Made ${path}`);
    await this.rename(path);
  }

  // The name is edited in the row itself: Enter or leaving the field renames, Escape cancels.
  async rename(path) {
    await this.tree.reveal(path);
    const row = this.tree.rowOf(path);
    if (!row) return;
    const name = this.tree.nodes.get(path).name;
    const input = document.createElement("input");
    input.value = name;
    input.spellcheck = false;
    input.setAttribute("aria-label", `New name for ${name}`);
    this.tree.editing = path;
    row.querySelector(".name").replaceWith(input);
    input.focus();
    input.setSelectionRange(0, name.lastIndexOf(".") > 0 ? name.lastIndexOf(".") : name.length);
    const chosen = await new Promise((resolve) => {
      input.addEventListener("keydown", (event) => {
        event.stopPropagation();
        if (event.key === "Enter") resolve(input.value);
        if (event.key === "Escape") resolve(null);
      });
      input.addEventListener("blur", () => resolve(input.value), { once: true });
    });
    this.tree.editing = null;
    row.shownKey = null;  // drawn again, without the field
    this.tree.draw();
    if (chosen === null || chosen === name) {
      this.tree.focus(path);
      return;
    }
    const problem = badName(chosen);
    const dest = join(parentOf(path), chosen);
    if (problem || await this.vfs.exists(dest)) {
      this.status("failed", `Not renamed: ${problem ?? `“${chosen}” exists already`}`);
      this.tree.focus(path);
      return;
    }
    await this.vfs.rename(path, dest);
    this.onRenamed?.(path, dest);
    await this.tree.reveal(dest);
    this.status("done", `Renamed ${path} to ${dest}`);
  }

  async remove(path) {
    const [last] = await this.vfs.journal({ limit: 1 });
    await this.vfs.rm(path, { recursive: true });
    await this.tree.load(parentOf(path));
    this.tree.draw();
    this.tree.focus(this.tree.focused);
    if (!last) {
      this.status("done", `Deleted ${path}`);
      return;
    }
    const undo = document.createElement("button");
    undo.type = "button";
    undo.textContent = "Undo";
    undo.addEventListener("click", () => this.undo(path, last.revision));
    this.status("done", `Deleted ${path} `, undo);
  }

  async undo(path, revision) {
    try {
      await this.vfs.restore({ revision }, { path });
      await this.tree.reveal(path);
      this.status("done", `Restored ${path}`);
    } catch (error) {
      this.status("failed", `Not restored: ${this.describe(error)}`);
    }
  }

  async download(path) {
    const folder = this.tree.nodes.get(path)?.kind === "directory";
    const name = `${path.split("/").pop()}${folder ? ".zip" : ""}`;
    const handle = await pickSaveFile(name);
    const stream = folder ? this.vfs.export(path, { format: "zip" }) : this.vfs.createReadStream(path);
    this.status("running", `Downloading ${name}…`);
    await saveStream(handle, stream, name);
    this.status("done", `Downloaded ${path}${folder ? " as a zip" : ""}`);
  }

  // Asks the browser for the folder's permission again (from the click or key that chose it).
  async reconnect(path) {
    this.status("running", `Reconnecting ${path}…`);
    await this.vfs.reconnect(path);
    await this.tree.loadMarks();
    await this.tree.load(path);
    this.tree.draw();
    this.onMounts?.();
    this.status("done", `Reconnected ${path}`);
  }

  async preview(path) {
    const node = this.tree.nodes.get(path);
    if (node?.kind !== "directory" && !/\.html?$/i.test(path)) {
      this.status("failed", "Preview shows an HTML file or a folder");
      return;
    }
    const url = await this.vfs.previewUrl(path);
    if (openPreview(url)) this.status("done", `Preview of ${path} opened`);
    else this.status("failed", `Popup blocked; visit ${url}`);
  }
}

const NAMES = {
  "new-file": "New file", "new-folder": "New folder", rename: "Rename", delete: "Delete",
  download: "Download", preview: "Preview", reconnect: "Reconnecting",
};

// Why `name` cannot name an entry (null when it can).
export function badName(name) {
  if (!name) return "a name is needed";
  if (name.includes("/")) return "a name has no “/”";
  if (name === "." || name === "..") return `“${name}” is not a name`;
  return null;
}
