// The disk's usage (issue 33): the space used and left under the origin's quota, whether the
// browser keeps the storage persisted, what the files and their history take, the folders
// holding the most bytes, and a warning once more than WARN_AT of the quota is used. Read from
// `vfs.usage()` and one `vfs.query`; refreshed when the panel comes into view and, while it is
// in view, on changes to the disk (throttled).
//
// Everything lives in the container it is given; the only other dependency is `vfs`. Folder
// names are untrusted text: they reach the page through textContent only.
//
// The same warning shows in the top bar (startUsageAlert), watched from the workbench's start,
// since a user may never open the panel.

import { readableBytes } from "./sizes.mjs";

const WARN_AT = 0.8;
const REFRESH_THROTTLE_MS = 1_000;
const LARGEST = "SELECT dir, sum(size) AS bytes, count(*) AS files FROM files WHERE kind = 'file' " +
  "GROUP BY dir ORDER BY 2 DESC LIMIT 10";

export function startUsagePanel(container, vfs, { describe = String } = {}) {
  const ui = build(container);
  const state = { visible: false, stale: true, timer: null, running: null };

  async function refresh() {
    state.stale = false;
    const [usage, largest] = await Promise.all([vfs.usage(), vfs.query(LARGEST)]);
    show(ui, usage, largest.rows);
  }

  function refreshSoon() {
    if (state.running) return;
    state.running = refresh()
      .catch((error) => {
        ui.status.dataset.state = "failed";
        ui.status.textContent = describe(error);
      })
      .finally(() => {
        state.running = null;
        if (state.stale) changed();  // a change that came during the refresh
      });
  }

  function changed() {
    state.stale = true;
    if (!state.visible || state.timer) return;
    state.timer = setTimeout(() => {
      state.timer = null;
      if (state.stale && state.visible) refreshSoon();
    }, REFRESH_THROTTLE_MS);
  }

  const unwatch = vfs.watch("/", changed, { recursive: true });
  const seen = new IntersectionObserver((records) => {
    state.visible = records.some((record) => record.isIntersecting);
    if (state.visible) refreshSoon();
  });
  seen.observe(container);
  return {
    refresh: refreshSoon,
    stop() {
      unwatch();
      seen.disconnect();
      clearTimeout(state.timer);
    },
  };
}

// The top bar's alert: a button (opening the Storage panel, `onOpen`) shown while more than
// WARN_AT of the quota is used, checked at the start and after changes (throttled). The figures
// are the browser's estimate(), asked in the page: the same as usage()'s storeBytes and
// quotaBytes, without a call to the disk (whose calls tests count).
export function startUsageAlert(bar, vfs, { onOpen }) {
  const alert = document.createElement("button");
  alert.type = "button";
  alert.className = "usage-alert";
  alert.hidden = true;
  alert.addEventListener("click", onOpen);
  const live = document.createElement("span");
  live.setAttribute("role", "alert");
  live.append(alert);
  bar.append(live);
  let timer = null;
  const check = async () => {
    timer = null;
    const estimate = await navigator.storage?.estimate?.().catch(() => null);
    const share = shareOf({ storeBytes: estimate?.usage, quotaBytes: estimate?.quota });
    alert.hidden = !(share > WARN_AT);
    alert.textContent = share > WARN_AT ? `Storage ${Math.round(share * 100)}% full` : "";
    alert.title = share > WARN_AT ? warningText(share) : "";
  };
  const unwatch = vfs.watch("/", () => {
    timer ??= setTimeout(check, REFRESH_THROTTLE_MS);
  }, { recursive: true });
  check();
  return { check, stop: () => { unwatch(); clearTimeout(timer); } };
}

// The share of the quota the site uses, or null where the browser tells no quota.
function shareOf({ storeBytes, quotaBytes }) {
  return quotaBytes ? storeBytes / quotaBytes : null;
}

