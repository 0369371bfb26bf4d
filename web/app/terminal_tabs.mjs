// The terminal panel's tabs (web/index.html, #terminal): the first is the disk's own shell
// (app.mjs's TerminalSession), each other one a shell inside one scoop. A scoop's tab runs its
// lines on `vfs.scoop(name)`, the restricted view of /scoops/NAME and /shared whose changes are
// made by `scoop:NAME` (docs/sandbox.md): nothing outside can be seen or reached from it. Its
// shell is the view's own (its cwd, variables and history are its own; HOME is the scoop's
// home, so its history is kept there), started in the scoop's workspace as `scoop NAME` does.
//
// A scoop opens from the tree ("Open in terminal" on a row in /scoops/NAME) or from the panel
// ("Open scoop…": a name, a known one offered). Keys in the tab list: Left/Right, Home/End
// choose a tab, Enter or Space goes to its terminal, Delete closes it (not the first).

import { isNarrow, showView } from "./layout.mjs";
import { shownName } from "./line_tools.mjs";
import { openPreviews } from "./preview_tab.mjs";
import { TerminalSession } from "./terminal.mjs";

const SCOOP_PATH = /^\/scoops\/([^/]+)/;

// The scoop a path is in (`/scoops/NAME` or below it), or null.
export function scoopOf(path) {
  return SCOOP_PATH.exec(path ?? "")?.[1] ?? null;
}

// `name` as one shell word (single quotes; a quote in it closed, escaped and reopened).
function quoted(name) {
  return `'${name.replaceAll("'", "'\\''")}'`;
}

function element(tag, className, text = "") {
  const node = document.createElement(tag);
  node.className = className;
  node.textContent = text;
  return node;
}

function button(text, title) {
  const node = element("button", "", text);
  node.type = "button";
  node.title = title;
  return node;
}

let panelIds = 0;

export class TerminalTabs {
  // `pane`: #terminal; `first`: the disk's session, drawn in it; `describe(error)` words an error.
  constructor(pane, first, vfs, { describe }) {
    Object.assign(this, { pane, first, vfs, describe, tabs: [], active: null, opening: new Map() });
    this.bar = element("div", "terminal-bar");
    this.list = element("div", "terminal-tabs");
    this.list.setAttribute("role", "tablist");
    this.list.setAttribute("aria-label", "Terminals");
    this.list.addEventListener("keydown", (event) => this.tabKey(event));
    this.closeButton = button("Close", "Close this terminal tab (Delete in the tab list)");
    this.closeButton.addEventListener("click", () => this.close(this.active));
    this.openButton = button("Open scoop\u2026", "Open a scoop in a terminal tab of its own");
    this.openButton.setAttribute("aria-expanded", "false");
    this.openButton.addEventListener("click", () => this.askName());
    this.form = this.nameForm();
    this.status = element("output", "terminal-status");
    this.status.setAttribute("role", "status");
    this.bar.append(this.list, this.closeButton, this.openButton, this.form, this.status);
    pane.classList.add("with-tabs");
    pane.prepend(this.bar);
    // The disk's terminal moves into the first panel; moving it takes its focus away, which
    // is given back so that nothing typed meanwhile is lost.
    const panel = this.panel();
    const focused = first.term.element.contains(document.activeElement);
    panel.append(first.term.element);
    if (focused) first.focus();
    this.add({ session: first, panel, label: "disk", title: "The whole disk's shell" });
  }

  // Fits the terminal shown to its panel.
  fit() {
    this.active?.session.fit();
  }

  panel() {
    const panel = element("div", "terminal-panel");
    panel.id = `terminal-panel-${++panelIds}`;
    panel.setAttribute("role", "tabpanel");
    this.pane.append(panel);
    return panel;
  }

  add(tab) {
    tab.button = element("button", "terminal-tab", tab.label);
    tab.button.type = "button";
    tab.button.id = `${tab.panel.id}-tab`;
    tab.button.title = tab.title;
    tab.button.setAttribute("role", "tab");
    tab.button.setAttribute("aria-controls", tab.panel.id);
    tab.panel.setAttribute("aria-labelledby", tab.button.id);
    tab.button.addEventListener("click", () => this.activate(tab));
    tab.button.addEventListener("auxclick", (event) => event.button === 1 && this.close(tab));
    this.list.append(tab.button);
    this.tabs.push(tab);
    this.activate(tab);
    return tab;
  }

  activate(tab, { focus = false } = {}) {
    this.active = tab;
    for (const other of this.tabs) {
      const chosen = other === tab;
      other.button.setAttribute("aria-selected", String(chosen));
      other.button.tabIndex = chosen ? 0 : -1;
      other.panel.hidden = !chosen;
    }
    this.closeButton.disabled = tab === this.tabs[0];
    tab.session.fitWhenLaidOut();
    if (focus) tab.session.focus();
  }

