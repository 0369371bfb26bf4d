// The workbench's editor (web/index.html, #editor-pane): files opened from the tree in tabs.
//
// - CodeMirror (code_editor.mjs, its own bundle) is imported when the first file opens.
// - Ctrl-S (or the Save button) writes the tab's text with vfs.writeFile, which resolves once
//   durable; a tab with unsaved changes shows "●" and says so to screen readers.
// - Each open file is watched: a change made elsewhere (the shell, another tab, an agent) is
//   announced in #editor-notice with Reload and Keep mine; nothing is replaced silently.
// - A binary file (a NUL byte or bytes that are not UTF-8) or one over LIMIT bytes opens
//   read-only with a notice (a large one: its first LIMIT bytes).
// - Typing never waits on the disk: the text lives in the tab until it is saved.
// Keys: in the tab list, Left/Right choose a tab, Delete closes it; in the text, Escape then Tab
// leaves the editor (Tab alone indents).

import { openPreview } from "./preview_tab.mjs";

const LIMIT = 5 * 1024 * 1024;
const $ = (id) => document.getElementById(id);
let tabIds = 0;

export class Editor {
  // `onShown(open)`: the pane was shown (a first tab) or hidden (the last closed).
  constructor(vfs, { describe, onShown }) {
    Object.assign(this, { vfs, describe, onShown });
    this.tabs = [];
    this.active = null;
    this.view = null;
    this.cm = null;
    $("editor-save").addEventListener("click", () => this.save());
    $("editor-preview").addEventListener("click", () => this.preview());
    $("editor-close").addEventListener("click", () => this.active && this.close(this.active));
    $("editor-tabs").addEventListener("keydown", (event) => this.tabKey(event));
  }

  async open(path) {
    const known = this.tabs.find((tab) => tab.path === path);
    if (known) {
      this.activate(known);
      this.view.focus();
      return;
    }
    this.cm ??= await import("./code_editor.mjs");
    const { text, readOnly, notice } = await this.read(path);
    const tab = { path, disk: text, dirty: false, readOnly, notice, id: `editor-tab-${++tabIds}` };
    tab.state = this.stateOf(tab, text);
    tab.unwatch = this.vfs.watch(path, (event) => this.changed(tab, event));
    this.tabs.push(tab);
    tab.button = this.tabButton(tab);
    $("editor-tabs").append(tab.button);
    if (!this.view) this.view = this.cm.createView($("editor-host"));
    if (this.tabs.length === 1) this.showPane(true);
    this.activate(tab);
    await tab.unwatch.ready;
    this.view.focus();
  }

  // The text to show and whether it may be edited.
  async read(path) {
    const { size } = await this.vfs.stat(path);
    if (size > LIMIT) {
      const head = await new Response(this.vfs.createReadStream(path, { end: LIMIT - 1 })).arrayBuffer();
      const text = new TextDecoder().decode(head);
      return { text, readOnly: true, notice: `${path} is ${megabytes(size)} MB: its first ${megabytes(LIMIT)} MB are shown, read-only.` };
    }
    const bytes = await this.vfs.readFile(path);
    try {
      if (bytes.subarray(0, 8192).includes(0)) throw new Error("binary");
      return { text: new TextDecoder("utf-8", { fatal: true }).decode(bytes), readOnly: false, notice: null };
    } catch {
      return { text: "", readOnly: true, notice: `${path} is a binary file (${size.toLocaleString()} bytes): it is not shown as text.` };
    }
  }

  stateOf(tab, text) {
    return this.cm.makeState({
      text, path: tab.path, readOnly: tab.readOnly,
      onChange: () => this.setDirty(tab, true),
      onSave: () => this.save(tab),
    });
  }

