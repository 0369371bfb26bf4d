// The npm package's entry for apps built with a bundler (`import { openVFS } from "py-vfs"`;
// docs/package.md). The runtime (pyvfs.mjs, its worker, Pyodide, the wheels...) finds its
// files beside itself (import.meta.url), which a bundler would move or rename; so the app
// serves the package's files as they are, in a folder of its site (default /pyvfs/, or the
// `content` of a <meta name="pyvfs-assets"> in the page), and this module loads pyvfs.mjs from
// there: every export below is the runtime's own (the same classes, for instanceof).

const ASSETS = "/pyvfs/";

function assetsUrl() {
  const meta = globalThis.document?.querySelector?.('meta[name="pyvfs-assets"]');
  const folder = meta?.content || ASSETS;
  return new URL(folder.endsWith("/") ? folder : `${folder}/`, globalThis.location.href);
}

const runtime = await import(/* @vite-ignore */ new URL("pyvfs.mjs", assetsUrl()).href);

export const { AbortError, Dirent, Stats, VFS, agentTools, openVFS, pickDirectory, viewOf } = runtime;
