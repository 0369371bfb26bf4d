// Types of api.mjs: the API object openVFS() resolves to (VFS), its Stats and Dirent, and
// viewOf (docs/api.md). Result shapes and errors: results.d.mts. tests/types/ checks this file
// with tsc --strict, and tests/e2e/test_types.py fails on a member of the real objects that it
// does not declare.

import type {
  AgentCaps, AgentToolResult, CheckReport, Completion, Diagnostics, DiffEntry, DiskState,
  FindEntry, GrepResult, ImportResult, JournalEntry, MemoryUsage, MountInfo, NodeKind,
  QueryResult, ResetResult, RestoreResult, RunPythonResult, ShellResult, SnapshotRecord,
  Unsubscribe, Usage, WatchEvent,
} from "./results.mjs";

export type * from "./results.mjs";

/** Every method takes an AbortSignal (docs/api.md, "Cancelling a call"). */
export interface Abortable {
  signal?: AbortSignal;
}

/** Node's encodings (docs/api.md, "Encodings"). */
export type Encoding =
  | "utf8" | "utf-8" | "latin1" | "binary" | "ascii" | "utf16le" | "utf-16le" | "ucs2" | "ucs-2"
  | "base64" | "base64url" | "hex";
export type ReadEncoding = Encoding;
/** A path: text, its bytes, or a file: URL. */
export type PathLike = string | Uint8Array | URL;
/** Node's open flags, as text or as fs.constants.O_* bits. */
export type OpenFlag =
  | "r" | "rs" | "sr" | "r+" | "rs+" | "sr+" | "w" | "wx" | "xw" | "w+" | "wx+" | "xw+"
  | "a" | "ax" | "xa" | "as" | "sa" | "a+" | "ax+" | "xa+" | "as+" | "sa+" | number;
/** A mode: a number, or an octal string ("755"). */
export type Mode = number | string;
/** A time: a Date, seconds since 1970, or numeric text. */
export type TimeLike = Date | number | string;
/** A point in time for the journal: a Date, ms since 1970, or ISO 8601 text. */
export type Instant = Date | number | string;
/** What writeFile writes: text (UTF-8), bytes, or a stream of either. */
export type WriteData =
  | string
  | ArrayBufferView
  | ReadableStream<Uint8Array | string>
  | AsyncIterable<Uint8Array | string>;

