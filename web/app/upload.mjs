// Files and folders dropped on the file tree from the desktop are written into the folder
// dropped on (a file's folder; the disk's root on empty space), all or nothing: one vfs.step,
// so a failure (a name that exists, the quota) leaves nothing written. Progress (files and
// bytes) shows in #files-status.
//
// A dropped folder is read through its FileSystemDirectoryEntry (webkitGetAsEntry), which
// must be asked for during the drop event itself; a DataTransfer without entries (one a script
// made) gives its files alone.

import { join, parentOf } from "./tree_view.mjs";

export function startUpload(tree, vfs, { status, describe }) {
  const element = tree.element;
  let marked = null;
  const mark = (target) => {
    marked?.classList.remove("drop-target");
    marked = target;
    marked?.classList.add("drop-target");
  };
  const targetOf = (event) => {
    const row = event.target.closest?.(".tree-row");
    if (!row) return { dir: "/", shown: element };
    const path = row.dataset.path;
    const dir = row.dataset.kind === "directory" ? path : parentOf(path);
    return { dir, shown: tree.rowOf(dir) ?? element };
  };
  element.addEventListener("dragover", (event) => {
    if (!event.dataTransfer?.types.includes("Files")) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = "copy";
    mark(targetOf(event).shown);
  });
  element.addEventListener("dragleave", (event) => {
    if (!element.contains(event.relatedTarget)) mark(null);
  });
  element.addEventListener("drop", (event) => {
    if (!event.dataTransfer?.types.includes("Files")) return;
    event.preventDefault();
    mark(null);
    const { dir } = targetOf(event);
    const sources = sourcesOf(event.dataTransfer);
    upload(tree, vfs, dir, sources, status).catch((error) => {
      // The quota (the step's commit refused by the store) is said in words, not only a code.
      const why = error?.code === "ENOSPC" ? "not enough storage space (ENOSPC)" : describe(error);
      status("failed", `Upload failed, nothing was written: ${why}`);
    });
  });
}

// What was dropped, taken during the event: entries where the browser gives them, else files.
function sourcesOf(dataTransfer) {
  const entries = [...dataTransfer.items].filter((item) => item.kind === "file")
    .map((item) => item.webkitGetAsEntry?.() ?? item.getAsFile());
  return entries.filter(Boolean);
}

async function upload(tree, vfs, dir, sources, status) {
  status("running", "Reading what was dropped…");
  const files = [];
  for (const source of sources) await collect(source, "", files);
  const total = files.reduce((sum, { file }) => sum + file.size, 0);
  const bar = document.createElement("progress");
  bar.max = Math.max(files.length, 1);
  bar.setAttribute("aria-label", "Upload progress");
  let done = 0;
  await vfs.step(async (tx) => {
    for (const { path, file } of files) {
      const dest = join(dir, path);
      await tx.mkdir(parentOf(dest), { recursive: true });
      await tx.writeFile(dest, new Uint8Array(await file.arrayBuffer()), { flag: "wx" });
      bar.value = ++done;
      status("running", `Uploading ${done} of ${files.length} files into ${dir}`, bar);
    }
  });
  status("done", `Uploaded ${files.length} files (${total.toLocaleString()} bytes) into ${dir}`);
  if (files.length) await tree.reveal(join(dir, files[0].path.split("/")[0]));
}

// Appends {path, file} for `source` (a File, a file entry or a directory entry, read whole)
// under the relative folder `prefix`.
async function collect(source, prefix, files) {
  if (source instanceof File) {
    files.push({ path: prefix + source.name, file: source });
  } else if (source.isFile) {
    files.push({ path: prefix + source.name, file: await new Promise((ok, fail) => source.file(ok, fail)) });
  } else if (source.isDirectory) {
    const reader = source.createReader();
    for (;;) {
      const batch = await new Promise((ok, fail) => reader.readEntries(ok, fail));
      if (!batch.length) break;
      for (const entry of batch) await collect(entry, `${prefix}${source.name}/`, files);
    }
  }
}
