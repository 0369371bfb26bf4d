// Calls every export of pyvfs.mjs and every method of the API object with typical arguments,
// and uses the results' types: `tsc -p tests/types` (tests/run.sh's tier "types") fails when
// web/*.d.mts cannot describe what docs/api.md shows. Never run; only type-checked.

import {
  AbortError, agentTools, openVFS, pickDirectory, viewOf,
  type AgentTool, type Dir, type Dirent, type FileHandle, type FsError, type Stats, type SyncStatus, type VFS, type WatchEvent,
} from "../../web/pyvfs.mjs";

function expect<T>(value: T): T {
  return value;
}

export async function everyMethod(): Promise<void> {
  const vfs: VFS = await openVFS({
    name: "types", durability: "strict", runtime: "shared", snapshot: "off", writer: "agent:a",
    retention: { days: 7 }, defaults: false, realm: { timeoutMs: 5000 }, cacheBytes: 1 << 20,
    previewOrigin: "http://127.0.0.1:8001", dock: { url: "http://127.0.0.1:8765/", token: "pvd_x" },
    onProgress: ({ stage, loaded, total }) => console.log(stage, loaded ?? 0, total ?? 0),
  });
  const name: string | null = vfs.name;
  const writer: string = vfs.writer;
  const controller = new AbortController();
  const signal = controller.signal;

  // Files
  await vfs.writeFile("/a.txt", "hello", { mode: 0o644, signal });
  await vfs.writeFile("/b.bin", new Uint8Array([1, 2, 3]));
  await vfs.writeFile("/c.txt", new Blob(["streamed"]).stream(), "utf8");
  const text: string = await vfs.readFile("/a.txt", "utf8");
  const same: string = await vfs.readFile("/a.txt", { encoding: "latin1", signal });
  const bytes: Uint8Array = await vfs.readFile("/b.bin");
  await vfs.appendFile("/a.txt", " world", { encoding: "utf8" });
  await vfs.truncate("/a.txt", 3, { signal });
  await vfs.copyFile("/a.txt", "/d.txt", 1);
  await vfs.cp("/a.txt", "/e.txt", { recursive: true });
  const stream: ReadableStream<Uint8Array> = vfs.createReadStream("/a.txt", { start: 0, end: 1 });

  // Directories and names
  await vfs.mkdir("/dir/sub", { recursive: true, mode: "755" });
  const names: string[] = await vfs.readdir("/dir");
  const entries: Dirent[] = await vfs.readdir("/dir", { withFileTypes: true });
  const parents = entries.map((e) => [e.name, e.path, e.parentPath, e.isDirectory(), e.isFile(), e.isSymbolicLink()]);
  await vfs.rename("/d.txt", "/f.txt");
  await vfs.symlink("/a.txt", "/link", "file");
  const target: string = await vfs.readlink("/link");
  const real: string = await vfs.realpath("/link", { encoding: "utf8" });
  await vfs.unlink("/link");
  await vfs.rmdir("/dir/sub");
  await vfs.rm("/dir", { recursive: true, force: true });
  const there: boolean = await vfs.exists("/a.txt");

  // Metadata
  const stats: Stats = await vfs.stat("/a.txt");
  const lstats: Stats = await vfs.lstat("/a.txt", { signal });
  const fields: number[] = [stats.size, stats.mode, stats.mtimeMs, stats.ctimeMs, stats.atimeMs,
    stats.birthtimeMs, stats.uid, stats.gid, stats.nlink, stats.dev, stats.ino,
    stats.mtime.getTime(), stats.ctime.getTime(), stats.atime.getTime()];
  const kinds: boolean[] = [lstats.isFile(), lstats.isDirectory(), lstats.isSymbolicLink()];
  await vfs.chmod("/a.txt", 0o600);
  await vfs.utimes("/a.txt", new Date(), 1_700_000_000);
  const more: number[] = [stats.blksize, stats.blocks, stats.rdev, stats.birthtime.getTime()];
  const devices: boolean[] = [stats.isBlockDevice(), stats.isCharacterDevice(), stats.isFIFO(), stats.isSocket()];

  // node:fs/promises' other calls
  const { F_OK, R_OK, W_OK } = vfs.constants;
  await vfs.access("/a.txt", R_OK | W_OK);
  await vfs.access(new URL("file:///a.txt"), F_OK, { signal });
  const temp: string = await vfs.mkdtemp("/tmp-");
  await vfs.chown("/a.txt", 1000, -1);
  await vfs.lchown(new TextEncoder().encode("/a.txt"), -1, -1);
  await vfs.lutimes("/a.txt", 1, 2);
  const fs = await vfs.statfs("/");
  const room: number = fs.bavail * fs.bsize;
  await vfs.link("/a.txt", "/hard").catch(() => undefined);
  const firstMade: string | undefined = await vfs.mkdir("/x/y", { recursive: true });
  const everything: string[] = await vfs.readdir("/", { recursive: true });
  await vfs.writeFile("/new.txt", "aGk=", { encoding: "base64", flag: "wx" });
  const hex: string = await vfs.readFile("/new.txt", "hex");
  const deviceEntries = entries.map((e) => [e.isBlockDevice(), e.isCharacterDevice(), e.isFIFO(), e.isSocket()]);

  // Search
  const walked: string[] = await vfs.walk("/");
  const listed: string[] = await vfs.ls();
  const total: number = await vfs.du("/");
  const found = await vfs.find("/", "*.txt");
  const foundKinds: string[] = found.map((f) => `${f.path}:${f.type}`);
  const globbed: string[] = await vfs.glob("/**/*.txt", { signal });
  const grep = await vfs.grep("hel+o", "/", { ignoreCase: true, include: "*.txt", maxResults: 10, maxFileSize: Infinity });
  const lines: number[] = grep.matches.map((m) => m.line);
  const skipped: string[] = [...grep.skipped_paths, ...grep.skipped_binary_paths];
  const rows = await vfs.query("select path from files where size > ?", [0], { limit: 5 });
  const cells: unknown[][] = rows.rows;
  const truncated: boolean = rows.truncated;
  const tool = await vfs.agentTool("read_file", { path: "/a.txt" }, { caps: { maxDirEntries: 10 }, workspace: "w" });

  // The disk as data
  const zip: ReadableStream<Uint8Array> = vfs.export("/", { format: "zip" });
  const made = await vfs.import(await new Response(zip).arrayBuffer(), { format: "zip", into: "/copy" });
  const madeCount: number = made.files + made.directories + made.symlinks + made.bytes;

  // Writers, journal and snapshots
  const agent: VFS = vfs.as("agent:b");
  const journal = await vfs.journal({ since: new Date(0), writer: "agent:b", path: "/", limit: 10 });
  const revisions: number[] = journal.map((entry) => entry.revision);
  const snap = await vfs.snapshot("before");
  const snaps: string[] = (await vfs.snapshots()).map((s) => s.name);
  const changes = await vfs.diff("before", { before: Date.now() });
  const changed: string[] = changes.map((c) => `${c.change} ${c.oldPath ?? ""} ${c.path} ${c.kind}`);
  const restored = await vfs.restore({ revision: snap.revision }, { path: "/a.txt" });
  const then = vfs.at({ revision: snap.revision });
  const oldText: string = await then.readFile("/a.txt", "utf8");
  const oldBytes: Uint8Array = await then.readFile("/a.txt");
  const oldNames: string[] = await then.readdir("/");
  const oldEntries: Dirent[] = await then.readdir("/", { withFileTypes: true });
  const oldSize: number = (await then.stat("/a.txt")).size + (await then.lstat("/a.txt")).size;
  const oldThere: boolean = await then.exists("/a.txt");
  const oldLinks: string = (await then.realpath("/")) + (await vfs.at("before").readlink("/l").catch(() => ""));
  await vfs.deleteSnapshot("before");

  // Steps and watching
  const stepped: number = await vfs.step(async (tx) => {
    await tx.writeFile("/s.txt", "in a step");
    return (await tx.stat("/s.txt")).size;
  }, { signal });
  const events: WatchEvent[] = [];
  const unsubscribe = vfs.watch("/", (event) => events.push(event), { recursive: true, signal });
  await unsubscribe.ready;
  await unsubscribe();
  const watching = new AbortController();
  for await (const { eventType, filename } of vfs.watch("/", { recursive: true, signal: watching.signal })) {
    const kind: "rename" | "change" = eventType;
    if (filename) break;
    void kind;
  }

  // FileHandle and Dir
  const fh: FileHandle = await vfs.open("/h.txt", "w+", 0o644);
  const fd: number = fh.fd;
  const { bytesWritten } = await fh.write("text", 0, "utf8");
  await fh.write(new Uint8Array([1, 2, 3]), 0, 3, 4);
  const { bytesRead, buffer } = await fh.read(new Uint8Array(8), 0, 8, 0);
  const reread: Uint8Array = (await fh.read({ buffer: new Uint8Array(4), position: 0 })).buffer;
  await fh.readv([new Uint8Array(2)], 0);
  await fh.writev([new Uint8Array(2)], 0);
  const handleText: string = await fh.readFile("utf8");
  const handleHex: string = await fh.readFile({ encoding: "hex" });
  await fh.write("aGk=", null, "base64");
  await fh.writeFile("more");
  await fh.writeFile("6869", "hex");
  await fh.appendFile(new Uint8Array([10]));
  await fh.truncate(2);
  const handleStats: Stats = await fh.stat();
  await fh.chmod(0o600);
  await fh.utimes(new Date(), Date.now());
  await fh.sync();
  await fh.datasync();
  const fhLines: AsyncIterable<string> = fh.readLines();
  const web: ReadableStream<Uint8Array> = fh.readableWebStream();
  const ranged: ReadableStream<Uint8Array> = fh.createReadStream({ start: 0, end: 1 });
  const sink: WritableStream<Uint8Array | string> = fh.createWriteStream({ start: 0 });
  await fh.close();
  const dir: Dir = await vfs.opendir("/");
  const first: Dirent | null = await dir.read();
  for await (const entry of dir) void entry.name;
  void [fd, bytesWritten, bytesRead, buffer, reread, handleText, handleHex, handleStats, fhLines, web, ranged, sink, first];

  // Views and scoops
  const view: VFS = await vfs.restrict({ read: ["/shared"], write: ["/workspace"], writer: "view:x" });
  const scoop: VFS = await vfs.scoop("helper", { network: false });
  const port: MessagePort = await scoop.transferable();
  const again: VFS = viewOf(port);

  // Disk
  await vfs.flush();
  const report = await vfs.check();
  const problems: string[] = report.problems.map((p) => `${p.kind} ${p.where} ${p.message}`);
  const usage = await vfs.usage();
  const quota: number | null = usage.quotaBytes;
  const collected: number = await vfs.gc({ graceMs: 0 });
  const reset = await vfs.reset({ defaults: true });
  const written: string[] = reset.written;
  const synced: SyncStatus = await vfs.sync({ confirm: false });
  const state: "synced" | "pending" | "offline" | "error" | "held" = synced.state;
  const dockStatus: SyncStatus | null = await vfs.syncStatus();
  const stopStatus: () => void = vfs.onSyncStatus((now) => console.log(now.pending, now.head, now.error, state, dockStatus));
  stopStatus();
  const diagnostics = await vfs.diagnostics();
  const role: "own" | "host" | "guest" = diagnostics.runtime.role;
  const memory = await vfs.memoryUsage();
  const wasm: number = memory.wasmBytes;
  const counters: Record<string, number> = await vfs.fsaCounters();

  // Shell, Python, preview, mounts
  const shell = await vfs.shell("ls -la /", {
    onOutput: (streamName, piece) => console.log(streamName, piece),
    input: async () => null, isatty: true, rows: 24, cols: 80, signal,
  });
  const status: number = shell.code;
  const cwd: string = shell.cwd;
  const python = await vfs.runPython("print(1)", { cwd: "/", args: ["x"], stdin: "input" });
  const output: string = python.stdout + python.stderr + python.code;
  const completion = await vfs.complete("ls /wo", 6);
  const candidates: string[] = completion.candidates;
  const url: string = await vfs.previewUrl("/site", { root: "/" });
  const handle: FileSystemDirectoryHandle = await pickDirectory({ readOnly: true });
  const mounted = await vfs.mount("/work", handle, { readOnly: true });
  const mountState: "active" | "waiting" = mounted.state;
  const mounts: string[] = (await vfs.mounts()).map((m) => m.path);
  await vfs.reconnect("/work");
  await vfs.unmount("/work");

  // Agent tools
  const tools: AgentTool[] = agentTools(vfs, { prefix: "workspace__w__", caps: { maxFileSizeMb: 5 }, writer: "agent:c" });
  const anthropic = tools.map(({ name: toolName, description, input_schema }) => ({ name: toolName, description, input_schema }));
  const result = await tools[0].execute({ path: "/a.txt" }, { signal });

  // Errors
  try {
    await vfs.readFile("/missing");
  } catch (error) {
    const failure = error as FsError;
    const where: string = `${failure.code} ${failure.syscall ?? ""} ${failure.path ?? ""} ${failure.errno ?? 0}`;
    expect(where);
    if (error instanceof AbortError) expect<"ABORT_ERR">(error.code);
  }
  await vfs.close();

  expect([name, writer, text, same, bytes, stream, names, parents, target, real, there, fields,
    kinds, walked, listed, total, foundKinds, globbed, lines, skipped, cells, truncated, tool,
    madeCount, agent, revisions, snaps, changed, restored, oldText, oldBytes, oldNames, oldEntries, oldSize, oldThere, oldLinks, stepped, view, again, problems, quota,
    collected, written, role, wasm, counters, status, cwd, output, candidates, url, mountState,
    mounts, anthropic, result, more, devices, temp, room, firstMade, everything, hex, deviceEntries]);
}

// What must not type-check: each line below is an error tsc reports, or this file fails.
export async function misuses(vfs: VFS): Promise<void> {
  // @ts-expect-error readFile with an encoding resolves to text, not bytes
  const wrong: Uint8Array = await vfs.readFile("/a.txt", "utf8");
  // @ts-expect-error durability is one of three words
  await openVFS({ durability: "fast" });
  // @ts-expect-error reset needs {defaults: true}
  await vfs.reset();
  // @ts-expect-error readdir without withFileTypes gives names
  const entries: Dirent[] = await vfs.readdir("/");
  expect([wrong, entries]);
}