export interface ReadFileOptions extends Abortable {
  encoding?: ReadEncoding | null;
  flag?: OpenFlag;
}
export interface WriteFileOptions extends Abortable {
  encoding?: Encoding | null;
  mode?: Mode;
  /** "w" (default); "wx" fails with EEXIST when the file exists, "a" appends... as Node's. */
  flag?: OpenFlag;
}
export interface AppendFileOptions extends Abortable {
  encoding?: Encoding | null;
  mode?: Mode;
  flag?: OpenFlag;
}
/** What statfs resolves to, in node:fs's StatFs shape (blocks of `bsize` bytes). */
export interface StatFs {
  type: number;
  bsize: number;
  blocks: number;
  bfree: number;
  bavail: number;
  files: number;
  ffree: number;
}
export interface MkdirOptions extends Abortable {
  recursive?: boolean;
  mode?: Mode;
}
export interface ReaddirOptions extends Abortable {
  encoding?: Encoding | null;
  withFileTypes?: boolean;
  /** Every entry below, breadth first, as Node 20 lists them. */
  recursive?: boolean;
}
export interface RmOptions extends Abortable {
  recursive?: boolean;
  force?: boolean;
  maxRetries?: number;
  retryDelay?: number;
}
export interface CpOptions extends Abortable {
  recursive?: boolean;
}
export interface EncodingOptions extends Abortable {
  encoding?: Encoding | null;
}
export interface StatOptions extends Abortable {
  /** Refused when true. */
  bigint?: false;
}
export interface GrepOptions extends Abortable {
  /** The pattern is a regular expression (default true). */
  regex?: boolean;
  ignoreCase?: boolean;
  /** Only files whose path matches this glob. */
  include?: string;
  maxResults?: number;
  /** Files larger are skipped (Infinity: no limit). */
  maxFileSize?: number;
}
export interface QueryOptions extends Abortable {
  limit?: number;
}
export interface JournalOptions extends Abortable {
  since?: Instant;
  until?: Instant;
  writer?: string;
  path?: string;
  limit?: number;
}
export interface ReadStreamOptions extends Abortable {
  start?: number;
  /** Inclusive, as in Node. */
  end?: number;
}
export interface ExportOptions extends Abortable {
  format?: "zip" | "sqlite";
}
export interface ImportOptions extends Abortable {
  format?: "zip" | "sqlite";
  into?: string;
}
export type ImportSource = ReadableStream<Uint8Array> | Blob | ArrayBuffer | ArrayBufferView;
export interface WatchOptions extends Abortable {
  recursive?: boolean;
}
/** An event of watch(path, options) without a listener, as Node's fs/promises watch. */
/** vfs.at(state): the disk as it was in a state (as for diff), read only. */
export interface PastDisk {
  /** The state it was opened at, as given. */
  readonly state: DiskState;
  readFile(path: string, options?: (ReadFileOptions & { encoding?: null }) | null): Promise<Uint8Array>;
  readFile(path: string, options: ReadEncoding | (ReadFileOptions & { encoding: ReadEncoding })): Promise<string>;
  readFile(path: string, options?: ReadEncoding | ReadFileOptions | null): Promise<string | Uint8Array>;
  readdir(path: string, options: Abortable & { withFileTypes: true }): Promise<Dirent[]>;
  readdir(path: string, options?: Abortable & { withFileTypes?: false }): Promise<string[]>;
  stat(path: string, options?: Abortable): Promise<Stats>;
  lstat(path: string, options?: Abortable): Promise<Stats>;
  readlink(path: string, options?: Abortable): Promise<string>;
  realpath(path: string, options?: Abortable): Promise<string>;
  exists(path: string, options?: Abortable): Promise<boolean>;
}
export interface FsWatchEvent {
  eventType: "rename" | "change";
  filename: string;
}
/** Node's open() flags: one of its strings or a number of fs.constants O_* bits. */
export type OpenFlags = OpenFlag | number;
export interface FileReadResult<T extends ArrayBufferView> {
  bytesRead: number;
  buffer: T;
}
export interface FileWriteResult<T> {
  bytesWritten: number;
  buffer: T;
}
export interface FileReadOptions<T extends ArrayBufferView> {
  buffer?: T;
  offset?: number;
  length?: number;
  position?: number | bigint | null;
}
/**
 * Node's FileHandle, from open(). Its writes are read at once by every handle on the file and
 * reach the disk at sync() or close() (an append to the end, at once); see docs/api.md.
 * It also has [Symbol.asyncDispose] (close), where the runtime has that symbol.
 */
export interface FileHandle {
  /** The descriptor, -1 once closed. */
  readonly fd: number;
  read<T extends ArrayBufferView = Uint8Array>(buffer?: T, offset?: number | null, length?: number | null,
    position?: number | bigint | null): Promise<FileReadResult<T>>;
  read<T extends ArrayBufferView = Uint8Array>(options: FileReadOptions<T>): Promise<FileReadResult<T>>;
  write<T extends ArrayBufferView>(buffer: T, offset?: number | null, length?: number | null,
    position?: number | null): Promise<FileWriteResult<T>>;
  write(data: string, position?: number | null, encoding?: Encoding | null): Promise<FileWriteResult<string>>;
  readv<T extends ArrayBufferView[]>(buffers: T, position?: number | null): Promise<{ bytesRead: number; buffers: T }>;
  writev<T extends ArrayBufferView[]>(buffers: T, position?: number | null): Promise<{ bytesWritten: number; buffers: T }>;
  readFile(options?: { encoding?: null } | null): Promise<Uint8Array>;
  readFile(options: Encoding | { encoding: Encoding }): Promise<string>;
  writeFile(data: string | ArrayBufferView, options?: Encoding | { encoding?: Encoding | null } | null): Promise<void>;
  appendFile(data: string | ArrayBufferView, options?: Encoding | { encoding?: Encoding | null } | null): Promise<void>;
  truncate(len?: number): Promise<void>;
  stat(options?: { bigint?: false }): Promise<Stats>;
  chmod(mode: Mode): Promise<void>;
  utimes(atime: TimeLike, mtime: TimeLike): Promise<void>;
  sync(): Promise<void>;
  datasync(): Promise<void>;
  close(): Promise<void>;
  /** The lines from the handle's position; the handle is closed at their end. */
  readLines(): AsyncIterable<string>;
  /** A Web stream of the bytes from the handle's position. */
  readableWebStream(): ReadableStream<Uint8Array>;
  /** A Web ReadableStream (not a Node stream) of the bytes start..end, both inclusive. */
  createReadStream(options?: { start?: number; end?: number }): ReadableStream<Uint8Array>;
  /** A Web WritableStream (not a Node stream); closing it syncs the handle. */
  createWriteStream(options?: { start?: number }): WritableStream<Uint8Array | string>;
}
/** Node's Dir, from opendir(): the directory's entries as they were when it opened. */
export interface Dir extends AsyncIterable<Dirent> {
  readonly path: string;
  read(): Promise<Dirent | null>;
  close(): Promise<void>;
}

