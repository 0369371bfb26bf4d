// The JS API object that openVFS() resolves to (web/pyvfs.mjs), in node:fs/promises shape (its
// Stats and Dirent: web/page/entries.mjs; its stream sessions: web/page/streams.mjs). Every
// method is one round trip to the worker, but stat, lstat, exists and readdir, which the page's
// stat cache may answer (web/page/stat_cache.mjs). Arguments are checked here, as Node checks them,
// before anything is sent (web/page/validate.mjs). Every method is documented in docs/api.md
// (tests/e2e/test_js_api.py fails on one that is not).

import { viewClient } from "./page/client.mjs";
import { fsError, toError } from "./shared/errors.mjs";
import { lastDataLoss } from "./shared/idb.mjs";
import { ensurePermission } from "./page/mount_store.mjs";
import { CHUNK_SIZE, DEFAULT_WRITER, FS_CONSTANTS, OPS } from "./shared/protocol.mjs";
import { ShellStreams, pulled, pushed } from "./page/streams.mjs";
import { checkCall, checkFlags, checkSignal, checkWriter, invalidArgType, isStream, KINDS, takeSignal, throwIfAborted } from "./page/validate.mjs";
import { Dirent, Stats } from "./page/entries.mjs";
import { FileHandle, openDir } from "./page/file_handle.mjs";
import { watchEvents } from "./page/watch_events.mjs";
import { PastDisk } from "./page/past.mjs";

export { Dirent, Stats };

