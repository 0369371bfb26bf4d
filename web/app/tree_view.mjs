// The file tree (web/index.html, #tree): the disk's folders as a WAI-ARIA tree, listed lazily,
// drawn virtually and kept live.
//
// - Lazy: a folder is listed (vfs.readdir with file types) when it is first opened.
// - Virtual: the open folders flatten into one list of rows; only the rows in view (and the
//   focused one, which keeps the keyboard's place) are in the DOM, each placed at its offset in a
//   space as tall as all of them. The rows carry aria-level, aria-setsize and aria-posinset
//   (ARIA's way for a tree whose groups are not all in the DOM), so there is no role=group.
// - Live: one recursive vfs.watch of "/" lists again each open folder an event touches (the
//   shell, another tab, a scoop, a replica), a few at a time.
// - Keyboard (the WAI-ARIA tree pattern, roving tabindex): Up/Down, Right opens or goes to the
//   first child, Left closes or goes to the parent, Home/End, Enter opens a file or toggles a
//   folder (on a mounted folder waiting for permission: reconnects it); a printable character
//   moves to the next row whose name starts with it, quick ones typed after it forming a prefix
//   (type-ahead); F2 and Delete are the actions' (tree_actions.mjs).
// - Early: it lists as soon as the disk answers reads, which may be before Python has booted
//   (the page's early reads, docs/boot.md); the watch starts then too, and once it listens
//   every listed folder is listed again, so nothing changed meanwhile is missed.
// Names are text (textContent) everywhere: a file name is never markup.

const ROW = 24;          // px, as .tree-row's height in workbench.css
const OVERSCAN = 8;      // rows drawn beyond the visible ones
const SCOOPS = "/scoops";
const TYPE_AHEAD_MS = 1000; // characters typed within this of the last one extend the prefix
const WAITING = "mounted, waiting";

export const parentOf = (path) => path.slice(0, path.lastIndexOf("/")) || "/";
export const join = (dir, name) => (dir === "/" ? `/${name}` : `${dir}/${name}`);

export class TreeView {
  // `onOpen(path)`: a file chosen (Enter or click); `onKey(event, path)`: the other keys, for
  // the actions; `onError(error)`: a listing that failed; `onReconnect(path)`: a mounted folder
  // waiting for permission chosen (Enter or click: the user activation the browser asks for).
  constructor(element, vfs, { onOpen, onKey, onError, onReconnect }) {
    Object.assign(this, { element, vfs, onOpen, onKey, onError, onReconnect });
    this.nodes = new Map([["/", { path: "/", name: "/", kind: "directory", expanded: true, children: null }]]);
    this.rows = [];          // paths, in display order
    this.focused = null;     // the path with tabindex 0
    this.editing = null;     // the path whose row holds the rename input
    this.marks = new Map();  // path -> badge text (mounted folders)
    this.drawn = new Map();  // path -> row element in the DOM
    this.pending = new Set(); // folders to list again (live updates)
    this.typed = { text: "", at: 0 }; // the type-ahead's prefix and when its last key came
    this.space = document.createElement("div");
    this.space.className = "tree-space";
    this.space.setAttribute("role", "none");
    element.replaceChildren(this.space);
    element.addEventListener("scroll", () => this.draw());
    element.addEventListener("keydown", (event) => this.key(event));
    element.addEventListener("click", (event) => this.click(event));
    element.addEventListener("focusin", (event) => this.focusedRow(event));
    new ResizeObserver(() => this.draw()).observe(element);
  }

  // `listed()` is called once the root is drawn (the watch may wait for Python); resolves once
  // the watch listens and what was listed before it has been listed again.
  async start(listed) {
    await this.load("/");
    this.focused ??= this.rows[0] ?? null;
    this.draw();
    listed?.();
    this.unwatch = this.vfs.watch("/", (event) => this.changed(event), { recursive: true });
    await this.unwatch.ready;
    for (const [path, node] of this.nodes) if (node.children) this.pending.add(path);
    if (!this.flushing) await this.flush();
  }

  // --- the model ---------------------------------------------------------------------------