export interface RestrictOptions extends Abortable {
  read?: string[];
  write?: string[];
  writer?: string;
}
export interface ScoopOptions extends Abortable {
  /** Let the scoop's shell reach the network (curl, wget). */
  network?: boolean;
}
export interface AgentToolOptions extends Abortable {
  caps?: AgentCaps;
  workspace?: string;
}
export interface ShellOptions extends Abortable {
  /** The output as it is written, instead of collected in the result. */
  onOutput?: (stream: "stdout" | "stderr", text: string) => void;
  /** The next piece of standard input as the command reads; null is the end. */
  input?: (request: { raw: boolean }) => string | Uint8Array | null | Promise<string | Uint8Array | null>;
  isatty?: boolean;
  rows?: number;
  cols?: number;
  interactive?: boolean;
}
export interface RunPythonOptions extends Abortable {
  cwd?: string;
  args?: string[];
  stdin?: string | Uint8Array;
  onOutput?: ShellOptions["onOutput"];
  input?: ShellOptions["input"];
}
export interface PreviewUrlOptions extends Abortable {
  /** A folder holding the path: the URL serves the path inside it ("/": the whole disk). */
  root?: string;
}
export interface MountOptions extends Abortable {
  readOnly?: boolean;
}
export interface GcOptions extends Abortable {
  graceMs?: number;
}
export interface ResetOptions extends Abortable {
  defaults: true;
}
export interface SyncOptions extends Abortable {
  /** Send a push the dock held for deleting much of the disk (state "held"). */
  confirm?: boolean;
}
/** Where the disk's sync with its dock stands (docs/dock.md). */
export interface SyncStatus {
  state: "synced" | "pending" | "offline" | "error" | "held";
  /** Local commits not on the dock yet. */
  pending: number;
  /** The dock revision this disk has. */
  head: number;
  /** The last error (offline, refused, held). */
  error?: string;
}

/** The kind predicates that Stats and Dirent share, as node:fs's. */
export interface KindPredicates {
  isFile(): boolean;
  isDirectory(): boolean;
  isSymbolicLink(): boolean;
  /** Always false: the disk has no devices, FIFOs or sockets. */
  isBlockDevice(): boolean;
  isCharacterDevice(): boolean;
  isFIFO(): boolean;
  isSocket(): boolean;
}

/** What stat and lstat resolve to, in node:fs's shape (its predicates: KindPredicates). */
export interface Stats extends KindPredicates {}
export class Stats {
  private constructor();
  type: NodeKind;
  size: number;
  /** With the type bits (0o100644 for a file). */
  mode: number;
  mtimeMs: number;
  ctimeMs: number;
  atimeMs: number;
  birthtimeMs: number;
  mtime: Date;
  ctime: Date;
  atime: Date;
  birthtime: Date;
  blksize: number;
  blocks: number;
  rdev: number;
  /** Set when the Stats came from a listing. */
  name: string | undefined;
  path: string | undefined;
  uid: number;
  gid: number;
  nlink: number;
  dev: number;
  /**
   * The file's inode number: not 0, the same for a file across renames, rewrites and reloads
   * (from its node id on the disk: docs/api.md, "Stats"), another for every other file.
   */
  ino: number;
}

