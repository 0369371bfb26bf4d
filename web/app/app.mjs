// The terminal page: boots the "default" VFS, shows boot progress, then hands the window to a
// terminal. window.pyvfs is the scripting surface (used by tests and from the devtools console).

import { startDataPanel } from "./data_panel.mjs";
import { shownName } from "./line_tools.mjs";
import { openPreviews } from "./preview_tab.mjs";
import { openVFS } from "../pyvfs.mjs";

const WELCOME = "py_vfs \u2014 type 'help'\n";
const $ = (id) => document.getElementById(id);

let session = null;     // the TerminalSession, once the VFS is ready
let currentStage = "";  // the last boot stage reported, named in a boot failure
let barValue = 0;       // the progress bar only moves forward

// The folder picker of `mount` (pyvfs.mjs calls it); a test replaces it before the page loads.
// Where there is no picker (Firefox, Safari) pyvfs.mjs's fallback says ENOTSUP, and why.
if (typeof window.showDirectoryPicker === "function") {
  window.__pickDirectory ??= (options) => showDirectoryPicker({ mode: "readwrite", ...options });
}

// Defined before anything is awaited, so that a script can use window.pyvfs at once.
document.body.dataset.state = "booting";
const ready = startVFS();
const persisted = askPersistence();
window.pyvfs = {
  ready,
  persisted,
  shell: async (line) => {
    const { stdout, stderr, code, confirm } = await runLine(line);
    return { stdout, stderr, code, confirm };
  },
};
main().catch(showError);

// A synchronous throw from openVFS becomes a rejection, so that every failure reaches showError.
// A test may set window.__pyvfsSnapshot ("off") before the page loads (docs/boot.md), and
// window.__pyvfsRuntime ("own") to test a runtime per tab (openVFS's default is "shared").
function startVFS() {
  const snapshot = window.__pyvfsSnapshot ?? "auto";
  const runtime = window.__pyvfsRuntime;
  return new Promise((resolve) => resolve(openVFS({ name: "default", onProgress, snapshot, runtime, dock: pageDock() })));
}

// --- the dock ----------------------------------------------------------------------------------
// `?dock=URL` in the app's URL syncs the disk with that dock (docs/dock.md). Its token is a
// secret, so never in the URL: asked once and kept in this origin's localStorage under
// "pyvfs-dock-token:<dock URL>" (clear it there to forget it). No ?dock: no dock.

function pageDock() {
  const asked = new URLSearchParams(location.search).get("dock");
  if (!asked) return undefined;
  let url;
  try {
    url = new URL(asked).href;
  } catch {
    throw new TypeError(`?dock= must be the dock's URL, not ${asked}`);
  }
  const key = `pyvfs-dock-token:${url}`; // a function's const: startVFS runs before the module's
  let token = localStorage.getItem(key);
  if (!token) {
    token = (window.prompt(`The token for the dock at ${url} (kept in this browser):`) ?? "").trim();
    if (!token) return undefined;
    localStorage.setItem(key, token);
  }
  return { url, token };
}

// The dock's indicator: synced / pending N / offline / error / held, the last error in its
// title and accessible description; shown only when the disk has a dock.
async function showSync(vfs) {
  if (!(await vfs.syncStatus().catch(() => null))) return;
  const badge = $("sync");
  const show = ({ state, pending, error }) => {
    const label = state === "pending" && pending ? `pending ${pending}` : state;
    badge.textContent = label;
    badge.dataset.state = state;
    badge.title = error ? `${label}: ${error}` : `dock: ${label}`;
    badge.setAttribute("aria-label", `Sync with the dock: ${badge.title}`);
    badge.hidden = false;
  };
  show(await vfs.syncStatus());
  vfs.onSyncStatus(show);
}