  async load(dir) {
    const node = this.nodes.get(dir);
    if (!node || node.kind !== "directory") return;
    let entries;
    try {
      entries = await this.vfs.readdir(dir, { withFileTypes: true });
    } catch (error) {
      if (error.code !== "ENOENT" && error.code !== "ENOTDIR") this.onError(error);
      entries = [];
    }
    if (dir === "/") this.loadMarks(); // Python's answer: the rows do not wait for it
    const names = new Set(entries.map((entry) => entry.name));
    for (const old of node.children ?? []) {
      if (!names.has(this.nodes.get(old)?.name)) this.forget(old);
    }
    const sorted = entries.sort((a, b) => (b.isDirectory() - a.isDirectory()) || (a.name < b.name ? -1 : 1));
    node.children = sorted.map((entry) => {
      const path = join(dir, entry.name);
      const known = this.nodes.get(path);
      if (!known || known.kind !== entry.type) {
        if (known) this.forget(path);
        this.nodes.set(path, { path, name: entry.name, kind: entry.type, expanded: false, children: null });
      }
      return path;
    });
    this.flatten();
  }

  async loadMarks() {
    this.showMounts(await this.vfs.mounts().catch(() => []));
  }

  // The mounted folders (vfs.mounts()) marked on their rows.
  showMounts(mounts) {
    this.marks = new Map(mounts.map((m) => [m.path, m.state === "waiting" ? WAITING : "mounted"]));
    if (this.rowInfo) this.draw();
  }

  isWaiting(path) {
    return this.marks.get(path) === WAITING;
  }

  forget(path) {
    for (const child of this.nodes.get(path)?.children ?? []) this.forget(child);
    this.nodes.delete(path);
  }

  flatten() {
    const rows = [];
    const walk = (dir, depth) => {
      const children = this.nodes.get(dir).children ?? [];
      children.forEach((path, index) => {
        rows.push({ path, depth, index, count: children.length });
        const node = this.nodes.get(path);
        if (node.expanded && node.children) walk(path, depth + 1);
      });
    };
    walk("/", 1);
    this.rowInfo = new Map(rows.map((row, i) => [row.path, { ...row, at: i }]));
    this.rows = rows.map((row) => row.path);
    if (this.focused && !this.rowInfo.has(this.focused)) this.focused = this.nearestShown(this.focused);
    this.space.style.height = `${this.rows.length * ROW}px`;
  }

  nearestShown(path) {
    for (let p = parentOf(path); p !== "/"; p = parentOf(p)) if (this.rowInfo.has(p)) return p;
    return this.rows[0] ?? null;
  }

  async setExpanded(path, expanded) {
    const node = this.nodes.get(path);
    if (node?.kind !== "directory" || node.expanded === expanded) return;
    if (expanded && !node.children) await this.load(path);  // listed before it shows as open
    node.expanded = expanded;
    this.flatten();
    this.draw();
  }

  // Opens the folders down to `path` and focuses it (after a new file, a rename, an upload).
  async reveal(path) {
    for (let dir = parentOf(path), chain = []; ; dir = parentOf(dir)) {
      chain.unshift(dir);
      if (dir === "/") {
        for (const folder of chain) {
          await this.load(folder);
          if (folder !== "/") this.nodes.get(folder).expanded = true;
        }
        break;
      }
    }
    this.flatten();
    if (this.rowInfo.has(path)) this.focus(path);
  }

  // A watch event: the folders it touches that are listed get listed again, batched.
  changed({ path, oldPath }) {
    for (const p of [path, oldPath]) {
      if (!p) continue;
      if (this.nodes.get(parentOf(p))?.children) this.pending.add(parentOf(p));
      if (p === "/" || this.nodes.get(p)?.children) this.pending.add(p);
    }
    if (this.pending.size && !this.flushing) this.flushing = setTimeout(() => this.flush(), 30);
  }

  async flush() {
    const dirs = [...this.pending];
    this.pending.clear();
    for (const dir of dirs) await this.load(dir);
    this.draw();
    // Events that came while listing wait for the next round, not for a later event.
    this.flushing = this.pending.size ? setTimeout(() => this.flush(), 30) : null;
  }

  // --- drawing -----------------------------------------------------------------------------