  tabKey(event) {
    const at = this.tabs.findIndex((tab) => tab.button === event.target);
    if (at < 0) return;
    const last = this.tabs.length - 1;
    const to = { ArrowLeft: at === 0 ? last : at - 1, ArrowRight: at === last ? 0 : at + 1, Home: 0, End: last }[event.key];
    if (to !== undefined) {
      this.activate(this.tabs[to]);
      this.tabs[to].button.focus();
    } else if (event.key === "Enter" || event.key === " ") {
      this.activate(this.tabs[at], { focus: true });
    } else if (event.key === "Delete" && at > 0) {
      this.close(this.tabs[at]);
      this.active.button.focus();
    } else {
      return;
    }
    event.preventDefault();
  }

  close(tab) {
    const at = this.tabs.indexOf(tab);
    if (at <= 0) return; // the disk's own shell stays
    this.tabs.splice(at, 1);
    tab.button.remove();
    tab.panel.remove();
    tab.session.dispose();
    tab.view.close().catch(() => {});
    if (this.active === tab) this.activate(this.tabs[Math.min(at, this.tabs.length - 1)]);
  }

  // The tab of the scoop `name` (opened once: a second call, even while the first is opening
  // it, shows that tab), its terminal focused.
  async openScoop(name) {
    const known = this.tabs.find((tab) => tab.scoop === name);
    if (known) {
      this.activate(known, { focus: true });
      return known;
    }
    if (!this.opening.has(name)) {
      this.opening.set(name, this.newScoopTab(name).finally(() => this.opening.delete(name)));
    }
    return this.opening.get(name);
  }

  async newScoopTab(name) {
    const view = await this.vfs.scoop(name);
    try {
      const home = `/scoops/${quoted(name)}`;
      await view.shell(`cd ${home}/workspace && export HOME=${home}/home`);
      const start = await view.shell("", { interactive: true });
      const panel = this.panel();
      const session = new TerminalSession(panel, {
        run: (line, options) => runIn(view, line, options),
        complete: (line, cursor) => view.complete(line, cursor),
        prompt: (cwd, _scoop, home) => this.first.prompt(cwd, name, home),
        cwd: start.cwd, history: start.history ?? [], home: start.home,
      });
      const tab = this.add({ session, panel, view, scoop: name, label: `scoop:${shownName(name)}`,
        title: `A shell inside the scoop ${shownName(name)}: it sees /scoops/${shownName(name)} and /shared only` });
      session.start(start.cwd);
      this.activate(tab, { focus: true });
      return tab;
    } catch (error) {
      await view.close().catch(() => {});
      throw error;
    }
  }

  // Opens the scoop and shows the terminal (on a narrow screen, its panel); a failure is said
  // in the panel's status line.
  async show(name) {
    const workbench = document.getElementById("workbench");
    if (isNarrow()) showView(workbench, "terminal");
    this.status.textContent = "";
    try {
      await this.openScoop(name);
    } catch (error) {
      this.status.textContent = `Scoop ${shownName(name)} not opened: ${this.describe(error)}`;
    }
  }

  // "Open scoop…": a name, with the scoops there are offered; Enter opens, Escape cancels.
  nameForm() {
    const form = element("form", "terminal-open");
    form.hidden = true;
    const input = element("input", "");
    input.setAttribute("aria-label", "Scoop name");
    input.spellcheck = false;
    input.setAttribute("list", "terminal-scoops");
    const known = element("datalist", "");
    known.id = "terminal-scoops";
    const open = element("button", "", "Open");
    open.type = "submit";
    const cancel = button("Cancel", "Open no scoop");
    form.append(input, known, open, cancel);
    const done = () => {
      form.hidden = true;
      this.openButton.setAttribute("aria-expanded", "false");
    };
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const name = input.value.trim();
      if (!name) return;
      done();
      this.show(name);
    });
    cancel.addEventListener("click", () => {
      done();
      this.openButton.focus();
    });
    form.addEventListener("keydown", (event) => {
      if (event.key !== "Escape") return;
      event.preventDefault();
      cancel.click();
    });
    this.input = input;
    this.known = known;
    return form;
  }

  async askName() {
    this.form.hidden = false;
    this.openButton.setAttribute("aria-expanded", "true");
    this.input.value = "";
    this.input.focus();
    const entries = await this.vfs.readdir("/scoops", { withFileTypes: true }).catch(() => []);
    this.known.replaceChildren(...entries.filter((entry) => entry.isDirectory()).map((entry) => {
      const option = document.createElement("option");
      option.value = entry.name;
      return option;
    }));
  }

  // "Open in terminal" in the file tree's toolbar: enabled on a row in a scoop's folder.
  attachTree(tree) {
    const action = button("Open in terminal", "Open this scoop in a terminal tab of its own");
    action.dataset.termAction = "open-scoop";
    const update = () => {
      action.disabled = scoopOf(tree.focused) === null;
    };
    action.addEventListener("click", () => {
      const name = scoopOf(tree.focused);
      if (name !== null) this.show(name);
    });
    tree.element.addEventListener("focusin", update);
    update();
    document.querySelector('#files-pane .toolbar[aria-label="File actions"]').append(action);
  }
}

// A line of a scoop's tab, run by its view's shell (app.mjs's runLine is the disk's).
async function runIn(view, line, options) {
  const result = await view.shell(line, options && { ...options, isatty: true });
  return { ...result, stderr: openPreviews(result.open ?? [], result.stderr ?? "") };
}
