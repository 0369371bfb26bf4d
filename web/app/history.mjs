// The side panel's History tab (web/index.html, #history-panel): the disk's journal as a
// timeline with the disk as it was at any point (timeline.mjs, past_view.mjs) and, below it,
// the disk's storage (usage_panel.mjs). Their modules are loaded and started the first time the
// tab is shown, so nothing of the boot or of the file tree waits for them; a part that fails
// to start says so in its own place and the rest of the workbench goes on.

const $ = (id) => document.getElementById(id);

export function startHistory(vfs, { describe }) {
  const tabs = [$("side-files"), $("side-history")];
  let started = null;
  const start = () => {
    started ??= Promise.all([
      begin($("history-body"), async (body) => (await import("./timeline.mjs")).startTimeline(body, vfs, { describe }), describe),
      begin($("usage-body"), async (body) => (await import("./usage_panel.mjs")).startUsagePanel(body, vfs, { describe }), describe),
    ]);
    return started;
  };
  const show = (tab) => {
    for (const other of tabs) {
      const chosen = other === tab;
      other.setAttribute("aria-selected", String(chosen));
      other.tabIndex = chosen ? 0 : -1;
      $(other.getAttribute("aria-controls")).hidden = !chosen;
    }
    if (tab === tabs[1]) start();
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
  return { show: () => show(tabs[1]), started: () => start() };
}

// Starts one part in `body`; a failure is shown there (the part's module could not load or
// start), never thrown at the workbench.
async function begin(body, start, describe) {
  try {
    return await start(body);
  } catch (error) {
    console.error(error);
    body.textContent = `This panel could not start: ${describe(error)}`;
    return null;
  }
}