  draw() {
    const top = this.element.scrollTop;
    const first = Math.max(0, Math.floor(top / ROW) - OVERSCAN);
    const last = Math.min(this.rows.length, Math.ceil((top + this.element.clientHeight) / ROW) + OVERSCAN);
    const wanted = new Set(this.rows.slice(first, last));
    for (const keep of [this.focused, this.editing]) if (keep && this.rowInfo.has(keep)) wanted.add(keep);
    for (const [path, row] of this.drawn) {
      if (!wanted.has(path)) {
        row.remove();
        this.drawn.delete(path);
      }
    }
    for (const path of wanted) this.drawRow(path);
  }

  drawRow(path) {
    const node = this.nodes.get(path);
    const info = this.rowInfo.get(path);
    let row = this.drawn.get(path);
    if (!row) {
      row = document.createElement("div");
      row.className = "tree-row";
      row.setAttribute("role", "treeitem");
      row.dataset.path = path;
      row.addEventListener("pointerenter", () => this.describe(row));
      row.addEventListener("focus", () => this.describe(row));
      this.space.append(row);
      this.drawn.set(path, row);
    }
    row.style.top = `${info.at * ROW}px`;
    row.style.paddingLeft = `${(info.depth - 1) * 14 + 4}px`;
    row.setAttribute("aria-level", String(info.depth));
    row.setAttribute("aria-setsize", String(info.count));
    row.setAttribute("aria-posinset", String(info.index + 1));
    row.setAttribute("aria-selected", String(path === this.focused));
    row.tabIndex = path === this.focused ? 0 : -1;
    if (node.kind === "directory") row.setAttribute("aria-expanded", String(node.expanded));
    else row.removeAttribute("aria-expanded");
    row.dataset.kind = node.kind;
    if (this.isWaiting(path)) {
      row.dataset.mount = "waiting";
      row.setAttribute("aria-description", "waiting for permission: Enter reconnects it");
    } else if (row.dataset.mount) {
      delete row.dataset.mount;
      row.removeAttribute("aria-description");
    }
    // Rebuilt only when it shows something else: a row's content replaced between a press and
    // its release would take the click away.
    const shown = JSON.stringify([node.name, node.kind, node.expanded, this.marks.get(path)]);
    if (path !== this.editing && row.shownKey !== shown) {
      row.shownKey = shown;
      row.replaceChildren(...this.rowContent(node));
    }
  }

  rowContent(node) {
    const part = (className, text, hidden = true) => {
      const span = document.createElement("span");
      span.className = className;
      span.textContent = text;
      if (hidden) span.setAttribute("aria-hidden", "true");
      return span;
    };
    const parts = [
      part("twisty", node.kind === "directory" ? (node.expanded ? "\u25be" : "\u25b8") : ""),
      part("icon", ""),
      part("name", node.name, false),
    ];
    const mark = this.marks.get(node.path) ?? (parentOf(node.path) === SCOOPS ? "scoop" : null);
    if (mark) parts.push(part("badge", mark, false));
    // The mouse's way to reconnect; the keyboard's is Enter on the row (aria-description).
    if (mark === WAITING) parts.push(part("reconnect", "Reconnect"));
    parts[1].dataset.icon = iconOf(node);
    return parts;
  }

  // Size and time on hover or focus, asked when first wanted (a listing carries neither).
  async describe(row) {
    if (row.title) return;
    try {
      const stats = await this.vfs.lstat(row.dataset.path);
      const size = stats.isDirectory() ? "folder" : `${stats.size.toLocaleString()} bytes`;
      row.title = `${row.dataset.path}\n${size}, modified ${new Date(stats.mtimeMs).toLocaleString()}`;
    } catch {
      // Gone meanwhile: the next listing removes the row.
    }
  }

  focus(path) {
    if (!this.rowInfo.has(path)) return;
    this.focused = path;
    const at = this.rowInfo.get(path).at * ROW;
    if (at < this.element.scrollTop) this.element.scrollTop = at;
    else if (at + ROW > this.element.scrollTop + this.element.clientHeight) {
      this.element.scrollTop = at + ROW - this.element.clientHeight;
    }
    this.draw();
    this.drawn.get(path)?.focus();
  }

