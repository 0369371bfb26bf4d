// What can be done to the file tree's entries (the Files toolbar, F2 and Delete in the tree):
// new file, new folder, rename in place, delete (with Undo: a restore of the path as it was
// before, through the journal), download (a file as it is, a folder as a zip; both streamed),
// preview (an HTML file or a folder, on the preview origin).
//
// Each outcome is shown in #files-status (data-state "done" or "failed", which tests wait for);
// an error the user caused (a bad or taken name) changes nothing.

import { openPreview } from "./preview_tab.mjs";
import { pickSaveFile, saveStream } from "./save_file.mjs";
import { join, parentOf } from "./tree_view.mjs";

export class TreeActions {
  // `status`: the status line; `describe(error)` words an error; `onRenamed(from, to)`: after a
  // rename (the editor follows its tabs).
  constructor(tree, vfs, { status, describe, onRenamed }) {
    Object.assign(this, { tree, vfs, statusLine: status, describe, onRenamed });
    for (const button of document.querySelectorAll("#files-pane [data-action]")) {
      button.addEventListener("click", () => this.run(button.dataset.action));
    }
  }

  // The key handler the tree calls for keys it does not use itself.
  key(event, path) {
    const action = { F2: "rename", Delete: "delete" }[event.key];
    if (!action) return;
    event.preventDefault();
    this.run(action, path);
  }

  async run(action, path = this.tree.focused) {
    const actions = {
      "new-file": () => this.create("file"),
      "new-folder": () => this.create("directory"),
      rename: () => path && this.rename(path),
      delete: () => path && this.remove(path),
      download: () => path && this.download(path),
      preview: () => path && this.preview(path),
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

// Why `name` cannot name an entry (null when it can).
export function badName(name) {
  if (!name) return "a name is needed";
  if (name.includes("/")) return "a name has no “/”";
  if (name === "." || name === "..") return `“${name}” is not a name`;
  return null;
}
