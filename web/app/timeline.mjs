// The disk's history as a timeline (issue 33): the journal, newest first, as a listbox of
// changes (revision, time, writer, operation, paths), loaded a page at a time ("Load older
// changes"), filtered by path and writer, live (a change anywhere on the disk, in this tab or
// another, shows at once: `watch("/")`, throttled), with the snapshots marked by name at their
// revision. Selecting a change opens the disk as it was then (past_view.mjs).
//
// Everything lives in the container it is given; the only other dependency is `vfs`. Names,
// paths and writers are untrusted text: they reach the page through textContent only.
// Keyboard: the list is one tab stop (aria-activedescendant); arrows, Home, End, Page Up/Down
// move; Enter or Space selects.

import { createPastView } from "./past_view.mjs";

const PAGE = 50;             // journal entries fetched at a time
const MAX_LIMIT = 10_000;    // the journal call's own bound
const LIVE_THROTTLE_MS = 300;
const PATHS_SHOWN = 3;       // paths named in a row; the rest counted
let instances = 0;

// The kind of a writer, for its badge: the user, the shell, a scoop, an agent tool, another
// replica (a tab or a synced disk), py_vfs itself, or anything else (a script, an app).
function writerKind(writer) {
  const [prefix, rest] = String(writer).split(/:(.*)/s);
  if (rest === undefined) {
    if (writer === "user" || writer === "shell") return writer;
    return writer === "py_vfs" || writer === "defaults" ? "system" : "other";
  }
  if (prefix === "scoop" || prefix === "agent") return prefix;
  return ["tab", "replica", "sync"].includes(prefix) ? "replica" : "other";
}