function warningText(share) {
  return `Storage is nearly full: ${(share * 100).toFixed(0)}% of the quota is used. ` +
    "Delete or export files, or older history will be trimmed and writes may fail.";
}

function show(ui, usage, rows) {
  const { storeBytes, quotaBytes, availableBytes } = usage;
  const share = shareOf(usage);
  setBytes(ui.used, storeBytes);
  setBytes(ui.quota, quotaBytes);
  setBytes(ui.available, availableBytes);
  setBytes(ui.content, usage.contentBytes);
  setBytes(ui.history, usage.historyBytes);
  ui.files.value = String(usage.files);
  ui.files.textContent = `${usage.files.toLocaleString()} files, ${usage.directories.toLocaleString()} folders`;
  ui.persisted.value = String(usage.persisted);
  ui.persisted.textContent = usage.persisted === null ? "unknown"
    : usage.persisted ? "yes: the browser keeps it under storage pressure"
      : "no: the browser may evict it under storage pressure";
  ui.meter.hidden = share === null;
  if (share !== null) {
    ui.meter.value = Math.min(share, 1);
    ui.meter.textContent = `${Math.round(share * 100)}%`;
    ui.share.textContent = `${(share * 100).toFixed(1)}% of the quota used`;
  } else {
    ui.share.textContent = "The browser does not tell the quota";
  }
  ui.warning.hidden = !(share > WARN_AT);
  ui.warning.textContent = share > WARN_AT ? warningText(share) : "";
  ui.largest.replaceChildren(...rows.map(([dir, size, files]) => {
    const row = document.createElement("tr");
    const name = document.createElement("th");
    name.scope = "row";
    name.textContent = dir;
    const amount = document.createElement("td");
    amount.append(bytesElement(size));
    const count = document.createElement("td");
    count.textContent = String(files);
    row.append(name, amount, count);
    return row;
  }));
  ui.status.dataset.state = "done";
  ui.status.textContent = `Updated ${new Date().toLocaleTimeString()}`;
}

// `<data value="bytes">` shows a readable size and keeps the exact figure.
function setBytes(node, count) {
  node.value = count === null || count === undefined ? "" : String(count);
  node.textContent = count === null || count === undefined ? "unknown" : readableBytes(count);
}

function bytesElement(count) {
  const node = document.createElement("data");
  setBytes(node, count);
  return node;
}

function build(container) {
  container.classList.add("usage");
  container.innerHTML = `
    <p class="usage-warning" role="alert" hidden></p>
    <meter class="usage-meter" min="0" max="1" low="0.6" high="${WARN_AT}" optimum="0"
           aria-label="Share of the storage quota used"></meter>
    <p class="usage-share"></p>
    <dl class="usage-figures">
      <dt>Used by this site</dt><dd><data class="usage-used"></data></dd>
      <dt>Quota</dt><dd><data class="usage-quota"></data></dd>
      <dt>Available</dt><dd><data class="usage-available"></data></dd>
      <dt>Files</dt><dd><data class="usage-content"></data> in <data class="usage-files"></data></dd>
      <dt>Kept for history</dt><dd><data class="usage-history"></data></dd>
      <dt>Persisted</dt><dd><data class="usage-persisted"></data></dd>
    </dl>
    <table class="usage-largest">
      <caption>Largest folders (the files directly in them)</caption>
      <thead><tr><th scope="col">Folder</th><th scope="col">Size</th><th scope="col">Files</th></tr></thead>
      <tbody></tbody>
    </table>
    <p class="usage-status" role="status"></p>`;
  const $ = (selector) => container.querySelector(selector);
  return {
    warning: $(".usage-warning"), meter: $(".usage-meter"), share: $(".usage-share"),
    used: $(".usage-used"), quota: $(".usage-quota"), available: $(".usage-available"),
    content: $(".usage-content"), files: $(".usage-files"), history: $(".usage-history"),
    persisted: $(".usage-persisted"), largest: $(".usage-largest tbody"), status: $(".usage-status"),
  };
}
