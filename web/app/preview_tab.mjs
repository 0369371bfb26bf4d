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