export function startTimeline(container, vfs, { onRestored, describe = String } = {}) {
  const id = `tl${++instances}`;
  const ui = build(container, id);
  const state = {
    entries: [],       // journal entries loaded, newest first
    rows: [],          // what the list shows: the entries and snapshot markers
    snapshots: [],
    filter: {},        // {path, writer} given to the journal call
    exhausted: false,  // the oldest entry kept is loaded
    active: -1,        // the row under the keyboard (aria-activedescendant)...
    activeKey: null,   // ...and which change it is, kept across reloads
    selected: null,    // the key of the row whose point is shown
    generation: 0,     // bumped by a new filter: loads for the old one are dropped
    stale: true,       // the disk changed since the newest page was read
    visible: false,
    timer: null,
  };
  let queue = Promise.resolve();
  // One load at a time, in order; a load started for older filters is dropped (generation).
  const enqueue = (work) => { queue = queue.then(work).catch((error) => report(error)); return queue; };
  const past = createPastView(ui.point, vfs, {
    describe,
    onRestored: (result) => { onRestored?.(result); enqueue(loadNewest); },
  });

  function report(error) {
    ui.status.dataset.state = "failed";
    ui.status.textContent = describe(error);
  }

  async function loadNewest() {
    const generation = state.generation;
    const [fetched, snapshots] = await Promise.all([
      vfs.journal({ ...state.filter, limit: PAGE }), vfs.snapshots().catch(() => state.snapshots)]);
    if (generation !== state.generation) return;
    state.snapshots = snapshots;
    const top = state.entries[0]?.revision ?? -1;
    const overlaps = fetched.length < PAGE || fetched.at(-1).revision <= top;
    if (!overlaps || state.entries.length === 0) {
      state.entries = fetched;
      state.exhausted = fetched.length < PAGE;
    } else {
      state.entries = [...fetched.filter((entry) => entry.revision > top), ...state.entries];
    }
    state.stale = false;
    render();
  }

  async function loadOlder() {
    const oldest = state.entries.at(-1);
    if (!oldest) return loadNewest();
    const generation = state.generation;
    // `until` is inclusive and times can repeat: ask past the entries already shown at that time.
    const same = state.entries.filter((entry) => entry.timeMs === oldest.timeMs).length;
    const limit = Math.min(MAX_LIMIT, PAGE + same);
    const fetched = await vfs.journal({ ...state.filter, until: oldest.timeMs, limit });
    if (generation !== state.generation) return;
    state.entries.push(...fetched.filter((entry) => entry.revision < oldest.revision));
    state.exhausted = fetched.length < limit;
    render();
  }

  function applyFilter() {
    const path = ui.path.value.trim();
    const writer = ui.writer.value.trim();
    state.filter = { ...(path && { path }), ...(writer && { writer }) };
    state.generation++;
    state.entries = [];
    state.active = -1;
    state.activeKey = null;
    // The old filter's rows go at once: a row clicked while the new ones load would pick a
    // change the new filter may not show.
    state.rows = [];
    ui.list.replaceChildren();
    ui.list.removeAttribute("aria-activedescendant");
    ui.list.setAttribute("aria-busy", "true");
    ui.status.dataset.state = "loading";
    ui.status.textContent = "Loading…";
    enqueue(loadNewest);
  }

  // The rows: the entries, and a marker for each snapshot in the loaded range whose own entry
  // is not shown (a filter hides it), placed by revision.
  function rows() {
    const shown = new Set(state.entries.map((entry) => entry.revision));
    const floor = state.exhausted ? -Infinity : state.entries.at(-1)?.revision ?? Infinity;
    const markers = state.snapshots
      .filter((snap) => snap.revision >= floor && !shown.has(snap.revision))
      .map((snap) => ({ revision: snap.revision, time: snap.time, timeMs: snap.timeMs, writer: snap.writer,
                        operation: "snapshot", paths: [], marker: true }));
    return [...state.entries, ...markers].sort((a, b) => b.revision - a.revision || (a.marker ? -1 : 1));
  }

  function render() {
    const list = rows();
    state.rows = list;
    const names = snapshotNames(state.snapshots);
    ui.list.replaceChildren(...list.map((entry, index) => option(entry, index, names.get(entry.revision))));
    ui.list.setAttribute("aria-busy", "false");
    // The active row stays on the same change when newer ones arrive above it.
    const kept = list.findIndex((entry) => key(entry) === state.activeKey);
    state.active = kept >= 0 ? kept : Math.min(state.active, list.length - 1);
    markActive(false);
    ui.older.hidden = state.exhausted;
    ui.status.dataset.state = "done";
    ui.status.textContent = list.length
      ? `${state.entries.length} change${state.entries.length === 1 ? "" : "s"} shown` +
        (state.exhausted ? ", the oldest kept included" : "")
      : "No change matches";
    refreshWriters();
  }

  function option(entry, index, snapshots) {
    const item = document.createElement("li");
    item.id = `${id}-option-${index}`;
    item.setAttribute("role", "option");
    item.className = entry.marker ? "tl-entry tl-marker" : "tl-entry";
    item.dataset.revision = String(entry.revision);
    item.setAttribute("aria-selected", String(state.selected === key(entry)));
    const when = new Date(entry.timeMs);
    const parts = [
      span("tl-rev", `r${entry.revision}`),
      timeElement(when, entry.time),
      writerBadge(entry.writer),
      span("tl-op", entry.operation),
    ];
    if (entry.paths?.length) parts.push(span("tl-paths", pathSummary(entry.paths)));
    for (const name of snapshots ?? []) parts.push(span("tl-snap", `snapshot “${name}”`));
    parts.forEach((part, i) => { if (i) item.append(" "); item.append(part); });
    return item;
  }

  function markActive(scroll) {
    const options = [...ui.list.children];
    options.forEach((node, index) => node.classList.toggle("tl-active", index === state.active));
    const node = options[state.active];
    if (node) {
      ui.list.setAttribute("aria-activedescendant", node.id);
      state.activeKey = key(state.rows[state.active]);
      if (scroll) node.scrollIntoView({ block: "nearest" });
    } else {
      ui.list.removeAttribute("aria-activedescendant");
    }
  }

  function select(index) {
    const entry = state.rows[index];
    if (!entry) return;
    state.active = index;
    state.selected = key(entry);
    for (const node of ui.list.children) {
      node.setAttribute("aria-selected", String(node === ui.list.children[index]));
    }
    markActive(true);
    const names = snapshotNames(state.snapshots).get(entry.revision) ?? [];
    past.show({
      state: entry.marker ? names[0] : entry.revision,
      revision: entry.revision,
      label: entry.marker ? `snapshot “${names[0]}” (r${entry.revision})` : `revision ${entry.revision}`,
      time: new Date(entry.timeMs),
      writer: entry.writer,
      paths: entry.paths ?? [],
    });
  }

  function onKey(event) {
    const count = ui.list.children.length;
    if (!count) return;
    const moves = { ArrowDown: 1, ArrowUp: -1, PageDown: 10, PageUp: -10 };
    let next = state.active;
    if (event.key in moves) next = Math.max(0, Math.min(count - 1, (next < 0 ? 0 : next + moves[event.key])));
    else if (event.key === "Home") next = 0;
    else if (event.key === "End") next = count - 1;
    else if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      select(state.active < 0 ? 0 : state.active);
      return;
    } else return;
    event.preventDefault();
    state.active = next;
    markActive(true);
  }

  function refreshWriters() {
    const writers = [...new Set(state.entries.map((entry) => entry.writer))].sort();
    ui.writers.replaceChildren(...writers.map((writer) => {
      const choice = document.createElement("option");
      choice.value = writer;
      return choice;
    }));
  }

  // Live: a change marks the list stale; a visible list reloads its newest page, throttled.
  function changed() {
    state.stale = true;
    if (!state.visible || state.timer) return;
    state.timer = setTimeout(() => {
      state.timer = null;
      if (state.stale) enqueue(loadNewest);
    }, LIVE_THROTTLE_MS);
  }

  ui.form.addEventListener("submit", (event) => { event.preventDefault(); applyFilter(); });
  ui.older.addEventListener("click", () => enqueue(loadOlder));
  ui.list.addEventListener("keydown", onKey);
  ui.list.addEventListener("click", (event) => {
    const item = event.target.closest?.("[role=option]");
    if (!item || !ui.list.contains(item)) return;
    select([...ui.list.children].indexOf(item));
    ui.list.focus();
  });
  const unwatch = vfs.watch("/", changed, { recursive: true });
  const seen = new IntersectionObserver((records) => {
    state.visible = records.some((record) => record.isIntersecting);
    // Shown again: the newest page is read again (a snapshot changes no file, so no watch event
    // told of it).
    if (state.visible) enqueue(loadNewest);
  });
  seen.observe(container);

  return {
    refresh: () => enqueue(loadNewest),
    stop() {
      unwatch();
      seen.disconnect();
      clearTimeout(state.timer);
    },
  };
}

