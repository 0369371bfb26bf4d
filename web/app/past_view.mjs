// The disk as it was at a point of the timeline (timeline.mjs): a read-only tree of that state,
// listed a folder at a time as folders are opened (`vfs.at(state)`), a file's content as text
// (or "binary, N bytes"), its diff against now, and restoring a file, a folder or the whole disk
// to that point (`vfs.restore`, one step, confirmed first in a dialog).
//
// Names and contents are untrusted: they reach the page through textContent only.

import { folded, lineDiff } from "./line_diff.mjs";
import { readableBytes } from "./sizes.mjs";

const MAX_SHOWN_BYTES = 1024 * 1024;  // a file above this is neither shown nor diffed
const TREE_PAGE = 200;                // entries of a folder shown at a time ("Show more")
const CHANGED_SHOWN = 20;             // paths of the selected change offered as shortcuts
const DIFF_LINES_SHOWN = 2_000;       // lines of a diff drawn

// `host`: the element the view lives in. Returns {show(point)}: point = {state, revision,
// label, time, writer, paths}.
export function createPastView(host, vfs, { describe, onRestored }) {
  const ui = build(host);
  let point = null;  // the point shown
  let past = null;   // vfs.at(point.state)
  let current = null;  // {path, kind} selected in the tree
  let generation = 0;

  function show(next) {
    point = next;
    past = vfs.at(next.state);
    current = null;
    generation++;
    host.hidden = false;
    ui.heading.textContent = `The disk at ${next.label}`;
    ui.meta.textContent = `${next.time.toLocaleString()} by ${next.writer}`;
    ui.changed.replaceChildren(...next.paths.slice(0, CHANGED_SHOWN).map((path) => pathButton(path)));
    ui.changedBox.hidden = next.paths.length === 0;
    ui.treeNav.setAttribute("aria-label", `Files at ${next.label}`);
    ui.view.hidden = true;
    ui.outcome.textContent = "";
    ui.tree.replaceChildren();
    listInto(ui.tree, "/", generation);
  }

  function pathButton(path) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "tl-path";
    button.textContent = path;
    button.addEventListener("click", () => open(path).catch(failed));
    return button;
  }

  // Lists `path` of the past state into `list`, TREE_PAGE entries at a time. Everything a
  // list holds is an <li>: the entries, a note, the "Show more" button's item.
  async function listInto(list, path, forGeneration) {
    const item = (child) => {
      const node = document.createElement("li");
      node.append(child);
      return node;
    };
    let entries;
    try {
      entries = await past.readdir(path, { withFileTypes: true });
    } catch (error) {
      if (forGeneration === generation) list.replaceChildren(item(note(describe(error))));
      return;
    }
    if (forGeneration !== generation) return;
    entries.sort((a, b) => Number(b.isDirectory()) - Number(a.isDirectory()) || (a.name < b.name ? -1 : 1));
    if (!entries.length) list.replaceChildren(item(note("empty folder")));
    let shown = 0;
    const more = document.createElement("button");
    more.type = "button";
    more.className = "tl-more";
    const moreItem = item(more);
    const showPage = () => {
      const page = entries.slice(shown, shown + TREE_PAGE).map((entry) => treeItem(path, entry));
      shown += page.length;
      moreItem.remove();
      list.append(...page);
      if (shown < entries.length) {
        more.textContent = `Show more (${entries.length - shown} left)`;
        list.append(moreItem);
      }
    };
    more.addEventListener("click", () => {
      const next = list.children.length - 1;
      showPage();
      list.children[next]?.querySelector("button")?.focus();
    });
    showPage();
  }

  function treeItem(parent, entry) {
    const path = parent === "/" ? `/${entry.name}` : `${parent}/${entry.name}`;
    const kind = entry.isDirectory() ? "directory" : entry.isSymbolicLink() ? "symlink" : "file";
    const item = document.createElement("li");
    const button = document.createElement("button");
    button.type = "button";
    button.className = "tl-node";
    button.dataset.kind = kind;
    button.textContent = kind === "directory" ? `${entry.name}/` : entry.name;
    item.append(button);
    if (kind === "directory") {
      button.setAttribute("aria-expanded", "false");
      const children = document.createElement("ul");
      children.hidden = true;
      item.append(children);
      button.addEventListener("click", () => {
        const opening = children.hidden;
        children.hidden = !opening;
        button.setAttribute("aria-expanded", String(opening));
        if (opening && !children.dataset.listed) {
          children.dataset.listed = "1";
          listInto(children, path, generation);
        }
        select(path, kind);
      });
    } else {
      button.addEventListener("click", () => select(path, kind));
    }
    return item;
  }

  // A path named by the change: what it was then, whatever kind.
  async function open(path) {
    const forGeneration = generation;
    try {
      const stats = await past.lstat(path);
      if (forGeneration !== generation) return;
      select(path, stats.isDirectory() ? "directory" : stats.isSymbolicLink() ? "symlink" : "file");
    } catch (error) {
      if (forGeneration !== generation) return;
      if (error?.code !== "ENOENT") throw error;
      current = { path, kind: null };
      viewHeader(path, `${path} did not exist at this point`, "Restore (remove it)…");
      ui.content.replaceChildren();
    }
  }

  async function select(path, kind) {
    current = { path, kind };
    const forGeneration = generation;
    const noun = kind === "directory" ? "folder" : kind === "symlink" ? "link" : "file";
    viewHeader(path, "", `Restore this ${noun} to this point…`);
    ui.diff.hidden = kind !== "file";
    ui.content.replaceChildren(note("Reading…"));
    const shown = await describeNode(path, kind).catch((error) => [note(describe(error))]);
    if (forGeneration === generation && current?.path === path) ui.content.replaceChildren(...shown);
  }

  function viewHeader(path, meta, restoreText) {
    ui.view.hidden = false;
    ui.viewPath.textContent = path;
    ui.viewMeta.textContent = meta;
    ui.restoreOne.textContent = restoreText;
    ui.diff.hidden = true;
  }

  async function describeNode(path, kind) {
    if (kind === "directory") {
      const names = await past.readdir(path);
      ui.viewMeta.textContent = `folder, ${names.length} entr${names.length === 1 ? "y" : "ies"}`;
      return [];
    }
    if (kind === "symlink") {
      ui.viewMeta.textContent = "symbolic link";
      return [note(`link to ${await past.readlink(path)}`)];
    }
    const text = await pastText(path);
    if (typeof text !== "string") return [note(text.notice)];
    const pre = document.createElement("pre");
    pre.className = "tl-text";
    pre.tabIndex = 0;
    pre.setAttribute("aria-label", `Content of ${path} at this point`);
    pre.textContent = text;
    return [pre];
  }

  // The file's text at this point, or {notice} when it is too large or binary.
  async function pastText(path) {
    const size = (await past.stat(path)).size;
    ui.viewMeta.textContent = `file, ${readableBytes(size)}`;
    if (size > MAX_SHOWN_BYTES) {
      return { notice: `${readableBytes(size)}: too large to show or diff here (over 1 MiB)` };
    }
    return asText(await past.readFile(path), size);
  }

  async function showDiff() {
    const { path } = current;
    const forGeneration = generation;
    ui.content.replaceChildren(note("Comparing…"));
    const then = await pastText(path);
    let now = "";
    let nowNote = "";
    try {
      const size = (await vfs.stat(path)).size;
      now = size > MAX_SHOWN_BYTES ? { notice: `now ${readableBytes(size)}: too large to diff (over 1 MiB)` }
        : asText(await vfs.readFile(path), size);
    } catch (error) {
      if (error?.code !== "ENOENT") throw error;
      nowNote = "The file is not on the disk now: every line is removed.";
    }
    if (forGeneration !== generation || current?.path !== path) return;
    const refused = [then, now].find((side) => typeof side !== "string");
    if (refused) {
      ui.content.replaceChildren(note(refused.notice));
      return;
    }
    const { lines, rough } = lineDiff(then, now);
    const changes = lines.filter((line) => line.op !== " ").length;
    const parts = [];
    if (nowNote) parts.push(note(nowNote));
    if (!changes) parts.push(note("No difference: the file is the same now."));
    else parts.push(note(`${changes} line${changes === 1 ? "" : "s"} differ between this point (−) and now (+)` +
                         (rough ? "; too different to align line by line" : "")));
    if (changes) parts.push(diffBlock(folded(lines), path));
    ui.content.replaceChildren(...parts);
  }

  // The restore, once confirmed: `path` null is the whole disk.
  async function restore(path) {
    const target = path ?? "the whole disk";
    if (!(await confirmed(`Restore ${target} to ${point.label}? What is there now is replaced. ` +
                          "The restore is itself a change on the timeline, and can be undone the same way."))) return;
    ui.outcome.dataset.state = "running";
    ui.outcome.textContent = `Restoring ${target}…`;
    try {
      const state = typeof point.state === "number" ? { revision: point.state } : point.state;
      const result = await vfs.restore(state, path === null ? undefined : { path });
      ui.outcome.dataset.state = "done";
      ui.outcome.textContent = `Restored ${target} to ${point.label}: ${result.restored} ` +
        `node${result.restored === 1 ? "" : "s"} changed, as revision ${result.revision}`;
      onRestored?.(result);
    } catch (error) {
      failed(error);
    }
  }

  function confirmed(text) {
    ui.question.textContent = text;
    ui.dialog.returnValue = "";
    ui.dialog.showModal();
    ui.dialog.querySelector("[value=restore]").focus();
    return new Promise((resolve) => {
      ui.dialog.addEventListener("close", () => resolve(ui.dialog.returnValue === "restore"), { once: true });
    });
  }

  function failed(error) {
    ui.outcome.dataset.state = "failed";
    ui.outcome.textContent = describe(error);
  }

  ui.restoreAll.addEventListener("click", () => restore(null));
  ui.restoreOne.addEventListener("click", () => current && restore(current.path));
  ui.diff.addEventListener("click", () => current && showDiff().catch(failed));
  onTreeKeys(ui.tree);
  return { show };
}