  tabButton(tab) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "editor-tab";
    button.id = tab.id;
    button.setAttribute("role", "tab");
    button.setAttribute("aria-controls", "editor-host");
    button.addEventListener("click", () => this.activate(tab));
    button.addEventListener("auxclick", (event) => event.button === 1 && this.close(tab));
    this.label(tab, button);
    return button;
  }

  label(tab, button = tab.button) {
    const name = tab.path.split("/").pop();
    button.textContent = tab.dirty ? `${name} \u25cf` : name;
    button.title = tab.path;
    button.setAttribute("aria-label", `${tab.path}${tab.dirty ? ", unsaved" : ""}${tab.readOnly ? ", read-only" : ""}`);
    button.dataset.dirty = String(tab.dirty);
  }

  activate(tab) {
    if (this.active && this.active !== tab) this.active.state = this.view.state;
    this.active = tab;
    this.view.setState(tab.state);
    for (const other of this.tabs) {
      other.button.setAttribute("aria-selected", String(other === tab));
      other.button.dataset.active = String(other === tab);
      other.button.tabIndex = other === tab ? 0 : -1;
    }
    $("editor-host").setAttribute("aria-labelledby", tab.id);
    $("editor-save").disabled = tab.readOnly;
    $("editor-preview").hidden = !/\.html?$/i.test(tab.path);
    this.showNotice(tab);
  }

  setDirty(tab, dirty) {
    if (tab.dirty === dirty) return;
    tab.dirty = dirty;
    this.label(tab);
  }

  textOf(tab) {
    return (tab === this.active ? this.view.state : tab.state).doc.toString();
  }

  async save(tab = this.active) {
    if (!tab || tab.readOnly) return;
    const text = this.textOf(tab);
    const before = tab.disk;
    tab.disk = text;  // before the write: its own watch event then reads what it expects
    try {
      await this.vfs.writeFile(tab.path, text);
    } catch (error) {
      tab.disk = before;
      this.notify(tab, `Not saved: ${this.describe(error)}`);
      return;
    }
    if (this.textOf(tab) === text) this.setDirty(tab, false);
    this.notify(tab, `Saved ${tab.path}`, [], "saved");
  }

  // A watch event on an open file: announced when the disk holds something else than the tab
  // last read or wrote.
  async changed(tab, event) {
    if (!this.tabs.includes(tab)) return;
    let text;
    try {
      text = await this.vfs.readFile(tab.path, "utf8");
    } catch (error) {
      if (error.code !== "ENOENT") {
        this.notify(tab, `${tab.path} changed elsewhere and could not be read: ${this.describe(error)}`, [], "changed");
        return;
      }
      this.notify(tab, `${tab.path} was deleted elsewhere; Save writes it again.`, [], "changed");
      this.setDirty(tab, true);
      return;
    }
    if (text === tab.disk || event.type === "delete") return;
    const reload = () => {
      tab.disk = text;
      if (tab === this.active) this.cm.replaceText(this.view, text);
      else tab.state = this.stateOf(tab, text);
      this.setDirty(tab, false);
      this.notify(tab, `Reloaded ${tab.path}`, [], "reloaded");
    };
    const keep = () => {
      tab.disk = text;
      this.setDirty(tab, true);
      this.notify(tab, `Kept your text; Save replaces the file's.`, [], "kept");
    };
    this.notify(tab, `${tab.path} was changed elsewhere.`, [["Reload", reload], ["Keep mine", keep]], "changed");
  }

  notify(tab, text, buttons = [], state = "info") {
    tab.notice = { text, buttons, state };
    if (tab === this.active) this.showNotice(tab);
  }

  showNotice(tab) {
    const box = $("editor-notice");
    const notice = typeof tab.notice === "string" ? { text: tab.notice, buttons: [] } : tab.notice;
    box.hidden = !notice;
    if (!notice) return box.replaceChildren();
    box.dataset.state = notice.state ?? "info";
    box.replaceChildren(notice.text, ...notice.buttons.map(([label, action]) => {
      const button = document.createElement("button");
      button.type = "button";
      button.textContent = label;
      button.addEventListener("click", () => {
        action();
        this.view.focus();
      });
      return button;
    }));
  }

  close(tab) {
    if (tab.dirty) {
      this.activate(tab);
      this.notify(tab, `${tab.path} has unsaved changes.`, [["Save and close", async () => {
        await this.save(tab);
        if (!tab.dirty) this.close(tab);
      }], ["Close without saving", () => { tab.dirty = false; this.close(tab); }]], "closing");
      return;
    }
    tab.unwatch();
    const at = this.tabs.indexOf(tab);
    this.tabs.splice(at, 1);
    tab.button.remove();
    if (!this.tabs.length) {
      this.active = null;
      this.showPane(false);
      return;
    }
    if (this.active === tab) {
      this.active = null;
      this.activate(this.tabs[Math.min(at, this.tabs.length - 1)]);
    }
  }

  // The tree renamed `from` (a file, or a folder holding open files) to `to`.
  renamed(from, to) {
    for (const tab of this.tabs) {
      if (tab.path !== from && !tab.path.startsWith(`${from}/`)) continue;
      tab.unwatch();
      tab.path = to + tab.path.slice(from.length);
      tab.unwatch = this.vfs.watch(tab.path, (event) => this.changed(tab, event));
      this.label(tab);
    }
  }

  tabKey(event) {
    const at = this.tabs.indexOf(this.active);
    const next = { ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: this.tabs.length - 1 }[event.key];
    if (event.key === "Delete" && this.active) {
      event.preventDefault();
      this.close(this.active);
      this.active?.button.focus();
    } else if (next !== undefined) {
      event.preventDefault();
      const tab = this.tabs[(next + this.tabs.length) % this.tabs.length];
      this.activate(tab);
      tab.button.focus();
    }
  }

  async preview() {
    const url = await this.vfs.previewUrl(this.active.path);
    if (!openPreview(url)) this.notify(this.active, `Popup blocked; visit ${url}`);
  }

  showPane(open) {
    $("editor-pane").hidden = !open;
    $("editor-splitter").hidden = !open;
    this.onShown(open);
  }
}

function megabytes(bytes) {
  return (bytes / 1048576).toFixed(1);
}
