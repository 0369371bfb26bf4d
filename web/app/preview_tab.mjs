// Opens a preview in a new tab with no opener: the previewed page gets `window.opener === null`
// (COOP same-origin on the app severs it too). Opening about:blank first, then navigating it,
// keeps a way to tell a blocked popup (false) from an opened one, which "noopener" would hide.
export function openPreview(url) {
  const tab = window.open("", "_blank");
  if (!tab) return false;
  tab.opener = null;
  tab.location.href = url;
  return true;
}

// Opens the previews a shell line asked for (`open`, `serve`: its answer's `open`); each one
// the browser blocked is said on the line's standard error instead, with the URL to visit.
export function openPreviews(urls, stderr) {
  const blocked = urls.filter((url) => !openPreview(url));
  if (!blocked.length) return stderr;
  const notes = blocked.map((url) => `open: popup blocked; visit ${url}\n`).join("");
  return stderr && !stderr.endsWith("\n") ? `${stderr}\n${notes}` : stderr + notes;
}