/** An entry of readdir(path, {withFileTypes: true}) (its predicates: KindPredicates). */
export interface Dirent extends KindPredicates {}
export class Dirent {
  private constructor();
  name: string;
  /** The directory that holds it, as Node 20's (an alias of parentPath). */
  path: string;
  /** The directory that holds it. */
  parentPath: string;
  type: NodeKind;
}

/**
 * The JS API over one disk (or a restricted view of one), in node:fs/promises shape: paths are
 * absolute, every method returns a Promise, errors are FsError (results.d.mts).
 */
export class VFS {
  private constructor();
  /** The VFS's name; null for a view. */
  name: string | null;
  /** Who this object's changes are made by ("user" by default). */
  writer: string;

  as(writer: string): VFS;
  restrict(options?: RestrictOptions): Promise<VFS>;
  scoop(name: string, options?: ScoopOptions): Promise<VFS>;
  transferable(options?: Abortable): Promise<MessagePort>;
  step<T>(fn: (tx: VFS) => T | Promise<T>, options?: Abortable): Promise<T>;
  watch(path: string, listener: (event: WatchEvent) => void, options?: WatchOptions): Unsubscribe;
  watch(path: PathLike, options?: WatchOptions): AsyncIterableIterator<FsWatchEvent>;
  open(path: PathLike, flags?: OpenFlags, mode?: Mode): Promise<FileHandle>;
  opendir(path: PathLike, options?: Abortable): Promise<Dir>;

  readFile(path: string, options?: (ReadFileOptions & { encoding?: null }) | null): Promise<Uint8Array>;
  readFile(path: string, options: ReadEncoding | (ReadFileOptions & { encoding: ReadEncoding })): Promise<string>;
  readFile(path: string, options?: ReadEncoding | ReadFileOptions | null): Promise<string | Uint8Array>;
  writeFile(path: string, data: WriteData, options?: Encoding | WriteFileOptions | null): Promise<void>;
  appendFile(path: string, data: string | ArrayBufferView, options?: Encoding | AppendFileOptions | null): Promise<void>;
  truncate(path: string, length?: number, options?: Abortable): Promise<void>;
  /** With {recursive: true}: the first directory made, or undefined when none was. */
  mkdir(path: PathLike, options?: Mode | MkdirOptions | null): Promise<string | undefined>;
  rm(path: string, options?: RmOptions): Promise<void>;
  rmdir(path: string, options?: Abortable & { recursive?: false }): Promise<void>;
  unlink(path: string, options?: Abortable): Promise<void>;
  rename(oldPath: string, newPath: string, options?: Abortable): Promise<void>;
  /** `mode`: fs.constants.COPYFILE_EXCL, COPYFILE_FICLONE, COPYFILE_FICLONE_FORCE (0..7). */
  copyFile(src: string, dest: string, mode?: number, options?: Abortable): Promise<void>;
  cp(src: string, dest: string, options?: CpOptions): Promise<void>;
  symlink(target: string, path: string, type?: "dir" | "file" | "junction" | null, options?: Abortable): Promise<void>;
  readlink(path: string, options?: Encoding | EncodingOptions | null): Promise<string>;
  realpath(path: string, options?: Encoding | EncodingOptions | null): Promise<string>;
  chmod(path: string, mode: Mode, options?: Abortable): Promise<void>;
  utimes(path: string, atime: TimeLike, mtime: TimeLike, options?: Abortable): Promise<void>;
  exists(path: string, options?: Abortable): Promise<boolean>;
  /** node:fs's fs.constants (Linux's values). */
  readonly constants: Readonly<Record<string, number>>;
  /** `mode`: constants.F_OK (default), or R_OK | W_OK | X_OK against the owner's bits. */
  access(path: PathLike, mode?: number, options?: Abortable): Promise<void>;
  mkdtemp(prefix: string, options?: Encoding | EncodingOptions | null): Promise<string>;
  /** Owners are not kept: uid/gid 1000 or -1 are accepted, others are EPERM. */
  chown(path: PathLike, uid: number, gid: number, options?: Abortable): Promise<void>;
  lchown(path: PathLike, uid: number, gid: number, options?: Abortable): Promise<void>;
  lutimes(path: PathLike, atime: TimeLike, mtime: TimeLike, options?: Abortable): Promise<void>;
  statfs(path: PathLike, options?: Abortable & { bigint?: false }): Promise<StatFs>;
  /** No hard links: EPERM after Linux's own checks. */
  link(existingPath: PathLike, newPath: PathLike, options?: Abortable): Promise<void>;
  stat(path: string, options?: StatOptions): Promise<Stats>;
  lstat(path: string, options?: StatOptions): Promise<Stats>;
  readdir(path: string, options: ReaddirOptions & { withFileTypes: true }): Promise<Dirent[]>;
  readdir(path: string, options?: Encoding | (ReaddirOptions & { withFileTypes?: false }) | null): Promise<string[]>;
  readdir(path: string, options?: Encoding | ReaddirOptions | null): Promise<string[] | Dirent[]>;
  createReadStream(path: string, options?: ReadStreamOptions): ReadableStream<Uint8Array>;