  // A row focused otherwise than by the keys (a click, Tab back into the tree) is the focused one.
  focusedRow(event) {
    const path = event.target.classList?.contains("tree-row") ? event.target.dataset.path : null;
    if (!path || path === this.focused) return;
    this.focused = path;
    this.draw();
  }

  rowOf(path) {
    return this.drawn.get(path) ?? null;
  }

  // --- input -------------------------------------------------------------------------------

  click(event) {
    const row = event.target.closest(".tree-row");
    if (!row || this.editing === row.dataset.path) return;
    const path = row.dataset.path;
    this.focus(path);
    if (this.isWaiting(path)) this.onReconnect(path);
    else if (this.nodes.get(path).kind === "directory") this.setExpanded(path, !this.nodes.get(path).expanded);
    else this.onOpen(path);
  }

  key(event) {
    if (this.editing || !this.focused || event.target.closest(".tree-row") === null) return;
    const path = this.focused;
    const node = this.nodes.get(path);
    const at = this.rowInfo.get(path).at;
    const moves = {
      ArrowDown: () => this.focus(this.rows[Math.min(at + 1, this.rows.length - 1)]),
      ArrowUp: () => this.focus(this.rows[Math.max(at - 1, 0)]),
      Home: () => this.focus(this.rows[0]),
      End: () => this.focus(this.rows[this.rows.length - 1]),
      ArrowRight: () => {
        if (node.kind !== "directory") return;
        if (!node.expanded) this.setExpanded(path, true);
        else if (node.children?.length) this.focus(node.children[0]);
      },
      ArrowLeft: () => {
        if (node.kind === "directory" && node.expanded) this.setExpanded(path, false);
        else if (parentOf(path) !== "/") this.focus(parentOf(path));
      },
      Enter: () => {
        if (this.isWaiting(path)) this.onReconnect(path);
        else if (node.kind === "directory") this.setExpanded(path, !node.expanded);
        else this.onOpen(path);
      },
    };
    const plain = !event.ctrlKey && !event.altKey && !event.metaKey;
    if (moves[event.key] && plain) {
      event.preventDefault();
      moves[event.key]();
    } else if (plain && [...event.key].length === 1 && (event.key !== " " || this.typing(event))) {
      event.preventDefault();
      this.typeAhead(event.key, at, event.timeStamp);
    } else {
      this.onKey(event, path);
    }
  }

  typing(event) {
    return this.typed.text !== "" && event.timeStamp - this.typed.at < TYPE_AHEAD_MS;
  }

  // Type-ahead: the next row (after the focused one) whose name starts with what was typed;
  // a character typed soon after the last one extends it, and the same one typed again moves to
  // the next such row.
  typeAhead(char, at, time) {
    const text = time - this.typed.at < TYPE_AHEAD_MS ? this.typed.text + char : char;
    this.typed = { text, at: time };
    const wanted = [...new Set(text)].length === 1 ? char : text;
    const prefix = wanted.toLocaleLowerCase();
    const from = wanted.length === 1 ? at + 1 : at;  // a prefix may still fit the focused row
    for (let i = 0; i < this.rows.length; i++) {
      const path = this.rows[(from + i) % this.rows.length];
      if (this.nodes.get(path).name.toLocaleLowerCase().startsWith(prefix)) {
        this.focus(path);
        return;
      }
    }
  }
}

// The icon's name (workbench.css draws it): by kind, and for files by a few extensions.
const FILE_ICONS = {
  py: "code", js: "code", mjs: "code", ts: "code", css: "code", json: "code", sh: "code",
  html: "web", htm: "web", md: "text", txt: "text", zip: "archive",
  png: "image", jpg: "image", jpeg: "image", gif: "image", svg: "image", webp: "image",
};

function iconOf(node) {
  if (node.kind === "directory") return node.expanded ? "folder-open" : "folder";
  if (node.kind === "symlink") return "link";
  const ext = node.name.includes(".") ? node.name.split(".").pop().toLowerCase() : "";
  return FILE_ICONS[ext] ?? "file";
}