// Up and Down move between the tree's visible buttons (each is also a tab stop).
function onTreeKeys(tree) {
  tree.addEventListener("keydown", (event) => {
    if (event.key !== "ArrowDown" && event.key !== "ArrowUp") return;
    const buttons = [...tree.querySelectorAll("button")].filter((button) => button.checkVisibility());
    const at = buttons.indexOf(document.activeElement);
    const next = buttons[at + (event.key === "ArrowDown" ? 1 : -1)];
    if (at < 0 || !next) return;
    event.preventDefault();
    next.focus();
  });
}

// Text when the bytes decode as UTF-8 without a NUL; else {notice} naming the size.
function asText(data, size) {
  if (data.subarray(0, 8192).includes(0)) return { notice: `binary, ${size} bytes` };
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(data);
  } catch {
    return { notice: `binary, ${size} bytes` };
  }
}

function diffBlock(lines, path) {
  const block = document.createElement("div");
  block.className = "tl-diff";
  block.tabIndex = 0;
  block.setAttribute("role", "region");
  block.setAttribute("aria-label", `Changes of ${path} from this point to now`);
  for (const line of lines.slice(0, DIFF_LINES_SHOWN)) {
    const row = document.createElement("div");
    row.className = "tl-diff-line";
    row.dataset.op = line.op;
    row.textContent = line.op === "…" ? `… ${line.count} unchanged lines` : `${line.op} ${line.text}`;
    block.append(row);
  }
  if (lines.length > DIFF_LINES_SHOWN) block.append(note(`… ${lines.length - DIFF_LINES_SHOWN} more lines not shown`));
  return block;
}

