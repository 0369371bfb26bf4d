// The app page's export and import panel (web/index.html, #data): download a tree as a zip or a
// SQLite image, upload one into a directory, with progress (bytes done / total) on the page.
// The work is the worker's (vfs.export, vfs.import); the page only pipes bytes, so it stays
// responsive whatever the size.
//
// Download: save_file.mjs (into a chosen file where the browser can, else a Blob URL).

import { pickSaveFile, saveStream } from "./save_file.mjs";

const $ = (id) => document.getElementById(id);

export function startDataPanel(vfs, describe) {
  $("export-form").addEventListener("submit", (event) => {
    event.preventDefault();
    run(() => download(vfs), describe);
  });
  $("import-form").addEventListener("submit", (event) => {
    event.preventDefault();
    run(() => upload(vfs), describe);
  });
  $("data").hidden = false;
}

// One transfer at a time: the forms are disabled while it runs; the outcome is shown in
// #data-status, whose data-state ("running", "done", "failed") tests wait for.
async function run(transfer, describe) {
  const forms = [$("export-form"), $("import-form")];
  for (const form of forms) form.inert = true;
  status("running", "Starting…");
  try {
    status("done", await transfer());
  } catch (error) {
    status("failed", describe(error));
  } finally {
    for (const form of forms) form.inert = false;
  }
}

function status(state, text) {
  const output = $("data-status");
  output.dataset.state = state;
  output.textContent = text;
}

// Shows `done` of `total` bytes in the bar and the status line (`about`: the total is an
// estimate, the export's content size).
function progress(verb, done, total, about) {
  const bar = $("data-bar");
  bar.max = Math.max(total, done, 1);
  bar.value = done;
  status("running", `${verb} ${megabytes(done)} MB of ${about ? "about " : ""}${megabytes(total)} MB`);
}

// `stream` passed through, its bytes counted into `seen.bytes` and shown as progress.
function counted(stream, seen, verb, total, about = false) {
  return stream.pipeThrough(new TransformStream({
    transform(piece, controller) {
      seen.bytes += piece.byteLength;
      progress(verb, seen.bytes, total, about);
      controller.enqueue(piece);
    },
  }));
}

async function download(vfs) {
  const path = $("export-path").value || "/";
  const format = $("export-format").value;
  const name = `${path.split("/").filter(Boolean).pop() ?? "disk"}.${format === "sqlite" ? "db" : "zip"}`;
  const handle = await pickSaveFile(name);  // first, while the click's user activation holds
  // The content's size: a zip is about that (less when it compresses), an image a bit more.
  const total = await vfs.du(path).catch(() => 0);
  const seen = { bytes: 0 };
  const stream = counted(vfs.export(path, { format }), seen, "Exported", total, true);
  await saveStream(handle, stream, name);
  return `Exported ${path} as ${name}: ${megabytes(seen.bytes)} MB (${megabytes(total)} MB of content)`;
}

async function upload(vfs) {
  const file = $("import-file").files[0];
  if (!file) throw new Error("choose an archive first");
  const into = $("import-into").value || "/";
  const chosen = $("import-format").value;
  const format = chosen === "auto" ? (/\.(db|sqlite)$/i.test(file.name) ? "sqlite" : "zip") : chosen;
  const stream = counted(file.stream(), { bytes: 0 }, "Uploaded", file.size);
  const counts = await vfs.import(stream, { format, into });
  return `Imported ${file.name} into ${into}: ${counts.files} files, ${counts.directories} directories, ` +
    `${counts.symlinks} symlinks, ${megabytes(counts.bytes)} MB`;
}

function megabytes(bytes) {
  return (bytes / 1e6).toFixed(1);
}