const key = (entry) => `${entry.marker ? "s" : "e"}${entry.revision}`;

function snapshotNames(snapshots) {
  const names = new Map();
  for (const snap of snapshots) names.set(snap.revision, [...(names.get(snap.revision) ?? []), snap.name]);
  return names;
}

function pathSummary(paths) {
  const shown = paths.slice(0, PATHS_SHOWN).join(", ");
  return paths.length > PATHS_SHOWN ? `${shown} and ${paths.length - PATHS_SHOWN} more` : shown;
}

function span(className, text) {
  const node = document.createElement("span");
  node.className = className;
  node.textContent = text;
  return node;
}

function timeElement(when, text) {
  const node = document.createElement("time");
  node.className = "tl-time";
  node.dateTime = when.toISOString();
  node.title = `${text} UTC`;
  node.textContent = when.toLocaleString();
  return node;
}

function writerBadge(writer) {
  const node = span("tl-writer", writer);
  node.dataset.kind = writerKind(writer);
  return node;
}

// The panel's skeleton; every text in it is the page's own.
function build(container, id) {
  container.classList.add("tl");
  container.innerHTML = `
    <form class="tl-filters" role="search" aria-label="Filter the history">
      <label>Path <input name="path" spellcheck="false" autocomplete="off" placeholder="/"></label>
      <label>Writer <input name="writer" spellcheck="false" autocomplete="off" list="${id}-writers"
             placeholder="any"></label>
      <datalist id="${id}-writers"></datalist>
      <button type="submit">Filter</button>
    </form>
    <p class="tl-status" role="status"></p>
    <ul class="tl-list" role="listbox" tabindex="0" aria-label="Changes, newest first" aria-busy="true"></ul>
    <button type="button" class="tl-older" hidden>Load older changes</button>
    <div class="tl-point-host"></div>`;
  const $ = (selector) => container.querySelector(selector);
  return {
    form: $(".tl-filters"), path: $("[name=path]"), writer: $("[name=writer]"), writers: $("datalist"),
    status: $(".tl-status"), list: $(".tl-list"), older: $(".tl-older"), point: $(".tl-point-host"),
  };
}
