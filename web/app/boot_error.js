// If app.mjs or a module it imports fails to load or to parse, app.mjs never runs and so
// cannot report it; report it here so that the page is never blank.
addEventListener("error", (event) => {
  const state = document.body.dataset.state;
  const failedScript = event.target instanceof HTMLScriptElement;
  if (state !== "booting" || !(failedScript || event instanceof ErrorEvent)) return;
  const message = failedScript
    ? `could not load ${event.target.src} or a module it imports`
    : `${event.message} (${event.filename}:${event.lineno})`;
  document.body.dataset.state = "error";
  document.getElementById("boot").hidden = false;
  document.getElementById("boot-message").textContent = "py_vfs failed to start";
  const box = document.getElementById("boot-error");
  box.textContent = message;
  box.hidden = false;
}, true);