function note(text) {
  const node = document.createElement("p");
  node.className = "tl-note";
  node.textContent = text;
  return node;
}

let views = 0;

function build(host) {
  const id = `tlp${++views}`;
  host.classList.add("tl-point");
  host.hidden = true;
  host.setAttribute("role", "region");
  host.setAttribute("aria-labelledby", `${id}-heading`);
  host.innerHTML = `
    <h3 id="${id}-heading" class="tl-heading"></h3>
    <p class="tl-meta"></p>
    <p class="tl-point-actions">
      <button type="button" class="tl-restore-all">Restore the whole disk to this point…</button>
    </p>
    <div class="tl-changed-box">
      <h4 id="${id}-changed">Changed here</h4>
      <div class="tl-changed" role="group" aria-labelledby="${id}-changed"></div>
    </div>
    <div class="tl-browse">
      <nav class="tl-tree-nav"><ul class="tl-tree"></ul></nav>
      <section class="tl-view" aria-labelledby="${id}-view-path" hidden>
        <h4 id="${id}-view-path" class="tl-view-path"></h4>
        <p class="tl-view-meta"></p>
        <p class="tl-view-actions">
          <button type="button" class="tl-diff-now">Diff against now</button>
          <button type="button" class="tl-restore-one"></button>
        </p>
        <div class="tl-content"></div>
      </section>
    </div>
    <p class="tl-outcome" role="status"></p>
    <dialog class="tl-confirm" aria-labelledby="${id}-question">
      <form method="dialog">
        <p id="${id}-question"></p>
        <button value="restore">Restore</button>
        <button value="cancel">Cancel</button>
      </form>
    </dialog>`;
  const $ = (selector) => host.querySelector(selector);
  return {
    heading: $(".tl-heading"), meta: $(".tl-meta"), restoreAll: $(".tl-restore-all"),
    changedBox: $(".tl-changed-box"), changed: $(".tl-changed"), treeNav: $(".tl-tree-nav"), tree: $(".tl-tree"),
    view: $(".tl-view"), viewPath: $(".tl-view-path"), viewMeta: $(".tl-view-meta"), diff: $(".tl-diff-now"),
    restoreOne: $(".tl-restore-one"), content: $(".tl-content"), outcome: $(".tl-outcome"),
    dialog: $(".tl-confirm"), question: $(`#${id}-question`),
  };
}
