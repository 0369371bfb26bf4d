// Saving bytes the page made (an export, a downloaded file) as a file of the user's.
//
// With showSaveFilePicker (Chromium), the stream goes straight into the chosen file
// (FileSystemWritableFileStream), so the page never holds it whole. Without it (Firefox,
// Safari), a Blob is built from the stream and saved through a Blob URL: the browser's Blob
// storage holds it whole (Chromium spills large Blobs to disk) before the save starts. A test
// replaces window.__pickSaveFile (an OPFS file handle) as it does the folder picker of `mount`;
// setting it to null takes the Blob URL way.

// The file to save into, asked while the click's user activation holds (null: a Blob URL).
export async function pickSaveFile(name) {
  const pick = "__pickSaveFile" in window ? window.__pickSaveFile : window.showSaveFilePicker?.bind(window);
  return pick ? pick({ suggestedName: name }) : null;
}

// Writes `stream` into `handle` (from pickSaveFile), or saves it as `name` through a Blob URL.
export async function saveStream(handle, stream, name) {
  if (handle) {
    await stream.pipeTo(await handle.createWritable());
  } else {
    saveBlob(await new Response(stream).blob(), name);
  }
}

function saveBlob(blob, name) {
  const url = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = url;
  link.download = name;
  link.click();
  // The download has its own reference once it started; the page lets go of the URL.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