  walk(path?: string, options?: Abortable): Promise<string[]>;
  du(path?: string, options?: Abortable): Promise<number>;
  ls(prefix?: string, options?: Abortable): Promise<string[]>;
  find(directory?: string, pattern?: string | null, options?: Abortable): Promise<FindEntry[]>;
  glob(pattern: string, options?: Abortable): Promise<string[]>;
  grep(pattern: string, path?: string, options?: GrepOptions): Promise<GrepResult>;
  query(sql: string, params?: unknown[] | Record<string, unknown> | null, options?: QueryOptions): Promise<QueryResult>;
  agentTool(name: string, input: Record<string, unknown>, options?: AgentToolOptions): Promise<AgentToolResult>;

  export(path?: string, options?: ExportOptions): ReadableStream<Uint8Array>;
  import(source: ImportSource, options?: ImportOptions): Promise<ImportResult>;

  journal(options?: JournalOptions): Promise<JournalEntry[]>;
  snapshot(name: string, options?: Abortable): Promise<SnapshotRecord>;
  snapshots(options?: Abortable): Promise<SnapshotRecord[]>;
  deleteSnapshot(name: string, options?: Abortable): Promise<void>;
  diff(a: DiskState, b?: DiskState | null, options?: Abortable): Promise<DiffEntry[]>;
  restore(state: DiskState, options?: Abortable & { path?: string }): Promise<RestoreResult>;
  /** The disk as it was in `state`, read only (not offered by a view: EACCES). */
  at(state: DiskState): PastDisk;

  flush(options?: Abortable): Promise<void>;
  close(options?: Abortable): Promise<void>;
  check(options?: Abortable): Promise<CheckReport>;
  usage(options?: Abortable): Promise<Usage>;
  gc(options?: GcOptions): Promise<number>;
  reset(options: ResetOptions): Promise<ResetResult>;
  diagnostics(options?: Abortable): Promise<Diagnostics>;
  /** One round with the disk's dock (openVFS's `dock`): every local commit on it, its head here. */
  sync(options?: SyncOptions): Promise<SyncStatus>;
  /** The dock's status; null when the disk has no dock. */
  syncStatus(options?: Abortable): Promise<SyncStatus | null>;
  /** `listener` on each status change (and with the last known soon after); the unsubscribe. */
  onSyncStatus(listener: (status: SyncStatus) => void): () => void;
  memoryUsage(options?: Abortable): Promise<MemoryUsage>;
  fsaCounters(options?: Abortable): Promise<Record<string, number>>;

  shell(line: string, options?: ShellOptions): Promise<ShellResult>;
  runPython(code: string, options?: RunPythonOptions): Promise<RunPythonResult>;
  complete(line: string, cursor: number, options?: Abortable): Promise<Completion>;
  previewUrl(path: string, options?: PreviewUrlOptions): Promise<string>;
  mount(path: string, handle: FileSystemDirectoryHandle, options?: MountOptions): Promise<MountInfo>;
  unmount(path: string, options?: Abortable): Promise<MountInfo>;
  reconnect(path: string, options?: Abortable): Promise<MountInfo>;
  mounts(options?: Abortable): Promise<MountInfo[]>;
}

/** The view a port from `vfs.transferable()` stands for, where the port was posted to. */
export function viewOf(port: MessagePort): VFS;