// The JS API, in node:fs/promises shape. Every method is one round trip to the worker, but
// stat, lstat, exists and readdir, which the page's stat cache may answer (web/page/stat_cache.mjs).
// Inside `vfs.step(fn)`, `fn` gets a VFS bound to the step (same methods), whose calls go to
// the worker as stepOp messages. Every call names its writer (`vfs.as(writer)`): who its
// changes are made by, recorded on the files and in the journal.
export class VFS {
  #instance;
  #stepId;
  #writer;
  constructor(instance, stepId = null, writer = DEFAULT_WRITER) {
    this.#instance = instance;
    this.#stepId = stepId;
    this.#writer = writer;
    this.name = instance.name;
    this.writer = writer;
  }
  // The same API (same disk, same worker) with every change made by `writer`, including the
  // steps and write streams opened through it.
  as(writer) {
    if (this.#stepId !== null) throw fsError("EINVAL", "EINVAL: as() outside the step", { syscall: "as" });
    return new VFS(this.#instance, null, checkWriter(writer, "writer"));
  }
  // A view of this disk limited to the subtrees `read` and `write` (writable is readable too):
  // reads outside find nothing (ENOENT), writes outside are EACCES, and nothing it holds leads
  // back to the disk (docs/sandbox.md). From a view, a narrower view. `writer`: who its
  // changes are made by.
  async restrict({ read = [], write = [], writer, signal } = {}) {
    if (this.#stepId !== null) throw fsError("EINVAL", "EINVAL: restrict() outside the step", { syscall: "restrict" });
    const port = await this.#call("restrict", { read, write, signal, ...(writer === undefined ? {} : { writer }) });
    return new VFS(viewClient(port), null, writer ?? this.#writer);
  }
  // The scoop `name`'s view: /scoops/<name> (made with workspace, home, tmp) and /shared,
  // nothing else, written as "scoop:<name>". `network: true` lets its shell's curl and wget
  // reach the network (off by default).
  async scoop(name, { signal, network } = {}) {
    if (this.#stepId !== null) throw fsError("EINVAL", "EINVAL: scoop() outside the step", { syscall: "scoop" });
    const port = await this.#call("scoop", name, { signal, ...(network === undefined ? {} : { network }) });
    return new VFS(viewClient(port), null, `scoop:${name}`);
  }
  // A MessagePort to post (transfer) to a Web Worker, where `viewOf(port)` is this view again:
  // the same scope, and nothing more. Of the disk itself, a view of the whole disk.
  transferable({ signal } = {}) { return this.#call("restrict", { signal }); }
  // Checks the arguments of `op` (declared in py_vfs/web/protocol.py) and sends it; a bad argument
  // or an aborted signal rejects at once, and nothing reaches the worker.
  // `streams` (shell only): the call's output and input (ShellStreams).
  #call(op, ...args) {
    let sent, signal, streams;
    if (args.at(-1) instanceof ShellStreams) streams = args.pop();
    try {
      ({ args, signal } = takeSignal(op, args));
      throwIfAborted(signal);
      sent = checkCall(op, args);
    } catch (error) {
      return Promise.reject(error);
    }
    if (this.#stepId !== null && !streams) return this.#instance.call("stepOp", [this.#stepId, op, ...sent], undefined, this.#writer, signal);
    // A read the page's stat cache may answer (not a step's: those see the step's own changes);
    // it is over too soon to be cancelled.
    const pending = OPS[op].cached && !streams ? this.#instance.cached(op, sent[0])
      : this.#instance.call(op, sent, undefined, this.#writer, signal, streams);
    if (this.#instance.openSteps > 0) warnIfStuck(pending, op);
    return pending;
  }

  // Runs `fn(tx)`: every operation on `tx` commits together when `fn` resolves (one IndexedDB
  // transaction), or none does when it throws. Other calls on this VFS in this page wait until
  // the step ends, so `fn` must use `tx`, never the outer `vfs` (that would wait for itself).
  async step(fn, { signal } = {}) {
    throwIfAborted(checkSignal(signal));
    if (this.#stepId !== null) throw fsError("EINVAL", "EINVAL: steps do not nest", { syscall: "step" });
    if (typeof fn !== "function") throw invalidArgType("fn", "of type function", fn);
    // Other calls of this page wait in the worker while the step is open: no cached answer
    // may overtake them.
    const cache = this.#instance.cache;
    cache.hold();
    try {
      return await this.#run(fn);
    } finally {
      cache.settle();
    }
  }
  async #run(fn) {
    const id = await this.#instance.call("stepBegin", [], undefined, this.#writer);
    this.#instance.openSteps++;
    let result;
    try {
      result = await fn(new VFS(this.#instance, id, this.#writer));
    } catch (error) {
      this.#instance.openSteps--;
      await this.#instance.call("stepEnd", [id, false]).catch(() => {});
      throw error;
    }
    this.#instance.openSteps--;
    await this.#instance.call("stepEnd", [id, true]);
    return result;
  }

  // Calls `listener({type, path, oldPath?, kind})` for changes at `path` (a directory: also its
  // entries; `recursive`: everything below), made in this tab, in other tabs, or by steps.
  // Returns the unsubscribe function; its `ready` promise resolves once the worker listens.
  // `signal`: aborting it unsubscribes (as Node's fs.watch stops); already aborted, nothing is
  // watched.
  // Without a listener (`watch(path, {signal, recursive})`), Node's async iterator of
  // {eventType: "rename" | "change", filename} (web/page/watch_events.mjs).
  watch(path, listener, options) {
    if (this.#stepId !== null) throw fsError("EINVAL", "EINVAL: watch outside the step", { syscall: "watch" });
    if (listener === undefined || (listener !== null && typeof listener === "object" && options === undefined)) {
      const { signal, ...rest } = listener ?? {};
      const root = KINDS.path(path, "path");
      return watchEvents((push) => this.watch(root, push, rest), root, checkSignal(signal));
    }
    if (typeof listener !== "function") throw invalidArgType("listener", "of type function", listener);
    const { args: [, , plain], signal } = takeSignal("watch", [0, path, options]);
    const [, checked, watchOptions = {}] = checkCall("watch", [0, path, plain]);
    throwIfAborted(signal);
    const instance = this.#instance;
    const id = instance.nextId++;
    instance.watchers.set(id, listener);
    const ready = instance.call("watch", [id, checked, watchOptions]).catch((error) => {
      instance.watchers.delete(id);
      console.error("py_vfs watch failed", error);
    });
    const unsubscribe = () => {
      if (!instance.watchers.delete(id)) return Promise.resolve();
      return instance.call("unwatch", [id]).then(() => undefined);
    };
    unsubscribe.ready = ready.then(() => undefined);
    signal?.addEventListener("abort", unsubscribe, { once: true });
    return unsubscribe;
  }

  // open(path, flags = "r", mode): a FileHandle (web/page/file_handle.mjs) on a descriptor the
  // worker keeps (py_vfs/web/file_handles.py); its writes are durable at sync() and close().
  async open(path, flags = "r", mode) {
    if (this.#stepId !== null) throw fsError("EINVAL", "EINVAL: open outside the step", { syscall: "open" });
    checkFlags(flags ?? "r");
    const call = (op, ...args) => this.#call(op, ...args);
    return new FileHandle(call, await call("fileOpen", path, flags ?? "r", mode));
  }
  // opendir(path): a Dir of the directory's entries (listed when it opens).
  opendir(path, options) {
    return openDir((at) => this.readdir(at, { withFileTypes: true }), path, options);
  }
  readFile(path, options) { return this.#call("readFile", path, options); }
  // data may also be a ReadableStream (or any async iterable) of bytes or strings: it is sent
  // on in pieces of about one chunk, and the file appears whole when the stream ends.
  // Every flag of Node's ("wx", "r+", "a"...) and encoding ("hex", "base64"...) is honoured
  // (py_vfs/web/open_flags.py, encodings.py).
  async writeFile(path, data, options) {
    if (isStream(data)) return this.#writeStream(path, data, options);
    await this.#call("writeFile", path, data, options);
  }
  appendFile(path, data, options) { return this.#call("appendFile", path, data, options).then(() => undefined); }
  truncate(path, length = 0, opts) { return this.#call("truncate", path, length, opts).then(() => undefined); }
  // {recursive: true} resolves to the first directory made (undefined when none was).
  mkdir(path, options) { return this.#call("mkdir", path, options).then((first) => first ?? undefined); }
  rm(path, options) { return this.#call("rm", path, options).then(() => undefined); }
  rmdir(path, options) { return this.#call("rmdir", path, options).then(() => undefined); }
  unlink(path, opts) { return this.#call("unlink", path, opts).then(() => undefined); }
  rename(oldPath, newPath, opts) { return this.#call("rename", oldPath, newPath, opts).then(() => undefined); }
  // mode: fs.constants.COPYFILE_EXCL (EEXIST when dst exists), COPYFILE_FICLONE (a copy),
  // COPYFILE_FICLONE_FORCE (ENOTSUP: no reflinks here).
  copyFile(src, dst, mode, opts) { return this.#call("copyFile", src, dst, mode, opts).then(() => undefined); }
  cp(src, dst, options) { return this.#call("cp", src, dst, options).then(() => undefined); }
  symlink(target, path, type, opts) { return this.#call("symlink", target, path, type, opts).then(() => undefined); }
  readlink(path, options) { return this.#call("readlink", path, options); }
  realpath(path, options) { return this.#call("realpath", path, options); }
  chmod(path, mode, opts) { return this.#call("chmod", path, mode, opts).then(() => undefined); }
  utimes(path, atime, mtime, opts) { return this.#call("utimes", path, atime, mtime, opts).then(() => undefined); }
  exists(path, opts) { return this.#call("exists", path, opts); }
  // node:fs's fs.constants (Linux's values): F_OK, R_OK, W_OK, X_OK, O_*, S_*, COPYFILE_*.
  get constants() { return FS_CONSTANTS; }
  // More of node:fs/promises (py_vfs/web/node_calls.py): the owner's permission bits, a new
  // directory prefix+6 characters, owners (only OWNER_ID or -1: one user), times of the entry
  // itself (ENOTSUP on a link), the disk's blocks and files, hard links (EPERM: none here).
  access(path, mode, opts) { return this.#call("access", path, mode, opts).then(() => undefined); }
  mkdtemp(prefix, options) { return this.#call("mkdtemp", prefix, options); }
  chown(path, uid, gid, opts) { return this.#call("chown", path, uid, gid, opts).then(() => undefined); }
  lchown(path, uid, gid, opts) { return this.#call("lchown", path, uid, gid, opts).then(() => undefined); }
  lutimes(path, atime, mtime, opts) { return this.#call("lutimes", path, atime, mtime, opts).then(() => undefined); }
  statfs(path, options) { return this.#call("statfs", path, options); }
  link(existingPath, newPath, opts) { return this.#call("link", existingPath, newPath, opts).then(() => undefined); }
  walk(path = "/", opts) { return this.#call("walk", path, opts); }
  du(path = "/", opts) { return this.#call("du", path, opts); }
  ls(prefix = "/", opts) { return this.#call("ls", prefix, opts); }
  find(directory = "/", pattern = null, opts) { return this.#call("find", directory, pattern, opts); }
  glob(pattern, opts) { return this.#call("glob", pattern, opts); }
  grep(pattern, path = "/", options = {}) { return this.#call("grep", pattern, path, options); }
  // Read-only SQL over the disk's metadata (docs/data.md): {columns, rows, truncated}.
  query(sql, params, options) { return this.#call("query", sql, params, options); }
  // The journal, newest first: [{revision, time, timeMs, writer, operation, operations, paths}]
  // (docs/data.md), filtered by {since, until} (a Date, ms or ISO text), writer and path.
  journal(options) { return this.#call("journal", options); }
  // Snapshots: a name for the whole tree as it is now (no content copied).
  snapshot(name, opts) { return this.#call("snapshot", name, opts); }
  snapshots(opts) { return this.#call("snapshots", opts); }
  deleteSnapshot(name, opts) { return this.#call("deleteSnapshot", name, opts).then(() => undefined); }
  // A state is a snapshot name, a revision number, {revision} or {before}; `b` defaults to now.
  diff(a, b, opts) { return this.#call("diff", a, b, opts); }
  restore(state, options) { return this.#call("restore", state, options); }
  // The disk as it was in `state` (as for diff), read only: readFile, readdir, stat, lstat,
  // readlink, realpath and exists, each answered from that state (web/page/past.mjs).
  at(state) {
    if (this.#stepId !== null) throw fsError("EINVAL", "EINVAL: at() outside the step", { syscall: "at" });
    return new PastDisk((call, path, options) => this.#call("readAt", state, call, path, ...(options === undefined ? [] : [options])), state);
  }
  stat(path, options) { return this.#stat("stat", path, options); }
  lstat(path, options) { return this.#stat("lstat", path, options); }
  // A stat the page's stat cache knows is answered at once, without the general call path
  // (a walk stats every entry it listed): the cache holds no key a caller's check would refuse
  // (each came from a checked call or from a listing of the disk).
  async #stat(op, path, options) {
    const instance = this.#instance;
    if (options === undefined && this.#stepId === null && typeof path === "string" && !instance.closed) {
      const known = instance.cache.answer?.(op, path);
      if (known?.error) throw toError(known.error);
      if (known) return new Stats(known.value);
    }
    return new Stats(await this.#call(op, path, options));
  }
  async readdir(path, options) {
    const withTypes = options?.withFileTypes;
    if (options?.recursive) {
      const entries = await this.#call("readdirTree", path, options);
      return withTypes ? entries.map((raw) => new Dirent(raw)) : entries;
    }
    if (this.#stepId !== null) {
      const entries = await this.#call("readdir", path, options);
      return withTypes ? entries.map((raw) => new Dirent(raw)) : entries;
    }
    const listing = await this.#call("readdir", path, options); // a Listing (web/page/listing.mjs)
    return withTypes ? listing.dirents() : listing.nameList();
  }
  // A ReadableStream<Uint8Array> of the bytes from start to end, both inclusive as in Node's
  // fs.createReadStream. It reads the version of the file current when it opens and pulls one
  // chunk (at most 512 KiB) per read, so a file of any size passes through a few chunks at a time.
  // `signal`: aborting it errors the stream with an AbortError and frees the worker's side.
  createReadStream(path, { start = 0, end, signal } = {}) {
    KINDS.path(path, "path");
    checkSignal(signal);
    const call = (op, ...args) => this.#call(op, ...args);
    const range = end === undefined || end === Infinity ? [] : [end + 1];
    return pulled(call, () => call("openRead", path, start, ...range), "readChunk", signal);
  }
  // The disk as data (docs/data.md): the tree at `path` as a zip ("zip") or a SQLite disk
  // image ("sqlite"), as a ReadableStream<Uint8Array> pulled from the worker one chunk (about
  // 512 KiB) per read: nothing is built ahead of the reader, and cancel() stops the export and
  // frees what it held in the worker. An error in `path` errors the stream at its first read.
  // `signal`: aborting it stops the export (the stream errors with an AbortError).
  export(path = "/", { format = "zip", signal } = {}) {
    KINDS.path(path, "path");
    checkSignal(signal);
    const call = (op, ...args) => this.#call(op, ...args);
    return pulled(call, () => call("exportOpen", path, { format }), "exportChunk", signal, { highWaterMark: 0 });
  }
  // Makes the entries of a zip or SQLite image below `into` (made when missing), all in one
  // step, or none on any error (a hostile or malformed archive: EINVAL, EFBIG...). `source`: a
  // ReadableStream, Blob/File, ArrayBuffer or Uint8Array; sent to the worker one chunk at a
  // time. Resolves to {files, directories, symlinks, bytes}.
  // `signal`: aborted before importFinish, nothing is made.
  async import(source, { format = "zip", into = "/", signal } = {}) {
    KINDS.path(into, "options.into");
    throwIfAborted(checkSignal(signal));
    const pieces = importPieces(source);
    const call = (op, ...args) => this.#call(op, ...args);
    return pushed(call, await call("importOpen", { format, into }), pieces, "importChunk", "importFinish", signal);
  }
  async #writeStream(path, source, options) {
    const signal = checkSignal(options?.signal);
    const call = (op, ...args) => this.#call(op, ...args);
    await pushed(call, await call("openWrite", path, options), source, "writeChunk", "finishWrite", signal);
  }
  // Mounts (docs/mounts.md): a FileSystemDirectoryHandle becomes live at `path`, an empty
  // directory (made when missing). The handle is kept in IndexedDB, so the mount comes back after
  // a reload: at once when the browser still grants access, else listed as waiting until
  // reconnect(path), which asks the user (call it from a click).
  async mount(path, handle, { readOnly = false, signal } = {}) {
    KINDS.path(path, "path");
    throwIfAborted(checkSignal(signal));
    if (handle?.kind !== "directory") {
      throw fsError("ENOTDIR", `ENOTDIR: mount needs a FileSystemDirectoryHandle, mount '${path}'`, { path, syscall: "mount" });
    }
    await ensurePermission(handle, readOnly, path);
    const info = await this.#call("mount", path, handle, { readOnly });
    await (await this.#instance.store()).put({ path: info.path, handle, readOnly: Boolean(readOnly) });
    return info;
  }
  async unmount(path, opts) {
    const info = await this.#call("unmount", path, opts);
    await (await this.#instance.store()).delete(info.path);
    return info;
  }
  mounts(opts) { return this.#call("mounts", opts); }
  // Handle operations the worker made on mounted folders so far, by kind (diagnostics, tests).
  fsaCounters(opts) { return this.#call("fsaCounters", opts); }
  async reconnect(path, opts) {
    const info = await this.#call("mountInfo", path, opts);
    const record = await (await this.#instance.store()).get(info.path);
    if (!record) throw fsError("ENOENT", `ENOENT: no folder kept for the mount, mount '${path}'`, { path, syscall: "mount" });
    await ensurePermission(record.handle, record.readOnly, path);
    return this.#call("reconnect", info.path, record.handle, { readOnly: Boolean(record.readOnly) });
  }
  // The worker's memory: wasmBytes is the size of Pyodide's WebAssembly memory, which only grows,
  // so it is the high-water mark of everything Python held; jsHeapBytes where Chromium tells.
  memoryUsage(opts) { return this.#call("memoryUsage", opts); }
  // Every write is durable when it resolves, so there is nothing to flush: this only waits for
  // the calls made before it (a barrier, for code written against file systems that buffer).
  async flush({ signal } = {}) {
    throwIfAborted(checkSignal(signal));
    await this.#instance.settled();
  }
  // Waits for the calls in flight, then stops this VFS's worker; `openVFS` opens it again.
  async close({ signal } = {}) {
    throwIfAborted(checkSignal(signal));
    await this.#instance.close();
  }
  // The disk's dock (openVFS({dock}), docs/dock.md). sync(): one round now; resolves to the
  // status once every local commit is on the dock and the dock's head is here, rejects with
  // ENOTCONN (offline), EACCES (the token), EPERM (a held mass deletion: {confirm: true}
  // applies it), EPROTO (another refusal) or ENOTSUP (no dock).
  sync({ confirm = false, signal } = {}) { return this.#call("dockSync", { confirm, signal }); }
  // {state: "synced" | "pending" | "offline" | "error" | "held", pending, head, error?}, or
  // null when the disk has no dock.
  syncStatus(opts) { return this.#call("dockStatus", opts); }
  // Calls `listener(status)` on each change of syncStatus (and with the last one known, soon
  // after it subscribes); returns the unsubscribe function.
  onSyncStatus(listener) {
    if (typeof listener !== "function") throw invalidArgType("listener", "of type function", listener);
    const instance = this.#instance;
    instance.syncListeners.add(listener);
    const known = instance.syncState;
    if (known) queueMicrotask(() => instance.syncListeners.has(listener) && listener(known));
    return () => { instance.syncListeners.delete(listener); };
  }
    // The integrity check: {ok, problems: [{kind, where, message}], nodes, chunks, reclaimable...}.
  check(options) { return this.#call("check", options); }
  // {files, directories, symlinks, contentBytes, storedBytes, storeBytes, quotaBytes, persisted...}
  usage(options) { return this.#call("usage", options); }
  // Deletes stored chunks no file references (what streams cut short leave behind) once they are
  // older than `graceMs` (default 24 h, so that streams in flight in other tabs are safe);
  // resolves to how many. It also runs by itself after every boot.
  gc({ graceMs, signal } = {}) { return this.#call("gc", graceMs === undefined ? { signal } : { graceMs, signal }); }
  // `{defaults: true}`: puts the shipped default content back as shipped (a changed default file
  // replaced, a deleted one made again), in one commit by the writer "defaults"; other files
  // are not touched. Resolves to {version, written, kept} (docs/defaults.md).
  reset(options) { return this.#call("reset", options); }
  // Counters for tests and debugging: {reads: {nodes, chunks, meta}} records read since boot,
  // {boot: {from: "snapshot" | "packages", snapshot, shipped}} how Python started (docs/boot.md),
  // {durability: {asked, lastCommit}}: the openVFS option, and the durability the browser reports
  // for the last commit's transaction (null before the first commit; docs/storage.md),
  // {logCheckpoints}: how often the worker emptied the origin's IndexedDB log for the browser's
  // next start (docs/storage.md, "The log the next start replays"),
  // {calls} posted to the worker by this page before this one, {statCache: {hits, entries,
  // shared}} (docs/architecture.md, "The page's stat cache"),
  // {earlyReads}: calls this page answered from the records while Python booted (docs/boot.md),
  // {earlyReadsFromMemory}: of them, those answered from what earlier answers read, with no
  // IndexedDB transaction,
  // {streams, pinnedChunks}: streams open in the worker (JS streams, preview bodies) and the
  // distinct chunks they pin (kept in the store until released),
  // {runtime: {role, guests, failovers}}: "own" (this page's worker, not shared), "host" (this
  // page's worker, shared with `guests` other tabs) or "guest" (another tab's worker), and how
  // many times this page moved to another host (docs/architecture.md, "One runtime for every tab"),
  // {dataLoss}: null, or {message, at} when the browser last said it discarded this origin's
  // IndexedDB, every disk of it (docs/storage.md, "When the browser discards the disk").
  async diagnostics(opts) {
    const instance = this.#instance;
    const calls = instance.sent;
    const { guests = 0, ...worker } = await this.#call("diagnostics", opts);
    // Read after the worker answered: not beside the early reads of a returning visit, and a
    // report the worker's own open noticed is kept by then.
    const dataLoss = await lastDataLoss().catch(() => null);
    return { ...worker, calls, dataLoss, statCache: { hits: instance.cache.hits, entries: instance.cache.size, shared: instance.cache.shared },
      earlyReads: instance.earlyReads ?? 0, earlyReadsFromMemory: instance.earlyReadsFromMemory ?? 0,
      runtime: { role: instance.role ?? "own", guests, failovers: instance.failovers ?? 0 } };
  }
  // One use of the agent tool `name` (py_vfs/agent.py) with `input`; options {caps, workspace,
  // signal}. agentTools(vfs) (web/page/agent_tools.mjs) wraps it as a tool set for an LLM.
  agentTool(name, input, options) { return this.#call("agentTool", name, input, options); }
  // Runs a shell command line in this VFS's shell session (its cwd carries over between calls).
  // `onOutput(stream, text)`: the output as it is written ("stdout"/"stderr", UTF-8 decoded
  // across pieces) instead of in the answer; `isatty`: ls and grep color it; `interactive`: the
  // terminal's history, `!` expansion and continuation (docs/api.md).
  // `input()`: the line's standard input, asked for as the command reads: resolves to the next
  // text or bytes, null at the end (without it the line reads nothing).
  shell(line, options) { return this.#streamed("shell", line, options); }
  // Runs Python `code` as the shell's `python -c code ...args` does, in this VFS's shell session
  // (its view; `cwd` for this run only): {stdout, stderr, code}. `stdin`: its standard input
  // (text or bytes); `onOutput`, `input` and `signal` as for shell.
  runPython(code, options) { return this.#streamed("runPython", code, options); }
  #streamed(op, first, options) {
    const { onOutput, input, ...rest } = options ?? {};
    for (const [name, value] of [["onOutput", onOutput], ["input", input]]) {
      if (value !== undefined && typeof value !== "function") {
        return Promise.reject(invalidArgType(`options.${name}`, "of type function", value));
      }
    }
    if (!onOutput && !input) return this.#call(op, first, options);
    const streams = new ShellStreams(onOutput, input, rest.signal);
    const flags = { ...(onOutput ? { stream: true } : {}), ...(input ? { input: true } : {}) };
    return this.#call(op, first, { ...rest, ...flags }, streams).finally(() => streams.end());
  }
  // Tab completion of `line` at `cursor` in the shell session: {start, candidates, names}.
  complete(line, cursor, opts) { return this.#call("complete", line, cursor, opts); }
  // Resolves to a URL on the preview origin that serves `path` and nothing outside its root. By
  // default the root is `path` itself (a folder: everything below it, the URL ends in "/"; a
  // file: that file alone, under its own name), as the shell's `open`. With `{root}`, a folder
  // holding `path`, the URL serves `path` inside that root: `{root: "/"}` exposes the whole
  // disk to the previewed page, so ask for it only for content you trust.
  async previewUrl(path, { root, signal } = {}) {
    throwIfAborted(checkSignal(signal));
    if (this.#stepId !== null) throw fsError("EINVAL", "EINVAL: previewUrl outside the step", { syscall: "preview" });
    const target = normalize(KINDS.path(path, "path"));
    if (root === undefined) {
      const kind = (await this.stat(target)).isDirectory() ? "folder" : "file";
      const url = await this.#instance.rootUrl(target, kind);
      return kind === "folder" ? url : url + encodeURIComponent(target.split("/").pop());
    }
    const top = normalize(root);
    if (!(await this.stat(top)).isDirectory()) {
      throw fsError("ENOTDIR", `ENOTDIR: not a directory, preview '${root}'`, { path: root, syscall: "preview" });
    }
    const inside = top === "/" ? target : target.startsWith(top + "/") ? target.slice(top.length) : target === top ? "/" : null;
    if (inside === null) {
      throw fsError("EINVAL", `EINVAL: '${path}' is not inside the root '${root}'`, { path, syscall: "preview" });
    }
    const url = await this.#instance.rootUrl(top, "folder");
    return url + inside.split("/").filter(Boolean).map(encodeURIComponent).join("/");
  }
}


// The view a port from `vfs.transferable()` stands for, in the page or Web Worker it was posted to.
export function viewOf(port) {
  if (!(port instanceof MessagePort)) throw invalidArgType("port", "a MessagePort", port);
  return new VFS(viewClient(port));
}

// What vfs.import reads: a stream as it is, a Blob's stream, an ArrayBuffer or a TypedArray cut
// into chunk-sized views (no copy).
function importPieces(source) {
  if (isStream(source)) return source;
  if (typeof Blob !== "undefined" && source instanceof Blob) return source.stream();
  const bytes = source instanceof ArrayBuffer ? new Uint8Array(source)
    : ArrayBuffer.isView(source) ? new Uint8Array(source.buffer, source.byteOffset, source.byteLength) : null;
  if (!bytes) throw invalidArgType("source", "a ReadableStream, Blob, ArrayBuffer or Uint8Array", source);
  return (function* views() {
    for (let at = 0; at < bytes.byteLength; at += CHUNK_SIZE) yield bytes.subarray(at, at + CHUNK_SIZE);
  })();
}

// "/a/./b/../c" -> "/a/c", as the core folds paths (never above "/").
function normalize(path) {
  const parts = [];
  for (const segment of String(path).split("/")) {
    if (segment === "..") parts.pop();
    else if (segment && segment !== ".") parts.push(segment);
  }
  return "/" + parts.join("/");
}

// A call made while a step is open waits for the step to end. If it is still waiting after a
// while, the likely cause is the step's own function calling the outer vfs instead of its `tx`,
// which can never end (JS cannot tell that call from another caller's): say so on the console.
const STUCK_MS = 5000;
function warnIfStuck(pending, op) {
  let done = false;
  const timer = setTimeout(() => {
    if (!done) console.warn(`py_vfs: ${op} has waited ${STUCK_MS} ms for an open step; inside vfs.step(fn), use fn's tx, not the outer vfs (that deadlocks)`);
  }, STUCK_MS);
  const settle = () => { done = true; clearTimeout(timer); };
  pending.then(settle, settle);
}
