// The disk's history in the side panel's History tab (web/index.html, #history-panel): the
// journal, newest first, with who made each change and when, and the snapshots by name,
// filtered by path and writer; for a point, the changes made since (vfs.diff) and a restore
// to it (vfs.restore: of the filter's path, or of the whole disk), itself one change in the
// journal. Below, the disk's usage (vfs.usage): used, available, persisted, a warning near the
// quota. Refreshed when the tab opens, on Show, and after a restore.

const $ = (id) => document.getElementById(id);
const LIMIT = 200;           // journal entries listed
const QUOTA_WARNING = 0.9;   // share of the quota used from which the usage line warns

export function startHistory(vfs, { describe }) {
  const history = new History(vfs, describe);
  const tabs = [$("side-files"), $("side-history")];
  const show = (tab) => {
    for (const other of tabs) {
      const chosen = other === tab;
      other.setAttribute("aria-selected", String(chosen));
      other.tabIndex = chosen ? 0 : -1;
      $(other.getAttribute("aria-controls")).hidden = !chosen;
    }
    if (tab === tabs[1]) history.refresh();
  };
  for (const tab of tabs) {
    tab.addEventListener("click", () => show(tab));
    tab.addEventListener("keydown", (event) => {
      if (event.key !== "ArrowLeft" && event.key !== "ArrowRight") return;
      const next = tabs[(tabs.indexOf(tab) + 1) % tabs.length];
      show(next);
      next.focus();
    });
  }
  $("history-filter").addEventListener("submit", (event) => {
    event.preventDefault();
    history.refresh();
  });
  return history;
}

class History {
  constructor(vfs, describe) {
    Object.assign(this, { vfs, describe });
  }

  status(state, text) {
    $("history-status").dataset.state = state;
    $("history-status").textContent = text;
  }

  filter() {
    return { path: $("history-path").value.trim() || undefined, writer: $("history-writer").value.trim() || undefined };
  }

  async refresh() {
    const { path, writer } = this.filter();
    try {
      const [entries, snapshots] = await Promise.all([
        this.vfs.journal({ path, writer, limit: LIMIT }),
        writer ? [] : this.vfs.snapshots(),
      ]);
      const points = [
        ...entries.map((entry) => ({ ...entry, state: { revision: entry.revision } })),
        ...snapshots.map((snap) => ({ ...snap, operation: "snapshot", paths: [], state: snap.name, snapshot: snap.name })),
      ].sort((a, b) => b.revision - a.revision || (a.snapshot ? -1 : 1));
      $("history-list").replaceChildren(...points.map((point) => this.item(point)));
      $("history-list").dataset.revision = String(entries[0]?.revision ?? 0);
      this.status("done", `${entries.length} changes${entries.length === LIMIT ? " (the latest)" : ""}`);
    } catch (error) {
      this.status("failed", this.describe(error));
    }
    await this.showUsage();
  }

  item(point) {
    const li = document.createElement("li");
    li.dataset.revision = String(point.revision);
    if (point.snapshot) li.dataset.snapshot = point.snapshot;
    const head = document.createElement("div");
    head.className = "history-head";
    const when = document.createElement("time");
    when.dateTime = new Date(point.timeMs).toISOString();
    when.textContent = new Date(point.timeMs).toLocaleString();
    const who = document.createElement("span");
    who.className = "writer";
    who.textContent = point.writer;
    const what = document.createElement("span");
    what.className = "what";
    what.textContent = point.snapshot
      ? `snapshot “${point.snapshot}”`
      : `#${point.revision} ${point.operation} ${point.paths.slice(0, 3).join(", ")}${point.paths.length > 3 ? "…" : ""}`;
    head.append(what, who, when);
    const changes = document.createElement("ul");
    changes.className = "history-changes";
    const name = point.snapshot ? `snapshot “${point.snapshot}”` : `revision ${point.revision}`;
    li.append(head, button("Changes since", `Changes since ${name}`, () => this.since(point, changes)),
      button("Restore", `Restore to ${name}`, () => this.restore(point)), changes);
    return li;
  }

  async since(point, list) {
    try {
      const { path } = this.filter();
      const changes = (await this.vfs.diff(point.state))
        .filter((change) => !path || change.path === path || change.path.startsWith(`${path}/`));
      list.replaceChildren(...changes.map((change) => {
        const li = document.createElement("li");
        li.textContent = `${change.change} ${change.oldPath ? `${change.oldPath} → ` : ""}${change.path}`;
        return li;
      }));
      if (!changes.length) list.replaceChildren(Object.assign(document.createElement("li"), { textContent: "no change since" }));
    } catch (error) {
      this.status("failed", this.describe(error));
    }
  }

  // Restores the filter's path (or the whole disk) to the point; the restore is journaled.
  async restore(point) {
    const { path } = this.filter();
    try {
      const { revision } = await this.vfs.restore(point.state, path ? { path } : {});
      await this.refresh();
      this.status("done", `Restored ${path ?? "the disk"} to ${point.snapshot ? `“${point.snapshot}”` : `revision ${point.revision}`} (revision ${revision})`);
    } catch (error) {
      this.status("failed", `Not restored: ${this.describe(error)}`);
    }
  }

  async showUsage() {
    const box = $("usage");
    try {
      const usage = await this.vfs.usage();
      const used = usage.storeBytes ?? usage.storedBytes;
      const quota = usage.quotaBytes;
      const parts = [`${megabytes(usage.contentBytes)} MB in ${usage.files.toLocaleString()} files`];
      if (quota) parts.push(`${megabytes(used)} MB stored of ${megabytes(quota)} MB`);
      parts.push(usage.persisted ? "persisted" : "not persisted: the browser may evict it");
      box.dataset.warning = String(Boolean(quota && used / quota >= QUOTA_WARNING));
      box.textContent = (box.dataset.warning === "true" ? "Nearly full: " : "") + parts.join(" · ");
    } catch (error) {
      box.textContent = `Usage unknown: ${this.describe(error)}`;
    }
  }
}

function button(text, label, action) {
  const element = document.createElement("button");
  element.type = "button";
  element.textContent = text;
  element.setAttribute("aria-label", label);
  element.addEventListener("click", action);
  return element;
}

function megabytes(bytes) {
  return ((bytes ?? 0) / 1e6).toFixed(1);
}