// Asks the browser not to evict the disk under storage pressure (docs/storage.md, "Quota").
// The answer is kept by the browser; `df` and usage() report it as `persisted`. Firefox asks the
// user in a prompt, which headless Firefox never shows, so persist() never settles there
// (checked on firefox-esr 153.8.0esr): an answer not given within PERSIST_WAIT_MS counts as
// false, and a later grant shows in usage().persisted.
const PERSIST_WAIT_MS = 5_000;
async function askPersistence() {
  const storage = navigator.storage;
  let timer;
  try {
    if (!storage?.persist) return false;
    if (await storage.persisted?.()) return true;
    const unanswered = new Promise((resolve) => { timer = setTimeout(resolve, PERSIST_WAIT_MS, false); });
    return Boolean(await Promise.race([storage.persist(), unanswered]));
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

// The one way to run a shell line, shared by the terminal and window.pyvfs.shell: both drive
// the same shell in the worker, so a `cd` in one is seen by the other. The terminal passes
// {signal, onOutput, input, interactive, rows, cols} (its output streams in, colored: isatty;
// rows and cols: the terminal's size, which `less` pages by).
async function runLine(line, options = undefined) {
  const vfs = await ready;
  const result = await vfs.shell(line, options && { ...options, isatty: true });
  const stderr = openPreviews(result.open ?? [], result.stderr ?? "");
  session?.setCwd(result.cwd);
  showMounts(vfs);
  return { ...result, stderr };
}

// --- waiting mounts ------------------------------------------------------------------------
// A folder mounted in an earlier visit may need the user's consent again: one button per such
// mount asks for it (the click is the user activation the browser requires).

async function showMounts(vfs) {
  const bar = $("mounts");
  const mounts = await vfs.mounts().catch(() => []);
  window.pyvfs.workbench?.then(({ tree }) => tree.showMounts(mounts), () => {});
  const waiting = mounts.filter((m) => m.state === "waiting");
  bar.replaceChildren(...waiting.map((mount) => reconnectButton(vfs, mount)));
  bar.hidden = waiting.length === 0;
}

function reconnectButton(vfs, mount) {
  const button = document.createElement("button");
  button.type = "button";
  button.dataset.path = mount.path;
  button.textContent = `Reconnect folder “${mount.name}” at ${mount.path}`;
  button.addEventListener("click", async () => {
    button.disabled = true;
    try {
      await vfs.reconnect(mount.path);
      const name = shownName(mount.name) === mount.name ? `'${mount.name}'` : shownName(mount.name);
      session?.write(`reconnected ${name} at ${shownName(mount.path)}\n`);
    } catch (error) {
      button.title = describe(error);
    }
    await showMounts(vfs);
  });
  return button;
}

async function main() {
  const vfs = await ready;
  // Python's own answer (the worker's): it settles once Python is up, or rejects if it failed.
  // `ready` may resolve before it, when the page answers reads early (docs/boot.md).
  const python = vfs.diagnostics();
  const terminalModule = import("./terminal.mjs");
  let terminalStarted;
  const terminal = new Promise((resolve) => { terminalStarted = resolve; });
  showWorkbench(vfs, python.then(() => undefined), terminal);
  await python;
  // Loaded only now so that a broken terminal module still ends in a visible error.
  const { TerminalSession } = await terminalModule;
  const start = await startingPoint(vfs);
  $("boot").hidden = true;
  $("terminal").hidden = false;
  await showMounts(vfs);
  await showSync(vfs);
  startDataPanel(vfs, describe);
  const complete = (line, cursor) => vfs.complete(line, cursor);
  session = new TerminalSession($("terminal"), { run: runLine, complete, prompt, ...start });
  session.write(WELCOME);
  warnDataLoss((await python).dataLoss);
  session.start(start.cwd);
  session.focus();
  document.body.dataset.state = "ready";
  terminalStarted(session);
}

// The browser discarded the origin's IndexedDB as this page opened it (docs/storage.md, "When
// the browser discards the disk"): the disk starts over empty, and the user is told why.
function warnDataLoss(loss) {
  if (!loss || loss.at < performance.timeOrigin) return;
  const why = String(loss.message).replace(/[\u0000-\u001f\u007f-\u009f]/g, " ");
  session.write(`warning: the browser found this site's stored data damaged and discarded it (${why}): `
    + "the disk starts over empty. A browser killed while it wrote can leave its data so.\n");
}

// The workbench shows as soon as the disk answers reads, while Python may still boot: the tree
// lists through the early reads, and the boot's progress moves into the terminal's place
// (docs/workbench.md). Not awaited: the terminal never waits on the tree. `python` settles once
// Python is up; `terminal` resolves to the disk's terminal session once it has started.
function showWorkbench(vfs, python, terminal) {
  if (document.body.dataset.state === "booting") $("terminal").before($("boot"));
  $("workbench").hidden = false;
  python.catch(() => {}); // a failed boot is main's (showError)
  window.pyvfs.workbench = import("./workbench.mjs").then(({ startWorkbench }) =>
    startWorkbench(vfs, { terminal, describe, python, onMounts: () => showMounts(vfs) }));
  window.pyvfs.workbench.catch(showWorkbenchError);
}

// The terminal works on when the workbench fails; the failure shows in the files pane.
function showWorkbenchError(error) {
  console.error(error);
  $("files-status").dataset.state = "failed";
  $("files-status").textContent = `The file tree failed: ${describe(error)}`;
}

// Each interactive shell result carries the cwd, the history (read from ~/.history at the
// shell's start) and HOME; before the first command, ask with an empty line.
async function startingPoint(vfs) {
  try {
    const { cwd, history, home } = await vfs.shell("", { interactive: true });
    return { cwd: cwd || "/", history: history ?? [], home: home || "/" };
  } catch {
    return { cwd: "/", history: [], home: "/" };
  }
}

// Inside a scoop (`scoop NAME`) the prompt names it instead of the user; the cwd shows HOME as
// `~`, as bash's \w does (not when HOME is /), and a control character in it visible.
function prompt(cwd, scoop, home = "/") {
  const who = scoop ? `scoop:${scoop}` : "user";
  const inHome = home !== "/" && (cwd === home || cwd.startsWith(`${home}/`));
  const shown = shownName(inHome ? `~${cwd.slice(home.length)}` : cwd);
  return `\x1b[1;32m${who}@py_vfs\x1b[0m:\x1b[1;34m${shown}\x1b[0m$ `;
}

// --- boot panel ------------------------------------------------------------------------------

function stageItems() {
  return [...$("boot-stages").querySelectorAll("[data-stage]")];
}

function onProgress({ stage, message, loaded, total }) {
  if (document.body.dataset.state !== "booting") return;
  currentStage = stage;
  const items = stageItems();
  const index = items.findIndex((item) => item.dataset.stage === stage);
  if (index >= 0) {
    markStages(items, index, stage === "ready");
    setBar((index + fraction(loaded, total)) / (items.length - 1));
  }
  $("boot-message").textContent = (message || stage) + sizeNote(loaded, total);
}

function markStages(items, index, finished) {
  items.forEach((item, i) => {
    const done = i < index || (finished && i === index);
    item.className = done ? "done" : i === index ? "active" : "";
  });
}

function fraction(loaded, total) {
  return total > 0 && loaded >= 0 ? Math.min(loaded / total, 1) : 0;
}

function setBar(value) {
  barValue = Math.max(barValue, Math.min(value, 1));
  const percent = Math.round(barValue * 100);
  $("boot-bar-fill").style.width = `${percent}%`;
  $("boot-bar").setAttribute("aria-valuenow", String(percent));
}

function sizeNote(loaded, total) {
  if (!(loaded >= 0)) return "";
  return total > 0 ? ` (${megabytes(loaded)} / ${megabytes(total)} MB)` : ` (${megabytes(loaded)} MB)`;
}

function megabytes(bytes) {
  return (bytes / 1e6).toFixed(1);
}

function showError(error) {
  console.error(error);
  document.body.dataset.state = "error";
  $("workbench").hidden = true;
  document.body.prepend($("boot")); // out of the workbench, which hides
  $("boot").hidden = false;
  const failed = stageItems().find((item) => item.dataset.stage === currentStage);
  if (failed && failed.className !== "done") failed.className = "failed";
  $("boot-message").textContent = currentStage
    ? `py_vfs failed to start (during "${currentStage}")`
    : "py_vfs failed to start";
  $("boot-error").textContent = describe(error);
  $("boot-error").hidden = false;
}

function describe(error) {
  if (!error) return "unknown error";
  const code = error.code ? `${error.code}: ` : "";
  return code + (error.message || String(error));
}
